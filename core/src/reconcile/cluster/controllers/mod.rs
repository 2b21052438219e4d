//! The controllers that make pods, one declaration each (docs/reference.md#pods-other-controllers-make):
//! the group and kinds it acts on, where its pods' templates stand, the fields of its items
//! that shape its pods beyond the templates, the labels it puts on its pods and how it names
//! them. Every reader and rule takes a controller's facts from here: the readers build the
//! fields a declaration names ([`shape_keys`]) and read whole the kinds whose pods are derived
//! ([`reads_whole`]), the workload reader asks [`Controller::facts`] and [`Controller::derive`],
//! the SPIRE model [`Controller::labels`], coverage [`Controller::kustomize_fixes_account`].
//! A kind no declaration names is a controller the build does not know: its pods may carry
//! any label a known controller adds ([`sets_label`]).

mod derived;
mod kubernetes;
mod refusals;
mod unjudged;

pub(super) use derived::{Derived, unknown};
pub use kubernetes::{DEPLOYMENT, GroupShape, LEADER_TEMPLATE, LEADER_WORKER_SET, WORKER_TEMPLATE};

use super::selector::{Lookup, Selector};
use crate::api::fields;
use crate::api::value::Value;

/// One controller that makes pods.
pub struct Controller {
    /// The API group of its kinds; `""` is the core group.
    pub group: &'static str,
    pub kinds: &'static [&'static str],
    /// Who makes the pods, for the reference: "Kubernetes' StatefulSet controller".
    pub maker: &'static str,
    /// The images the controller itself runs from, by the last segment of their repositories
    /// as its project publishes them: a workload that runs one is the controller, whose
    /// arguments, environment and configuration shape every pod it makes (Argo Workflows'
    /// `POD_NAMES` names them, KServe's flags label them), so any change of it is may gain
    /// (`reconcile/unjudged/`).
    pub images: &'static [&'static str],
    /// Where its items hold pod templates (the generic search of `workload.rs` finds them
    /// there; `derive` adds the others).
    pub templates: &'static [&'static str],
    /// Fields of its items beside the templates that shape its pods' names or labels, or
    /// whether it makes any (a selector the API server refuses: [`Controller::refusal`]). Every
    /// reader builds them whole ([`shape_keys`]), so no reader drops what its pods depend on.
    pub shapes: &'static [&'static str],
    /// The templates it makes pods from in shapes that are no pod template (ephemeral
    /// metadata, workflow steps, components), given whether the generic search found any;
    /// `None` when its templates are all pod templates. Its items are read whole.
    pub derive: Option<for<'a> fn(&'a Value, bool) -> Vec<Derived<'a>>>,
    /// Whether its pods come from the template at this path; `None` for every template.
    pub keeps: Option<fn(&Value, &str) -> bool>,
    /// What it settles of its pods from an item: their name and the facts its labels hang on.
    pub facts: fn(&Value) -> Facts,
    /// The value it gives label `key` of its pods, knowing the template's (`template`);
    /// `None` when it leaves the key to the template.
    pub labels: for<'a> fn(&Owner<'a>, &str, Option<&'a str>) -> Option<Lookup<'a>>,
    /// The label keys it may set (a key ending in `/` is a prefix): what a selector cannot
    /// look up in the template index, and what an unknown controller may set too.
    pub label_keys: &'static [&'static str],
    /// The first field of an item that shapes its pods in a way the build does not judge (a
    /// template another object holds, a patch of the pod, a value substituted at run time),
    /// with why: such an item is may gain (`reconcile/unjudged/`). `None`: it judges them all.
    pub unjudged: Option<fn(&Value) -> Option<Unjudged>>,
    /// Why the pods it makes of an item's next version hang on what only the cluster holds
    /// (a serving runtime, its configuration, its admission webhooks), beyond what the item
    /// states: any change of such an item is may gain (`reconcile/unjudged/`). `None`: the
    /// item states them.
    pub remade: Option<&'static str>,
    /// Whether kustomize's built-in nameReference rewrites its templates'
    /// `serviceAccountName` when it renames a ServiceAccount.
    pub kustomize_fixes_account: bool,
    /// Whether its pods run the containers of their template, names and images as written
    /// (SPIRE's container and image selectors are then judged by them); `false` for one that
    /// adds or renames containers (Argo Workflows' `wait` and `init`, KServe's).
    pub containers_as_written: bool,
    /// Why the API server refuses an item for its own validation (`refusals.rs`), which so
    /// makes no pods; `None` when the build judges no refusal of its kinds.
    pub refusal: Option<fn(&Value) -> Option<String>>,
}

