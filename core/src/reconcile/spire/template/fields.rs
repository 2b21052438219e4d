//! The manager's template data (`templateData`, pkg/spireentry/entries.go:133-141) and the
//! Kubernetes types it holds (k8s.io/api and apimachinery v0.36, the manager's): what a
//! field chain such as `.PodMeta.Labels.app` gives for one pod template, or why Go fails on it.

use super::{Data, NO_VALUE};
use crate::reconcile::cluster::selector::Lookup;

/// A field chain from the manager's data.
pub enum Resolved {
    Text(String),
    /// The pods' labels, a map.
    Labels,
    Unknown,
    Fails(String),
}

/// The types of the manager's `templateData` and what a field of each gives.
#[derive(Clone, Copy)]
enum Type {
    Data,
    PodMeta,
    NodeMeta,
    PodSpec,
    NodeSpec,
    Text,
    /// A value of a type whose fields this function does not follow.
    Opaque,
}

/// `metav1.ObjectMeta`'s fields, and its methods that take no argument.
const OBJECT_META: [&str; 15] = [
    "Name",
    "GenerateName",
    "Namespace",
    "SelfLink",
    "UID",
    "ResourceVersion",
    "Generation",
    "CreationTimestamp",
    "DeletionTimestamp",
    "DeletionGracePeriodSeconds",
    "Labels",
    "Annotations",
    "OwnerReferences",
    "Finalizers",
    "ManagedFields",
];

/// `corev1.PodSpec`'s fields (k8s.io/api v0.36, the manager's).
const POD_SPEC: [&str; 42] = [
    "Volumes",
    "InitContainers",
    "Containers",
    "EphemeralContainers",
    "RestartPolicy",
    "TerminationGracePeriodSeconds",
    "ActiveDeadlineSeconds",
    "DNSPolicy",
    "NodeSelector",
    "ServiceAccountName",
    "DeprecatedServiceAccount",
    "AutomountServiceAccountToken",
    "NodeName",
    "HostNetwork",
    "HostPID",
    "HostIPC",
    "ShareProcessNamespace",
    "SecurityContext",
    "ImagePullSecrets",
    "Hostname",
    "Subdomain",
    "Affinity",
    "SchedulerName",
    "Tolerations",
    "HostAliases",
    "PriorityClassName",
    "Priority",
    "DNSConfig",
    "ReadinessGates",
    "RuntimeClassName",
    "EnableServiceLinks",
    "PreemptionPolicy",
    "Overhead",
    "TopologySpreadConstraints",
    "SetHostnameAsFQDN",
    "OS",
    "HostUsers",
    "SchedulingGates",
    "ResourceClaims",
    "Resources",
    "HostnameOverride",
    "SchedulingGroup",
];

/// `corev1.NodeSpec`'s fields.
const NODE_SPEC: [&str; 7] =
    ["PodCIDR", "PodCIDRs", "ProviderID", "Unschedulable", "Taints", "ConfigSource", "DoNotUseExternalID"];

/// Methods every generated Kubernetes type has (deep copies, protobuf, `String`).
const GENERATED_METHODS: [&str; 6] = ["DeepCopy", "String", "Size", "Marshal", "Reset", "ProtoMessage"];

pub fn resolve(chain: &[String], data: &Data<'_>) -> Resolved {
    let mut at = Type::Data;
    let mut fields = chain.iter().enumerate();
    while let Some((i, field)) = fields.next() {
        at = match at {
            Type::Data => match field.as_str() {
                "TrustDomain" => match data.trust_domain {
                    Some(td) => return text_then(td, &chain[i + 1..]),
                    None => Type::Text,
                },
                "ClusterName" | "ClusterDomain" => Type::Text,
                "PodMeta" => Type::PodMeta,
                "PodSpec" => Type::PodSpec,
                "NodeMeta" => Type::NodeMeta,
                "NodeSpec" => Type::NodeSpec,
                _ => {
                    return no_field(
                        field,
                        "the manager's template data (TrustDomain, ClusterName, ClusterDomain, PodMeta, PodSpec, NodeMeta, NodeSpec)",
                    );
                }
            },
            Type::PodMeta | Type::NodeMeta => {
                let pod = matches!(at, Type::PodMeta);
                let method = field.strip_prefix("Get").filter(|f| OBJECT_META.contains(f));
                let name = method.unwrap_or(field);
                if !OBJECT_META.contains(&name)
                    && field != "GetObjectMeta"
                    && !GENERATED_METHODS.contains(&field.as_str())
                {
                    return no_field(field, "metav1.ObjectMeta");
                }
                match (pod, name) {
                    (true, "Namespace") => return text_then(data.namespace, &chain[i + 1..]),
                    (true, "Name") if data.pod_name.is_some() => {
                        return text_then(data.pod_name.unwrap_or_default(), &chain[i + 1..]);
                    }
                    (true, "Labels") => match fields.next() {
                        None => return Resolved::Labels,
                        Some((j, key)) => match (data.labels)(key) {
                            Lookup::Value(v) => return text_then(v, &chain[j + 1..]),
                            // A missing key prints `<no value>`, and so does any field of it.
                            Lookup::Absent => return Resolved::Text(NO_VALUE.to_string()),
                            Lookup::Unknown | Lookup::Present => return Resolved::Unknown,
                        },
                    },
                    _ => Type::Opaque,
                }
            }
            Type::PodSpec => match field.as_str() {
                "ServiceAccountName" => match data.service_account {
                    Some(account) => return text_then(account, &chain[i + 1..]),
                    None => return Resolved::Unknown,
                },
                f if POD_SPEC.contains(&f) || GENERATED_METHODS.contains(&f) => Type::Opaque,
                _ => return no_field(field, "corev1.PodSpec"),
            },
            Type::NodeSpec => match field.as_str() {
                f if NODE_SPEC.contains(&f) || GENERATED_METHODS.contains(&f) => Type::Opaque,
                _ => return no_field(field, "corev1.NodeSpec"),
            },
            Type::Text => return no_field(field, "string"),
            Type::Opaque => return Resolved::Unknown,
        };
    }
    // A struct prints as Go prints it, which this function does not reproduce.
    Resolved::Unknown
}

/// A string value, then what the rest of the chain does with it: any field of a string fails.
fn text_then(value: &str, rest: &[String]) -> Resolved {
    match rest.first() {
        None => Resolved::Text(value.to_string()),
        Some(field) => no_field(field, "string"),
    }
}

fn no_field(field: &str, of: &str) -> Resolved {
    Resolved::Fails(format!("{of} has no field or method {field}, so Go fails to execute the template"))
}
