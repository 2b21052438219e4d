//! The kinds that change what gets applied, whatever they say: admission, GitOps tools,
//! kustomize, SPIRE Controller Manager's own configuration; and the workloads that run a SPIRE
//! component or a pod-making controller.

use crate::api::cluster_spiffe_id as csid;
use crate::api::value::Value;
use crate::reconcile::cluster::controllers::{self, Controller};
use crate::reconcile::items::kinds::{MANAGER_CONFIG, SPIRE_COMPONENTS};

/// Groups whose every kind changes what the cluster admits or applies, and why.
const APPLYING_GROUPS: [(&str, &str); 14] = [
    // The policy engines that mutate (or generate) pods at admission, through a webhook of
    // their own, whatever the kind is named: Kyverno's `mutate` and `generate` rules
    // (kyverno `pkg/engine/mutation.go`, `Mutate`; `policies.kyverno.io` `MutatingPolicy`),
    // Gatekeeper's mutators (gatekeeper `pkg/mutation/mutators/`: `Assign`,
    // `AssignMetadata`, `ModifySet`, `AssignImage`, each `Mutate`), Kubewarden's mutating
    // policies (`policies.kubewarden.io`, `mutating: true`) and jsPolicy's `Mutating` type.
    ("kyverno.io", ENGINE_WHY),
    ("policies.kyverno.io", ENGINE_WHY),
    ("mutations.gatekeeper.sh", ENGINE_WHY),
    ("policies.kubewarden.io", ENGINE_WHY),
    ("policy.jspolicy.com", ENGINE_WHY),
    (
        "source.toolkit.fluxcd.io",
        "Flux sources bring manifests from outside the folders given, which the build does not read",
    ),
    (
        "apiregistration.k8s.io",
        "an APIService hands an API group to another server, which then answers for its objects",
    ),
    // Controllers that install manifests of their own choosing, with the rights to make any
    // object, a ClusterSPIFFEID among them: k3s' and RKE2's HelmChart (k3s-io/helm-controller
    // `pkg/apis/helm.cattle.io/v1/types.go`, `HelmChartSpec`), kapp-controller's App and
    // PackageInstall (carvel-dev/kapp-controller `pkg/apis/kappctrl/v1alpha1`,
    // `pkg/apis/packaging/v1alpha1`), Rancher Fleet's GitRepo and Bundle
    // (rancher/fleet `pkg/apis/fleet.cattle.io/v1alpha1`), Flux v1's HelmRelease
    // (`helm.fluxcd.io`), Cluster API's ClusterResourceSet (`addons.cluster.x-k8s.io`) and
    // OLM's Subscription, which installs an operator (`operators.coreos.com`).
    ("helm.cattle.io", INSTALLER_WHY),
    ("kappctrl.k14s.io", INSTALLER_WHY),
    ("packaging.carvel.dev", INSTALLER_WHY),
    ("fleet.cattle.io", INSTALLER_WHY),
    ("helm.fluxcd.io", INSTALLER_WHY),
    ("addons.cluster.x-k8s.io", INSTALLER_WHY),
    ("operators.coreos.com", INSTALLER_WHY),
];

/// Why an installer's object changes what gets applied.
const INSTALLER_WHY: &str = "its controller installs manifests from outside the folders given (a chart, a \
     bundle, a repository), with the rights to make any object, a ClusterSPIFFEID among them";

/// Why a policy engine's object changes what gets applied.
const ENGINE_WHY: &str = "a policy engine's rules mutate the pods the API server admits (their labels, their \
     service account) or make objects of their own, where the build does not see";

