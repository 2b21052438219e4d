//! The controllers outside Kubernetes that make pods from shapes the generic search of
//! `workload.rs` (a mapping with `spec.containers`) does not find, or finds with fewer labels
//! than the pods carry, declared with the templates they derive
//! (docs/reference.md#pods-other-controllers-make):
//!
//! - an Argo Rollout's pods carry, beside its `spec.template`'s labels, the ephemeral labels
//!   of `spec.strategy.canary.canaryMetadata`/`stableMetadata` and
//!   `spec.strategy.blueGreen.activeMetadata`/`previewMetadata`: one template per set;
//! - an Argo Workflow (and a WorkflowTemplate, ClusterWorkflowTemplate, CronWorkflow) makes a
//!   pod per `templates[]` entry that runs something (`container`, `script`, `containerSet`,
//!   `resource`, `data`), labelled by `spec.podMetadata`, `spec.templateDefaults.metadata` and
//!   the template's own `metadata`, running as the template's `serviceAccountName`, else the
//!   workflow's;
//! - a KServe InferenceService makes a pod per component (`predictor`, `transformer`,
//!   `explainer`) labelled by the service's labels, the component's `labels`,
//!   `serving.kserve.io/inferenceservice: <name>` and `component: <component>`
//!   (kserve `pkg/controller/v1beta1/inferenceservice/components/predictor.go`,
//!   `buildObjectMeta`), under the serving runtime's labels, which the build does not see:
//!   such a template is open, any label it does not carry unknown.
//!
//! An item of another kind that names pod labels (`podMetadata.labels`, `podLabels`) and holds
//! no pod template gives an open template of those labels: its controller makes pods the build
//! cannot see whole, running as the `serviceAccountName` beside the labels, else as any account.

use super::{Controller, Facts, Owner, unjudged};
use crate::api::fields;
use crate::api::value::{Map, Value};
use crate::reconcile::cluster::selector::Lookup;
use std::collections::BTreeMap;

/// A template a controller makes pods from, as `workload.rs` adds it to the item's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived<'a> {
    /// Where it stands in the item.
    pub path: String,
    /// The template found at this path whose labels and service account it starts from,
    /// its own labels laid over (a Rollout's `spec.template`); `None`: none.
    pub over: Option<&'static str>,
    /// Each key once, a later set's value over an earlier one's.
    pub labels: BTreeMap<&'a str, &'a str>,
    /// Its `serviceAccountName`; `None`: the template's it is laid over, else `default`, or
    /// any account when `any_account`.
    pub account: Option<&'a str>,
    /// Whether its pods may run as any account when it names none: a kind known only by its
    /// pod labels, whose controller the build does not know.
    pub any_account: bool,
    /// Whether its pods may carry labels it does not name.
    pub open: bool,
    /// A label its controller writes over the others, with a value made of its fields.
    pub written: Option<(&'static str, String)>,
}

/// Argo's group.
const ARGO: &str = "argoproj.io";

/// Keys of a workflow template that make it run a pod.
const RUNS_A_POD: [&str; 5] = ["container", "script", "containerSet", "resource", "data"];

/// The ephemeral metadata of a Rollout's strategies.
pub(super) const ROLLOUT_METADATA: [&str; 4] = [
    "spec.strategy.canary.canaryMetadata",
    "spec.strategy.canary.stableMetadata",
    "spec.strategy.blueGreen.activeMetadata",
    "spec.strategy.blueGreen.previewMetadata",
];

/// A Rollout's ephemeral keys: the labels of its canary (or preview) metadata that its stable
/// (or active) metadata does not set, after [`PROMOTION_DELETES`] and joined by `, ` (label keys
/// hold no comma). On promotion Argo Rollouts deletes them
/// from the pods, the template's own value of such a key with them (argo-rollouts
/// `rollout/ephemeralmetadata.go`, `utils/replicaset/canary.go`, `SyncEphemeralPodMetadata`).
fn rollout_facts(item: &Value) -> Facts {
    let keys = |paths: &[&str]| -> Vec<String> {
        let labels = paths.iter().filter_map(|p| fields::child(item, &p.split('.').collect::<Vec<_>>()));
        labels.filter_map(labels_of).flat_map(|l| l.keys().map(str::to_string)).collect()
    };
    let kept = keys(&[ROLLOUT_METADATA[1], ROLLOUT_METADATA[2]]);
    let mut ephemeral = keys(&[ROLLOUT_METADATA[0], ROLLOUT_METADATA[3]]);
    ephemeral.retain(|k| !kept.contains(k));
    ephemeral.sort_unstable();
    ephemeral.dedup();
    let detail = if ephemeral.is_empty() {
        String::new()
    } else {
        format!("{PROMOTION_DELETES}{}", ephemeral.join(", "))
    };
    Facts { pod_name: None, detail }
}

