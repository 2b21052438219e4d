//! Which kinds the reconcile reads whole, and the text search readers use to build those
//! items whole: the one list every reader and rule asks.

use crate::api::group_of;
use crate::api::value::Value;
use crate::reconcile::cluster::controllers;

/// Kinds the reconcile reads whole (service accounts for the names kustomize gave them and
/// the ones declared, namespaces for their labels, KServe's LLMInferenceService because it
/// creates its pool at run time, SPIRE Controller Manager's kinds for what SPIRE will do),
/// the kinds a controller derives pod templates from ([`controllers::reads_whole`]) and
/// [`PRESETS`]; and every item that carries [`GUARD_MARK`]. Any other item passes through
/// untouched.
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

/// Kinds that declare identities: a binding, the pool it names (its output's selector), and
/// SPIRE Controller Manager's objects. While a pull request is applied, its other objects may
/// stand beside the identities of either side (`reconcile/unjudged/duplicates.rs`, `lingering`).
pub const DECLARES_IDENTITIES: [&str; 5] = [
    "InferenceIdentityBinding",
    "InferencePool",
    "ClusterSPIFFEID",
    "ClusterStaticEntry",
    "ClusterFederatedTrustDomain",
];

/// The annotation of the admission guard's objects: an item whose text holds it is read
/// whole, so that the guard's objects are known among all others of their kinds.
pub const GUARD_MARK: &str = crate::api::admission::ANNOTATION_GUARD;

/// Kinds that shape what another controller makes of an item of the input, read whole too:
/// KServe's presets (`cluster/kserve/`).
pub const PRESETS: [&str; 1] = ["LLMInferenceServiceConfig"];

/// Whether the reconcile reads items of this kind whole.
pub fn reads_whole(kind: &str) -> bool {
    READ_WHOLE.contains(&kind) || controllers::reads_whole(kind) || PRESETS.contains(&kind)
}

/// Whether a text may hold an item the reconcile reads whole: a reader that builds items
/// lazily builds whole every item whose text names one of these kinds.
pub fn may_read_whole(text: &str) -> bool {
    READ_WHOLE
        .iter()
        .copied()
        .chain(controllers::derived_kinds())
        .chain(PRESETS)
        .chain([
            MANAGER_CONFIG,
            SERVICE,
            ENDPOINTS,
            POD_TEMPLATE,
            GUARD_MARK,
            crate::api::admission::BINDING_KIND,
        ])
        .chain(SPIRE_COMPONENTS)
        .chain(controllers::images())
        .chain(SPIRE_CONFIG_WORDS)
        .any(|kind| memchr::memmem::find(text.as_bytes(), kind.as_bytes()).is_some())
}

/// SPIRE's components, by the last segment of their images' repositories (those SPIRE
/// publishes and its Helm chart installs): a workload that runs one is read whole, for the
/// unjudged rule (`reconcile/unjudged/kinds.rs`), which judges its every field as a change of
/// what SPIRE issues.
pub const SPIRE_COMPONENTS: [&str; 4] =
    ["spire-server", "spire-agent", "spire-controller-manager", "k8s-workload-registrar"];

/// Words of SPIRE's configuration files (the manager's `clusterName`, the server's and agent's
/// `trust_domain`): an item whose text holds one is read whole, its pod templates'
/// annotations with it, which a `downwardAPI` volume may write as such a file.
const SPIRE_CONFIG_WORDS: [&str; 2] = ["clusterName", "trust_domain"];

