//! Pod templates, as SPIRE will see their pods (docs/reference.md#workload-coverage): a pod
//! template is any mapping inside an item that has `spec.containers` (a list) beside an
//! optional `metadata.labels` (a Pod itself, a Deployment's `spec.template`, a CronJob's
//! `jobTemplate`, a LeaderWorkerSet's leader and worker templates, the templates custom
//! resources nest). Its pods run as `spec.serviceAccountName`, else the deprecated
//! `spec.serviceAccount`, else `default`, in the item's namespace. It keeps its containers'
//! and init containers' names and images as written, which SPIRE's container and image
//! selectors are judged by. `controllers.rs` adds the templates other controllers make pods
//! from in other shapes.

use super::controllers::{self, Facts};
use crate::api::fields;
use crate::api::value::Value;
use std::borrow::Cow;

/// The service account of a pod that names none.
pub use crate::api::names::DEFAULT_SERVICE_ACCOUNT;

/// The service account of the pods of a kind known only by the pod labels it names, when no
/// `serviceAccountName` stands beside them: its controller may run them as any account
/// ([`PodTemplate::known_account`] is `None`). No Kubernetes name is empty.
pub const ANY_ACCOUNT: &str = "";

/// An item that holds pod templates. Kept for every such item of the input until coverage
/// is done, so it is packed: its strings in one allocation, each template's labels in one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// `apiVersion`, `kind`, `metadata.name`, `metadata.namespace` (empty: none), the name
    /// of its pods when the item settles it (empty: it does not), and what else its
    /// controller settles of them ([`controllers::Facts::detail`]).
    head: Packed,
    templates: Box<[PodTemplate]>,
}

impl Workload {
    pub fn api_version(&self) -> &str {
        self.head.get(0)
    }

    pub fn kind(&self) -> &str {
        self.head.get(1)
    }

    pub fn name(&self) -> &str {
        self.head.get(2)
    }

    /// The item's `metadata.namespace`; `None` when it has none.
    pub fn namespace(&self) -> Option<&str> {
        Some(self.head.get(3)).filter(|ns| !ns.is_empty())
    }

    /// The workload as it lands in `namespace`: one whose item names no namespace, applied
    /// with `kubectl -n` or by an Argo CD application, lands in the one they give.
    pub fn placed_in(&self, namespace: &str) -> Workload {
        let head = Packed::of([
            self.api_version(),
            self.kind(),
            self.name(),
            namespace,
            self.head.get(4),
            self.head.get(5),
        ]);
        Workload { head, templates: self.templates.clone() }
    }

    pub fn templates(&self) -> &[PodTemplate] {
        &self.templates
    }

    /// The name its pods run under, when the item settles it: a bare Pod's own name, the
    /// one pod of a StatefulSet of one replica, `<name>-<ordinal>`. Any other controller
    /// names its pods with a generated part ([`controllers::Controller::facts`]).
    pub fn pod_name(&self) -> Option<&str> {
        Some(self.head.get(4)).filter(|n| !n.is_empty())
    }

    /// Its controller, when the build knows it, and what that controller settles of its pods'
    /// labels.
    pub fn owner(&self) -> controllers::Owner<'_> {
        controllers::Owner {
            controller: controllers::of(self.api_version(), self.kind()),
            name: self.name(),
            pod_name: self.pod_name(),
            detail: self.head.get(5),
            template: "",
        }
    }

    /// What makes the pods of `template`, one of its templates: the object another controller
    /// makes of the item when the template says so (a Deployment KServe creates), else the
    /// item's own controller.
    pub fn owner_of<'a>(&'a self, template: &'a PodTemplate) -> controllers::Owner<'a> {
        match &template.maker {
            Some(maker) => controllers::Owner {
                controller: Some(maker.controller),
                name: &maker.name,
                pod_name: None,
                detail: &maker.detail,
                template: maker.template,
            },
            None => controllers::Owner { template: template.path(), ..self.owner() },
        }
    }
}

/// One pod template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodTemplate {
    /// Where it stands in its item: `spec.template`, `spec.roles[0].template`; empty for a
    /// Pod.
    path: Cow<'static, str>,
    /// Its `metadata.labels` that are strings, sorted by key: key, value, key, value...
    labels: Packed,
    /// `spec.serviceAccountName`, else `spec.serviceAccount`, else `default`.
    service_account: Box<str>,
    /// Whether its pods may carry labels the build does not see, beside its own (a KServe
    /// serving runtime's): any other label is unknown (`controllers.rs`).
    open: bool,
    /// The object another controller makes of the item, whose pods these are; `None`: the
    /// item's controller makes them.
    maker: Option<Box<Maker>>,
    /// Its `spec.containers` and `spec.initContainers`, as written.
    containers: Containers,
}