/// The words before a Rollout's ephemeral keys in its [`Facts::detail`].
const PROMOTION_DELETES: &str = "labels a promotion deletes: ";

/// What Argo Rollouts puts on a Rollout's pods: its template hash; and on every pod but the
/// canary's and the preview's, an ephemeral key ([`rollout_facts`]) the template sets, as the
/// template says it or none, once a promotion deletes it.
fn rollout_labels<'a>(owner: &Owner<'a>, key: &str, template: Option<&'a str>) -> Option<Lookup<'a>> {
    if key == "rollouts-pod-template-hash" {
        return Some(Lookup::Present);
    }
    let canary = owner.template == ROLLOUT_METADATA[0] || owner.template == ROLLOUT_METADATA[3];
    let keys = owner.detail.strip_prefix(PROMOTION_DELETES).unwrap_or_default();
    let ephemeral = keys.split(", ").any(|k| k == key);
    (!canary && ephemeral && template.is_some()).then_some(Lookup::Unknown)
}

pub const ROLLOUT: Controller = Controller {
    group: ARGO,
    kinds: &["Rollout"],
    maker: "Argo Rollouts, through ReplicaSets",
    images: &["argo-rollouts"],
    templates: &["spec.template"],
    shapes: &[],
    derive: Some(|item, _| rollout(item)),
    keeps: None,
    facts: rollout_facts,
    labels: rollout_labels,
    label_keys: &["rollouts-pod-template-hash"],
    unjudged: Some(unjudged::rollout),
    remade: None,
    kustomize_fixes_account: false,
    containers_as_written: true,
    refusal: None,
};

/// What Argo Workflows puts on a workflow's pods: `workflows.argoproj.io/...`, values only
/// the cluster settles.
fn workflow_labels<'a>(_: &Owner<'a>, key: &str, _: Option<&'a str>) -> Option<Lookup<'a>> {
    key.starts_with("workflows.argoproj.io/").then_some(Lookup::Unknown)
}

/// What names a workflow's pods, in words: Argo Workflows names each from the workflow's name,
/// the template it runs and the names of the steps and tasks that lead to it, under the pod
/// name format its annotation sets (argo-workflows `workflow/util/pod_name.go`,
/// `GeneratePodName`; `workflow/controller/steps.go`), so a change of any of them renames the
/// pods. `spec` is where the workflow's spec stands.
fn workflow_facts(item: &Value, spec: &[&str]) -> Facts {
    let text = |path: &[&str]| fields::child(item, path).and_then(Value::as_str).unwrap_or("-");
    let mut names = vec![
        text(&["metadata", "name"]),
        text(&["metadata", "generateName"]),
        text(&["metadata", "annotations", "workflows.argoproj.io/pod-name-format"]),
    ];
    let spec = fields::child(item, spec);
    names.push(spec.and_then(|s| s.get("entrypoint")).and_then(Value::as_str).unwrap_or("-"));
    let templates = spec.and_then(|s| s.get("templates")).and_then(Value::as_array).into_iter().flatten();
    for template in templates {
        names.push(template.get("name").and_then(Value::as_str).unwrap_or("-"));
        let steps = template.get("steps").and_then(Value::as_array).into_iter().flatten();
        let steps = steps.flat_map(|group| group.as_array().into_iter().flatten());
        let tasks = template.pointer("/dag/tasks").and_then(Value::as_array).into_iter().flatten();
        for node in steps.chain(tasks) {
            names.extend(["name", "template"].map(|k| node.get(k).and_then(Value::as_str).unwrap_or("-")));
        }
    }
    Facts { pod_name: None, detail: format!("pods named from the workflow's names: {}", names.join(", ")) }
}

