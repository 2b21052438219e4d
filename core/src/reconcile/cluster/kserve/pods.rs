//! The pod templates of the model servers KServe makes of a merged spec, their labels and
//! accounts (kserve/kserve aaac4e294dae2c7b1aa1886447793f3aa1c30912,
//! `pkg/controller/v1alpha2/llmisvc/`):
//!
//! - without `worker`, a Deployment `<name>-kserve` of the main (decode) workload, labelled
//!   `app.kubernetes.io/component: llminferenceservice-workload`, the service's name, part-of
//!   and `kserve.io/component: workload`, with `llm-d.ai/role` `decode`, or `both` when there is
//!   no prefill (`workload_single_node.go` lines 89-97, 506-512); with `prefill` and no
//!   `prefill.worker`, a Deployment `<name>-kserve-prefill` labelled likewise as
//!   `llminferenceservice-workload-prefill` with role `prefill` (lines 224-231);
//! - with `worker`, a LeaderWorkerSet `<name>-kserve-mn`: a leader template when `template` is
//!   set, labelled as the decode Deployment's pods with component `…-leader`, and a worker
//!   template with component `…-worker` whose pods the pool selects (`kserve.io/component` and
//!   role `decode`) only when there is no leader (`workload_multi_node.go` lines 139-160);
//!   `prefill.worker` makes `<name>-kserve-mn-prefill` the same way (lines 285-302);
//! - on every template, the service's `metadata.labels` of the prefixes `kueue.x-k8s.io` and
//!   `internal.serving.kserve.io/localmodel` (`propagateDeploymentMetadata`, lines 305-325 of
//!   the single-node file; lines 619-664 of the multi-node one), then `spec.labels` (decode)
//!   or `spec.prefill.labels` (prefill), each over what came before (`utils.PropagateMap`);
//! - accounts: a single-node decode pod runs as `template.serviceAccountName`; without one, as
//!   the account `<name>-kserve` KServe creates when the template has the routing sidecar, else
//!   `default` (lines 138-165, 428-466); a single-node prefill pod as its template's account
//!   or `default` (lines 259-269); the pods of a LeaderWorkerSet as the template's account,
//!   else the worker's, else the one KServe creates under the set's name (multi-node lines
//!   485-570).

use super::merge;
use super::presets::ROUTING_SIDECAR;
use super::vocabulary::{
    COMPONENT_LABEL, DECODE_ACCOUNT, MULTI_NODE_DECODE_ACCOUNT, MULTI_NODE_PREFILL_ACCOUNT, NAME_LABEL, Note,
    PART_OF, PART_OF_LABEL, Template, WORKLOAD, child_name,
};
use crate::api::names::DEFAULT_SERVICE_ACCOUNT;
use serde_json::Value;

const KUBERNETES_COMPONENT: &str = "app.kubernetes.io/component";
const ROLE_LABEL: &str = "llm-d.ai/role";
/// Prefixes of the service's own labels KServe copies onto its pods.
const APPROVED_PREFIXES: [&str; 2] = ["kueue.x-k8s.io", "internal.serving.kserve.io/localmodel"];

/// What the templates are made from.
pub struct Context<'a> {
    pub service: &'a Value,
    /// The service's spec laid over its presets.
    pub spec: &'a Value,
    pub name: &'a str,
    pub namespace: &'a str,
    /// Whether a preset the build lacks may add labels.
    pub open: bool,
}

/// One workload of the service: main (decode) or prefill.
struct Side<'a> {
    /// `decode` or `prefill`, as roles are named.
    role: &'static str,
    /// Where its fields stand in the spec, for notes: `spec` or `spec.prefill`.
    field: &'static str,
    spec: Option<&'a Value>,
    /// The `app.kubernetes.io/component` of a single-node pod, a leader and a worker.
    components: [&'static str; 3],
    /// Its set's suffix when it runs on several nodes, and its single-node role label.
    multi_node_suffix: &'static str,
    single_role: &'static str,
}

/// The pod templates KServe makes, with a note for each the build cannot read.
pub fn templates(cx: &Context<'_>, notes: &mut Vec<Note>) -> Vec<Template> {
    let prefill = cx.spec.get("prefill").filter(|p| !p.is_null());
    let decode = Side {
        role: "decode",
        field: "spec",
        spec: Some(cx.spec),
        components: [
            "llminferenceservice-workload",
            "llminferenceservice-workload-leader",
            "llminferenceservice-workload-worker",
        ],
        multi_node_suffix: MULTI_NODE_DECODE_ACCOUNT,
        single_role: if prefill.is_some() { "decode" } else { "both" },
    };
    let prefill = Side {
        role: "prefill",
        field: "spec.prefill",
        spec: prefill,
        components: [
            "llminferenceservice-workload-prefill",
            "llminferenceservice-workload-leader-prefill",
            "llminferenceservice-workload-worker-prefill",
        ],
        multi_node_suffix: MULTI_NODE_PREFILL_ACCOUNT,
        single_role: "prefill",
    };
    let mut out = Vec::new();
    for side in [decode, prefill] {
        let Some(spec) = side.spec else { continue };
        let (labels, open) = own_labels(cx, &side, spec, notes);
        let at = |key: &str| spec.get(key).filter(|v| !v.is_null());
        let (template, worker) = (at("template"), at("worker"));
        let base = |component: &str| {
            vec![
                (KUBERNETES_COMPONENT.to_string(), component.to_string()),
                (NAME_LABEL.to_string(), cx.name.to_string()),
                (PART_OF_LABEL.to_string(), PART_OF.to_string()),
            ]
        };
        let selected = |role: &str| {
            [(COMPONENT_LABEL.to_string(), WORKLOAD.to_string()), (ROLE_LABEL.to_string(), role.to_string())]
        };
        let mut made = Vec::new();
        match worker {
            None => {
                let mut set = base(side.components[0]);
                set.extend(selected(side.single_role));
                let account = single_node_account(cx, &side, template, notes);
                made.extend(account.map(|a| (format!("({})", side.role), set, a)));
            }
            Some(worker) => {
                let account = multi_node_account(cx, &side, template, worker, notes);
                if let Some(account) = account {
                    if template.is_some() {
                        let mut leader = base(side.components[1]);
                        leader.extend(selected(side.single_role));
                        made.push((format!("({} leader)", side.role), leader, account.clone()));
                    }
                    let mut workers = base(side.components[2]);
                    if template.is_none() {
                        workers.extend(selected(side.role));
                    }
                    made.push((format!("({} worker)", side.role), workers, account));
                }
            }
        }
        for (role, mut set, account) in made {
            overlay(&mut set, &labels);
            set.sort();
            out.push(Template { role, labels: set, account, open: open || cx.open });
        }
    }
    out
}