/// Kinds, by group, that change what gets applied, and why.
const APPLYING_KINDS: [(&str, &[&str], &str); 10] = [
    (
        "admissionregistration.k8s.io",
        &["MutatingWebhookConfiguration", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"],
        "mutating admission changes the pods the API server admits, their labels and service \
         account among them, where the build does not see",
    ),
    (
        "argoproj.io",
        &["Application", "ApplicationSet", "AppProject"],
        "Argo CD applies the manifests it names, from outside the folders given",
    ),
    (
        "kustomize.toolkit.fluxcd.io",
        &["Kustomization"],
        "Flux applies the manifests it names, built and patched where the build does not see",
    ),
    (
        "helm.toolkit.fluxcd.io",
        &["HelmRelease"],
        "Flux installs the chart it names, rendered where the build does not see",
    ),
    (
        "kustomize.config.k8s.io",
        &["Kustomization", "Component"],
        "kustomize rewrites the manifests it names (labels among them) before they are applied",
    ),
    (
        "spire.spiffe.io",
        &["ControllerManagerConfig"],
        "SPIRE Controller Manager's own configuration (its class, the classless objects it \
         watches, the namespaces it ignores, its parent ID template) decides which identities \
         it issues",
    ),
    // Kubernetes' own admission plugins write these into the pods they admit, where a
    // template's action may read them (`{{ .PodSpec.PriorityClassName }}`).
    (
        "scheduling.k8s.io",
        &["PriorityClass"],
        "the Priority admission plugin writes a `globalDefault` class's name and value into every pod \
         that names none (kubernetes plugin/pkg/admission/priority, `admitPod`), where the build does \
         not see",
    ),
    (
        "node.k8s.io",
        &["RuntimeClass"],
        "the RuntimeClass admission plugin writes its overhead, node selector and tolerations into the \
         pods that name it (kubernetes plugin/pkg/admission/runtimeclass), where the build does not see",
    ),
    (
        "",
        &["LimitRange"],
        "the LimitRanger admission plugin writes its default requests and limits into the pods of its \
         namespace (kubernetes plugin/pkg/admission/limitranger), where the build does not see",
    ),
    (
        "admissionregistration.k8s.io",
        &["ValidatingWebhookConfiguration"],
        "a validating webhook refuses the requests it matches, the deletes and updates a pull request \
         relies on among them (a binding's or a ClusterSPIFFEID's delete, so that an identity stays while \
         its admission guard is pruned; an update of the guard's parameters, so that a removed workload's \
         name stays admitted: apiserver registry/generic/registry/store.go, Delete, runs validating \
         admission first), which the build does not judge",
    ),
];

/// Whether every item of `kind` in API group `group` changes what gets applied, whatever it
/// says: a change of any of them is `may gain` already.
pub(super) fn always_applies(group: &str, kind: &str) -> bool {
    APPLYING_GROUPS.iter().any(|(g, _)| *g == group)
        || APPLYING_KINDS.iter().any(|(g, kinds, _)| *g == group && kinds.contains(&kind))
}

/// Why an item of `api_version` and `kind` changes what gets applied, whatever it says; `None`
/// when it does not. A ConfigMap does when it holds SPIRE Controller Manager's configuration.
pub fn changes_what_is_applied(api_version: &str, kind: &str, value: &Value) -> Option<String> {
    let group = crate::api::group_of(api_version);
    let a = article(kind);
    if let Some((_, why)) = APPLYING_GROUPS.iter().find(|(g, _)| *g == group) {
        return Some(format!("{a} {kind}: {why}"));
    }
    if let Some((_, _, why)) =
        APPLYING_KINDS.iter().find(|(g, kinds, _)| *g == group && kinds.contains(&kind))
    {
        return Some(format!("{a} {kind}: {why}"));
    }
    if let Some(why) = schema_of_a_judged_kind(api_version, kind, value) {
        return Some(why);
    }
    if let Some(version) = csid::unserved_version(api_version, kind) {
        return Some(format!(
            "{a} {kind} of version {version}, which SPIRE Controller Manager's CRDs do not serve: the build \
             reads none of it, and whether the cluster holds a CRD that serves it, and as what, only the \
             cluster knows"
        ));
    }
    if let Some(option) = recreated_spire_object(api_version, kind, value)
        && let Some(what) = makes_identity(api_version, kind)
    {
        return Some(format!(
            "{a} {kind} that its applier deletes and creates again ({option}): deleted, {what} the kleym \
             operator deletes the ClusterSPIFFEID it renders, and makes it again, newer, once it is back \
             (internal/controller, cleanupManagedClusterSPIFFEIDs); meanwhile its pods have no entry of it, \
             and a fallback identity may give them one, and after it another declaration of its entry may be \
             the oldest, which SPIRE Controller Manager keeps (sortDeclaredEntriesByPreference)"
        ));
    }
    if let Some(option) = recreated_spire_object(api_version, kind, value) {
        let keeps = if kind == "ClusterFederatedTrustDomain" {
            "uses, of the objects of one trust domain, the oldest (listClusterFederatedTrustDomains)"
        } else {
            "keeps, of the objects declaring one entry, the oldest (sortDeclaredEntriesByPreference)"
        };
        return Some(format!(
            "{a} {kind} that its applier deletes and creates again ({option}): SPIRE Controller \
             Manager {keeps}, and a new creation time makes another one the oldest"
        ));
    }
    // An object whose finalizers keep it, deleted, while the operator reads it: a binding's
    // output (a ClusterSPIFFEID), a binding, a pool.
    if ((api_version.starts_with(SPIRE_GROUP) && kind == "ClusterSPIFFEID")
        || makes_identity(api_version, kind).is_some())
        && value
            .get("metadata")
            .and_then(|m| m.get("finalizers"))
            .and_then(Value::as_array)
            .is_some_and(|f| !f.is_empty())
    {
        return Some(format!(
            "{a} {kind} with finalizers (metadata.finalizers): deleted, it stays, terminating, until they are \
             removed, and the kleym operator, which counts a failing binding's output while it exists, then \
             withdraws the outputs of every other binding of its namespace (internal/controller/\
             inferenceidentitybinding_conflict.go, identityForConflictEvaluation), so their pods may fall to a \
             fallback identity, which the build does not judge; remove them"
        ));
    }
    if let Some(field) = pruned_pool_field(api_version, kind, value) {
        return Some(format!(
            "{a} {kind} whose {field} is a field its CRD does not know (its selector holds matchLabels \
             alone): kubectl refuses it under its strict validation, while an applier that asks for none \
             (Argo CD's Validate=false, kubectl --validate=false) has the API server prune the field and store \
             the rest, and the kleym operator reads the pool as stored (internal/gaie/resolver.go, \
             DeriveSelectorsFromPool), so its bindings may render over matchLabels alone, which the build \
             does not judge; remove the field"
        ));
    }
    if let Some(field) = holds_manager_config(api_version, kind, value) {
        return Some(format!(
            "{a} {kind} that holds a ControllerManagerConfig ({field}): {}",
            APPLYING_KINDS.iter().find(|(_, kinds, _)| kinds.contains(&MANAGER_CONFIG)).map_or("", |k| k.2)
        ));
    }
    if let Some(field) = holds_spire_config(api_version, kind, value) {
        return Some(format!(
            "{a} {kind} that holds a SPIRE server's or agent's configuration ({field}): its default SVID \
             lifetimes, the trust domains it federates with and their bundle endpoints, and how its agents \
             attest workloads decide what SPIRE issues, which the build does not judge"
        ));
    }
    if let Some(image) = runs_spire(api_version, kind, value) {
        return Some(format!(
            "{a} {kind} that runs a SPIRE component ({image}): its arguments, environment, mounts and \
             configuration (the ConfigMaps and Secrets it mounts, of its namespace or copied from another, \
             and what an operator writes) decide which identities SPIRE issues and to whom, which the build does not judge"
        ));
    }
    if let Some(field) = holds_kserve_config(api_version, kind, value) {
        return Some(format!(
            "{a} {kind} that holds KServe's configuration ({field}): the mode an InferenceService defaults \
             to, the labels KServe leaves off its pods (serviceLabelDisallowedList) and the containers its \
             webhook injects decide the pods KServe makes (kserve pkg/apis/serving/v1beta1/configmap.go, \
             NewInferenceServicesConfig, read on every reconcile), which the build does not judge"
        ));
    }
    if let Some(field) = holds_workflow_config(api_version, kind, value) {
        return Some(format!(
            "{a} {kind} that holds Argo Workflows' configuration ({field}): the defaults it lays over every \
             workflow (workflowDefaults: templateDefaults, sidecars, pod metadata, service account) and the \
             executor plugins it adds to agent pods decide the pods it makes (argo-workflows \
             workflow/controller/controller.go, setWorkflowDefaults; agent.go, getExecutorPlugins), which the \
             build does not judge"
        ));
    }
    if holds_spire_objects(api_version, kind, value) {
        return Some(format!(
            "{a} {kind} whose text holds SPIRE Controller Manager's objects ({SPIRE_GROUP}): a manager run with \
             staticManifestPath reads its ClusterSPIFFEIDs, ClusterStaticEntries and \
             ClusterFederatedTrustDomains from the files such a {kind} mounts (spire-controller-manager \
             cmd/main.go staticRun), which the build does not judge"
        ));
    }
    None
}

/// The field of an item whose text may be SPIRE Controller Manager's configuration file: it
/// names `ControllerManagerConfig`, or the two fields the manager requires, `clusterName` and
/// `trustDomain`, plain or with a quoted string's escapes. The manager reads the file with
/// or without its `apiVersion` and `kind` (spire-controller-manager
/// `api/v1alpha1/controllermanagerconfig_loader.go`, `loadFile`), so a file that drops them is
/// no less its configuration; and reads it from wherever its pod mounts it ([`spire_texts`]).
fn holds_manager_config(api_version: &str, kind: &str, value: &Value) -> Option<String> {
    let names = |text: &str| {
        let words: Vec<&str> = super::tokens(text).collect();
        words.contains(&MANAGER_CONFIG) || (words.contains(&"clusterName") && words.contains(&"trustDomain"))
    };
    first_naming(api_version, kind, value, names)
}

/// The name of the ConfigMap Argo Workflows' controller reads its configuration from.
const WORKFLOW_CONFIG: &str = "workflow-controller-configmap";

/// The field of an item that may be Argo Workflows' configuration: a ConfigMap of its name or
/// marked as an executor plugin (`workflows.argoproj.io/configmap-type`), or any text a
/// ConfigMap or Secret holds, or a pod reads, that names `workflowDefaults`.
fn holds_workflow_config(api_version: &str, kind: &str, value: &Value) -> Option<String> {
    if (api_version, kind) == ("v1", "ConfigMap") {
        let text = |path: &[&str]| crate::api::fields::child(value, path).and_then(Value::as_str);
        if text(&["metadata", "name"]) == Some(WORKFLOW_CONFIG) {
            return Some("metadata.name".into());
        }
        if text(&["metadata", "labels", "workflows.argoproj.io/configmap-type"]).is_some() {
            return Some("metadata.labels".into());
        }
    }
    first_naming(api_version, kind, value, |text| super::tokens(text).any(|w| w == "workflowDefaults"))
}

/// The name of the ConfigMap KServe reads its configuration from, in its own namespace.
const KSERVE_CONFIG: &str = "inferenceservice-config";

/// Fields only KServe's configuration names.
const KSERVE_CONFIG_FIELDS: [&str; 3] =
    ["serviceLabelDisallowedList", "serviceAnnotationDisallowedList", "defaultDeploymentMode"];

/// The field of an item that may be KServe's configuration: a ConfigMap of its name, or any
/// text a ConfigMap or Secret holds, or a pod reads, that names a field only it names.
fn holds_kserve_config(api_version: &str, kind: &str, value: &Value) -> Option<String> {
    if (api_version, kind) == ("v1", "ConfigMap")
        && crate::api::fields::str_at(value, "metadata.name") == Some(KSERVE_CONFIG)
    {
        return Some("metadata.name".into());
    }
    first_naming(api_version, kind, value, |text| {
        super::tokens(text).any(|w| KSERVE_CONFIG_FIELDS.contains(&w))
    })
}

/// The field of an item whose text may be a SPIRE server's or agent's configuration file
/// (HCL or JSON: spire `cmd/spire-server/cli/run/run.go` and `cmd/spire-agent/cli/run/run.go`,
/// `ParseConfig`): it names `trust_domain` and a `server` or `agent` block.
fn holds_spire_config(api_version: &str, kind: &str, value: &Value) -> Option<String> {
    // HCL v1 matches keys in any case (hashicorp/hcl `ObjectList.Filter`, `strings.EqualFold`).
    let names = |text: &str| {
        let lower = text.to_ascii_lowercase();
        let words: Vec<&str> = super::tokens(&lower).collect();
        words.contains(&"trust_domain") && (words.contains(&"server") || words.contains(&"agent"))
    };
    first_naming(api_version, kind, value, names)
}

/// The field of the first of an item's [`spire_texts`] that `names` says holds a file, read
/// plain or with a quoted string's escapes undone.
fn first_naming(
    api_version: &str,
    kind: &str,
    value: &Value,
    names: impl Fn(&str) -> bool,
) -> Option<String> {
    spire_texts(api_version, kind, value)
        .into_iter()
        .find(|(_, text)| names(text) || (text.contains('\\') && names(&super::quoted(text))))
        .map(|(field, _)| field)
}

/// The texts a SPIRE component may read its configuration from, each with its field: a
/// ConfigMap's or a Secret's ([`super::embedded::texts`]; a volume of either kind, projected
/// or not, writes them as files: kubernetes `pkg/volume/configmap`, `pkg/volume/secret`,
/// `MakePayload`), and the annotations of a workload's pod templates, which a `downwardAPI`
/// volume writes as a file (kubernetes `pkg/volume/downwardapi`, `CollectData`).
fn spire_texts<'v>(
    api_version: &str,
    kind: &str,
    value: &'v Value,
) -> Vec<(String, std::borrow::Cow<'v, str>)> {
    let mut texts = super::embedded::texts(api_version, kind, value);
    if controllers::of(api_version, kind).is_some() || (api_version, kind) == ("v1", "Pod") {
        let mut annotations = Vec::new();
        walk(value, "", &mut |path, key, value| {
            if path.ends_with("metadata.annotations")
                && let Some(text) = value.as_str()
            {
                annotations.push((format!("{path}.{key}"), std::borrow::Cow::Borrowed(text)));
            }
        });
        texts.extend(annotations);
    }
    texts
}

