//! The manager's template data (`templateData`, pkg/spireentry/entries.go: `renderPodEntry`
//! fills it with the pod's and its node's `ObjectMeta` and spec) and what one pod template
//! settles of it: `.TrustDomain` (when configured), the pod's namespace (`.PodMeta.Namespace`,
//! `.PodMeta.GetNamespace`), its name when the input fixes it (`Name`, `GetName`), its labels
//! (`Labels`, `GetLabels`, a missing key printing `<no value>`) and its service account
//! (`.PodSpec.ServiceAccountName`). Everything else the types allow is the cluster's.

use super::Data;
use super::types::{self, Id};
use super::value::Value;
use crate::reconcile::cluster::selector::Lookup;

/// The table's type of a settled value that has fields or methods; `None` for those that
/// have neither (strings have none either, but are in the table).
pub(super) fn type_of(value: &Value) -> Option<Id> {
    static SETTLED: std::sync::OnceLock<[Option<Id>; 4]> = std::sync::OnceLock::new();
    let [meta, spec, labels, string] = SETTLED.get_or_init(|| {
        ["*v1.ObjectMeta", "*v1.PodSpec", "map[string]string", "string"]
            .map(|name| types::types().by_name(name))
    });
    match value {
        Value::Data => Some(types::DATA),
        Value::PodMeta => *meta,
        Value::PodSpec => *spec,
        Value::Labels => *labels,
        Value::Str(_) => *string,
        _ => None,
    }
}

/// A field of the data the pod template settles.
pub(super) fn field(receiver: &Value, name: &str, data: &Data<'_>) -> Option<Value> {
    match (receiver, name) {
        (Value::Data, "TrustDomain") => data.trust_domain.map(|td| Value::Str(td.to_string())),
        (Value::Data, "PodMeta") => Some(Value::PodMeta),
        (Value::Data, "PodSpec") => Some(Value::PodSpec),
        (Value::PodMeta, "Namespace") => data.namespace.map(|ns| Value::Str(ns.to_string())),
        (Value::PodMeta, "Name") => data.pod_name.map(|n| Value::Str(n.to_string())),
        (Value::PodMeta, "Labels") => Some(Value::Labels),
        (Value::PodSpec, "ServiceAccountName") => data.service_account.map(|sa| Value::Str(sa.to_string())),
        _ => None,
    }
}

/// A method of the data the pod template settles: `ObjectMeta`'s getters of the fields above.
pub(super) fn method(receiver: &Value, name: &str, data: &Data<'_>) -> Option<Value> {
    match (receiver, name) {
        (Value::PodMeta, "GetNamespace" | "GetName" | "GetLabels") => field(receiver, &name[3..], data),
        _ => None,
    }
}

/// A map's key: the pods' labels as the pod template and its controller give them; any other
/// map's is the cluster's, perhaps missing.
pub(super) fn key(receiver: &Value, key: &str, data: &Data<'_>) -> Value {
    match receiver {
        Value::Labels => label(key, data),
        _ => Value::ANY,
    }
}

/// Label `key` of the pods: a missing one is no value (`index` gives `""` instead).
pub(super) fn label(key: &str, data: &Data<'_>) -> Value {
    match (data.labels)(key) {
        Lookup::Value(v) => Value::Str(v.to_string()),
        Lookup::Absent => Value::Absent,
        Lookup::Unknown | Lookup::Present => Value::ANY,
    }
}
