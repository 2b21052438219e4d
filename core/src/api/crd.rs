//! The InferenceIdentityBinding CRD that `crd` prints: the one derived from the Rust types,
//! completed with what the derive does not write (the implicit top-level fields, `listKind`)
//! and without the `nullable` marks and serde `default`s it adds to optional fields, so that
//! node by node it is the operator's CRD plus the one documented extension
//! (docs/reference.md#ways-to-run, `crd`).

use super::binding::{InferenceIdentityBinding, KIND};
use kube_core::CustomResourceExt;
use serde_json::{Map, Value, json};

/// The CRD as a generic value, ready to print.
pub fn binding_crd() -> Value {
    let mut crd = serde_json::to_value(InferenceIdentityBinding::crd()).expect("a CRD serializes");
    crd["spec"]["names"]["listKind"] = Value::from(format!("{KIND}List"));
    if let Some(versions) = crd["spec"]["versions"].as_array_mut() {
        for version in versions {
            let schema = &mut version["schema"]["openAPIV3Schema"];
            tidy(schema);
            add_object_fields(schema);
        }
    }
    crd
}

/// `apiVersion`, `kind` and `metadata` first, as every generated CRD lists them.
fn add_object_fields(schema: &mut Value) {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let mut all = Map::with_capacity(properties.len() + 3);
    all.insert(
        "apiVersion".into(),
        json!({"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."}),
    );
    all.insert(
        "kind".into(),
        json!({"type": "string", "description": "Kind is a string value representing the REST resource this object represents."}),
    );
    all.insert("metadata".into(), json!({"type": "object"}));
    all.extend(std::mem::take(properties));
    *properties = all;
}

/// In every schema node: removes `nullable` (the function never writes a null, and the
/// operator's schema admits none) and `default` (serde's defaults are the reader's business;
/// a schema default would rewrite the operator's stored objects), and writes a whole-number
/// `minimum` as an integer, as the operator's CRD does.
fn tidy(node: &mut Value) {
    let Some(map) = node.as_object_mut() else { return };
    map.remove("nullable");
    map.remove("default");
    if let Some(whole) = map.get("minimum").and_then(Value::as_f64).filter(|m| m.fract() == 0.0) {
        map.insert("minimum".into(), Value::from(whole as i64));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(tidy);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            tidy(child);
        }
    }
}
