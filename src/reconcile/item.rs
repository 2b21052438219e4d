//! An item of the reconcile's output: an input item as it came, a binding with the status
//! the reconcile wrote, or a rendered ClusterSPIFFEID. Statuses and renders stay typed
//! until written, which costs a fraction of the memory of generic values; each variant
//! serializes as the object it stands for.

use crate::api::binding::InferenceIdentityBindingStatus;
use crate::api::cluster_spiffe_id::ClusterSpiffeId;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

#[derive(Debug, Clone)]
pub enum Item {
    /// An input item, unchanged, with its position in the input.
    Input(usize, Value),
    /// An input binding and the status that replaces its own.
    Binding(Value, Box<InferenceIdentityBindingStatus>),
    /// A ClusterSPIFFEID rendered by the reconcile.
    Rendered(Box<ClusterSpiffeId>),
}

impl Item {
    /// The input item, when the item is one left as it came.
    pub fn input(&self) -> Option<&Value> {
        self.input_at().map(|(_, value)| value)
    }

    /// The input item and its position in the input, when the item is one left as it came.
    pub fn input_at(&self) -> Option<(usize, &Value)> {
        match self {
            Item::Input(position, value) => Some((*position, value)),
            _ => None,
        }
    }

    /// The item's `metadata.annotations`.
    pub fn annotations(&self) -> Option<&Map<String, Value>> {
        match self {
            Item::Input(_, value) | Item::Binding(value, _) => {
                value.pointer("/metadata/annotations").and_then(Value::as_object)
            }
            Item::Rendered(object) => Some(&object.metadata.annotations),
        }
    }

    /// The item as a generic value, the status written into the binding.
    pub fn into_value(self) -> Value {
        match self {
            Item::Input(_, value) => value,
            Item::Binding(mut value, status) => {
                if let Value::Object(map) = &mut value {
                    let status = serde_json::to_value(*status).expect("a status serializes");
                    map.insert("status".to_string(), status);
                }
                value
            }
            Item::Rendered(object) => serde_json::to_value(*object).expect("a ClusterSPIFFEID serializes"),
        }
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Item::Input(_, value) => value.serialize(serializer),
            Item::Rendered(object) => object.serialize(serializer),
            // As `into_value` would have it: the status in place of the old one, else last.
            Item::Binding(Value::Object(map), status) => {
                let has_status = map.contains_key("status");
                let mut out = serializer.serialize_map(Some(map.len() + usize::from(!has_status)))?;
                for (key, value) in map {
                    if key == "status" {
                        out.serialize_entry(key, status)?;
                    } else {
                        out.serialize_entry(key, value)?;
                    }
                }
                if !has_status {
                    out.serialize_entry("status", status)?;
                }
                out.end()
            }
            Item::Binding(value, _) => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_binding_serializes_as_its_value_with_the_status_written_in() {
        let status =
            InferenceIdentityBindingStatus { trust_domain: Some("example.org".into()), ..Default::default() };
        for input in
            [json!({"kind": "B", "status": {"old": 1}, "spec": {}}), json!({"kind": "B", "spec": {}})]
        {
            let item = Item::Binding(input, Box::new(status.clone()));
            let written = serde_json::to_string(&item).unwrap();
            assert_eq!(written, serde_json::to_string(&item.into_value()).unwrap());
            assert!(written.contains("\"status\":{\"trustDomain\":\"example.org\"}"), "{written}");
        }
    }
}
