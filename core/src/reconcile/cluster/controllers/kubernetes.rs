//! The controllers of Kubernetes that make pods, and LeaderWorkerSet's, as their code makes
//! them (kubernetes `pkg/controller/`: `controller_utils.go` `GetPodFromTemplate`,
//! `deployment/sync.go`, `statefulset/stateful_set_utils.go`, `daemon/util/daemonset_util.go`,
//! `job/job_controller.go`, `cronjob/utils.go`; `pkg/registry/batch/job/strategy.go`
//! `generateSelector`; kubernetes-sigs/lws `pkg/utils/...` and its labels): the labels each
//! puts on its pods over the template's, and the name its pods get when the item settles it.

use super::{Controller, Facts, Owner};
use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::cluster::selector::Lookup;

/// A controller that adds nothing to its template: its pods carry the template's labels.
fn none<'a>(_: &Owner<'a>, _: &str, _: Option<&'a str>) -> Option<Lookup<'a>> {
    None
}

fn no_facts(_: &Value) -> Facts {
    Facts::default()
}

pub const POD: Controller = Controller {
    group: "",
    kinds: &["Pod"],
    maker: "a Pod is its own pod",
    templates: &["the Pod itself"],
    shapes: &["metadata.generateName"],
    derive: None,
    keeps: None,
    facts: |item| Facts {
        // A Pod made with `generateName` alone is named by the API server.
        pod_name: fields::str_at(item, "metadata.name").filter(|n| !n.is_empty()).map(str::to_string),
        detail: String::new(),
    },
    labels: none,
    label_keys: &[],
    kustomize_fixes_account: true,
};

pub const REPLICATION_CONTROLLER: Controller = Controller {
    group: "",
    kinds: &["ReplicationController"],
    maker: "Kubernetes' replication controller",
    templates: &["spec.template"],
    shapes: &[],
    derive: None,
    keeps: None,
    facts: no_facts,
    labels: none,
    label_keys: &[],
    kustomize_fixes_account: true,
};

pub const REPLICA_SET: Controller = Controller {
    group: "apps",
    kinds: &["ReplicaSet"],
    maker: "Kubernetes' ReplicaSet controller",
    templates: &["spec.template"],
    shapes: &[],
    derive: None,
    keeps: None,
    facts: no_facts,
    // GetPodFromTemplate copies the template's labels, and adds none.
    labels: none,
    label_keys: &[],
    kustomize_fixes_account: true,
};

pub const DEPLOYMENT: Controller = Controller {
    group: "apps",
    kinds: &["Deployment"],
    maker: "Kubernetes' Deployment controller, through a ReplicaSet",
    templates: &["spec.template"],
    shapes: &[],
    derive: None,
    keeps: None,
    facts: no_facts,
    // deployment/sync.go puts `pod-template-hash` on the ReplicaSet's template, over the
    // Deployment's.
    labels: |_, key, _| (key == "pod-template-hash").then_some(Lookup::Present),
    label_keys: &["pod-template-hash"],
    kustomize_fixes_account: true,
};

pub const STATEFUL_SET: Controller = Controller {
    group: "apps",
    kinds: &["StatefulSet"],
    maker: "Kubernetes' StatefulSet controller",
    templates: &["spec.template"],
    shapes: &["spec.replicas", "spec.ordinals"],
    derive: None,
    keeps: None,
    facts: stateful_set_facts,
    labels: |owner, key, _| match key {
        "statefulset.kubernetes.io/pod-name" => Some(owner.pod_name.map_or(Lookup::Present, Lookup::Value)),
        "apps.kubernetes.io/pod-index" => {
            Some(if owner.pod_name.is_some() { Lookup::Value(owner.detail) } else { Lookup::Present })
        }
        "controller-revision-hash" => Some(Lookup::Present),
        _ => None,
    },
    label_keys: &[
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "controller-revision-hash",
    ],
    kustomize_fixes_account: true,
};

/// A StatefulSet of one replica has one pod, `<name>-<ordinal>`, its ordinal
/// `spec.ordinals.start` (0 when unset); with more, each pod has its own. The detail is the
/// ordinal, its `apps.kubernetes.io/pod-index`.
fn stateful_set_facts(item: &Value) -> Facts {
    let name = fields::str_at(item, "metadata.name").unwrap_or_default();
    let replicas = item.pointer("/spec/replicas").map_or(Some(1), Value::as_u64);
    let start = match item.pointer("/spec/ordinals/start") {
        None | Some(Value::Null) => Some(0),
        Some(v) => v.as_u64(),
    };
    match (replicas, start) {
        (Some(1), Some(start)) if !name.is_empty() => {
            Facts { pod_name: Some(format!("{name}-{start}")), detail: start.to_string() }
        }
        _ => Facts::default(),
    }
}

pub const DAEMON_SET: Controller = Controller {
    group: "apps",
    kinds: &["DaemonSet"],
    maker: "Kubernetes' DaemonSet controller",
    templates: &["spec.template"],
    shapes: &[],
    derive: None,
    keeps: None,
    facts: no_facts,
    labels: |_, key, _| {
        matches!(key, "controller-revision-hash" | "pod-template-generation").then_some(Lookup::Present)
    },
    label_keys: &["controller-revision-hash", "pod-template-generation"],
    kustomize_fixes_account: true,
};

