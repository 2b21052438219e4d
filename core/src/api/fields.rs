//! Lenient field access on generic items: finds a field by its dotted path and says
//! precisely what is wrong when it is missing or of the wrong YAML type.

use serde_json::Value;

/// Finds `path` (dot-separated keys) under `root`. `Ok(None)` when a key is missing or
/// null; `Err` names the first part of the path that is not a mapping.
pub fn lookup<'a>(root: &'a Value, path: &str) -> Result<Option<&'a Value>, String> {
    let mut current = root;
    let mut walked = 0;
    for key in path.split('.') {
        match current {
            Value::Object(map) => match map.get(key) {
                None | Some(Value::Null) => return Ok(None),
                Some(next) => current = next,
            },
            other => {
                let parent = &path[..walked.max(1) - 1];
                return Err(format!("{parent} must be a mapping, not a {}", type_name(other)));
            }
        }
        walked += key.len() + 1;
    }
    Ok(Some(current))
}

/// The value under each of the mapping keys `keys` in turn: `root.pointer("/a/b")` without
/// the two strings `pointer` builds for every key (it unescapes `~1` and `~0`), for paths
/// read once per item. Unlike a pointer, a key never indexes a list.
pub fn child<'a>(root: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().try_fold(root, |value, key| value.get(key))
}

/// A required string field: missing, wrong type and non-mapping parents are errors.
pub fn required_str<'a>(root: &'a Value, path: &str) -> Result<&'a str, String> {
    match lookup(root, path)? {
        None => Err(format!("{path} is required")),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("{path} must be a string, not a {}", type_name(other))),
    }
}

/// An optional string field: `Ok(None)` when missing or null.
pub fn optional_str<'a>(root: &'a Value, path: &str) -> Result<Option<&'a str>, String> {
    match lookup(root, path)? {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("{path} must be a string, not a {}", type_name(other))),
    }
}

/// A string at `path`, or `None` for anything else; for fields that only classify items.
pub fn str_at<'a>(root: &'a Value, path: &str) -> Option<&'a str> {
    lookup(root, path).ok().flatten().and_then(Value::as_str)
}

/// The YAML type name of a value, for error messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "sequence",
        Value::Object(_) => "mapping",
    }
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