/// The image of a SPIRE component a workload's container runs, known by the last segment of
/// its repository ([`SPIRE_COMPONENTS`]); `None` for an item that runs none.
pub(super) fn runs_spire<'v>(api_version: &str, kind: &str, value: &'v Value) -> Option<&'v str> {
    runs(api_version, kind, value, &|name| SPIRE_COMPONENTS.iter().any(|c| name.contains(c)))
}

/// The image of a pod-making controller a workload's container runs, and that controller
/// (`Controller::images`); `None` for an item that runs none.
pub(super) fn runs_controller<'v>(
    api_version: &str,
    kind: &str,
    value: &'v Value,
) -> Option<(&'v str, &'static Controller)> {
    let image = runs(api_version, kind, value, &|name| controllers::running(name).is_some())?;
    controllers::running(image_name(image)).map(|c| (image, c))
}

/// The last segment of an image's repository, without its tag or digest: `workflow-controller`
/// of `quay.io/argoproj/workflow-controller:v3.6.2`.
fn image_name(image: &str) -> &str {
    let repository = image.split('@').next().unwrap_or_default();
    let last = repository.rsplit('/').next().unwrap_or_default();
    last.split(':').next().unwrap_or_default()
}

/// The first image a workload's container runs whose name ([`image_name`]) is `wanted`.
fn runs<'v>(
    api_version: &str,
    kind: &str,
    value: &'v Value,
    wanted: &dyn Fn(&str) -> bool,
) -> Option<&'v str> {
    // A controller the build knows, a Pod, or a kind it does not judge, whose controller may
    // run the image (an OpenKruise CloneSet).
    let judged = crate::reconcile::items::kinds::is_judged(api_version, kind);
    if controllers::of(api_version, kind).is_none() && (api_version, kind) != ("v1", "Pod") && judged {
        return None;
    }
    let mut found = None;
    walk(value, "", &mut |_, key, value| {
        let Some(image) = value.as_str().filter(|_| key == "image" && found.is_none()) else { return };
        if wanted(image_name(image)) {
            found = Some(image);
        }
    });
    found
}

