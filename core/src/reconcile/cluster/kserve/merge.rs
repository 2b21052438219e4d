//! How KServe lays presets and the service over each other, as far as the build reads the
//! result (kserve/kserve aaac4e294dae2c7b1aa1886447793f3aa1c30912,
//! `pkg/controller/v1alpha2/llmisvc/config_merge.go`): each later spec is a strategic merge
//! patch on the earlier (`mergeSpecs`, lines 859-900): mappings merge key by key, a later
//! scalar wins, lists of named entries (containers, init containers) merge by name, other
//! lists are replaced, and an unset field changes nothing. The merged spec is then a Go
//! template over the service (`ReplaceVariables`, lines 687-804): the build evaluates the
//! service's name and namespace, and says where a field needs more.

use serde_json::{Map, Value};

/// Lays `over` on `base`.
pub fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (_, Value::Null) => {}
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(existing) if !existing.is_null() => merge(existing, value),
                    _ if value.is_null() => {}
                    _ => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(base), Value::Array(over)) if named(base) && named(over) => {
            for entry in over {
                match base.iter_mut().find(|b| b.get("name") == entry.get("name")) {
                    Some(existing) => merge(existing, entry),
                    None => base.push(entry.clone()),
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

/// Whether every entry of a list is a mapping with a `name`: a list merged by name.
fn named(list: &[Value]) -> bool {
    list.iter().all(|e| e.get("name").is_some_and(Value::is_string))
}

/// The spec of a `v1alpha1` service or preset in `v1alpha2`'s shape, as KServe converts it
/// (`pkg/apis/serving/v1alpha1/llm_inference_service_conversion.go` lines 511-550): the pool's
/// flat `selector` of GAIE's `v1alpha2` becomes `selector.matchLabels`.
pub fn normalised(api_version: &str, spec: &Value) -> Value {
    let mut spec = spec.clone();
    if !api_version.ends_with("/v1alpha1") {
        return spec;
    }
    let selector = spec.pointer_mut("/router/scheduler/pool/spec/selector");
    if let Some(Value::Object(flat)) = selector
        && !flat.contains_key("matchLabels")
    {
        let labels = std::mem::take(flat);
        flat.insert("matchLabels".into(), Value::Object(labels));
    }
    spec
}

/// A string of the merged spec with the service's name and namespace put in; `Err` names
/// the expression the build does not evaluate.
pub fn evaluated(text: &str, name: &str, namespace: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("}}") else {
            return Err(rest[start..].to_string());
        };
        let expression = &rest[start + 2..start + end];
        let inner = expression.trim_start_matches('-').trim_end_matches('-').trim();
        match inner {
            ".ObjectMeta.Name" | ".Name" => out.push_str(name),
            ".ObjectMeta.Namespace" | ".Namespace" => out.push_str(namespace),
            _ => return Err(format!("{{{{{expression}}}}}")),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Labels, or other pairs of strings: key and value.
pub type Pairs = Vec<(String, String)>;

/// The string entries of a mapping at `path` of `spec`, each evaluated; and apart, the key
/// and expression of each the build cannot evaluate.
pub fn labels_at(spec: &Value, path: &[&str], name: &str, namespace: &str) -> (Pairs, Pairs) {
    let map = path.iter().try_fold(spec, |v, k| v.get(k)).and_then(Value::as_object);
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for (key, value) in map.into_iter().flat_map(Map::iter) {
        let Some(text) = value.as_str() else { continue };
        match evaluated(text, name, namespace) {
            Ok(value) => known.push((key.clone(), value)),
            Err(expression) => unknown.push((key.clone(), expression)),
        }
    }
    (known, unknown)
}