pub const WORKFLOW: Controller = Controller {
    group: ARGO,
    kinds: &["Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate"],
    maker: "Argo Workflows",
    images: &["workflow-controller"],
    templates: &[],
    shapes: &[],
    derive: Some(|item, _| workflow(item.get("spec"), "spec")),
    keeps: None,
    facts: |item| workflow_facts(item, &["spec"]),
    labels: workflow_labels,
    label_keys: &["workflows.argoproj.io/"],
    unjudged: Some(|item| unjudged::workflow(item.get("spec"), "spec")),
    remade: Some(unjudged::WORKFLOW_REMADE),
    kustomize_fixes_account: false,
    containers_as_written: false,
    refusal: None,
};

pub const CRON_WORKFLOW: Controller = Controller {
    group: ARGO,
    kinds: &["CronWorkflow"],
    maker: "Argo Workflows, through a Workflow",
    images: &["workflow-controller"],
    templates: &[],
    shapes: &[],
    derive: Some(|item, _| workflow(fields::child(item, &["spec", "workflowSpec"]), "spec.workflowSpec")),
    keeps: None,
    facts: |item| workflow_facts(item, &["spec", "workflowSpec"]),
    labels: workflow_labels,
    label_keys: &["workflows.argoproj.io/"],
    unjudged: Some(|item| {
        unjudged::workflow(fields::child(item, &["spec", "workflowSpec"]), "spec.workflowSpec")
    }),
    remade: Some(unjudged::WORKFLOW_REMADE),
    kustomize_fixes_account: false,
    containers_as_written: false,
    refusal: None,
};

pub const INFERENCE_SERVICE: Controller = Controller {
    group: "serving.kserve.io",
    kinds: &["InferenceService"],
    maker: "KServe, through Knative or a Deployment",
    images: &["kserve-controller", "llmisvc-controller"],
    templates: &[],
    shapes: &[],
    derive: Some(|item, _| inference_service(item)),
    keeps: None,
    facts: inference_service_facts,
    // Its templates are open: any label they do not name is unknown.
    labels: inference_service_labels,
    label_keys: &[],
    unjudged: Some(unjudged::inference_service),
    remade: Some(unjudged::INFERENCE_SERVICE_REMADE),
    kustomize_fixes_account: false,
    containers_as_written: false,
    refusal: None,
};

/// The templates the controller of a kind no declaration names makes pods from, beside those
/// the generic search finds (`found_any`: whether it found one): when it found none, the
/// pod labels the item names, as an open template.
pub(in crate::reconcile::cluster) fn unknown(item: &Value, found_any: bool) -> Vec<Derived<'_>> {
    if found_any { Vec::new() } else { pod_labels(item).into_iter().collect() }
}

fn rollout(item: &Value) -> Vec<Derived<'_>> {
    ROLLOUT_METADATA
        .iter()
        .filter_map(|path| {
            let labels = fields::child(item, &path.split('.').collect::<Vec<_>>()).and_then(labels_of)?;
            Some(Derived {
                path: path.to_string(),
                over: Some("spec.template"),
                labels: strings(labels).collect(),
                account: None,
                any_account: false,
                open: false,
                written: None,
            })
        })
        .collect()
}

fn workflow<'a>(spec: Option<&'a Value>, at: &str) -> Vec<Derived<'a>> {
    let Some(spec) = spec else { return Vec::new() };
    let Some(templates) = spec.get("templates").and_then(Value::as_array) else { return Vec::new() };
    let defaults = spec.get("templateDefaults");
    let mut out = Vec::new();
    for (i, template) in templates.iter().enumerate() {
        if !RUNS_A_POD.iter().any(|key| template.get(key).is_some_and(Value::is_object)) {
            continue;
        }
        let sets =
            [spec.get("podMetadata"), defaults.and_then(|d| d.get("metadata")), template.get("metadata")];
        let labels = sets.into_iter().flat_map(|m| m.and_then(labels_of)).flat_map(strings).collect();
        out.push(Derived {
            path: format!("{at}.templates[{i}]"),
            over: None,
            labels,
            account: account(Some(template)).or_else(|| account(defaults)).or_else(|| account(Some(spec))),
            any_account: false,
            open: false,
            written: None,
        });
    }
    out
}

/// The words before the keys of an InferenceService KServe may leave off its pods, in its
/// [`Facts::detail`].
const DISALLOWED: &str =
    "labels KServe leaves off its pods where its serviceLabelDisallowedList names them: ";

