//! The value of an input item the reconcile reads whole: a YAML tree held compactly.
//!
//! `serde_json::Value` with ordered maps spends about 130 bytes on every node (each node
//! is 80 bytes wide, each map entry holds its key's hash and an index table beside it).
//! The items the reconcile reads whole are most of a large run's memory, so they are held
//! here instead: a node is 24 bytes, a map is its entries in order in one allocation, and a
//! key or string is a boxed `str`. Maps are small, so a lookup is a scan. The methods are
//! named as `serde_json::Value`'s, and a value serializes as that one would, byte for byte.
//! No maintained crate holds an ordered YAML tree this small (docs/performance.md).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Deserializer};
pub use serde_json::Number;

/// One node of an item's value.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Box<str>),
    Array(Box<[Value]>),
    Object(Map),
}

/// A mapping, its entries in the order they came. Two are equal when they hold the same
/// entries in any order, as two `serde_json` maps are.
#[derive(Debug, Clone, Default)]
pub struct Map(Box<[(Box<str>, Value)]>);

impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Map {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// Whether the map has `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The entries, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Value)> + ExactSizeIterator + Clone {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        self.0.iter().map(|(k, _)| &**k)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value under `key`, set to null last when the key is not there.
    pub fn entry(&mut self, key: &str) -> &mut Value {
        let at = match self.0.iter().position(|(k, _)| &**k == key) {
            Some(at) => at,
            None => {
                self.insert(key, Value::Null);
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }

    /// Takes `key` out, keeping the order of the rest.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.0.iter().position(|(k, _)| &**k == key)?;
        let mut entries = std::mem::take(&mut self.0).into_vec();
        let (_, value) = entries.remove(at);
        self.0 = entries.into_boxed_slice();
        Some(value)
    }

    /// Sets `key` to `value`: in its place when the key is there, else last.
    pub fn insert(&mut self, key: &str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| &**k == key) {
            Some((_, old)) => *old = value,
            None => {
                let mut entries = std::mem::take(&mut self.0).into_vec();
                entries.push((key.into(), value));
                self.0 = entries.into_boxed_slice();
            }
        }
    }
}

/// A mapping of strings an annotation reader looks in: an input item's, or a rendered
/// object's (a `serde_json::Map`).
pub trait StrMap {
    /// The string under `key`, when there is one.
    fn str_of(&self, key: &str) -> Option<&str>;
}

impl StrMap for Map {
    fn str_of(&self, key: &str) -> Option<&str> {
        self.get(key)?.as_str()
    }
}

impl StrMap for serde_json::Map<String, serde_json::Value> {
    fn str_of(&self, key: &str) -> Option<&str> {
        self.get(key)?.as_str()
    }
}

impl<'m> IntoIterator for &'m Map {
    type Item = (&'m str, &'m Value);
    type IntoIter =
        std::iter::Map<std::slice::Iter<'m, (Box<str>, Value)>, fn(&(Box<str>, Value)) -> (&str, &Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (&**k, v))
    }
}

/// Entries in order; a key given twice keeps its first place and its last value, as a
/// `serde_json::Map` would.
impl<K: Into<Box<str>>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(entries: I) -> Map {
        let mut out: Vec<(Box<str>, Value)> = Vec::new();
        let mut at: std::collections::HashMap<Box<str>, usize> = std::collections::HashMap::new();
        for (key, value) in entries {
            let key = key.into();
            match at.get(&key) {
                Some(&i) => out[i].1 = value,
                None => {
                    at.insert(key.clone(), out.len());
                    out.push((key, value));
                }
            }
        }
        Map(out.into_boxed_slice())
    }
}

impl Map {
    /// A map of entries whose keys are known to differ (a reader that refuses a key given
    /// twice, a `serde_json::Map`).
    pub fn from_unique(entries: Vec<(Box<str>, Value)>) -> Map {
        Map(entries.into_boxed_slice())
    }
}

impl Value {
    /// The value under `key` of a mapping.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    /// The value at a JSON pointer (`/a/0/b`, `~1` for `/` and `~0` for `~`), as
    /// `serde_json::Value::pointer` finds it.
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).try_fold(
            self,
            |at, token| match at {
                Value::Object(map) => map.get(&token),
                Value::Array(list) => {
                    if token.starts_with('+') || (token.starts_with('0') && token.len() > 1) {
                        return None;
                    }
                    list.get(token.parse::<usize>().ok()?)
                }
                _ => None,
            },
        )
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(list) => Some(list),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// A count as the API server receives it from kubectl: a whole number, written as an
    /// integer or as a float without a fraction (sigs.k8s.io/yaml `YAMLToJSON` writes the
    /// float64 `3.0` as JSON `3`).
    pub fn as_count(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64().or_else(|| whole_count(n.as_f64()?)),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// The same value as a `serde_json::Value`, for the few readers that change or
    /// deserialize what they read.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.clone()),
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Array(list) => serde_json::Value::Array(list.iter().map(Value::to_json).collect()),
            Value::Object(map) => {
                serde_json::Value::Object(map.iter().map(|(k, v)| (k.to_string(), v.to_json())).collect())
            }
        }
    }
}

static NULL: Value = Value::Null;

/// `value["key"]`: the value under `key`, null when there is none, as `serde_json`'s.
impl std::ops::Index<&str> for Value {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

/// `value[i]`: the `i`th entry of a sequence, null when there is none.
impl std::ops::Index<usize> for Value {
    type Output = Value;

