//! `status.conditions`: `metav1.Condition` as the function writes it, and its schema with
//! the field limits the operator's CRD carries (controller-gen writes them from the
//! apimachinery markers), as a list map keyed by `type`. k8s-openapi's own schema of
//! `Condition` has no limits.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use schemars::{Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One condition, its fields in the order `metav1.Condition` writes them. Type, status and
/// reason are always one of the function's own words, and most messages too: they are
/// borrowed rather than copied into every binding.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    pub last_transition_time: Time,
    pub message: Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    pub reason: Cow<'static, str>,
    pub status: Cow<'static, str>,
    #[serde(rename = "type")]
    pub type_: Cow<'static, str>,
}

/// The `conditions` array: one entry per condition type.
pub fn schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "description": "Conditions of the binding: Ready, InvalidRef, UnsafeSelector, Conflict, RenderFailure.",
        "items": {
            "type": "object",
            "description": "Condition contains details for one aspect of the current state of this API Resource.",
            "properties": {
                "lastTransitionTime": {
                    "type": "string",
                    "format": "date-time",
                    "description": "lastTransitionTime is the last time the condition transitioned from one status to another."
                },
                "message": {
                    "type": "string",
                    "maxLength": MESSAGE_MAX,
                    "description": "message is a human readable message indicating details about the transition."
                },
                "observedGeneration": {
                    "type": "integer",
                    "format": "int64",
                    "minimum": 0,
                    "description": "observedGeneration represents the .metadata.generation that the condition was set based upon."
                },
                "reason": {
                    "type": "string",
                    "maxLength": 1024,
                    "minLength": 1,
                    "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
                    "description": "reason contains a programmatic identifier indicating the reason for the condition's last transition."
                },
                "status": {
                    "type": "string",
                    "enum": ["True", "False", "Unknown"],
                    "description": "status of the condition, one of True, False, Unknown."
                },
                "type": {
                    "type": "string",
                    "maxLength": 316,
                    "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
                    "description": "type of condition in CamelCase or in foo.example.com/CamelCase."
                }
            },
            "required": ["lastTransitionTime", "message", "reason", "status", "type"]
        },
        "x-kubernetes-list-map-keys": ["type"],
        "x-kubernetes-list-type": "map"
    })
}

/// The longest condition message the API server admits, in characters.
pub const MESSAGE_MAX: usize = 32768;
