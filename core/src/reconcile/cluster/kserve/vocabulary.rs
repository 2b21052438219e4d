//! KServe's vocabulary as the derivation reads it: its kinds and group, the labels its
//! workloads carry, how it names children, and the two things a derivation yields besides the
//! pool: the pod templates of its model servers and the notes on what the build cannot know.

pub const SERVICE_KIND: &str = "LLMInferenceService";
pub const CONFIG_KIND: &str = "LLMInferenceServiceConfig";
/// KServe's group, as an `apiVersion` starts.
pub(super) const GROUP_SLASH: &str = "serving.kserve.io/";

/// The longest object name, past which KServe's child names take a hash
/// (`knative.dev/pkg/kmeta` `ChildName`, which KServe names every child with).
pub(super) const LONGEST_NAME: usize = 63;

/// The labels KServe's workloads carry and its pool selects by (`pkg/constants/constants.go`
/// lines 419-450).
pub(super) const NAME_LABEL: &str = "app.kubernetes.io/name";
pub(super) const PART_OF_LABEL: &str = "app.kubernetes.io/part-of";
pub(super) const PART_OF: &str = "llminferenceservice";
pub(super) const COMPONENT_LABEL: &str = "kserve.io/component";
pub(super) const WORKLOAD: &str = "workload";

/// The suffixes of the service accounts KServe creates for a service's model servers, under
/// `<name><suffix>`: the single-node decode pods' with the routing sidecar, the multi-node
/// decode and prefill pods' (`workload_permissions_default.go`).
pub(super) const DECODE_ACCOUNT: &str = "-kserve";
pub(super) const MULTI_NODE_DECODE_ACCOUNT: &str = "-kserve-mn";
pub(super) const MULTI_NODE_PREFILL_ACCOUNT: &str = "-kserve-mn-prefill";

/// Whether `account` is one KServe creates for the model servers of the service `name`: the
/// cluster will hold it though the input declares no ServiceAccount of that name.
pub fn creates_account(name: &str, account: &str) -> bool {
    account.strip_prefix(name).is_some_and(|suffix| {
        [DECODE_ACCOUNT, MULTI_NODE_DECODE_ACCOUNT, MULTI_NODE_PREFILL_ACCOUNT].contains(&suffix)
    })
}

/// A pod template of a model server KServe makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// Its role, as reports name it in place of a path: `(decode)`, `(prefill worker)`.
    pub role: String,
    pub labels: Vec<(String, String)>,
    pub account: String,
    /// Whether its pods may carry labels the build does not know (a preset it lacks).
    pub open: bool,
}

/// What the build cannot know of a service, or must say of it: the field, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub message: String,
    pub warning: bool,
}

/// KServe's child name of `parent`, or `None` where KServe shortens it with a hash the build
/// does not compute.
pub(super) fn child_name(parent: &str, suffix: &str) -> Option<String> {
    (parent.len() + suffix.len() <= LONGEST_NAME).then(|| format!("{parent}{suffix}"))
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