/// A pod template's containers as written: each one's `name` and `image` (empty when it is
/// not a string), the `containers` first, then the `initContainers`. Every entry of either
/// list is one, whatever it holds, so that none a reader drops is lost.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Containers {
    /// Name, image, name, image...
    packed: Packed,
    /// How many are `containers`; the rest are `initContainers`.
    regular: u32,
    /// Whether they are known: a template a controller derives in another shape (a workflow
    /// step, KServe's presets) has containers the build does not see.
    known: bool,
}

impl Containers {
    /// The containers of a pod `spec`.
    fn of(spec: &crate::api::value::Map) -> Containers {
        let list = |key: &str| spec.get(key).and_then(Value::as_array).unwrap_or(&[]);
        let (regular, init) = (list("containers"), list("initContainers"));
        let fields = regular.iter().chain(init).flat_map(|c| [text(c, "name"), text(c, "image")]);
        Containers {
            packed: Packed::of(fields),
            regular: u32::try_from(regular.len()).unwrap_or(u32::MAX),
            known: true,
        }
    }

    /// Whether the build knows them.
    pub fn known(&self) -> bool {
        self.known
    }

    /// Each container: name, image, and whether it is an init container.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, bool)> {
        (0..self.packed.len() / 2)
            .map(|i| (self.packed.get(2 * i), self.packed.get(2 * i + 1), i as u32 >= self.regular))
    }

    /// How many `containers` (`init`: `initContainers`) there are.
    pub fn count(&self, init: bool) -> usize {
        let all = self.packed.len() / 2;
        let regular = (self.regular as usize).min(all);
        if init { all - regular } else { regular }
    }
}

/// An object a controller makes of an item, and whose controller makes a template's pods
/// (the Deployment or LeaderWorkerSet KServe creates for an `LLMInferenceService`).
#[derive(Debug, Clone)]
pub struct Maker {
    pub controller: &'static controllers::Controller,
    pub name: String,
    /// [`controllers::Facts::detail`] of the object.
    pub detail: String,
    /// The path of the template in the object.
    pub template: &'static str,
}

impl PartialEq for Maker {
    fn eq(&self, other: &Self) -> bool {
        let controller = |m: &Maker| (m.controller.group, m.controller.kinds);
        controller(self) == controller(other)
            && (&self.name, &self.detail, self.template) == (&other.name, &other.detail, other.template)
    }
}

impl Eq for Maker {}

impl PodTemplate {
    /// A template at `path` of its item, of these labels.
    pub fn new(
        path: String,
        mut labels: Vec<(&str, &str)>,
        service_account: &str,
        open: bool,
    ) -> PodTemplate {
        labels.sort();
        PodTemplate {
            path: Cow::Owned(path),
            labels: Packed::of(labels.iter().flat_map(|(k, v)| [*k, *v])),
            service_account: service_account.into(),
            open,
            maker: None,
            containers: Containers::default(),
        }
    }

    /// The template, its pods made by `maker`'s controller.
    pub fn made_by(self, maker: Maker) -> PodTemplate {
        PodTemplate { maker: Some(Box::new(maker)), ..self }
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn service_account(&self) -> &str {
        &self.service_account
    }

    /// Its service account, or `None` when its pods may run as any ([`ANY_ACCOUNT`]).
    pub fn known_account(&self) -> Option<&str> {
        Some(&*self.service_account).filter(|a| *a != ANY_ACCOUNT)
    }

    /// Its labels, sorted by key.
    pub fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        (0..self.labels.len() / 2).map(|i| (self.labels.get(2 * i), self.labels.get(2 * i + 1)))
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Whether its pods may carry labels it does not name.
    pub fn open(&self) -> bool {
        self.open
    }

    /// Its containers as written.
    pub fn containers(&self) -> &Containers {
        &self.containers
    }
}

/// Paths most templates stand at, kept without an allocation.
const COMMON_PATHS: [&str; 4] =
    ["spec.template", "", "spec.jobTemplate.spec.template", "spec.leaderWorkerTemplate.workerTemplate"];

/// Strings packed in one allocation, with where each ends.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Packed {
    text: Box<str>,
    ends: Box<[u32]>,
}

impl Packed {
    fn of<'s>(parts: impl IntoIterator<Item = &'s str>) -> Packed {
        let (mut text, mut ends) = (String::new(), Vec::new());
        for part in parts {
            text.push_str(part);
            ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        }
        Packed { text: text.into_boxed_str(), ends: ends.into_boxed_slice() }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }
}

