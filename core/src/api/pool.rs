//! GAIE `InferencePool` in its two API versions, and the pool selector rules
//! (docs/reference.md#pools): both selector shapes are read and normalised to `matchLabels`.

use crate::api::fields::type_name;
use crate::api::labels::Labels;
use crate::api::names;
use crate::api::value::Value;

/// The InferencePool API versions the reconcile reads, in resolution preference order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PoolApi {
    /// `inference.networking.k8s.io/v1` (GA).
    V1,
    /// `inference.networking.x-k8s.io/v1alpha2` (experimental).
    V1Alpha2,
}

pub const KIND: &str = "InferencePool";

impl PoolApi {
    pub const PREFERENCE: [PoolApi; 2] = [PoolApi::V1, PoolApi::V1Alpha2];

    pub fn group(self) -> &'static str {
        match self {
            PoolApi::V1 => "inference.networking.k8s.io",
            PoolApi::V1Alpha2 => "inference.networking.x-k8s.io",
        }
    }

    pub fn version(self) -> &'static str {
        match self {
            PoolApi::V1 => "v1",
            PoolApi::V1Alpha2 => "v1alpha2",
        }
    }

    pub fn api_version(self) -> String {
        format!("{}/{}", self.group(), self.version())
    }

    /// The pool API of an item, if it is an InferencePool this function reads.
    pub fn of_item(item: &Value) -> Option<PoolApi> {
        if item.get("kind").and_then(Value::as_str) != Some(KIND) {
            return None;
        }
        match item.get("apiVersion").and_then(Value::as_str)? {
            "inference.networking.k8s.io/v1" => Some(PoolApi::V1),
            "inference.networking.x-k8s.io/v1alpha2" => Some(PoolApi::V1Alpha2),
            _ => None,
        }
    }

    /// The API for a `poolRef.group` value.
    pub fn for_group(group: &str) -> Option<PoolApi> {
        PoolApi::PREFERENCE.into_iter().find(|api| api.group() == group)
    }
}

/// The pool's labels, from either selector shape, checked and sorted by key.
/// The error names the offending key.
///
/// A null in the selector is no entry: the API server drops a null from a field of a
/// custom resource that is neither nullable nor defaulted (apiextensions-apiserver,
/// `PruneNonNullableNullsWithoutDefaults`, as it decodes the object), and the pool's CRD
/// makes none of the selector's nullable; so `app: ~` in `matchLabels` is no label to the
/// operator, which reads the pool as stored.
pub fn selector_labels(pool: &Value) -> Result<Labels, String> {
    let selector = match pool.get("spec") {
        Some(Value::Object(spec)) => spec.get("selector"),
        Some(Value::Null) | None => None,
        Some(other) => {
            return Err(format!("spec must be a mapping, not a {}", type_name(other)));
        }
    };
    let selector = match selector {
        None | Some(Value::Null) => return Err("spec.selector must be set".into()),
        Some(Value::Object(map)) => stored(map),
        Some(other) => {
            return Err(format!("spec.selector must be a mapping, not a {}", type_name(other)));
        }
    };
    if selector.is_empty() {
        return Err("spec.selector must not be empty".into());
    }
    let get = |key: &str| selector.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    if get("matchExpressions").is_some() {
        return Err("spec.selector.matchExpressions are not supported: \
                    an identity needs exact labels (use matchLabels)"
            .into());
    }
    let (labels, path) = match get("matchLabels") {
        Some(match_labels) => {
            if let Some((other, _)) = selector.iter().find(|(k, _)| *k != "matchLabels") {
                return Err(format!("spec.selector.{other} is not supported beside matchLabels"));
            }
            match match_labels {
                Value::Object(map) if stored(map).is_empty() => {
                    return Err("spec.selector.matchLabels must not be empty".into());
                }
                Value::Object(map) => (stored(map), "spec.selector.matchLabels"),
                other => {
                    return Err(format!(
                        "spec.selector.matchLabels must be a mapping, not a {}",
                        type_name(other)
                    ));
                }
            }
        }
        None => (selector.clone(), "spec.selector"),
    };
    let mut out = Vec::with_capacity(labels.len());
    for (key, value) in labels {
        names::qualified_name(key).map_err(|e| format!("{path} key {key:?} is invalid: {e}"))?;
        let Value::String(value) = value else {
            return Err(format!("{path}[{key:?}] must be a string, not a {} (quote it)", type_name(value)));
        };
        names::label_value(value).map_err(|e| format!("{path}[{key:?}] value {value:?} is invalid: {e}"))?;
        out.push((key.to_string(), value.to_string()));
    }
    Ok(out.into_iter().collect())
}

