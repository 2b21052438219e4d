//! A pool selector's labels: key and value pairs sorted by key, held as one short list (a
//! map per binding would cost several times the memory) and written as a YAML mapping.

use serde::{Serialize, Serializer};

/// Label pairs with unique keys, sorted by key in byte order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels(Vec<(String, String)>);

impl Labels {
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_vec(self) -> Vec<(String, String)> {
        self.0
    }
}

/// Sorted by key; where a key comes twice, the later value stands, as in a map.
impl FromIterator<(String, String)> for Labels {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Self {
        let mut pairs: Vec<(String, String)> = pairs.into_iter().collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(later, kept);
            }
            same
        });
        pairs.shrink_to_fit();
        Labels(pairs)
    }
}

impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn pairs_are_sorted_by_key_in_byte_order() {
        let l = labels(&[("b", "1"), ("B", "2"), ("a/x", "3"), ("a", "4")]);
        assert_eq!(l.iter().collect::<Vec<_>>(), [("B", "2"), ("a", "4"), ("a/x", "3"), ("b", "1")]);
    }

    #[test]
    fn a_repeated_key_keeps_the_later_value_as_a_map_would() {
        let l = labels(&[("k", "first"), ("j", "x"), ("k", "second"), ("k", "third")]);
        assert_eq!(l.iter().collect::<Vec<_>>(), [("j", "x"), ("k", "third")]);
    }

    #[test]
    fn it_writes_as_a_mapping() {
        let l = labels(&[("z", "1"), ("app", "m")]);
        assert_eq!(serde_json::to_string(&l).unwrap(), r#"{"app":"m","z":"1"}"#);
    }
}