/// The pod templates of an item, or `None` when it holds none. A KServe `LLMInferenceService`
/// holds none of its own: its pods are what KServe makes of it with its presets, which only
/// the whole input holds ([`derived`]).
pub fn workload_of(item: &Value) -> Option<Workload> {
    if super::kserve::is_service(item) {
        return None;
    }
    let controller = controllers::of_item(item);
    // The API server never stores an item it refuses: no pods.
    if controller.and_then(|c| c.refusal).is_some_and(|refused| refused(item).is_some()) {
        return None;
    }
    let mut templates = Vec::new();
    let mut path = Vec::new();
    collect(item, &mut path, &mut templates);
    if let Some(keeps) = controller.and_then(|c| c.keeps) {
        templates.retain(|t| keeps(item, t.path()));
    }
    let found_any = !templates.is_empty();
    let derived = match controller {
        Some(c) => c.derive.map_or_else(Vec::new, |derive| derive(item, found_any)),
        None => controllers::unknown(item, found_any),
    };
    for derived in derived {
        templates.push(laid_over(&templates, derived));
    }
    if templates.is_empty() {
        return None;
    }
    let text = |path: &str| fields::str_at(item, path).unwrap_or_default();
    let Facts { pod_name, detail } = controller.map_or_else(Facts::default, |c| (c.facts)(item));
    let head = Packed::of([
        text("apiVersion"),
        text("kind"),
        text("metadata.name"),
        text("metadata.namespace"),
        pod_name.as_deref().unwrap_or_default(),
        &detail,
    ]);
    Some(Workload { head, templates: templates.into_boxed_slice() })
}

/// The pod templates KServe makes of an `LLMInferenceService`, as its item's, or `None` when
/// it makes none the build can know.
pub fn derived(derivation: &super::kserve::Derivation) -> Option<Workload> {
    if derivation.templates.is_empty() {
        return None;
    }
    let templates = derivation.templates.iter().map(|t| {
        let labels = t.labels.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let (controller, detail, template) = match &t.maker.kind {
            super::kserve::MakerKind::Deployment => {
                (&controllers::DEPLOYMENT, String::new(), "spec.template")
            }
            super::kserve::MakerKind::LeaderWorkerSet { leader, shape } => {
                let path = if *leader { controllers::LEADER_TEMPLATE } else { controllers::WORKER_TEMPLATE };
                (&controllers::LEADER_WORKER_SET, shape.detail(), path)
            }
        };
        let maker = Maker { controller, name: t.maker.name.clone(), detail, template };
        PodTemplate::new(t.role.clone(), labels, &t.account, t.open).made_by(maker)
    });
    let namespace = derivation.namespace.as_deref().unwrap_or_default();
    let kind = super::kserve::SERVICE_KIND;
    let head = Packed::of([derivation.api_version.as_str(), kind, &derivation.name, namespace, "", ""]);
    Some(Workload { head, templates: templates.collect() })
}

/// A template a controller makes pods from, laid over the found template it names.
fn laid_over(found: &[PodTemplate], derived: controllers::Derived<'_>) -> PodTemplate {
    let base = derived.over.and_then(|path| found.iter().find(|t| t.path() == path));
    let mut labels: std::collections::BTreeMap<&str, &str> =
        base.into_iter().flat_map(PodTemplate::labels).collect();
    labels.extend(&derived.labels);
    if let Some((key, value)) = &derived.written {
        labels.insert(key, value);
    }
    let account = derived.account.or(base.map(PodTemplate::service_account));
    let unnamed = if derived.any_account { ANY_ACCOUNT } else { DEFAULT_SERVICE_ACCOUNT };
    PodTemplate::new(derived.path, labels.into_iter().collect(), account.unwrap_or(unnamed), derived.open)
}

