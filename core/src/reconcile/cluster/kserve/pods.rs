//! The pod templates KServe makes of a merged spec, their labels and accounts, and the object
//! that makes each one's pods (kserve/kserve aaac4e294dae2c7b1aa1886447793f3aa1c30912,
//! `pkg/controller/v1alpha2/llmisvc/`; every name `kmeta.ChildName(<name>, <suffix>)`):
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
//!   role `decode`) only when there is no leader (`workload_multi_node.go`,
//!   `expectedMainMultiNodeLWS`); `prefill.worker` makes `<name>-kserve-mn-prefill` the same way
//!   (`expectedPrefillMultiNodeLWS`, with a subgroup policy of the group's size for data
//!   parallelism). Its groups are `parallelism.GetSize()` pods (`data / dataLocal` for data
//!   parallelism, `pipeline` for pipeline parallelism, else LWS's default 1): a group of one has
//!   no worker pods, and LeaderWorkerSet's own labels are its declaration's
//!   (`controllers/kubernetes.rs`, `GroupShape`);
//! - with a scheduler that has a template and names no pool, its Deployment
//!   `<name>-kserve-router-scheduler`, labelled `app.kubernetes.io/component:
//!   llminferenceservice-router-scheduler`, the service's name and part-of, then
//!   `router.scheduler.labels`, running as the template's account, else `<name>-epp-sa`, which
//!   KServe creates (`scheduler.go`, `expectedSchedulerDeployment`, `SchedulerLabels`,
//!   `propagateSchedulerMetadata`; `config_merge.go` sets the account); with a tokenizer
//!   (`tokenizer.go`, `isTokenizerEnabled`), its Deployment `<name>-tokenizer`, labelled
//!   `app.kubernetes.io/component: tokenizer`, the name and part-of, running as its
//!   template's account (`expectedTokenizerDeployment`, `TokenizerLabels`);
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

use super::merge::{self, Unread};
use super::names::child_name;
use super::presets::ROUTING_SIDECAR;
use super::template::Data;
use super::vocabulary::{
    COMPONENT_LABEL, DECODE_ACCOUNT, MULTI_NODE_DECODE_ACCOUNT, MULTI_NODE_PREFILL_ACCOUNT, Maker, MakerKind,
    NAME_LABEL, Note, PART_OF, PART_OF_LABEL, SCHEDULER_ACCOUNT, Template, WORKLOAD,
};
use crate::api::names::DEFAULT_SERVICE_ACCOUNT;
use crate::reconcile::cluster::controllers::GroupShape;
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
    /// What KServe's templates execute over.
    pub data: &'a Data<'a>,
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
    /// Its Deployment's suffix, and its LeaderWorkerSet's (also its account's).
    single_node_suffix: &'static str,
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
        single_node_suffix: DECODE_ACCOUNT,
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
        single_node_suffix: "-kserve-prefill",
        multi_node_suffix: MULTI_NODE_PREFILL_ACCOUNT,
        single_role: "prefill",
    };
    let name = cx.data.name;
    let mut out = Vec::new();
    for side in [decode, prefill] {
        let Some(spec) = side.spec else { continue };
        let (labels, open) = own_labels(cx, &side, spec, notes);
        let at = |key: &str| spec.get(key).filter(|v| !v.is_null());
        let (template, worker) = (at("template"), at("worker"));
        let base = |component: &str| {
            vec![
                (KUBERNETES_COMPONENT.to_string(), component.to_string()),
                (NAME_LABEL.to_string(), name.to_string()),
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
                let maker =
                    Maker { name: child_name(name, side.single_node_suffix), kind: MakerKind::Deployment };
                made.extend(account.map(|a| (format!("({})", side.role), set, a, maker)));
            }
            Some(worker) => {
                let account = multi_node_account(cx, &side, template, worker, notes);
                let shape = group_shape(spec, side.role == "prefill", template.is_some());
                let set = child_name(name, side.multi_node_suffix);
                let maker =
                    |leader| Maker { name: set.clone(), kind: MakerKind::LeaderWorkerSet { leader, shape } };
                if let Some(account) = account {
                    if template.is_some() {
                        let mut leader = base(side.components[1]);
                        leader.extend(selected(side.single_role));
                        made.push((format!("({} leader)", side.role), leader, account.clone(), maker(true)));
                    }
                    // A group of one beside a leader has no worker StatefulSet, so no workers.
                    if shape.makes_pods(false) {
                        let mut workers = base(side.components[2]);
                        if template.is_none() {
                            workers.extend(selected(side.role));
                        }
                        made.push((format!("({} worker)", side.role), workers, account, maker(false)));
                    }
                }
            }
        }
        for (role, mut set, account, maker) in made {
            overlay(&mut set, &labels);
            set.sort();
            out.push(Template { role, labels: set, account, open, maker });
        }
    }
    out.extend(router(cx, notes));
    out
}