/// A field of an item its controller does not judge: its path, and why.
pub type Unjudged = (String, &'static str);

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.group, self.kinds.join(","))
    }
}

/// What a controller settles of an item's pods.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Their name, when the item settles it (a Pod's own, a StatefulSet of one replica's
    /// `<name>-<ordinal>`).
    pub pod_name: Option<String>,
    /// What else the labels hang on, as the controller reads it (a Job's `manualSelector`,
    /// an ordinal): its own meaning per controller.
    pub detail: String,
}

/// A workload, as far as the labels its controller puts on its pods go.
#[derive(Debug, Clone, Copy)]
pub struct Owner<'a> {
    /// Its controller; `None` for a kind no declaration names.
    pub controller: Option<&'static Controller>,
    pub name: &'a str,
    /// Its pods' name, when the input settles it.
    pub pod_name: Option<&'a str>,
    /// [`Facts::detail`].
    pub detail: &'a str,
    /// The path, in the item, of the template whose pods these are: a controller that makes
    /// pods of several templates (a LeaderWorkerSet's leader and workers) tells them apart.
    pub template: &'a str,
}

impl<'a> Owner<'a> {
    /// What its controller puts in label `key` of its pods, over what the template says
    /// (`template`); `None` when the key is the template's. A controller the build does not
    /// know may set any key a known one sets: unknown.
    pub fn label(&self, key: &str, template: Option<&'a str>) -> Option<Lookup<'a>> {
        if webhook_key(key, self.controller, &|_| false) {
            return Some(Lookup::Unknown);
        }
        match self.controller {
            Some(c) => (c.labels)(self, key, template),
            None => sets_label(key).then_some(Lookup::Unknown),
        }
    }

    /// [`Owner::label`], knowing which labels the template may carry (`carries`): a
    /// controller's pod webhook writes its keys into any pod that carries its mark
    /// ([`WEBHOOK_KEYS`]).
    pub fn label_of(
        &self,
        key: &str,
        template: Option<&'a str>,
        carries: &dyn Fn(&str) -> bool,
    ) -> Option<Lookup<'a>> {
        if webhook_key(key, self.controller, carries) {
            return Some(Lookup::Unknown);
        }
        self.label(key, template)
    }
}

/// The label keys (prefixes) an admission webhook installed beside a controller writes into
/// any workload's template, and so its pods, from the workload's own fields: unknown on every
/// pod, whatever the template says. Kueue copies a workload's `kueue.x-k8s.io/queue-name` into
/// its template with `kueue.x-k8s.io/managed` (kubernetes-sigs/kueue
/// `pkg/controller/jobs/deployment/deployment_webhook.go`, `Default`, and the like for each
/// kind it integrates).
/// So do a service mesh's injectors, from the namespace's and the template's labels and the
/// workload's name (istio `manifests/charts/istio-control/istio-discovery/files/injection-template.yaml`:
/// `security.istio.io/tlsMode`, `service.istio.io/canonical-name`; linkerd2
/// `pkg/inject/inject.go`, `injectObjectMeta`: `linkerd.io/control-plane-ns`, ...), and
/// Kubernetes' `PodTopologyLabels` admission plugin, from the node a pod is bound to
/// (`plugin/pkg/admission/podtopologylabels`: `topology.kubernetes.io/zone`, `region`, over
/// the template's).
/// So do the pod webhooks of controllers, into any pod that carries their mark, whoever made
/// it: LeaderWorkerSet's, into a pod labelled `leaderworkerset.sigs.k8s.io/name`, the worker
/// index from the ordinal its name ends in, or a group's index and keys (kubernetes-sigs/lws
/// `pkg/webhooks/pod_webhook.go`, `Default`), and JobSet's, into a pod annotated
/// `jobset.sigs.k8s.io/jobset-name`, `jobset.sigs.k8s.io/priority` from the priority
/// Kubernetes gives every pod (kubernetes-sigs/jobset `pkg/webhooks/pod_webhook.go`,
/// `Default`; both webhooks select pods by that label too: their `objectSelector`). Beside
/// each prefix, the label that marks the pods its webhook writes into (none: every pod) and
/// the API group of the controller whose declaration settles those keys on its own pods: on
/// others' that carry the mark they are unknown.
const WEBHOOK_KEYS: &[Webhook] = &[
    Webhook { prefix: "kueue.x-k8s.io/", mark: None, settled_by: None },
    Webhook { prefix: "security.istio.io/", mark: None, settled_by: None },
    Webhook { prefix: "service.istio.io/", mark: None, settled_by: None },
    Webhook { prefix: "linkerd.io/", mark: None, settled_by: None },
    Webhook { prefix: "topology.kubernetes.io/", mark: None, settled_by: None },
    Webhook {
        prefix: "leaderworkerset.sigs.k8s.io/",
        mark: Some("leaderworkerset.sigs.k8s.io/name"),
        settled_by: Some("leaderworkerset.x-k8s.io"),
    },
    Webhook { prefix: "jobset.sigs.k8s.io/", mark: Some("jobset.sigs.k8s.io/jobset-name"), settled_by: None },
];