pub const JOB: Controller = Controller {
    group: "batch",
    kinds: &["Job"],
    maker: "Kubernetes' Job controller",
    templates: &["spec.template"],
    shapes: &["spec.manualSelector", "spec.completionMode", "metadata.generateName"],
    derive: None,
    keeps: None,
    facts: |item| {
        let mut facts = job_facts(item.get("spec"));
        if fields::str_at(item, "metadata.name").is_none_or(str::is_empty) {
            facts.detail.push(GENERATED_NAME);
        }
        facts
    },
    labels: job_labels,
    label_keys: &["job-name", "controller-uid", "batch.kubernetes.io/"],
    kustomize_fixes_account: true,
};

pub const CRON_JOB: Controller = Controller {
    group: "batch",
    kinds: &["CronJob"],
    maker: "Kubernetes' CronJob controller, through a Job",
    templates: &["spec.jobTemplate.spec.template"],
    shapes: &["spec.jobTemplate.spec.manualSelector", "spec.jobTemplate.spec.completionMode"],
    derive: None,
    keeps: None,
    facts: |item| {
        // Its Jobs are named `<name>-<minutes since the epoch>`, by the schedule.
        let mut facts = job_facts(fields::child(item, &["spec", "jobTemplate", "spec"]));
        facts.detail.push(GENERATED_NAME);
        facts
    },
    labels: job_labels,
    label_keys: &["job-name", "controller-uid", "batch.kubernetes.io/"],
    kustomize_fixes_account: true,
};

/// The detail letters of a Job's (or a CronJob's Jobs') facts.
const MANUAL_SELECTOR: char = 'm';
const INDEXED: char = 'i';
const GENERATED_NAME: char = 'g';

/// A Job spec's `manualSelector` and `completionMode`, as detail letters.
fn job_facts(spec: Option<&Value>) -> Facts {
    let mut detail = String::new();
    let at = |key: &str| spec.and_then(|s| s.get(key));
    if at("manualSelector").and_then(Value::as_bool) == Some(true) {
        detail.push(MANUAL_SELECTOR);
    }
    if at("completionMode").and_then(Value::as_str) == Some("Indexed") {
        detail.push(INDEXED);
    }
    Facts { pod_name: None, detail }
}

/// The labels a Job's pods carry beside the template's: unless `manualSelector`, the API
/// server's `generateSelector` adds `job-name` and `batch.kubernetes.io/job-name` (the
/// Job's name; a value the template gives stays) and the two `controller-uid` keys (the
/// Job's UID); the Job controller adds `batch.kubernetes.io/job-completion-index` to an
/// Indexed Job's pods. Any other `batch.kubernetes.io/` key a later Kubernetes may add.
fn job_labels<'a>(owner: &Owner<'a>, key: &str, template: Option<&'a str>) -> Option<Lookup<'a>> {
    let flag = |c: char| owner.detail.contains(c);
    let generated = !flag(MANUAL_SELECTOR);
    match key {
        "job-name" | "batch.kubernetes.io/job-name" if generated => Some(match template {
            Some(value) => Lookup::Value(value),
            None if flag(GENERATED_NAME) => Lookup::Present,
            None => Lookup::Value(owner.name),
        }),
        "controller-uid" | "batch.kubernetes.io/controller-uid" if generated => Some(Lookup::Present),
        "batch.kubernetes.io/job-completion-index" => flag(INDEXED).then_some(Lookup::Present),
        "job-name"
        | "controller-uid"
        | "batch.kubernetes.io/job-name"
        | "batch.kubernetes.io/controller-uid" => None,
        _ if key.starts_with("batch.kubernetes.io/") => Some(Lookup::Unknown),
        _ => None,
    }
}

pub const LEADER_WORKER_SET: Controller = Controller {
    group: "leaderworkerset.x-k8s.io",
    kinds: &["LeaderWorkerSet"],
    maker: "LeaderWorkerSet's controller, through a leader and a worker StatefulSet",
    templates: &["spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate"],
    shapes: &["spec.leaderWorkerTemplate.size"],
    derive: None,
    // A group of one is its leader alone: with a leader template, the worker template makes
    // no pod (without one, the leader's pods come from the worker template).
    keeps: Some(|item, path| {
        let size = item.pointer("/spec/leaderWorkerTemplate/size").and_then(Value::as_u64);
        let leader = item.pointer("/spec/leaderWorkerTemplate/leaderTemplate").is_some_and(Value::is_object);
        !(path == "spec.leaderWorkerTemplate.workerTemplate" && size == Some(1) && leader)
    }),
    facts: no_facts,
    // Its pods are its StatefulSets' pods, with its own labels: the set's name, and a group
    // and worker index, group key and revision hash only the cluster settles per pod.
    labels: |owner, key, _| match key {
        "leaderworkerset.sigs.k8s.io/name" => Some(Lookup::Value(owner.name)),
        _ if key.starts_with("leaderworkerset.sigs.k8s.io/") => Some(Lookup::Unknown),
        "statefulset.kubernetes.io/pod-name"
        | "apps.kubernetes.io/pod-index"
        | "controller-revision-hash" => Some(Lookup::Present),
        _ => None,
    },
    label_keys: &[
        "leaderworkerset.sigs.k8s.io/",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "controller-revision-hash",
    ],
    kustomize_fixes_account: false,
};
