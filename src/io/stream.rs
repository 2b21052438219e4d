//! Plain multi-document YAML streams (kustomize exec plugins, directory renders): items
//! in, items out, no ResourceList wrapper.

use crate::yaml;
use serde_json::Value;

/// Reads every document of a stream; empty documents are skipped. The error names the
/// document (counted from 0) that is not a mapping.
pub fn read(text: &str) -> Result<Vec<Value>, String> {
    let documents = yaml::parse_stream(text)?;
    let mut items = Vec::with_capacity(documents.len());
    for (i, doc) in documents.into_iter().enumerate() {
        match doc {
            Value::Null => {}
            Value::Object(_) => items.push(doc),
            other => {
                return Err(format!("document {i} must be a mapping, not a {}", yaml::type_name(&other)));
            }
        }
    }
    Ok(items)
}

/// Writes items as documents separated by `---`.
pub fn write<T: serde::Serialize>(items: &[T]) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&yaml::write(item).expect("a JSON-shaped value always writes as YAML"));
    }
    out
}