/// The first field of an `inference.networking.k8s.io` InferencePool's `spec.selector` but
/// `matchLabels`, the only one its CRD knows (GAIE `config/crd/bases`, `LabelSelector`),
/// where the input writes one beside `matchLabels`: which of refused or pruned the pool is
/// hangs on the applier. Without `matchLabels`, which the CRD requires, it is refused pruned or
/// not.
fn pruned_pool_field(api_version: &str, kind: &str, value: &Value) -> Option<String> {
    if (crate::api::group_of(api_version), kind) != ("inference.networking.k8s.io", "InferencePool") {
        return None;
    }
    let selector = value.get("spec")?.get("selector")?.as_object()?;
    selector.get("matchLabels")?;
    selector.iter().find(|(key, _)| *key != "matchLabels").map(|(key, _)| format!("spec.selector.{key}"))
}

/// Calls `visit` with the path (keys joined by `.`, sequences' items unnamed), key and value
/// of every entry of every mapping under `value`.
fn walk<'v>(value: &'v Value, path: &str, visit: &mut dyn FnMut(&str, &str, &'v Value)) {
    if let Some(map) = value.as_object() {
        for (key, entry) in map.iter() {
            visit(path, key, entry);
            let inner = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
            walk(entry, &inner, visit);
        }
    } else if let Some(items) = value.as_array() {
        for item in items {
            walk(item, path, visit);
        }
    }
}