    fn index(&self, at: usize) -> &Value {
        self.as_array().and_then(|list| list.get(at)).unwrap_or(&NULL)
    }
}

/// `value["key"] = ...`: a null becomes an empty mapping first, as with `serde_json`'s.
impl std::ops::IndexMut<&str> for Value {
    fn index_mut(&mut self, key: &str) -> &mut Value {
        if self.is_null() {
            *self = Value::Object(Map::default());
        }
        match self {
            Value::Object(map) => map.entry(key),
            _ => panic!("cannot set {key:?} of a value that is not a mapping"),
        }
    }
}

/// As JSON, as `serde_json::Value` prints.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl From<serde_json::Value> for Value {
    fn from(value: serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n),
            serde_json::Value::String(s) => Value::String(s.into_boxed_str()),
            serde_json::Value::Array(list) => Value::Array(list.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(map) => Value::Object(Map::from_unique(
                map.into_iter().map(|(k, v)| (k.into_boxed_str(), Value::from(v))).collect(),
            )),
        }
    }
}

impl From<&Value> for serde_json::Value {
    fn from(value: &Value) -> serde_json::Value {
        value.to_json()
    }
}

impl PartialEq<serde_json::Value> for Value {
    fn eq(&self, other: &serde_json::Value) -> bool {
        match (self, other) {
            (Value::Null, serde_json::Value::Null) => true,
            (Value::Bool(a), serde_json::Value::Bool(b)) => a == b,
            (Value::Number(a), serde_json::Value::Number(b)) => a == b,
            (Value::String(a), serde_json::Value::String(b)) => **a == **b,
            (Value::Array(a), serde_json::Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a == b)
            }
            (Value::Object(a), serde_json::Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == w))
            }
            _ => false,
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => n.serialize(serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(list) => {
                let mut out = serializer.serialize_seq(Some(list.len()))?;
                for item in list {
                    out.serialize_element(item)?;
                }
                out.end()
            }
            Value::Object(map) => map.serialize(serializer),
        }
    }
}

/// Read as a `serde_json::Value`, then held compactly: for the typed records that keep a
/// part of an item as it came (the operator's ownership records of a binding's status).
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        serde_json::Value::deserialize(deserializer).map(Value::from)
    }
}

impl Serialize for Map {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self {
            out.serialize_entry(key, value)?;
        }
        out.end()
    }
}

/// A float without a fraction, as the count it is: what kubectl sends for `3.0`.
pub fn whole_count(f: f64) -> Option<u64> {
    (f >= 0.0 && f.fract() == 0.0 && f < 2f64.powi(53)).then_some(f as u64)
}

/// `serde_json::json!`, held as an item's [`Value`]: for tests that build input items.
#[cfg(test)]
macro_rules! item_json {
    ($($tree:tt)+) => {
        $crate::api::value::Value::from(serde_json::json!($($tree)+))
    };
}
#[cfg(test)]
pub(crate) use item_json;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> serde_json::Value {
        json!({
            "kind": "InferencePool", "z": null, "a": [1, -2, 2.5, true, "x", {"b/c": {"~d": 3}}],
            "metadata": {"name": "p", "labels": {}}, "empty": []
        })
    }

    #[test]
    fn a_value_serializes_as_serde_jsons_in_its_order() {
        let value = Value::from(sample());
        assert_eq!(serde_json::to_string(&value).unwrap(), serde_json::to_string(&sample()).unwrap());
        assert_eq!(value.to_json(), sample());
        assert_eq!(value, sample());
        assert_ne!(value, json!({"kind": "InferencePool"}));
        let (ab, ba) = (Value::from(json!({"a": 1, "b": 2})), Value::from(json!({"b": 2, "a": 1})));
        assert!(ab == ba && ab == json!({"b": 2, "a": 1}), "maps are equal in any order");
        assert_ne!(ab, Value::from(json!({"a": 1, "b": 3})));
    }

    #[test]
    fn readers_answer_as_serde_jsons() {
        let (value, json) = (Value::from(sample()), sample());
        for pointer in ["", "/kind", "/a/0", "/a/5/b~1c/~0d", "/a/01", "/a/9", "/metadata/name", "/x", "kind"]
        {
            assert_eq!(
                value.pointer(pointer).map(Value::to_json),
                json.pointer(pointer).cloned(),
                "{pointer}"
            );
        }
        assert_eq!(value.get("kind").and_then(Value::as_str), Some("InferencePool"));
        assert_eq!(value.pointer("/a/1").and_then(Value::as_i64), Some(-2));
        assert_eq!(value.pointer("/a/0").and_then(Value::as_u64), Some(1));
        assert_eq!(value.pointer("/a/2").and_then(Value::as_f64), Some(2.5));
        assert_eq!(value.pointer("/a/3").and_then(Value::as_bool), Some(true));
        assert!(value.get("z").unwrap().is_null() && value.get("a").unwrap().is_array());
        assert!(value.get("metadata").unwrap().is_object() && value.get("kind").unwrap().is_string());
        assert_eq!(value.get("a").and_then(Value::as_array).map(<[Value]>::len), Some(6));
        assert_eq!(
            value.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["kind", "z", "a", "metadata", "empty"]
        );
    }

    #[test]
    fn a_key_given_twice_keeps_its_first_place_and_last_value() {
        let map: Map =
            [("a", Value::Null), ("b", Value::Bool(true)), ("a", Value::Bool(false))].into_iter().collect();
        assert_eq!(map.iter().collect::<Vec<_>>(), [("a", &Value::Bool(false)), ("b", &Value::Bool(true))]);
        let mut map = map;
        map.insert("c", Value::Null);
        map.insert("a", Value::Null);
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(map.contains_key("c") && map.get("a").unwrap().is_null() && map.len() == 3);
    }
}