/// The label keys an admission webhook writes ([`WEBHOOK_KEYS`]).
struct Webhook {
    prefix: &'static str,
    /// The label a pod carries for the webhook to write into it; `None`: it writes into all.
    mark: Option<&'static str>,
    /// The API group of the controller whose declaration settles the keys on its own pods.
    settled_by: Option<&'static str>,
}

/// Whether label `key` is one an admission webhook writes ([`WEBHOOK_KEYS`]) on the pods of
/// `controller` (`None`: a controller the build does not know, whose pods may carry any
/// mark), whose template may carry the labels `carries` says.
fn webhook_key(key: &str, controller: Option<&Controller>, carries: &dyn Fn(&str) -> bool) -> bool {
    let group = controller.map(|c| c.group);
    WEBHOOK_KEYS.iter().any(|w| {
        key.starts_with(w.prefix)
            && w.settled_by.is_none_or(|g| Some(g) != group)
            && w.mark.is_none_or(|mark| controller.is_none() || carries(mark))
    })
}

/// Whether `selector` reads a label an admission webhook writes on some pod ([`WEBHOOK_KEYS`]).
pub fn reads_webhook_keys(selector: &Selector) -> bool {
    let keys =
        selector.match_labels.iter().map(|(k, _)| k).chain(selector.expressions.iter().map(|e| &e.key));
    keys.into_iter().any(|k| webhook_key(k, None, &|_| true))
}

/// Every controller the build knows.
pub const CONTROLLERS: &[Controller] = &[
    kubernetes::POD,
    kubernetes::REPLICATION_CONTROLLER,
    kubernetes::REPLICA_SET,
    kubernetes::DEPLOYMENT,
    kubernetes::STATEFUL_SET,
    kubernetes::DAEMON_SET,
    kubernetes::JOB,
    kubernetes::CRON_JOB,
    kubernetes::LEADER_WORKER_SET,
    derived::ROLLOUT,
    derived::WORKFLOW,
    derived::CRON_WORKFLOW,
    derived::INFERENCE_SERVICE,
];

/// The controller of an item of `api_version` and `kind`, when the build knows it.
pub fn of(api_version: &str, kind: &str) -> Option<&'static Controller> {
    let group = crate::api::group_of(api_version);
    CONTROLLERS.iter().find(|c| c.group == group && c.kinds.contains(&kind))
}

/// The controller of `item`.
pub fn of_item(item: &Value) -> Option<&'static Controller> {
    let text = |path: &str| fields::str_at(item, path).unwrap_or_default();
    of(text("apiVersion"), text("kind"))
}

/// Whether items of `kind` are read whole for their pods: a controller derives templates
/// from them. By kind alone, as readers search texts for kinds: another group's item of the
/// same kind is read whole too, which is never wrong, only slower.
pub fn reads_whole(kind: &str) -> bool {
    CONTROLLERS.iter().any(|c| c.derive.is_some() && c.kinds.contains(&kind))
}