/// Why a CustomResourceDefinition changes what is applied, when it defines a kind the build
/// reads or judges (a ClusterSPIFFEID, an InferencePool, a binding, a controller's kind): the
/// API server stores and serves those objects as its schema says, defaults filled in
/// (`default: true` on `spec.admin` makes every ClusterSPIFFEID an admin one, those stored
/// before too: apiextensions-apiserver `pkg/apiserver/customresource_handler.go`,
/// `unstructuredDefaulter`), unknown fields pruned, versions converted by its webhook; the
/// build reads the objects as written.
fn schema_of_a_judged_kind(api_version: &str, kind: &str, value: &Value) -> Option<String> {
    if kind != "CustomResourceDefinition" || !api_version.starts_with("apiextensions.k8s.io/") {
        return None;
    }
    let text = |path: &str| crate::api::fields::str_at(value, path).unwrap_or_default();
    let (group, defined) = (text("spec.group"), text("spec.names.kind"));
    crate::reconcile::items::kinds::is_judged(&format!("{group}/v1"), defined).then(|| {
        format!(
            "a CustomResourceDefinition of {defined} ({group}), a kind the build reads: the API server stores \
             and serves those objects as its schema says (defaults filled in, unknown fields pruned, versions \
             converted), and the build reads them as written"
        )
    })
}