/// The labels KServe lays over its own on a side's pods: the service's approved metadata
/// labels, then the side's `labels`; and whether one needs what the build does not evaluate.
fn own_labels(
    cx: &Context<'_>,
    side: &Side<'_>,
    spec: &Value,
    notes: &mut Vec<Note>,
) -> (Vec<(String, String)>, bool) {
    let metadata = cx.service.pointer("/metadata/labels").and_then(Value::as_object);
    let mut labels: Vec<(String, String)> = metadata
        .into_iter()
        .flatten()
        .filter(|(k, _)| APPROVED_PREFIXES.iter().any(|p| k.starts_with(p)))
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    let (own, unknown) = merge::labels_at(spec, &["labels"], cx.name, cx.namespace);
    for (key, expression) in &unknown {
        notes.push(Note {
            message: format!(
                "{}.labels[{key:?}] holds {expression}, which only KServe evaluates: the {} pods' label is not \
                 known; give it plainly",
                side.field, side.role
            ),
            warning: true,
        });
    }
    overlay(&mut labels, &own);
    (labels, !unknown.is_empty())
}

/// Sets each of `over` in `labels`, a later value over an earlier one.
fn overlay(labels: &mut Vec<(String, String)>, over: &[(String, String)]) {
    for (key, value) in over {
        match labels.iter_mut().find(|(k, _)| k == key) {
            Some(existing) => existing.1 = value.clone(),
            None => labels.push((key.clone(), value.clone())),
        }
    }
}

/// A template's `serviceAccountName`, evaluated; a note when the build cannot.
fn named_account(
    cx: &Context<'_>,
    field: &str,
    pod: Option<&Value>,
    notes: &mut Vec<Note>,
) -> Result<Option<String>, ()> {
    let Some(text) = pod.and_then(|p| p.get("serviceAccountName")).and_then(Value::as_str) else {
        return Ok(None);
    };
    match merge::evaluated(text, cx.name, cx.namespace) {
        Ok(name) => Ok(Some(name).filter(|n| !n.is_empty())),
        Err(expression) => {
            notes.push(Note {
                message: format!(
                    "{field}.serviceAccountName holds {expression}, which only KServe evaluates: the account its \
                     pods run as is not known, so they are left out; name the account plainly"
                ),
                warning: true,
            });
            Err(())
        }
    }
}

fn single_node_account(
    cx: &Context<'_>,
    side: &Side<'_>,
    template: Option<&Value>,
    notes: &mut Vec<Note>,
) -> Option<String> {
    let field = format!("{}.template", side.field);
    if let Some(named) = named_account(cx, &field, template, notes).ok()? {
        return Some(named);
    }
    let sidecar = template
        .and_then(|t| t.get("initContainers"))
        .and_then(Value::as_array)
        .is_some_and(|c| c.iter().any(|c| c.get("name").and_then(Value::as_str) == Some(ROUTING_SIDECAR)));
    if side.role == "decode" && sidecar {
        return created_account(cx, DECODE_ACCOUNT, notes);
    }
    Some(DEFAULT_SERVICE_ACCOUNT.to_string())
}

fn multi_node_account(
    cx: &Context<'_>,
    side: &Side<'_>,
    template: Option<&Value>,
    worker: &Value,
    notes: &mut Vec<Note>,
) -> Option<String> {
    let template_field = format!("{}.template", side.field);
    let worker_field = format!("{}.worker", side.field);
    if let Some(named) = named_account(cx, &template_field, template, notes).ok()? {
        return Some(named);
    }
    if let Some(named) = named_account(cx, &worker_field, Some(worker), notes).ok()? {
        return Some(named);
    }
    created_account(cx, side.multi_node_suffix, notes)
}

/// The account KServe creates under `<name><suffix>`, when the build can name it.
fn created_account(cx: &Context<'_>, suffix: &str, notes: &mut Vec<Note>) -> Option<String> {
    let name = child_name(cx.name, suffix);
    if name.is_none() {
        notes.push(Note {
            message: format!(
                "metadata.name {:?} is too long for KServe to name its service account {:?} plainly: it takes a \
                 hash the build does not compute, so those pods are left out; give the service a shorter name, \
                 or name an account in the template's serviceAccountName",
                cx.name,
                format!("<name>{suffix}")
            ),
            warning: true,
        });
    }
    name
}
