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