/// The Argo CD sync option that deletes and creates again a SPIRE Controller Manager object,
/// a binding or a pool (`Replace=true`, `Force=true` in `argocd.argoproj.io/sync-options`: gitops-engine
/// `pkg/sync/sync_context.go`, `applyObject`, which then replaces it, `kubectl replace
/// --force`), if it carries one. Every kind of which the manager applies the oldest of several
/// declarations: a ClusterSPIFFEID's or ClusterStaticEntry's entry, a federation's trust domain;
/// and a binding or a pool, whose ClusterSPIFFEID the operator deletes and renders again.
fn recreated_spire_object<'v>(api_version: &str, kind: &str, value: &'v Value) -> Option<&'v str> {
    let judged_by_age = api_version.starts_with(SPIRE_GROUP)
        && matches!(kind, "ClusterSPIFFEID" | "ClusterStaticEntry" | "ClusterFederatedTrustDomain");
    if !judged_by_age && makes_identity(api_version, kind).is_none() {
        return None;
    }
    // An owner makes the garbage collector delete it once the owner is gone, or named under
    // another UID (kubernetes `pkg/controller/garbagecollector/garbagecollector.go`,
    // `attemptToDeleteItem`): another object becomes the oldest.
    let metadata = value.get("metadata")?;
    if metadata.get("ownerReferences").is_some() {
        return Some("ownerReferences");
    }
    let annotations = metadata.get("annotations")?;
    // A hook is deleted and created again on every sync or upgrade by default (gitops-engine
    // `pkg/sync/hook/delete_policy.go`, `DeletePolicies`: `BeforeHookCreation`; Helm
    // `pkg/action/hooks.go`, `execHook`; Argo CD takes Helm's hooks for its own,
    // `hook/helm/type.go`); Flux's `force: enabled` replaces an object it cannot patch.
    // kapp replaces an object so marked (carvel-dev/kapp `pkg/kapp/clusterapply/
    // add_or_update_change.go`: `always-replace`, `fallback-on-replace`).
    for hook in [
        "argocd.argoproj.io/hook",
        "helm.sh/hook",
        "kustomize.toolkit.fluxcd.io/force",
        "kapp.k14s.io/update-strategy",
    ] {
        if annotations.get(hook).is_some() {
            return Some(hook);
        }
    }
    // Argo CD updates a Namespace it is told to replace (gitops-engine `applyObject`).
    if kind == "Namespace" {
        return None;
    }
    let options = annotations.get("argocd.argoproj.io/sync-options")?.as_str()?;
    options
        .split(',')
        .map(str::trim)
        .find(|o| o.eq_ignore_ascii_case("Replace=true") || o.eq_ignore_ascii_case("Force=true"))
}

