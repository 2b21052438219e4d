//! `InferenceIdentityBinding` (`kleym.sonda.red/v1alpha1`): the typed spec and status
//! (source of the CRD printed by `crd`), and the lenient view the reconcile reads from
//! input items, where a structurally broken binding still gets a status.

use super::conditions::{self, Condition};
use super::fields;
use crate::api::value::Value;
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const API_VERSION: &str = "kleym.sonda.red/v1alpha1";
pub const KIND: &str = "InferenceIdentityBinding";

const DNS1123_SUBDOMAIN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const LABEL_VALUE: &str = r"^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$";

/// Which pods of which pool, running as which service account, with which variant label,
/// get one SPIFFE identity.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(
    crates(kube_core = "::kube_core"),
    group = "kleym.sonda.red",
    version = "v1alpha1",
    kind = "InferenceIdentityBinding",
    namespaced,
    doc = "InferenceIdentityBinding: which pods of which InferencePool, running as which service account, with which variant label, get one SPIFFE identity.",
    status = "InferenceIdentityBindingStatus",
    printcolumn = r#"{"name":"POOL","type":"string","jsonPath":".spec.poolRef.name"}"#,
    printcolumn = r#"{"name":"BOUNDARY","type":"string","jsonPath":".spec.identityBoundary.variant"}"#,
    printcolumn = r#"{"name":"READY","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"}"#,
    printcolumn = r#"{"name":"REASON","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].reason"}"#,
    printcolumn = r#"{"name":"SPIFFE ID","type":"string","jsonPath":".status.computedSpiffeIDs[0].spiffeID"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct InferenceIdentityBindingSpec {
    /// The InferencePool, in the binding's namespace, whose pods get the identity.
    pub pool_ref: PoolRef,
    /// The service account the pods run as.
    #[schemars(length(min = 1, max = 253), pattern(DNS1123_SUBDOMAIN))]
    pub service_account_name: String,
    /// The pod label value that tells this identity apart from the pool's other variants.
    pub identity_boundary: IdentityBoundary,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct PoolRef {
    /// Name of the InferencePool. Leading and trailing whitespace is trimmed before use, as
    /// the operator does; a name that is no object name finds no pool.
    #[schemars(length(min = 1))]
    pub name: String,
    /// API group of the pool; when unset, v1 is preferred, then v1alpha2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["inference.networking.k8s.io", "inference.networking.x-k8s.io"]))]
    pub group: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct IdentityBoundary {
    /// Value of the pod label `identity.kleym.sonda.red/variant` (for example prefill, decode).
    #[schemars(length(min = 1, max = 63), pattern(LABEL_VALUE))]
    pub variant: String,
}

/// The status the reconcile writes whole on every binding, but for the operator's ownership
/// records, which it keeps as they came. Field order follows the operator's Go type.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "message": "pendingClusterSPIFFEID and ownedClusterSPIFFEID are mutually exclusive",
    "rule": "!(has(self.pendingClusterSPIFFEID) && has(self.ownedClusterSPIFFEID))"
}]))]
pub struct InferenceIdentityBindingStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "conditions::schema")]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust_domain: Option<String>,
    #[serde(rename = "clusterSPIFFEIDClassName", default, skip_serializing_if = "Option::is_none")]
    pub cluster_spiffeid_class_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<ConflictEntry>,
    #[serde(rename = "computedSpiffeIDs", default, skip_serializing_if = "Vec::is_empty")]
    pub computed_spiffe_ids: Vec<ComputedSpiffeId>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rendered_selectors: Vec<RenderedSelectors>,
    /// The operator's durable create claim, as it came in the input.
    #[serde(rename = "pendingClusterSPIFFEID", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<PendingClusterSpiffeId>")]
    pub pending_cluster_spiffeid: Option<Value>,
    /// The operator's confirmed ownership of one ClusterSPIFFEID, as it came in the input.
    #[serde(rename = "ownedClusterSPIFFEID", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<OwnedClusterSpiffeId>")]
    pub owned_cluster_spiffeid: Option<Value>,
    #[serde(rename = "renderedClusterSPIFFEID", default, skip_serializing_if = "Option::is_none")]
    pub rendered_cluster_spiffeid: Option<RenderedClusterSpiffeId>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Eq)]
pub struct ComputedSpiffeId {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Eq)]
pub struct RenderedSelectors {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    #[serde(default)]
    #[schemars(extend("x-kubernetes-list-type" = "set"))]
    pub selectors: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RenderedClusterSpiffeId {
    pub name: String,
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    pub selector_fingerprint: String,
    /// `metadata.generation` of the live object, which the operator reads back; a build-time
    /// render has no live object, so the function never writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// The operator's create claim: the name it reserved and the token its object carries.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PendingClusterSpiffeId {
    #[schemars(length(min = 1))]
    pub name: String,
    #[serde(rename = "claimID")]
    #[schemars(length(min = 1))]
    pub claim_id: String,
}

/// The operator's confirmed ClusterSPIFFEID: its name and Kubernetes UID.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Eq)]
pub struct OwnedClusterSpiffeId {
    #[schemars(length(min = 1))]
    pub name: String,
    #[schemars(length(min = 1))]
    pub uid: String,
}

/// One conflicting peer of a binding.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ConflictEntry {
    pub binding_name: String,
    #[schemars(extend("enum" = ["VariantReuse", "DuplicateSPIFFEID"]))]
    pub cause: String,
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    pub variant: String,
}