/// A mapping's entries as the API server stores them: those holding a null dropped.
fn stored(map: &crate::api::value::Map) -> Vec<(&str, &Value)> {
    map.iter().filter(|(_, v)| !v.is_null()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn labels(spec: Value) -> Result<Vec<(String, String)>, String> {
        selector_labels(&json!({ "spec": spec })).map(Labels::into_vec)
    }

    #[test]
    fn both_shapes_normalise_to_the_same_sorted_labels() {
        let want = vec![("app".to_string(), "m".to_string()), ("b".to_string(), "x".to_string())];
        assert_eq!(labels(json!({"selector": {"matchLabels": {"b": "x", "app": "m"}}})).unwrap(), want);
        assert_eq!(labels(json!({"selector": {"b": "x", "app": "m"}})).unwrap(), want);
    }

    /// The API server stores a custom resource without the nulls of fields its schema does
    /// not make nullable: a null label is none, and a null `matchExpressions` is absent.
    #[test]
    fn a_null_in_the_selector_is_no_entry_as_the_api_server_stores_it() {
        let want = vec![("app".to_string(), "m".to_string())];
        assert_eq!(labels(json!({"selector": {"matchLabels": {"app": "m", "tier": null}}})).unwrap(), want);
        assert_eq!(labels(json!({"selector": {"app": "m", "tier": null}})).unwrap(), want);
        let expressions = json!({"selector": {"matchLabels": {"app": "m"}, "matchExpressions": null}});
        assert_eq!(labels(expressions).unwrap(), want);
    }

    #[test]
    fn every_unsafe_shape_is_refused_naming_the_key() {
        let cases = [
            (json!({}), "must be set"),
            (json!({"selector": null}), "must be set"),
            (json!({"selector": {}}), "must not be empty"),
            (json!({"selector": "app"}), "must be a mapping"),
            (json!({"selector": {"matchLabels": {}}}), "matchLabels must not be empty"),
            (json!({"selector": {"matchExpressions": []}}), "matchExpressions"),
            (json!({"selector": {"matchLabels": {"a": "b"}, "matchExpressions": []}}), "matchExpressions"),
            (json!({"selector": {"matchLabels": {"a": "b"}, "x": "y"}}), "spec.selector.x"),
            (json!({"selector": {"matchLabels": ["a"]}}), "must be a mapping"),
            (json!({"selector": {"a": true}}), "[\"a\"] must be a string, not a boolean"),
            (json!({"selector": {"a": 1}}), "not a number"),
            (json!({"selector": {"a": null}}), "spec.selector must not be empty"),
            (json!({"selector": {"matchLabels": {"a": null}}}), "matchLabels must not be empty"),
            (json!({"selector": {"a b": "c"}}), "key \"a b\""),
            (json!({"selector": {"a": ""}}), "must not be empty"),
            (json!({"selector": {"a": " c"}}), "whitespace"),
            (json!({"selector": {"a": "c:d"}}), "value \"c:d\""),
            (json!({"selector": {"matchLabels": {"ns/": "c"}}}), "key \"ns/\""),
        ];
        for (spec, want) in cases {
            let err = labels(spec.clone()).unwrap_err();
            assert!(err.contains(want), "{spec}: {err}");
        }
    }
}
