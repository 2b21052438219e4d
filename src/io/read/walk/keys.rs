//! The keys of one mapping, to find a repeated one.

use std::borrow::Cow;
use std::collections::HashSet;

/// The keys of one mapping, to find a repeated one: compared in a list while few (most
/// Kubernetes mappings have a handful), hashed beyond.
#[derive(Default)]
pub(super) struct Keys<'a> {
    few: Vec<Cow<'a, str>>,
    many: HashSet<Cow<'a, str>>,
}

impl<'a> Keys<'a> {
    const FEW: usize = 16;

    pub(super) fn clear(&mut self) {
        self.few.clear();
        self.many.clear();
    }

    /// Adds a key; `false` when it was there already.
    pub(super) fn insert(&mut self, key: Cow<'a, str>) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&key) {
                return false;
            }
            self.few.push(key);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().cloned());
        }
        self.many.insert(key)
    }
}

#[cfg(test)]
mod tests {
    use super::Keys;

    /// Up to [`Keys::FEW`] keys are compared in the list; the next moves them all to the
    /// set. A repeat is found on either side of the move.
    #[test]
    fn few_keys_are_listed_more_are_hashed_and_a_repeat_is_found_in_both() {
        let names: Vec<String> = (0..=Keys::FEW).map(|i| format!("k{i}")).collect();
        let mut keys = Keys::default();
        for name in &names[..Keys::FEW - 1] {
            assert!(keys.insert(name.as_str().into()));
        }
        assert!(!keys.insert("k0".into()), "a repeat among few");
        assert!(keys.insert(names[Keys::FEW - 1].as_str().into()));
        assert!(keys.many.is_empty(), "{} keys are only listed", Keys::FEW);
        assert!(keys.insert(names[Keys::FEW].as_str().into()));
        assert_eq!(keys.many.len(), Keys::FEW + 1, "one more moves them all to the set");
        assert!(!keys.insert("k0".into()), "a repeat of a listed key among many");
        assert!(!keys.insert(names[Keys::FEW].as_str().into()), "a repeat of a hashed key");
        keys.clear();
        assert!(keys.insert("k0".into()), "cleared, a key is new again");
        assert!(keys.many.is_empty());
    }
}