/// Whether an item is an InferenceIdentityBinding.
pub fn is_binding(item: &Value) -> bool {
    fields::str_at(item, "apiVersion") == Some(API_VERSION) && fields::str_at(item, "kind") == Some(KIND)
}

/// The operator's ownership records in a binding's input status
/// (`status.pendingClusterSPIFFEID`, `status.ownedClusterSPIFFEID`), exactly as they came.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OperatorRecords {
    pub pending: Option<Value>,
    pub owned: Option<Value>,
}

/// What the reconcile reads of one binding item, without assuming it is well formed.
#[derive(Debug)]
pub struct BindingInput<'a> {
    /// Position of the item in the input.
    pub item: usize,
    pub value: &'a Value,
    pub name: &'a str,
    /// The namespace as written, or why it cannot be read; checked by the reconcile.
    pub namespace: Result<&'a str, String>,
    pub generation: Option<i64>,
}

impl<'a> BindingInput<'a> {
    /// Reads the identity of a binding; an error means the item is unusable input.
    pub fn read(item: usize, value: &'a Value) -> Result<Self, String> {
        let name = fields::required_str(value, "metadata.name")?;
        if name.is_empty() {
            return Err("metadata.name must not be empty".into());
        }
        let namespace = fields::required_str(value, "metadata.namespace");
        // The API server counts generations from 1; the operator omits a zero one, and the
        // CRD admits no negative observedGeneration.
        let generation = fields::lookup(value, "metadata.generation")
            .ok()
            .flatten()
            .and_then(Value::as_i64)
            .filter(|g| *g > 0);
        Ok(BindingInput { item, value, name, namespace, generation })
    }

    /// The operator's ownership records of the input status; a null record is no record.
    pub fn operator_records(&self) -> OperatorRecords {
        let record = |path| fields::lookup(self.value, path).ok().flatten().cloned();
        OperatorRecords {
            pending: record("status.pendingClusterSPIFFEID"),
            owned: record("status.ownedClusterSPIFFEID"),
        }
    }

    /// The conditions the binding carried in the input, as (type, status, lastTransitionTime).
    pub fn previous_conditions(&self) -> Vec<(&'a str, &'a str, &'a str)> {
        let Ok(Some(Value::Array(conditions))) = fields::lookup(self.value, "status.conditions") else {
            return Vec::new();
        };
        conditions
            .iter()
            .filter_map(|c| {
                Some((
                    fields::str_at(c, "type")?,
                    fields::str_at(c, "status")?,
                    fields::str_at(c, "lastTransitionTime")?,
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn only_the_v1alpha1_binding_kind_is_a_binding() {
        let item = |api_version: &str, kind: &str| json!({"apiVersion": api_version, "kind": kind});
        assert!(is_binding(&item(API_VERSION, KIND)));
        assert!(!is_binding(&item(API_VERSION, "InferenceIdentityPolicy")));
        assert!(!is_binding(&item("kleym.sonda.red/v1beta1", KIND)));
        assert!(!is_binding(&json!({"kind": KIND})));
    }

    #[test]
    fn operator_records_come_as_they_are_and_null_is_none() {
        let value = json!({"metadata": {"name": "b", "namespace": "ns"}, "status": {
            "pendingClusterSPIFFEID": {"name": "n", "claimID": "c", "extra": 1},
            "ownedClusterSPIFFEID": null,
        }});
        let records = BindingInput::read(0, &value).unwrap().operator_records();
        assert_eq!(records.pending, Some(json!({"name": "n", "claimID": "c", "extra": 1})));
        assert_eq!(records.owned, None);
        let bare = json!({"metadata": {"name": "b"}, "status": "not a mapping"});
        assert_eq!(BindingInput::read(0, &bare).unwrap().operator_records(), OperatorRecords::default());
    }

    #[test]
    fn only_a_positive_generation_is_observed() {
        let with = |g: Value| json!({"metadata": {"name": "b", "generation": g}});
        assert_eq!(BindingInput::read(0, &with(json!(3))).unwrap().generation, Some(3));
        assert_eq!(BindingInput::read(0, &with(json!(1))).unwrap().generation, Some(1));
        assert_eq!(BindingInput::read(0, &with(json!(0))).unwrap().generation, None);
        assert_eq!(BindingInput::read(0, &with(json!(-2))).unwrap().generation, None);
    }
}
