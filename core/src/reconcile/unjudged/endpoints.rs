//! Hand-written `Endpoints` that name pods: SPIRE Controller Manager gives the entry of an
//! object with `autoPopulateDNSNames` the names of every `Endpoints` of the pod's namespace
//! that lists the pod by UID, whoever wrote it (spire-controller-manager
//! `internal/controller/pod_controller.go`, `SetupWithManager`, indexes each by
//! `targetRef.uid` where `targetRef.kind` is `Pod`; `pkg/spireentry/reconciler.go`,
//! `renderPodEntry`; `pkg/spireentry/entries.go`, `dnsNamesFromEndpoints`). Which pod a UID
//! names only the cluster knows, so such an item is a record. The manager reads no
//! `EndpointSlice`, and Kubernetes makes no `Endpoints` of one (it mirrors the other way), so
//! an `EndpointSlice` gives no name.

use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::spire::Source;

/// Whether an item is a core `Endpoints`.
pub(super) fn is_endpoints(api_version: &str, kind: &str) -> bool {
    api_version == "v1" && kind == "Endpoints"
}

/// The path of the first address of `value`, ready or not, whose `targetRef` names a pod by
/// UID; `None` when none does.
fn pod_target(value: &Value) -> Option<String> {
    let subsets = value.get("subsets").and_then(Value::as_array)?;
    for (s, subset) in subsets.iter().enumerate() {
        for list in ["addresses", "notReadyAddresses"] {
            let Some(addresses) = subset.get(list).and_then(Value::as_array) else { continue };
            for (a, address) in addresses.iter().enumerate() {
                let kind = fields::str_at(address, "targetRef.kind");
                let uid = fields::str_at(address, "targetRef.uid").unwrap_or_default();
                if kind == Some("Pod") && !uid.is_empty() {
                    return Some(format!("subsets[{s}].{list}[{a}].targetRef"));
                }
            }
        }
    }
    None
}

/// The field an `Endpoints` names a pod at, the message, and the identities whose entries
/// may take its names: those of `within` (the identities that may select pods in its
/// namespace) with `autoPopulateDNSNames`. `None` when it names no pod or no such identity
/// is there.
pub(super) fn names_pods<'s>(
    value: &Value,
    namespace: Option<&str>,
    within: impl FnOnce() -> Vec<&'s Source>,
) -> Option<(String, String, Vec<&'s Source>)> {
    let field = pod_target(value)?;
    let sources: Vec<&Source> = within().into_iter().filter(|s| s.auto_dns).collect();
    if sources.is_empty() {
        return None;
    }
    let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    let name = fields::str_at(value, "metadata.name").unwrap_or_default();
    let ns = namespace.unwrap_or("<namespace>");
    let message = format!(
        "an Endpoints that lists a pod by UID: SPIRE Controller Manager gives that pod's entries of {} \
         (autoPopulateDNSNames) the DNS names {name}, {name}.{ns}, {name}.{ns}.svc, whoever \
         wrote the Endpoints, and which pod the UID names only the cluster knows: the pods those identities \
         select may gain them; give the Service a selector and let the endpoints controller list its pods, \
         or drop the targetRef",
        super::identities(&names)
    );
    Some((field, message, sources))
}