/// KServe's own keys on an InferenceService's pods, which no configuration takes off.
const KSERVE_KEYS: [&str; 2] = ["serving.kserve.io/inferenceservice", "component"];

/// The keys of an InferenceService's labels and its components' that KServe may leave off the
/// pods: it takes every key its configuration's `serviceLabelDisallowedList` names (always
/// `networking.knative.dev/visibility`, and what the cluster adds) off the labels of the
/// Knative revision it makes (kserve `reconcilers/knative/ksvc_reconciler.go`,
/// `createKnativeService`; `pkg/apis/serving/v1beta1/configmap.go`,
/// `NewInferenceServicesConfig`), and that configuration is the cluster's. A raw deployment
/// copies them whole (`reconcilers/deployment/deployment_reconciler.go`,
/// `createRawDefaultDeployment`): none. Where no mode is named, the configuration picks it.
fn inference_service_facts(item: &Value) -> Facts {
    if raw_mode(item) {
        return Facts::default();
    }
    let mut keys: Vec<&str> = Vec::new();
    let mut maps = vec![fields::child(item, &["metadata", "labels"])];
    maps.extend(
        ["predictor", "transformer", "explainer"].map(|c| fields::child(item, &["spec", c, "labels"])),
    );
    for labels in maps.into_iter().flatten().filter_map(Value::as_object) {
        keys.extend(labels.keys().filter(|k| !KSERVE_KEYS.contains(k)));
    }
    keys.sort_unstable();
    keys.dedup();
    let detail = if keys.is_empty() { String::new() } else { format!("{DISALLOWED}{}", keys.join(", ")) };
    Facts { pod_name: None, detail }
}

/// A label of [`inference_service_facts`] the template sets: unknown, KServe may leave it off.
fn inference_service_labels<'a>(
    owner: &Owner<'a>,
    key: &str,
    template: Option<&'a str>,
) -> Option<Lookup<'a>> {
    let keys = owner.detail.strip_prefix(DISALLOWED)?;
    (template.is_some() && keys.split(", ").any(|k| k == key)).then_some(Lookup::Unknown)
}

/// Whether an InferenceService's annotation names the raw (`Standard`) deployment mode.
fn raw_mode(item: &Value) -> bool {
    let mode = fields::child(item, &["metadata", "annotations", "serving.kserve.io/deploymentMode"]);
    matches!(mode.and_then(Value::as_str), Some("Standard" | "RawDeployment"))
}

fn inference_service(item: &Value) -> Vec<Derived<'_>> {
    let name = fields::str_at(item, "metadata.name").unwrap_or_default();
    let service_labels = fields::child(item, &["metadata", "labels"]).and_then(Value::as_object);
    let mode = fields::child(item, &["metadata", "annotations", "serving.kserve.io/deploymentMode"])
        .and_then(Value::as_str);
    let raw = raw_mode(item);
    // `Knative` is the current name of the Serverless mode.
    let serverless = matches!(mode, Some("Serverless" | "Knative"));
    let mut out = Vec::new();
    for component in ["predictor", "transformer", "explainer"] {
        let Some(spec) = fields::child(item, &["spec", component]).filter(|s| s.is_object()) else {
            continue;
        };
        let own = spec.get("labels").and_then(Value::as_object);
        let mut labels: BTreeMap<&str, &str> =
            service_labels.into_iter().chain(own).flat_map(strings).collect();
        labels.extend([("serving.kserve.io/inferenceservice", name), ("component", component)]);
        // A raw (Standard) deployment's pods carry `app: isvc.<name>-<component>` over what the
        // service says (kserve `reconcilers/deployment/deployment_reconciler.go`,
        // `createRawDefaultDeployment`; `constants.GetRawServiceLabel`); a Serverless one's keep
        // the service's `app` (Knative adds its own only where none is given). Where the
        // annotation names neither, KServe's configuration picks the mode: their `app` is not
        // the build's to settle.
        if !serverless {
            labels.remove("app");
        }
        // A component named otherwise (`spec.<component>.name`) is another Deployment, whose
        // `app` the build does not spell: left to the cluster.
        let named = spec.get("name").is_some();
        let written = (raw && !named).then(|| ("app", format!("isvc.{name}-{component}")));
        out.push(Derived {
            path: format!("spec.{component}"),
            over: None,
            labels,
            account: pod_spec_account(Some(spec)),
            any_account: false,
            open: true,
            written,
        });
    }
    out
}