/// For a binding, a pool a binding reads, or a Namespace that holds them, how deleting it
/// withdraws the identity rendered of it.
fn makes_identity(api_version: &str, kind: &str) -> Option<&'static str> {
    let group = crate::api::group_of(api_version);
    match (group, kind) {
        ("kleym.sonda.red", "InferenceIdentityBinding") => Some("as with the binding,"),
        ("inference.networking.k8s.io" | "inference.networking.x-k8s.io", "InferencePool") => {
            Some("its bindings find no pool (TargetPoolNotFound), and")
        }
        // Deleted, a Namespace takes every binding and pool in it along.
        ("", "Namespace") => Some("with every binding and pool in it,"),
        _ => None,
    }
}

/// The API group of SPIRE Controller Manager's objects, as their text names it.
const SPIRE_GROUP: &str = "spire.spiffe.io/";

/// Whether a text of a ConfigMap or a Secret ([`super::embedded::texts`]) names SPIRE
/// Controller Manager's API group, plain or with a quoted string's escapes
/// (`spire.spiffe.io\x2Fv1alpha1`, which the manager's YAML reader reads as the group): a
/// file a manager in static mode may read its objects from.
fn holds_spire_objects(api_version: &str, kind: &str, value: &Value) -> bool {
    super::embedded::texts(api_version, kind, value).iter().any(|(_, text)| {
        text.contains(SPIRE_GROUP) || (text.contains('\\') && super::quoted(text).contains(SPIRE_GROUP))
    })
}

/// "a" or "an", before `kind`.
pub fn article(kind: &str) -> &'static str {
    if kind.starts_with(['A', 'E', 'I', 'O', 'U']) { "an" } else { "a" }
}

/// How a record names the kind of an item the build does not judge: with its group when the
/// build knows that kind in another group alone (an `InferenceService` of
/// `serving.kubeflow.org`), whose controller is then another.
pub(super) fn unknown_kind(api_version: &str, kind: &str) -> String {
    let group = crate::api::group_of(api_version);
    let a = article(kind);
    if crate::reconcile::items::kinds::is_known_elsewhere(kind) {
        format!("{a} {kind} of {group} (the build knows that kind in another group alone)")
    } else {
        format!("{a} {kind}")
    }
}
