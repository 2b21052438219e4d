//! What the configuration's parts share to check a value and to say what is wrong: the error
//! naming the field, and the class name's rule (a pattern for editors, a check for the run).

use serde_json::Value;
use std::fmt;

/// Empty, or starting and ending with something other than whitespace.
pub(super) const CLASS_NAME_PATTERN: &str = r"^(\S([\s\S]*\S)?)?$";

/// A configuration error: the field at fault and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl ConfigError {
    pub(super) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Flags (--x) and environment variables (X_Y) are named as they are; paths are inside
        // the functionConfig.
        let outside = self.field.starts_with('-')
            || self.field.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c == ' ' || c == '/');
        if self.field.is_empty() {
            write!(f, "functionConfig {}", self.message)
        } else if outside {
            write!(f, "{}: {}", self.field, self.message)
        } else {
            write!(f, "functionConfig {}: {}", self.field, self.message)
        }
    }
}

/// A class name without surrounding whitespace: the operator refuses to start with one
/// (`OperatorConfig.Validate`), and SPIRE Controller Manager would compare it as written.
pub fn validate_class_name(class: &str) -> Result<(), String> {
    if class.trim() != class {
        return Err(format!(
            "{class:?} has leading or trailing whitespace: remove it (the kleym operator refuses such a class name)"
        ));
    }
    Ok(())
}

/// Says in an object schema that `flag: true` needs a non-empty `field`: a rule the derive
/// cannot say, for the editors the schema is for.
pub(super) fn needs_when_true(schema: &mut schemars::Schema, flag: &str, field: &str) {
    let rule = serde_json::json!({
        "if": {"properties": {flag: {"const": true}}, "required": [flag]},
        "then": {"properties": {field: {"type": "string", "minLength": 1}}, "required": [field]},
    });
    if let Some(all) =
        schema.ensure_object().entry("allOf").or_insert_with(|| Value::Array(Vec::new())).as_array_mut()
    {
        all.push(rule);
    }
}