/// An open template of the pod labels an item of another kind names, at the first place it
/// names them.
fn pod_labels(item: &Value) -> Option<Derived<'_>> {
    let mut path = Vec::new();
    let (at, labels, account) = first_pod_labels(item, &mut path)?;
    Some(Derived {
        path: at,
        over: None,
        labels: strings(labels).collect(),
        account,
        any_account: true,
        open: true,
        written: None,
    })
}

/// The first `podMetadata.labels` or `podLabels` mapping under `node`, with its path and the
/// `serviceAccountName` beside it.
fn first_pod_labels<'a>(
    node: &'a Value,
    path: &mut Vec<String>,
) -> Option<(String, &'a Map, Option<&'a str>)> {
    match node {
        Value::Object(map) => {
            for (key, child) in map {
                let labels = match key {
                    "podMetadata" => labels_of(child),
                    "podLabels" => child.as_object(),
                    _ => None,
                };
                if let Some(labels) = labels {
                    path.push(key.to_string());
                    return Some((path.join("."), labels, account(Some(node))));
                }
            }
            for (key, child) in map {
                path.push(key.to_string());
                if let Some(found) = first_pod_labels(child, path) {
                    return Some(found);
                }
                path.pop();
            }
            None
        }
        Value::Array(entries) => entries.iter().enumerate().find_map(|(i, child)| {
            let last = path.pop().unwrap_or_default();
            path.push(format!("{last}[{i}]"));
            let found = first_pod_labels(child, path);
            path.pop();
            path.push(last);
            found
        }),
        _ => None,
    }
}

