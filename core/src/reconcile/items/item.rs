//! An item of the reconcile's output: an input item as it came, a binding with the status
//! the reconcile wrote, or a rendered ClusterSPIFFEID or object of the admission guard (a new
//! one with the file slot it goes in). Statuses and renders stay typed
//! until written, which costs a fraction of the memory of generic values; each variant
//! serializes as the object it stands for.

use crate::api::admission::GuardObject;
use crate::api::binding::InferenceIdentityBindingStatus;
use crate::api::cluster_spiffe_id::ClusterSpiffeId;
use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::items::file_slots::{self, FileSlot};
use crate::reconcile::items::input::Input;
use serde::ser::{Serialize, SerializeMap, Serializer};

#[derive(Debug, Clone)]
pub enum Item {
    /// An input item, unchanged, with its position in the input.
    Input(usize, Input),
    /// An input binding, with its position in the input, and the status that replaces its own.
    Binding(usize, Value, Box<InferenceIdentityBindingStatus>),
    /// A ClusterSPIFFEID rendered by the reconcile: in place of a managed one of the input
    /// (`None`), or new, with the file slot it goes in. The slot is data: an edge that writes
    /// files puts it in the object's path and index annotations, the others leave it out.
    Rendered(Box<ClusterSpiffeId>, Option<FileSlot>),
    /// An object of the admission guard, placed as a rendered ClusterSPIFFEID is.
    Guard(Box<GuardObject>, Option<FileSlot>),
}

impl Item {
    /// The input item's value, when the item is one left as it came and read whole.
    pub fn input(&self) -> Option<&Value> {
        match self {
            Item::Input(_, input) => input.value(),
            _ => None,
        }
    }

    /// The position in the input of an item that came from it (changed or not).
    pub fn position(&self) -> Option<usize> {
        match self {
            Item::Input(position, _) | Item::Binding(position, ..) => Some(*position),
            Item::Rendered(..) | Item::Guard(..) => None,
        }
    }

    /// The file slots the item takes: those its annotations name, and a new output's own.
    pub fn slots(&self) -> Vec<(&str, u64)> {
        match self {
            Item::Input(_, input) => input.slots(),
            Item::Binding(_, value, _) => fields::child(value, &["metadata", "annotations"])
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(file_slots::file_slots)
                .collect(),
            Item::Rendered(object, slot) => file_slots::file_slots(&object.metadata.annotations)
                .chain(slot.iter().map(|(path, index)| (path.as_str(), *index)))
                .collect(),
            Item::Guard(object, slot) => file_slots::file_slots(&object.metadata().annotations)
                .chain(slot.iter().map(|(path, index)| (path.as_str(), *index)))
                .collect(),
        }
    }

    /// The package folder the item's file is in (kpt's render), when its annotations say.
    pub fn package(&self) -> Option<&str> {
        match self {
            Item::Input(_, input) => input.package(),
            Item::Binding(_, value, _) => fields::child(value, &["metadata", "annotations"])
                .and_then(Value::as_object)
                .and_then(file_slots::package_of),
            Item::Rendered(object, _) => file_slots::package_of(&object.metadata.annotations),
            Item::Guard(object, _) => file_slots::package_of(&object.metadata().annotations),
        }
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Item::Input(_, Input::Whole(value)) => value.serialize(serializer),
            Item::Input(_, Input::Passed(_)) => {
                Err(serde::ser::Error::custom("an item passed on is copied from its text, never serialized"))
            }
            Item::Rendered(object, _) => object.serialize(serializer),
            Item::Guard(object, _) => object.serialize(serializer),
            // The status in place of the old one, else last.
            Item::Binding(_, Value::Object(map), status) => {
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
            Item::Binding(_, value, _) => value.serialize(serializer),
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
        let written = |input: serde_json::Value| {
            serde_json::to_string(&Item::Binding(0, input.into(), Box::new(status.clone()))).unwrap()
        };
        let new = r#"{"trustDomain":"example.org"}"#;
        assert_eq!(
            written(json!({"kind": "B", "status": {"old": 1}, "spec": {}})),
            format!(r#"{{"kind":"B","status":{new},"spec":{{}}}}"#)
        );
        assert_eq!(
            written(json!({"kind": "B", "spec": {}})),
            format!(r#"{{"kind":"B","spec":{{}},"status":{new}}}"#)
        );
    }
}