/// The shape of a side's LeaderWorkerSet: its group size from `parallelism`
/// (`ParallelismSpec.GetSize`), its groups from `replicas` when set, and for prefill with
/// data parallelism a subgroup policy of the group's size (`expectedPrefillMultiNodeLWS`).
fn group_shape(spec: &Value, prefill: bool, leader_template: bool) -> GroupShape {
    let p = spec.get("parallelism");
    let number = |key: &str| p.and_then(|p| p.get(key)).and_then(Value::as_i64);
    let positive = |key: &str| number(key).is_some_and(|n| n > 0);
    let size = if positive("data") || positive("dataLocal") {
        let data = number("data").unwrap_or(1).max(1);
        let local = number("dataLocal").unwrap_or(1).max(1);
        Some((data / local).max(1) as u64)
    } else if positive("pipeline") {
        number("pipeline").map(|n| n as u64)
    } else {
        // No size: LeaderWorkerSet's default.
        Some(1)
    };
    let data_parallel = positive("data") || positive("dataLocal");
    GroupShape {
        size,
        // A whole float is the count kubectl sends (sigs.k8s.io/yaml writes `3.0` as `3`).
        replicas: spec
            .get("replicas")
            .and_then(|r| r.as_u64().or_else(|| crate::api::value::whole_count(r.as_f64()?))),
        leader_template,
        subgroup: (prefill && data_parallel).then(|| size.map(|s| (s, false))).flatten(),
        // Labels the service gives its pods may set the group index, which the leader keeps
        // and the workers copy: wherever the merged spec names it, it may be pinned.
        pins_group_index: spec.to_string().contains("leaderworkerset.sigs.k8s.io/group-index"),
        pins_subgroup_index: {
            let pinned = spec.to_string().contains("leaderworkerset.sigs.k8s.io/subgroup-index");
            (pinned, pinned)
        },
    }
}

/// The scheduler's and the tokenizer's pods, when KServe runs them.
fn router(cx: &Context<'_>, notes: &mut Vec<Note>) -> Vec<Template> {
    let Some(scheduler) = cx.spec.pointer("/router/scheduler").filter(|s| !s.is_null()) else {
        return Vec::new();
    };
    let name = cx.data.name;
    let has_ref = scheduler.pointer("/pool/ref/name").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
    if has_ref {
        return Vec::new();
    }
    let base = |component: &str| {
        vec![
            (KUBERNETES_COMPONENT.to_string(), component.to_string()),
            (NAME_LABEL.to_string(), name.to_string()),
            (PART_OF_LABEL.to_string(), PART_OF.to_string()),
        ]
    };
    let mut out = Vec::new();
    if let Some(template) = scheduler.get("template").filter(|t| !t.is_null()) {
        let mut labels = base("llminferenceservice-router-scheduler");
        let (own, unknown) = merge::labels_at(scheduler, &["labels"], cx.data);
        for (key, why) in &unknown {
            let field = format!("spec.router.scheduler.labels[{key:?}]");
            notes.push(why.note(&field, "the scheduler pods' label is not known"));
        }
        overlay(&mut labels, &own);
        labels.sort();
        let field = "spec.router.scheduler.template";
        let account = match named_account(cx, field, Some(template), notes) {
            Ok(named) => named.or_else(|| Some(child_name(name, SCHEDULER_ACCOUNT))),
            Err(()) => None,
        };
        let maker = Maker { name: child_name(name, "-kserve-router-scheduler"), kind: MakerKind::Deployment };
        out.extend(account.map(|account| Template {
            role: "(scheduler)".into(),
            labels,
            account,
            open: !unknown.is_empty(),
            maker,
        }));
    }
    let tokenizer = scheduler.get("tokenizer").filter(|t| !t.is_null());
    let plugins = super::presets::tokenizer_plugin(scheduler);
    if tokenizer.is_some() || plugins {
        let template = tokenizer.and_then(|t| t.get("template")).filter(|t| !t.is_null());
        let field = "spec.router.scheduler.tokenizer.template";
        if let Ok(named) = named_account(cx, field, template, notes) {
            let mut labels = base("tokenizer");
            labels.sort();
            out.push(Template {
                role: "(tokenizer)".into(),
                labels,
                account: named
                    .or_else(|| older_account(cx, template))
                    .unwrap_or_else(|| DEFAULT_SERVICE_ACCOUNT.to_string()),
                open: false,
                maker: Maker { name: child_name(name, "-tokenizer"), kind: MakerKind::Deployment },
            });
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
    let (own, unknown) = merge::labels_at(spec, &["labels"], cx.data);
    for (key, why) in &unknown {
        let field = format!("{}.labels[{key:?}]", side.field);
        notes.push(why.note(&field, &format!("the {} pods' label is not known", side.role)));
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
    match merge::evaluated(text, cx.data) {
        Ok(name) => Ok(Some(name).filter(|n| !n.is_empty())),
        Err(why) => {
            let field = format!("{field}.serviceAccountName");
            notes.push(why.note(&field, "the account its pods run as is not known, so they are left out"));
            if let Unread::Fails(_) = why {
                return Ok(None);
            }
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
        return Some(child_name(cx.data.name, DECODE_ACCOUNT));
    }
    Some(older_account(cx, template).unwrap_or_else(|| DEFAULT_SERVICE_ACCOUNT.to_string()))
}

/// A template's older `serviceAccount`, where KServe copies the template and names no account
/// of its own (a single-node Deployment without the routing sidecar, the tokenizer): the API
/// server runs the pods as it when `serviceAccountName` is empty
/// (`Convert_v1_PodSpec_To_core_PodSpec`). Where KServe sets an account of its own it wins.
fn older_account(cx: &Context<'_>, template: Option<&Value>) -> Option<String> {
    let text = template?.get("serviceAccount")?.as_str()?;
    merge::evaluated(text, cx.data).ok().filter(|n| !n.is_empty())
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
    Some(child_name(cx.data.name, side.multi_node_suffix))
}