/// A node's `serviceAccountName`, when it names one.
fn account(node: Option<&Value>) -> Option<&str> {
    node.and_then(|n| n.get("serviceAccountName")).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The account a KServe component runs as: its pod spec's `serviceAccountName`, else the older
/// `serviceAccount`, which KServe copies into the Deployment and the API server takes when
/// the first is empty (`Convert_v1_PodSpec_To_core_PodSpec`). Argo's own types have no such
/// field: [`account`].
fn pod_spec_account(node: Option<&Value>) -> Option<&str> {
    let older =
        || node.and_then(|n| n.get("serviceAccount")).and_then(Value::as_str).filter(|s| !s.is_empty());
    account(node).or_else(older)
}

fn labels_of(metadata: &Value) -> Option<&Map> {
    metadata.get("labels").and_then(Value::as_object)
}

/// The labels that are strings.
fn strings(labels: &Map) -> impl Iterator<Item = (&str, &str)> {
    labels.iter().filter_map(|(k, v)| Some((k, v.as_str()?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;
    use crate::reconcile::cluster::workload::workload_of;

    /// A template as compared: path, labels, service account, open.
    type Seen = (String, Vec<(String, String)>, String, bool);

    fn templates(item: Value) -> Vec<Seen> {
        workload_of(&item)
            .map(|w| {
                w.templates()
                    .iter()
                    .map(|t| {
                        let labels = t.labels().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                        (t.path().to_string(), labels, t.service_account().to_string(), t.open())
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn pairs(labels: &[(&str, &str)]) -> Vec<(String, String)> {
        labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn a_rollouts_ephemeral_labels_make_a_template_each() {
        let item = json!({
            "apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "r"},
            "spec": {
                "template": {"metadata": {"labels": {"app": "a", "role": "x"}}, "spec": {"serviceAccountName": "sa", "containers": []}},
                "strategy": {"canary": {"canaryMetadata": {"labels": {"role": "canary"}}, "stableMetadata": {"labels": {"track": "stable"}}}}
            }
        });
        assert_eq!(
            templates(item),
            [
                ("spec.template".into(), pairs(&[("app", "a"), ("role", "x")]), "sa".into(), false),
                (
                    "spec.strategy.canary.canaryMetadata".into(),
                    pairs(&[("app", "a"), ("role", "canary")]),
                    "sa".into(),
                    false
                ),
                (
                    "spec.strategy.canary.stableMetadata".into(),
                    pairs(&[("app", "a"), ("role", "x"), ("track", "stable")]),
                    "sa".into(),
                    false
                ),
            ]
        );
    }

    #[test]
    fn a_workflows_pod_templates_carry_its_pod_metadata_and_accounts() {
        let spec = json!({
            "serviceAccountName": "runner",
            "podMetadata": {"labels": {"team": "t", "role": "w"}},
            "templates": [
                {"name": "main", "steps": []},
                {"name": "train", "metadata": {"labels": {"role": "train"}}, "container": {"image": "x"}},
                {"name": "eval", "serviceAccountName": "evaluator", "script": {"image": "x", "source": "y"}},
            ]
        });
        let item = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "w"}, "spec": spec});
        assert_eq!(
            templates(item),
            [
                (
                    "spec.templates[1]".into(),
                    pairs(&[("role", "train"), ("team", "t")]),
                    "runner".into(),
                    false
                ),
                (
                    "spec.templates[2]".into(),
                    pairs(&[("role", "w"), ("team", "t")]),
                    "evaluator".into(),
                    false
                ),
            ]
        );
        let cron = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "CronWorkflow", "spec": {"workflowSpec": spec}});
        assert_eq!(templates(cron)[0].0, "spec.workflowSpec.templates[1]");
        // Another group's Workflow: only the pod labels it names are known, as an open template.
        let other = json!({"apiVersion": "example.org/v1", "kind": "Workflow", "spec": spec});
        assert_eq!(
            templates(other),
            [("spec.podMetadata".into(), pairs(&[("role", "w"), ("team", "t")]), "runner".into(), true)]
        );
    }

    #[test]
    fn an_inference_services_components_are_open_templates() {
        let item = json!({
            "apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": "llm", "labels": {"team": "t", "role": "x"}},
            "spec": {
                "predictor": {"labels": {"role": "serve"}, "serviceAccountName": "sa", "model": {"modelFormat": {"name": "hf"}}},
                "transformer": {"containers": [{"name": "t", "image": "x"}]}
            }
        });
        assert_eq!(
            templates(item),
            [
                (
                    "spec.predictor".into(),
                    pairs(&[
                        ("component", "predictor"),
                        ("role", "serve"),
                        ("serving.kserve.io/inferenceservice", "llm"),
                        ("team", "t")
                    ]),
                    "sa".into(),
                    true
                ),
                (
                    "spec.transformer".into(),
                    pairs(&[
                        ("component", "transformer"),
                        ("role", "x"),
                        ("serving.kserve.io/inferenceservice", "llm"),
                        ("team", "t")
                    ]),
                    "default".into(),
                    true
                ),
            ]
        );
    }

    #[test]
    fn pod_labels_of_an_unknown_kind_without_templates_are_an_open_template() {
        let item = json!({
            "apiVersion": "example.org/v1", "kind": "ModelServer",
            "spec": {"workers": [{"serviceAccountName": "sa", "podMetadata": {"labels": {"app": "a"}}}]}
        });
        assert_eq!(
            templates(item),
            [("spec.workers[0].podMetadata".into(), pairs(&[("app", "a")]), "sa".into(), true)]
        );
        let flat = json!({
            "apiVersion": "example.org/v1", "kind": "ModelServer",
            "spec": {"serviceAccountName": "sa", "podLabels": {"app": "b"}}
        });
        assert_eq!(templates(flat), [("spec.podLabels".into(), pairs(&[("app", "b")]), "sa".into(), true)]);
        // Naming no account beside its labels, its pods may run as any.
        let unnamed = json!({"apiVersion": "example.org/v1", "kind": "ModelServer", "spec": {"podLabels": {"app": "c"}}});
        assert_eq!(templates(unnamed), [("spec.podLabels".into(), pairs(&[("app", "c")]), "".into(), true)]);
        let none = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"podLabels": "a=b"}});
        assert!(templates(none).is_empty());
    }

    #[test]
    fn an_unknown_kind_with_a_pod_template_is_read_by_its_template_alone() {
        // Its pod labels elsewhere are not a second, open template: the template found says
        // what its pods carry.
        let item = json!({
            "apiVersion": "example.org/v1", "kind": "ModelServer",
            "spec": {
                "template": {"metadata": {"labels": {"app": "t"}}, "spec": {"containers": [{"name": "c"}]}},
                "extra": {"podLabels": {"app": "other"}}
            }
        });
        assert_eq!(
            templates(item),
            [("spec.template".into(), pairs(&[("app", "t")]), "default".into(), false)]
        );
    }
}
