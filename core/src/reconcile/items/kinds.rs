//! Which kinds the reconcile reads whole, and the text search readers use to build those
//! items whole: the one list every reader and rule asks.

/// Kinds the reconcile reads whole (service accounts for the names kustomize gave them and
/// the ones declared, namespaces for their labels, KServe's LLMInferenceService because it
/// creates its pool at run time, SPIRE Controller Manager's kinds for what SPIRE will do),
/// and [`POD_MAKERS`] and [`PRESETS`]; and every item that carries [`GUARD_MARK`]. Any other
/// item passes through untouched.
pub const READ_WHOLE: [&str; 9] = [
    "InferenceIdentityBinding",
    "InferencePool",
    "ClusterSPIFFEID",
    "ClusterStaticEntry",
    "ClusterFederatedTrustDomain",
    "CustomResourceDefinition",
    "ServiceAccount",
    "Namespace",
    "LLMInferenceService",
];

/// The annotation of the admission guard's objects: an item whose text holds it is read
/// whole, so that the guard's objects are known among all others of their kinds.
pub const GUARD_MARK: &str = crate::api::admission::ANNOTATION_GUARD;

/// Kinds whose pods another controller makes from shapes that are not pod templates, read
/// whole too (`cluster/controllers.rs`).
pub const POD_MAKERS: [&str; 6] = [
    "Rollout",
    "Workflow",
    "WorkflowTemplate",
    "ClusterWorkflowTemplate",
    "CronWorkflow",
    "InferenceService",
];

/// Kinds that shape what another controller makes of an item of the input, read whole too:
/// KServe's presets (`cluster/kserve/`).
pub const PRESETS: [&str; 1] = ["LLMInferenceServiceConfig"];

/// Whether the reconcile reads items of this kind whole.
pub fn reads_whole(kind: &str) -> bool {
    READ_WHOLE.contains(&kind) || POD_MAKERS.contains(&kind) || PRESETS.contains(&kind)
}

/// Whether a text may hold an item the reconcile reads whole: a reader that builds items
/// lazily builds whole every item whose text names one of these kinds.
pub fn may_read_whole(text: &str) -> bool {
    READ_WHOLE
        .iter()
        .chain(&POD_MAKERS)
        .chain(&PRESETS)
        .chain(&[GUARD_MARK])
        .any(|kind| memchr::memmem::find(text.as_bytes(), kind.as_bytes()).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_naming_a_read_kind_are_flagged() {
        assert!(may_read_whole("kind: InferencePool"));
        assert!(!may_read_whole("kind: Deployment"));
    }
}