/// Built-in kinds, by group, that make no pod: what they say reaches no identity. The
/// admission guard's kinds, a ValidatingAdmissionPolicy and its binding, among them: `diff`
/// judges a change of the guard's own, and records any other (`reconcile/unjudged/guard.rs`,
/// `admission_objects`), whose refusals may keep what a pull request deletes or updates.
const INERT: [(&str, &[&str]); 20] = [
    (
        "",
        &[
            "ConfigMap",
            "Secret",
            "Service",
            "Endpoints",
            "PersistentVolumeClaim",
            "PersistentVolume",
            "LimitRange",
            "ResourceQuota",
            "Event",
            "PodTemplate",
        ],
    ),
    ("apps", &["ControllerRevision"]),
    ("admissionregistration.k8s.io", &["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]),
    ("autoscaling", &["HorizontalPodAutoscaler"]),
    ("policy", &["PodDisruptionBudget"]),
    ("networking.k8s.io", &["Ingress", "IngressClass", "NetworkPolicy"]),
    ("discovery.k8s.io", &["EndpointSlice"]),
    ("rbac.authorization.k8s.io", &["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]),
    ("storage.k8s.io", &["StorageClass", "CSIDriver", "VolumeAttachment"]),
    ("scheduling.k8s.io", &["PriorityClass"]),
    ("coordination.k8s.io", &["Lease"]),
    ("node.k8s.io", &["RuntimeClass"]),
    ("certificates.k8s.io", &["CertificateSigningRequest"]),
    ("flowcontrol.apiserver.k8s.io", &["FlowSchema", "PriorityLevelConfiguration"]),
    (
        "gateway.networking.k8s.io",
        &["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute", "ReferenceGrant", "BackendTLSPolicy"],
    ),
    ("inference.networking.k8s.io", &["InferenceObjective", "InferencePoolImport"]),
    ("inference.networking.x-k8s.io", &["InferenceModel", "InferenceObjective", "InferencePoolImport"]),
    ("monitoring.coreos.com", &["ServiceMonitor", "PodMonitor", "PrometheusRule"]),
    ("fn.kleym.sonda.red", &["RenderInferenceIdentity"]),
    ("config.kubernetes.io", &["ResourceList"]),
];

/// The groups of the kinds of [`READ_WHOLE`] and [`PRESETS`]: an item of one of those kinds
/// in another group is not what the reconcile reads, but a kind of its own.
const READ_WHOLE_GROUPS: [(&str, &[&str]); 7] = [
    ("kleym.sonda.red", &["InferenceIdentityBinding"]),
    ("inference.networking.k8s.io", &["InferencePool"]),
    ("inference.networking.x-k8s.io", &["InferencePool"]),
    ("spire.spiffe.io", &["ClusterSPIFFEID", "ClusterStaticEntry", "ClusterFederatedTrustDomain"]),
    ("apiextensions.k8s.io", &["CustomResourceDefinition"]),
    ("", &["ServiceAccount", "Namespace"]),
    ("serving.kserve.io", &["LLMInferenceService", "LLMInferenceServiceConfig"]),
];

/// Whether the build judges items of `api_version` and `kind` exactly: a controller it
/// declares, a kind it reads whole, or a built-in kind that makes no pod, each in its own
/// group. An item of any other kind, or of one of these kinds in another group (a
/// `serving.kubeflow.org` InferenceService, a `ci.example.com` Workflow: another controller,
/// which the build does not know), is read whole, for the unjudged rule
/// (`reconcile/unjudged/`).
pub fn is_judged(api_version: &str, kind: &str) -> bool {
    let group = group_of(api_version);
    let listed =
        |table: &[(&str, &[&str])]| table.iter().any(|(g, kinds)| *g == group && kinds.contains(&kind));
    controllers::of(api_version, kind).is_some() || listed(&READ_WHOLE_GROUPS) || listed(&INERT)
}

/// Whether the build judges items of `kind` in some group: of another group, one is another
/// controller's.
pub fn is_known_elsewhere(kind: &str) -> bool {
    controllers::is_known_kind(kind)
        || READ_WHOLE_GROUPS.iter().chain(&INERT).any(|(_, kinds)| kinds.contains(&kind))
}

/// The field that makes an object a scaler ([`is_scaler`]), its path.
pub const SCALE_TARGET: &str = "spec.scaleTargetRef";

/// Whether `value` may set the replica count of another workload: it names one in
/// `spec.scaleTargetRef`, whatever its kind. That is the field of every autoscaler that
/// writes a scale subresource: Kubernetes' HorizontalPodAutoscaler (kubernetes
/// `pkg/controller/podautoscaler/horizontal.go`, `reconcileAutoscaler`), KEDA's ScaledObject,
/// which makes one (kedacore/keda `controllers/keda/hpa.go`, `newHPAForScaledObject`),
/// Datadog's WatermarkPodAutoscaler (DataDog/watermarkpodautoscaler
/// `controllers/datadoghq/watermarkpodautoscaler_controller.go`, `reconcileWPA`), GKE's
/// MultidimPodAutoscaler, any custom one. For the unjudged rule (`reconcile/unjudged/scale.rs`).
pub fn is_scaler(value: &Value) -> bool {
    crate::api::fields::lookup(value, SCALE_TARGET).ok().flatten().is_some_and(Value::is_object)
}

/// The scalers among the kinds the build judges, by group, read whole so that [`is_scaler`]
/// sees their target: a reader that builds an item for its head alone does not see its spec.
/// A kind the build does not judge is read whole anyway.
pub const SCALERS: [(&str, &str); 1] = [("autoscaling", "HorizontalPodAutoscaler")];

/// The kind of SPIRE Controller Manager's configuration file, which a ConfigMap may hold:
/// such a ConfigMap is read whole.
pub const MANAGER_CONFIG: &str = "ControllerManagerConfig";

/// Whether the reconcile reads this item whole: a kind it reads whole, a kind it does not
/// judge ([`is_judged`]), a ValidatingAdmissionPolicyBinding (one of an admission guard's
/// policy, whatever its name, is recorded: `reconcile/unjudged/guard.rs`, `lookalikes`), a Service (its selector gives pods DNS names, for SPIRE Controller
/// Manager's `autoPopulateDNSNames`), an Endpoints (its addresses may name pods), a ConfigMap or a Secret (their texts may embed
/// manifests, for the unjudged rule, `reconcile/unjudged/embedded.rs`), a scaler the build
/// judges ([`SCALERS`]); none of these among [`READ_WHOLE`], so that a List of them stays a List the
/// reconcile does not read; and a List (any object with an `items` sequence) holding an item
/// [`judged_alone`], whatever its own kind, which the unjudged rule records
/// (`reconcile/unjudged/lists.rs`).
pub fn reads_value_whole(value: &Value) -> bool {
    let text = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    reads_whole(kind)
        || !is_judged(api_version, kind)
        || (api_version == "v1" && [SERVICE, ENDPOINTS, POD_TEMPLATE, "ConfigMap", "Secret"].contains(&kind))
        || (group_of(api_version), kind)
            == (crate::api::admission::GROUP, crate::api::admission::BINDING_KIND)
        || ADMITTED.iter().chain(&SCALERS).any(|&(g, k)| (group_of(api_version), kind) == (g, k))
        || names_component(api_version, kind, value)
        || value.get("items").and_then(Value::as_array).is_some_and(|items| {
            items.iter().any(|item| {
                let named = |key: &str| item.get(key).and_then(Value::as_str).is_some_and(|k| !k.is_empty());
                // An item without its kind or apiVersion takes the List's (`lists::of`).
                item.is_object() && (!named("kind") || !named("apiVersion") || judged_alone(item))
            })
        })
}

/// Whether a workload's text names a SPIRE component's image, a controller's own image
/// (`Controller::images`) or a word of SPIRE's configuration files, as [`may_read_whole`]
/// searches a reader's text for them.
fn names_component(api_version: &str, kind: &str, value: &Value) -> bool {
    fn any_text(value: &Value, found: &dyn Fn(&str) -> bool) -> bool {
        match value {
            Value::String(text) => found(text),
            Value::Array(items) => items.iter().any(|item| any_text(item, found)),
            Value::Object(map) => map.iter().any(|(key, item)| found(key) || any_text(item, found)),
            _ => false,
        }
    }
    let workload = controllers::of(api_version, kind).is_some() || (api_version, kind) == ("v1", "Pod");
    workload
        && any_text(value, &|text| {
            SPIRE_COMPONENTS
                .iter()
                .copied()
                .chain(controllers::images())
                .chain(SPIRE_CONFIG_WORDS)
                .any(|w| text.contains(w))
        })
}

/// Whether a rule reads `item` only as an object of its own, so that inside a List, which
/// kubectl and Argo CD apply item by item (cli-runtime `pkg/resource/visitor.go`,
/// `FlattenListVisitor`; argo-cd `reposerver/repository/repository.go`, `IsList`,
/// `EachListItem`), it would go unjudged: every item the reconcile reads as a value
/// ([`reads_value_whole`]: a Service, an Endpoints, a ConfigMap, a Secret, a scaler), any
/// object with a scale target ([`is_scaler`]), and the kinds the admission guard writes.
pub fn judged_alone(item: &Value) -> bool {
    reads_value_whole(item) || is_scaler(item) || crate::api::admission::is_guard_kind(item)
}

/// Built-in kinds that make no pod but that Kubernetes' admission plugins write into the pods
/// they admit (a `globalDefault` PriorityClass's name, a RuntimeClass's scheduling, a
/// LimitRange's defaults): read whole, each a record of what changes what is applied.
pub const ADMITTED: [(&str, &str); 3] =
    [("", "LimitRange"), ("scheduling.k8s.io", "PriorityClass"), ("node.k8s.io", "RuntimeClass")];

/// The kind of a Service, read whole by [`reads_value_whole`].
const SERVICE: &str = "Service";

/// The kind of an Endpoints, read whole by [`reads_value_whole`]: one written by hand may give
/// pods DNS names (`reconcile/unjudged/endpoints.rs`).
const ENDPOINTS: &str = "Endpoints";

/// The kind of a PodTemplate, read whole by [`reads_value_whole`]: it makes no pods itself, but
/// a Rollout's `workloadRef` may name one, whose template the Rollout's pods then run
/// (`reconcile/unjudged/`, which follows what such a field names).
const POD_TEMPLATE: &str = "PodTemplate";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_read_whole_is_judged_in_its_group_alone() {
        for kind in READ_WHOLE.iter().chain(&PRESETS) {
            let groups: Vec<&str> =
                READ_WHOLE_GROUPS.iter().filter(|(_, kinds)| kinds.contains(kind)).map(|(g, _)| *g).collect();
            assert!(!groups.is_empty(), "{kind} has no group");
            for group in groups {
                let api_version = if group.is_empty() { "v1".to_string() } else { format!("{group}/v1") };
                assert!(is_judged(&api_version, kind), "{api_version} {kind}");
            }
            assert!(!is_judged("example.com/v1", kind), "{kind} of another group");
        }
        // A controller's kinds too: another group's Workflow or InferenceService is unknown.
        assert!(is_judged("argoproj.io/v1alpha1", "Workflow"));
        assert!(!is_judged("ci.example.com/v1", "Workflow"));
        assert!(!is_judged("serving.kubeflow.org/v1beta1", "InferenceService"));
    }

    #[test]
    fn a_scaler_is_any_object_that_names_a_scale_target() {
        use crate::api::value::item_json as json;
        let wpa = json!({"apiVersion": "datadoghq.com/v1alpha1", "kind": "WatermarkPodAutoscaler",
                         "spec": {"scaleTargetRef": {"kind": "StatefulSet", "name": "db"}}});
        assert!(is_scaler(&wpa));
        assert!(!is_scaler(&json!({"kind": "VerticalPodAutoscaler", "spec": {"targetRef": {"name": "db"}}})));
        assert!(!is_scaler(&json!({"kind": "X", "spec": {"scaleTargetRef": "db"}})));
        // The scalers the build judges are read whole from their head alone.
        for (group, kind) in SCALERS {
            let api_version = format!("{group}/v2");
            assert!(is_judged(&api_version, kind), "{kind}");
            assert!(reads_value_whole(&json!({"apiVersion": api_version, "kind": kind})), "{kind}");
        }
    }

    #[test]
    fn texts_naming_a_read_kind_are_flagged() {
        assert!(may_read_whole("kind: InferencePool"));
        assert!(!may_read_whole("kind: Deployment"));
        assert!(may_read_whole("kind: Rollout") && reads_whole("Rollout"), "a derived kind");
    }
}