/// Every kind a controller derives templates from, for the readers' text search.
pub fn derived_kinds() -> impl Iterator<Item = &'static str> {
    CONTROLLERS.iter().filter(|c| c.derive.is_some()).flat_map(|c| c.kinds.iter().copied())
}

/// The controller whose own image a container image's repository name (its last segment,
/// without tag) is ([`Controller::images`]).
pub fn running(image_name: &str) -> Option<&'static Controller> {
    CONTROLLERS.iter().find(|c| c.images.iter().any(|i| image_name.contains(i)))
}

/// Every image a controller runs from ([`Controller::images`]), for the readers' text search.
pub fn images() -> impl Iterator<Item = &'static str> {
    CONTROLLERS.iter().flat_map(|c| c.images.iter().copied())
}

/// Whether `kind` is one the build knows the controller of, in any group.
pub fn is_known_kind(kind: &str) -> bool {
    CONTROLLERS.iter().any(|c| c.kinds.contains(&kind))
}

/// The last key of every field a declaration names in [`Controller::shapes`]: a reader that
/// builds only part of an item builds a key of these whole wherever it meets it.
pub fn shape_keys() -> impl Iterator<Item = &'static str> {
    CONTROLLERS.iter().flat_map(|c| c.shapes.iter()).map(|path| path.rsplit('.').next().unwrap_or(path))
}

/// Whether `key` is one a reader builds whole wherever it meets it ([`shape_keys`]).
pub fn is_shape_key(key: &str) -> bool {
    // Asked for every key of every item a reader builds in part: the few keys, once.
    static KEYS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        let mut keys: Vec<&str> = shape_keys().collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    });
    KEYS.contains(&key)
}

/// Whether some controller, or an admission webhook beside one ([`WEBHOOK_KEYS`]), may put
/// label `key` on the pods it makes.
pub fn sets_label(key: &str) -> bool {
    if webhook_key(key, None, &|_| true) {
        return true;
    }
    // Asked for every label a selector reads: most keys are shorter than these, or share
    // no first letter with them.
    if key.len() < "job-name".len() || !LABEL_INITIALS.contains(&key.as_bytes()[0]) {
        return false;
    }
    CONTROLLERS
        .iter()
        .flat_map(|c| c.label_keys.iter())
        .any(|c| if c.ends_with('/') { key.starts_with(c) } else { key == *c })
}

/// The first letters of every key in [`Controller::label_keys`] (a test holds them).
const LABEL_INITIALS: &[u8] = b"abcjlprsw";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_key_starts_with_a_known_initial_and_is_long_enough() {
        for c in CONTROLLERS {
            for key in c.label_keys {
                assert!(LABEL_INITIALS.contains(&key.as_bytes()[0]), "{key}");
                assert!(key.len() >= "job-name".len(), "{key}");
                let full = if key.ends_with('/') { format!("{key}x") } else { key.to_string() };
                assert!(sets_label(&full), "{key}");
            }
        }
        // By name or prefix, never a short or empty key: an empty key is read as any other.
        for key in
            ["", "a", "app", "job", "pod-template-hashes", "batch.kubernetes.io", "tier.example.com/role"]
        {
            assert!(!sets_label(key), "{key:?}");
        }
        assert!(!sets_label("identity.kleym.sonda.red/variant"));
    }

    #[test]
    fn a_kind_is_known_by_its_group() {
        assert_eq!(of("apps/v1", "Deployment").map(|c| c.group), Some("apps"));
        assert_eq!(of("v1", "Pod").map(|c| c.group), Some(""));
        assert!(of("example.org/v1", "Deployment").is_none());
        assert!(of("argoproj.io/v1alpha1", "Rollout").is_some_and(|c| c.derive.is_some()));
        assert!(reads_whole("Rollout") && !reads_whole("Deployment"));
    }

    #[test]
    fn no_two_declarations_claim_one_kind() {
        for (i, a) in CONTROLLERS.iter().enumerate() {
            for b in &CONTROLLERS[i + 1..] {
                for kind in a.kinds {
                    assert!(a.group != b.group || !b.kinds.contains(kind), "{}/{kind}", a.group);
                }
            }
        }
    }
}
