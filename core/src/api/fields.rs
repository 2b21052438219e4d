//! Lenient field access on generic items: finds a field by its dotted path and says
//! precisely what is wrong when it is missing or of the wrong YAML type.

use crate::api::value::Value;

/// What a node of a tree is, as YAML names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Null,
    Boolean,
    Number,
    String,
    Sequence,
    Mapping,
}

/// A tree the readers below walk: an input item's [`Value`], or a `serde_json::Value` (the
/// config, what KServe derives).
pub trait Tree: Sized {
    /// The value under `key` when this is a mapping.
    fn child_at(&self, key: &str) -> Option<&Self>;
    fn text(&self) -> Option<&str>;
    fn shape(&self) -> Shape;

    /// The YAML type name, for error messages.
    fn type_name(&self) -> &'static str {
        match self.shape() {
            Shape::Null => "null",
            Shape::Boolean => "boolean",
            Shape::Number => "number",
            Shape::String => "string",
            Shape::Sequence => "sequence",
            Shape::Mapping => "mapping",
        }
    }
}

impl Tree for Value {
    fn child_at(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn shape(&self) -> Shape {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(_) => Shape::Boolean,
            Value::Number(_) => Shape::Number,
            Value::String(_) => Shape::String,
            Value::Array(_) => Shape::Sequence,
            Value::Object(_) => Shape::Mapping,
        }
    }
}

impl Tree for serde_json::Value {
    fn child_at(&self, key: &str) -> Option<&serde_json::Value> {
        self.as_object()?.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn shape(&self) -> Shape {
        use serde_json::Value as J;
        match self {
            J::Null => Shape::Null,
            J::Bool(_) => Shape::Boolean,
            J::Number(_) => Shape::Number,
            J::String(_) => Shape::String,
            J::Array(_) => Shape::Sequence,
            J::Object(_) => Shape::Mapping,
        }
    }
}

/// Finds `path` (dot-separated keys) under `root`. `Ok(None)` when a key is missing or
/// null; `Err` names the first part of the path that is not a mapping.
pub fn lookup<'a, T: Tree>(root: &'a T, path: &str) -> Result<Option<&'a T>, String> {
    let mut current = root;
    let mut walked = 0;
    for key in path.split('.') {
        if current.shape() != Shape::Mapping {
            let parent = &path[..walked.max(1) - 1];
            return Err(format!("{parent} must be a mapping, not a {}", current.type_name()));
        }
        match current.child_at(key) {
            Some(next) if next.shape() != Shape::Null => current = next,
            _ => return Ok(None),
        }
        walked += key.len() + 1;
    }
    Ok(Some(current))
}

/// The value under each of the mapping keys `keys` in turn: `root.pointer("/a/b")` without
/// the two strings `pointer` builds for every key (it unescapes `~1` and `~0`), for paths
/// read once per item. Unlike a pointer, a key never indexes a list.
pub fn child<'a, T: Tree>(root: &'a T, keys: &[&str]) -> Option<&'a T> {
    keys.iter().try_fold(root, |value, key| value.child_at(key))
}

/// A required string field: missing, wrong type and non-mapping parents are errors.
pub fn required_str<'a, T: Tree>(root: &'a T, path: &str) -> Result<&'a str, String> {
    match lookup(root, path)? {
        None => Err(format!("{path} is required")),
        Some(found) => {
            found.text().ok_or_else(|| format!("{path} must be a string, not a {}", found.type_name()))
        }
    }
}

/// An optional string field: `Ok(None)` when missing or null.
pub fn optional_str<'a, T: Tree>(root: &'a T, path: &str) -> Result<Option<&'a str>, String> {
    match lookup(root, path)? {
        None => Ok(None),
        Some(found) => found
            .text()
            .map(Some)
            .ok_or_else(|| format!("{path} must be a string, not a {}", found.type_name())),
    }
}

/// A string at `path`, or `None` for anything else; for fields that only classify items.
pub fn str_at<'a, T: Tree>(root: &'a T, path: &str) -> Option<&'a str> {
    lookup(root, path).ok().flatten().and_then(Tree::text)
}

/// The YAML type name of a value, for error messages.
pub fn type_name<T: Tree>(value: &T) -> &'static str {
    value.type_name()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_name_the_field_and_the_type() {
        let v = json!({"spec": {"poolRef": "oops", "sa": 3}});
        assert_eq!(
            required_str(&v, "spec.poolRef.name").unwrap_err(),
            "spec.poolRef must be a mapping, not a string"
        );
        assert_eq!(required_str(&v, "spec.sa").unwrap_err(), "spec.sa must be a string, not a number");
        assert_eq!(required_str(&v, "spec.x").unwrap_err(), "spec.x is required");
        assert_eq!(optional_str(&v, "spec.x").unwrap(), None);
    }

    #[test]
    fn a_child_is_what_a_pointer_finds() {
        let v = json!({"metadata": {"annotations": {"a": "1"}, "labels": null}, "spec": [1, 2], "n": 3});
        for keys in [
            &["metadata", "annotations"][..],
            &["metadata", "labels"],
            &["metadata", "labels", "x"],
            &["n", "x"],
            &["missing"],
            &[],
        ] {
            let pointer = keys.iter().map(|k| format!("/{k}")).collect::<String>();
            assert_eq!(child(&v, keys), v.pointer(&pointer), "{pointer}");
        }
        assert_eq!(child(&v, &["spec", "0"]), None, "a key is no list index");
    }
}
