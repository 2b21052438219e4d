//! The YAML layer: one place that decides how YAML is read and written.
//!
//! Reading uses serde-saphyr into `serde_json::Value` (key order kept): duplicate keys are
//! errors, as in Kubernetes' strict decoding, and a budget bounds depth, nodes and aliases.
//! Writing quotes every string that a YAML 1.1 reader (kubectl, the API machinery) would
//! take for a boolean, number, null or timestamp.

use serde::Serialize;
use serde_json::Value;

/// Deepest nesting accepted. Kubernetes objects rarely pass 20 levels; this bounds recursion.
pub const MAX_DEPTH: usize = 256;
/// Most YAML nodes (mappings, sequences, scalars) accepted in one input.
pub const MAX_NODES: usize = 50_000_000;
/// Most documents accepted in one multi-document stream.
pub const MAX_DOCUMENTS: usize = 10_000_000;
/// Largest input accepted, in bytes.
pub const MAX_INPUT_BYTES: usize = 1 << 30;

fn read_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    budget.max_events = MAX_NODES.saturating_mul(3);
    budget.max_total_scalar_bytes = MAX_INPUT_BYTES;
    budget.max_reader_input_bytes = Some(MAX_INPUT_BYTES);
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    options
}

fn write_options() -> serde_saphyr::SerializerOptions {
    let mut options = serde_saphyr::SerializerOptions::default();
    // Long single-line strings stay on one line; multi-line strings use `|` blocks.
    options.folded_wrap_chars = usize::MAX;
    options
}

/// Parses one YAML document into a generic value.
pub fn parse(text: &str) -> Result<Value, String> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "input is {} bytes, larger than the limit of {} bytes",
            text.len(),
            MAX_INPUT_BYTES
        ));
    }
    serde_saphyr::from_str_with_options(text, read_options()).map_err(|e| e.to_string())
}

/// Parses every document of a multi-document stream.
pub fn parse_stream(text: &str) -> Result<Vec<Value>, String> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "input is {} bytes, larger than the limit of {} bytes",
            text.len(),
            MAX_INPUT_BYTES
        ));
    }
    let mut options = read_options();
    if let Some(budget) = options.budget.as_mut() {
        budget.max_documents = MAX_DOCUMENTS;
    }
    serde_saphyr::from_multiple_with_options(text, options).map_err(|e| e.to_string())
}

/// Writes one value as a YAML document (no leading `---`).
pub fn write<T: Serialize>(value: &T) -> Result<String, String> {
    serde_saphyr::to_string_with_options(value, write_options()).map_err(|e| e.to_string())
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
