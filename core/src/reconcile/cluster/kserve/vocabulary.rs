//! KServe's vocabulary as the derivation reads it: its kinds and group, the labels its
//! workloads carry, how it names children, and the two things a derivation yields besides the
//! pool: the pod templates of its model servers and the notes on what the build cannot know.

pub const SERVICE_KIND: &str = "LLMInferenceService";
pub const CONFIG_KIND: &str = "LLMInferenceServiceConfig";
/// KServe's group, as an `apiVersion` starts.
pub(super) const GROUP_SLASH: &str = "serving.kserve.io/";

/// Whether `value` is an `LLMInferenceServiceConfig` of KServe's group: a preset.
pub fn is_config<T: crate::api::fields::Tree>(value: &T) -> bool {
    let text = |key: &str| crate::api::fields::str_at(value, key);
    text("kind") == Some(CONFIG_KIND) && text("apiVersion").is_some_and(|v| v.starts_with(GROUP_SLASH))
}

/// The labels KServe's workloads carry and its pool selects by (`pkg/constants/constants.go`
/// lines 419-450).
pub(super) const NAME_LABEL: &str = "app.kubernetes.io/name";
pub(super) const PART_OF_LABEL: &str = "app.kubernetes.io/part-of";
pub(super) const PART_OF: &str = "llminferenceservice";
pub(super) const COMPONENT_LABEL: &str = "kserve.io/component";
pub(super) const WORKLOAD: &str = "workload";

/// The suffixes of the service accounts KServe creates for a service's pods, named
/// `ChildName(<name>, <suffix>)`: the single-node decode pods' with the routing sidecar, the
/// multi-node decode and prefill pods' (`workload_permissions_default.go`,
/// `workload_multi_node.go` `mainLWSName`, `prefillLWSName`), the scheduler's
/// (`scheduler.go`, `expectedSchedulerServiceAccount`).
pub(super) const DECODE_ACCOUNT: &str = "-kserve";
pub(super) const MULTI_NODE_DECODE_ACCOUNT: &str = "-kserve-mn";
pub(super) const MULTI_NODE_PREFILL_ACCOUNT: &str = "-kserve-mn-prefill";
pub(super) const SCHEDULER_ACCOUNT: &str = "-epp-sa";

/// Whether `account` is one KServe creates for the pods of the service `name`: the cluster
/// will hold it though the input declares no ServiceAccount of that name.
pub fn creates_account(name: &str, account: &str) -> bool {
    [DECODE_ACCOUNT, MULTI_NODE_DECODE_ACCOUNT, MULTI_NODE_PREFILL_ACCOUNT, SCHEDULER_ACCOUNT]
        .iter()
        .any(|suffix| super::names::child_name(name, suffix) == account)
}

/// A pod template KServe makes: a model server's, the scheduler's or the tokenizer's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// Its role, as reports name it in place of a path: `(decode)`, `(prefill worker)`,
    /// `(scheduler)`.
    pub role: String,
    pub labels: Vec<(String, String)>,
    pub account: String,
    /// Whether its pods may carry labels the build does not know (a field only the cluster
    /// settles).
    pub open: bool,
    /// The object KServe makes that makes its pods: its controller adds labels of its own.
    pub maker: Maker,
}

/// The object whose controller makes a template's pods, as KServe creates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maker {
    pub name: String,
    pub kind: MakerKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MakerKind {
    Deployment,
    /// A LeaderWorkerSet: its leader template's pods, or its worker template's; its shape.
    LeaderWorkerSet {
        leader: bool,
        shape: crate::reconcile::cluster::controllers::GroupShape,
    },
}

/// What the build cannot know of a service, or must say of it: the field, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub message: String,
    pub warning: bool,
    /// Whether it is a reason KServe refuses the service: then it makes nothing of it.
    pub refuses: bool,
}

impl Note {
    pub(super) fn warning(message: String) -> Note {
        Note { message, warning: true, refuses: false }
    }

    pub(super) fn refusal(message: String) -> Note {
        Note { message, warning: true, refuses: true }
    }
}

/// The fields of a service that set the labels and the service account of the pods of
/// `role`: `spec.labels` and `spec.template.serviceAccountName` for the decode pods,
/// `spec.prefill.labels` and `spec.prefill.template.serviceAccountName` for the prefill pods
/// (`workload_single_node.go`). A multi-node server's leader and workers take their labels
/// from the same fields and run as the account the template names, else the worker's
/// (`workload_multi_node.go`): the workers of one without a template (`leader` false, as it
/// then has no leader) are told to set `spec.worker.serviceAccountName`.
pub fn fields_of(role: &str, leader: bool) -> Option<(&'static str, &'static str)> {
    let inner = role.strip_prefix('(')?.strip_suffix(')')?;
    let (side, part) = inner.split_once(' ').unwrap_or((inner, ""));
    let worker = part == "worker" && !leader;
    match (side, part) {
        ("decode", "" | "leader" | "worker") => Some((
            "spec.labels",
            if worker { "spec.worker.serviceAccountName" } else { "spec.template.serviceAccountName" },
        )),
        ("prefill", "" | "leader" | "worker") => Some((
            "spec.prefill.labels",
            if worker {
                "spec.prefill.worker.serviceAccountName"
            } else {
                "spec.prefill.template.serviceAccountName"
            },
        )),
        _ => None,
    }
}