/// The string at `key` of a mapping, else empty.
fn text<'v>(node: &'v Value, key: &str) -> &'v str {
    node.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A step of a path into an item.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn collect<'a>(node: &'a Value, path: &mut Vec<Step<'a>>, out: &mut Vec<PodTemplate>) {
    match node {
        Value::Object(map) => {
            if let Some(template) = template(node) {
                let path = render(path);
                let path = match COMMON_PATHS.iter().find(|common| **common == path) {
                    Some(common) => Cow::Borrowed(*common),
                    None => Cow::Owned(path),
                };
                out.push(PodTemplate { path, ..template });
            }
            for (key, child) in map {
                path.push(Step::Key(key));
                collect(child, path, out);
                path.pop();
            }
        }
        Value::Array(entries) => {
            for (i, child) in entries.iter().enumerate() {
                path.push(Step::Index(i));
                collect(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The mapping as a pod template, its path left empty.
fn template(node: &Value) -> Option<PodTemplate> {
    let spec = node.get("spec")?.as_object()?;
    spec.get("containers")?.as_array()?;
    let mut labels: Vec<(&str, &str)> = fields::child(node, &["metadata", "labels"])
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k, v.as_str()?)))
        .collect();
    labels.sort();
    let account = |key| spec.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let service_account = account("serviceAccountName").or_else(|| account("serviceAccount"));
    Some(PodTemplate {
        path: Cow::Borrowed(""),
        labels: Packed::of(labels.iter().flat_map(|(k, v)| [*k, *v])),
        service_account: service_account.unwrap_or(DEFAULT_SERVICE_ACCOUNT).into(),
        open: false,
        maker: None,
        containers: Containers::of(spec),
    })
}

fn render(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn pod(labels: Value, account: Option<(&str, &str)>) -> Value {
        let mut spec = json!({"containers": [{"name": "c", "image": "x"}]});
        if let Some((key, name)) = account {
            spec[key] = json!(name);
        }
        json!({"metadata": {"labels": labels}, "spec": spec})
    }

    #[test]
    fn every_kind_of_template_is_found_where_it_stands() {
        let item = json!({
            "apiVersion": "example.org/v1", "kind": "Nested", "metadata": {"name": "n", "namespace": "serving"},
            "spec": {
                "template": pod(json!({"app": "a", "n": 1}), Some(("serviceAccountName", "sa"))),
                "jobTemplate": {"spec": {"template": pod(json!({}), Some(("serviceAccount", "old")))}},
                "roles": [{"name": "r0"}, {"leaderWorkerTemplate": {"workerTemplate": pod(json!({"w": "1"}), None)}}],
            }
        });
        let workload = workload_of(&item).unwrap();
        assert_eq!((workload.kind(), workload.namespace()), ("Nested", Some("serving")));
        let found: Vec<(&str, &str, usize)> = workload
            .templates()
            .iter()
            .map(|t| (t.path(), t.service_account(), t.labels().count()))
            .collect();
        assert_eq!(
            found,
            [
                ("spec.template", "sa", 1),
                ("spec.jobTemplate.spec.template", "old", 0),
                ("spec.roles[1].leaderWorkerTemplate.workerTemplate", "default", 1),
            ]
        );
        assert_eq!(workload.templates()[0].label("app"), Some("a"));
        assert_eq!(workload.templates()[0].label("n"), None, "labels that are not strings are no labels");
    }

    #[test]
    fn a_workload_placed_in_a_namespace_keeps_all_else() {
        let item =
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}});
        let workload = workload_of(&item).unwrap();
        assert_eq!(workload.namespace(), None);
        let placed = workload.placed_in("serving");
        assert_eq!(placed.namespace(), Some("serving"));
        assert_eq!((placed.kind(), placed.name(), placed.pod_name()), ("Pod", "p", Some("p")));
        assert_eq!(placed.templates(), workload.templates());
    }

    #[test]
    fn a_pod_is_its_own_template_and_containers_must_be_a_list() {
        let mut item = pod(json!({"app": "a"}), None);
        item["kind"] = json!("Pod");
        assert_eq!(workload_of(&item).unwrap().templates()[0].path(), "");
        let not = json!({"kind": "X", "spec": {"containers": {"a": 1}}});
        assert_eq!(workload_of(&not), None);
        assert_eq!(workload_of(&json!({"kind": "ConfigMap", "data": {"a": "b"}})), None);
    }

    #[test]
    fn a_template_keeps_every_container_and_init_container_as_written() {
        let item = json!({"kind": "Pod", "spec": {
            "containers": [{"name": "vllm", "image": "vllm:1"}, {"image": 3}, "odd"],
            "initContainers": [{"name": "fetch", "image": "fetch:1"}]}});
        let workload = workload_of(&item).unwrap();
        let containers = workload.templates()[0].containers();
        let all: Vec<_> = containers.iter().collect();
        assert_eq!(
            all,
            [("vllm", "vllm:1", false), ("", "", false), ("", "", false), ("fetch", "fetch:1", true)]
        );
        assert_eq!((containers.count(false), containers.count(true), containers.known()), (3, 1, true));
        // A template a controller derives in another shape: its containers are not seen.
        let derived = PodTemplate::new("spec.x".into(), Vec::new(), "sa", false);
        assert!(!derived.containers().known());
    }
}
