//! The controllers of Kubernetes that make pods, and LeaderWorkerSet's, as their code makes
//! them (kubernetes `pkg/controller/`: `controller_utils.go` `GetPodFromTemplate`,
//! `deployment/sync.go`, `statefulset/stateful_set_utils.go`, `daemon/util/daemonset_util.go`,
//! `job/job_controller.go`, `cronjob/utils.go`; `pkg/registry/batch/job/strategy.go`
//! `generateSelector`; kubernetes-sigs/lws `pkg/utils/...` and its labels): the labels each
//! puts on its pods over the template's, and the name its pods get when the item settles it.

use super::{Controller, Facts, Owner, refusals};
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
    images: &[],
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
    unjudged: None,
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(refusals::pod),
};

pub const REPLICATION_CONTROLLER: Controller = Controller {
    group: "",
    kinds: &["ReplicationController"],
    maker: "Kubernetes' replication controller",
    images: &["kube-controller-manager"],
    templates: &["spec.template"],
    shapes: &["spec.selector"],
    derive: None,
    keeps: None,
    facts: no_facts,
    labels: none,
    label_keys: &[],
    unjudged: None,
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(refusals::replication_controller),
};

pub const REPLICA_SET: Controller = Controller {
    group: "apps",
    kinds: &["ReplicaSet"],
    maker: "Kubernetes' ReplicaSet controller",
    images: &["kube-controller-manager"],
    templates: &["spec.template"],
    shapes: &["spec.selector", "spec.template.spec.restartPolicy"],
    derive: None,
    keeps: None,
    facts: no_facts,
    // GetPodFromTemplate copies the template's labels, and adds none.
    labels: none,
    label_keys: &[],
    unjudged: None,
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(refusals::apps),
};

pub const DEPLOYMENT: Controller = Controller {
    group: "apps",
    kinds: &["Deployment"],
    maker: "Kubernetes' Deployment controller, through a ReplicaSet",
    images: &["kube-controller-manager"],
    templates: &["spec.template"],
    shapes: &["spec.selector", "spec.template.spec.restartPolicy"],
    derive: None,
    keeps: None,
    facts: no_facts,
    // deployment/sync.go puts `pod-template-hash` on the ReplicaSet's template, over the
    // Deployment's.
    labels: |_, key, _| (key == "pod-template-hash").then_some(Lookup::Present),
    label_keys: &["pod-template-hash"],
    unjudged: None,
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(refusals::apps),
};

pub const STATEFUL_SET: Controller = Controller {
    group: "apps",
    kinds: &["StatefulSet"],
    maker: "Kubernetes' StatefulSet controller",
    images: &["kube-controller-manager"],
    templates: &["spec.template"],
    shapes: &["spec.replicas", "spec.ordinals", "spec.selector", "spec.template.spec.restartPolicy"],
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
    unjudged: None,
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(refusals::apps),
};

/// A StatefulSet of one replica has one pod, `<name>-<ordinal>`, its ordinal
/// `spec.ordinals.start` (0 when unset); with more, each pod has its own. The detail is the
/// ordinal, its `apps.kubernetes.io/pod-index`; with more pods, their count and first ordinal.
fn stateful_set_facts(item: &Value) -> Facts {
    let name = fields::str_at(item, "metadata.name").unwrap_or_default();
    let replicas = item.pointer("/spec/replicas").map_or(Some(1), Value::as_count);
    let start = match item.pointer("/spec/ordinals/start") {
        None | Some(Value::Null) => Some(0),
        Some(v) => v.as_count(),
    };
    match (replicas, start) {
        (Some(1), Some(start)) if !name.is_empty() => {
            Facts { pod_name: Some(format!("{name}-{start}")), detail: start.to_string() }
        }
        // Its pods are `<name>-<ordinal>`, the ordinals `start` to `start + replicas - 1`
        // (`stateful_set_utils.go`, `getStartOrdinal`, `getEndOrdinal`): their names and
        // index labels hang on both.
        _ => {
            let number = |n: Option<u64>| n.map_or("not a number".to_string(), |n| n.to_string());
            Facts {
                pod_name: None,
                detail: format!("replicas {}, first ordinal {}", number(replicas), number(start)),
            }
        }
    }
}

pub const DAEMON_SET: Controller = Controller {
    group: "apps",
    kinds: &["DaemonSet"],
    maker: "Kubernetes' DaemonSet controller",
    images: &["kube-controller-manager"],
    templates: &["spec.template"],
    shapes: &["spec.selector", "spec.template.spec.restartPolicy"],
    derive: None,
    keeps: None,
    facts: no_facts,
    labels: |_, key, _| {
        matches!(key, "controller-revision-hash" | "pod-template-generation").then_some(Lookup::Present)
    },
    label_keys: &["controller-revision-hash", "pod-template-generation"],
    unjudged: None,
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(refusals::apps),
};

pub const JOB: Controller = Controller {
    group: "batch",
    kinds: &["Job"],
    maker: "Kubernetes' Job controller",
    images: &["kube-controller-manager"],
    templates: &["spec.template"],
    shapes: &[
        "spec.manualSelector",
        "spec.completionMode",
        "spec.completions",
        "metadata.generateName",
        "spec.selector",
    ],
    derive: None,
    keeps: None,
    facts: |item| {
        let mut facts = job_facts(item.get("spec"));
        if fields::str_at(item, "metadata.name").is_none_or(str::is_empty) {
            flag(&mut facts.detail, GENERATED_NAME);
        }
        facts
    },
    labels: job_labels,
    label_keys: &["job-name", "controller-uid", "batch.kubernetes.io/"],
    unjudged: None,
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(|item| {
        let name = fields::str_at(item, "metadata.name").filter(|n| !n.is_empty());
        refusals::job(item, &["spec"], name.map_or(refusals::JobName::Generated, refusals::JobName::Exact))
    }),
};

pub const CRON_JOB: Controller = Controller {
    group: "batch",
    kinds: &["CronJob"],
    maker: "Kubernetes' CronJob controller, through a Job",
    images: &["kube-controller-manager"],
    templates: &["spec.jobTemplate.spec.template"],
    shapes: &[
        "spec.jobTemplate.spec.manualSelector",
        "spec.jobTemplate.spec.completionMode",
        "spec.jobTemplate.spec.completions",
        "spec.jobTemplate.spec.selector",
    ],
    derive: None,
    keeps: None,
    facts: |item| {
        // Its Jobs are named `<name>-<minutes since the epoch>`, by the schedule.
        let mut facts = job_facts(fields::child(item, &["spec", "jobTemplate", "spec"]));
        flag(&mut facts.detail, GENERATED_NAME);
        facts
    },
    labels: job_labels,
    label_keys: &["job-name", "controller-uid", "batch.kubernetes.io/"],
    unjudged: Some(refusals::one_scheduled_job),
    remade: None,
    kustomize_fixes_account: true,
    containers_as_written: true,
    refusal: Some(|item| refusals::job(item, &["spec", "jobTemplate", "spec"], refusals::JobName::Scheduled)),
};

/// The parts of a Job's (or a CronJob's Jobs') facts' detail, `; ` between them.
const MANUAL_SELECTOR: &str = "manualSelector";
const INDEXED: &str = "Indexed";
const GENERATED_NAME: &str = "generated name";

/// Adds `part` to a Job's detail.
fn flag(detail: &mut String, part: &str) {
    if !detail.is_empty() {
        detail.push_str("; ");
    }
    detail.push_str(part);
}

/// A Job spec's `manualSelector` and `completionMode`, and an Indexed Job's `completions`:
/// its pods' completion indexes, `0` to `completions - 1` (`indexed_job_utils.go`,
/// `addCompletionIndexLabel`), which their label and name hang on.
fn job_facts(spec: Option<&Value>) -> Facts {
    let mut detail = String::new();
    let at = |key: &str| spec.and_then(|s| s.get(key));
    if at("manualSelector").and_then(Value::as_bool) == Some(true) {
        flag(&mut detail, MANUAL_SELECTOR);
    }
    if at("completionMode").and_then(Value::as_str) == Some("Indexed") {
        flag(&mut detail, INDEXED);
        let completions = at("completions").and_then(Value::as_count);
        flag(&mut detail, &format!("completions {}", completions.map_or("unset".into(), |n| n.to_string())));
    }
    Facts { pod_name: None, detail }
}

/// The labels a Job's pods carry beside the template's: unless `manualSelector`, the API
/// server's `generateSelector` adds `job-name` and `batch.kubernetes.io/job-name` (the
/// Job's name; a value the template gives stays) and the two `controller-uid` keys (the
/// Job's UID); the Job controller adds `batch.kubernetes.io/job-completion-index` to an
/// Indexed Job's pods. Any other `batch.kubernetes.io/` key a later Kubernetes may add.
fn job_labels<'a>(owner: &Owner<'a>, key: &str, template: Option<&'a str>) -> Option<Lookup<'a>> {
    let flag = |part: &str| owner.detail.split("; ").any(|p| p == part);
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
    images: &["lws"],
    templates: &[LEADER_TEMPLATE, WORKER_TEMPLATE],
    shapes: &[
        "spec.replicas",
        "spec.leaderWorkerTemplate.size",
        "spec.leaderWorkerTemplate.subGroupPolicy",
        "spec.rolloutStrategy",
    ],
    derive: None,
    keeps: Some(|item, path| GroupShape::of(item).makes_pods(path != WORKER_TEMPLATE)),
    facts: |item| Facts { pod_name: None, detail: GroupShape::of(item).detail() },
    labels: |owner, key, template| GroupShape::parse(owner.detail).label(owner, key, template),
    label_keys: &[
        "leaderworkerset.sigs.k8s.io/",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "controller-revision-hash",
    ],
    unjudged: None,
    remade: None,
    kustomize_fixes_account: false,
    containers_as_written: true,
    refusal: None,
};

/// The words of a [`GroupShape::detail`] that stand for a part of it.
const UNREAD_SIZE: &str = "a size the build cannot read";
const UNSET_GROUPS: &str = "groups the cluster counts";
const LEADER_TEMPLATE_PART: &str = "a leader template";
const LEADER_EXCLUDED: &str = " without the leader";
const GROUP_INDEX_PINNED: &str = "group index set by the template";
const SUBGROUP_INDEX_PINNED_LEADER: &str = "subgroup index set by the leader template";
const SUBGROUP_INDEX_PINNED_WORKER: &str = "subgroup index set by the worker template";

/// Where a LeaderWorkerSet holds its templates.
pub const LEADER_TEMPLATE: &str = "spec.leaderWorkerTemplate.leaderTemplate";
pub const WORKER_TEMPLATE: &str = "spec.leaderWorkerTemplate.workerTemplate";

/// What LeaderWorkerSet's controller settles of a set's pods from its spec
/// (kubernetes-sigs/lws v0.8.0). Each group is a leader pod, of the leader StatefulSet made of
/// the leader template (else the worker template), and `size - 1` worker pods of a worker
/// StatefulSet made of the worker template; a group of one has no worker StatefulSet
/// (`pkg/controllers/pod_controller.go`, `Reconcile`: size 1 returns before making it). `size`
/// and `replicas` default to 1 (`api/leaderworkerset/v1/leaderworkerset_types.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupShape {
    /// The pods of a group; `None` when the item gives no number the build reads.
    pub size: Option<u64>,
    /// The groups, when the item sets them: an autoscaler may change an unset count, and a
    /// rolling update's `maxSurge` adds groups past it while it runs
    /// (`leaderworkerset_controller.go`, `rollingUpdateParameters`): then `None`.
    pub replicas: Option<u64>,
    pub leader_template: bool,
    /// `subGroupPolicy.subGroupSize`, and whether its type is `LeaderExcluded`.
    pub subgroup: Option<(u64, bool)>,
    /// Whether the leader's template (the leader template, else the worker template) sets the
    /// group index label: the leader keeps it, and the workers take the leader's.
    pub pins_group_index: bool,
    /// Whether the leader template, and the worker template, set the subgroup index label:
    /// then the webhook sets neither it nor the subgroup key on their pods.
    pub pins_subgroup_index: (bool, bool),
}

impl Default for GroupShape {
    fn default() -> Self {
        GroupShape {
            size: Some(1),
            replicas: None,
            leader_template: false,
            subgroup: None,
            pins_group_index: false,
            pins_subgroup_index: (false, false),
        }
    }
}

impl GroupShape {
    /// The shape of a LeaderWorkerSet item.
    pub fn of(item: &Value) -> GroupShape {
        let number = |path: &str| match item.pointer(path) {
            None | Some(Value::Null) => Some(None),
            Some(v) => v.as_count().map(Some),
        };
        let subgroup = item.pointer("/spec/leaderWorkerTemplate/subGroupPolicy").filter(|p| p.is_object());
        let template = |t: &str| item.pointer(&format!("/spec/leaderWorkerTemplate/{t}"));
        // A surge of 0 (or "0%") adds no group; any other, or one the build cannot read, may.
        let surge = item.pointer("/spec/rolloutStrategy/rollingUpdateConfiguration/maxSurge");
        let surges = surge.is_some_and(|s| {
            !matches!(s, Value::Null)
                && s.as_count() != Some(0)
                && s.as_str() != Some("0%")
                && s.as_str() != Some("0")
        });
        GroupShape {
            size: number("/spec/leaderWorkerTemplate/size").map(|n| n.unwrap_or(1)),
            replicas: number("/spec/replicas").flatten().filter(|_| !surges),
            leader_template: item
                .pointer("/spec/leaderWorkerTemplate/leaderTemplate")
                .is_some_and(Value::is_object),
            subgroup: subgroup.and_then(|p| {
                let size = p.get("subGroupSize").and_then(Value::as_count)?;
                Some((size, p.get("type").and_then(Value::as_str) == Some("LeaderExcluded")))
            }),
            pins_group_index: ["leaderTemplate", "workerTemplate"]
                .iter()
                .find_map(|t| template(t).filter(|v| v.is_object()))
                .is_some_and(|t| sets(t, GROUP_INDEX)),
            pins_subgroup_index: (
                template("leaderTemplate").is_some_and(|t| sets(t, SUBGROUP_INDEX)),
                template("workerTemplate").is_some_and(|t| sets(t, SUBGROUP_INDEX)),
            ),
        }
    }

    /// Whether the template at the leader's place (`leader`) or the worker's makes pods: the
    /// worker template of a group of one beside a leader template makes none.
    pub fn makes_pods(&self, leader: bool) -> bool {
        leader || !(self.leader_template && self.size == Some(1))
    }

    /// The shape as [`Facts::detail`] holds it, in the words a finding shows: its parts
    /// joined by `; ` (`groups of 2; 3 groups; a leader template`).
    pub fn detail(&self) -> String {
        let mut parts = vec![
            self.size.map_or(format!("groups of {UNREAD_SIZE}"), |n| format!("groups of {n}")),
            match self.replicas {
                Some(1) => "1 group".to_string(),
                Some(n) => format!("{n} groups"),
                None => UNSET_GROUPS.to_string(),
            },
        ];
        if self.leader_template {
            parts.push(LEADER_TEMPLATE_PART.into());
        }
        if let Some((size, excluded)) = self.subgroup {
            parts.push(format!("subgroups of {size}{}", if excluded { LEADER_EXCLUDED } else { "" }));
        }
        for (pinned, part) in [
            (self.pins_group_index, GROUP_INDEX_PINNED),
            (self.pins_subgroup_index.0, SUBGROUP_INDEX_PINNED_LEADER),
            (self.pins_subgroup_index.1, SUBGROUP_INDEX_PINNED_WORKER),
        ] {
            if pinned {
                parts.push(part.into());
            }
        }
        parts.join("; ")
    }

    /// The shape a [`detail`](Self::detail) holds; the default for an empty one.
    pub fn parse(detail: &str) -> GroupShape {
        if detail.is_empty() {
            return GroupShape::default();
        }
        let mut shape = GroupShape { size: None, ..GroupShape::default() };
        for part in detail.split("; ") {
            if let Some(size) = part.strip_prefix("subgroups of ") {
                let (size, excluded) =
                    size.strip_suffix(LEADER_EXCLUDED).map_or((size, false), |s| (s, true));
                shape.subgroup = size.parse().ok().map(|n| (n, excluded));
            } else if let Some(size) = part.strip_prefix("groups of ") {
                shape.size = size.parse().ok();
            } else if let Some(n) = part.strip_suffix(" groups").or_else(|| part.strip_suffix(" group")) {
                shape.replicas = n.parse().ok();
            }
            shape.leader_template |= part == LEADER_TEMPLATE_PART;
            shape.pins_group_index |= part == GROUP_INDEX_PINNED;
            shape.pins_subgroup_index.0 |= part == SUBGROUP_INDEX_PINNED_LEADER;
            shape.pins_subgroup_index.1 |= part == SUBGROUP_INDEX_PINNED_WORKER;
        }
        shape
    }

    /// What LWS puts in label `key` of the pods of `owner` (the set; its template's path says
    /// leader or worker), over the template's: the set's name; the worker index, `0` for a
    /// leader (`leaderworkerset_controller.go`, `constructLeaderStatefulSetApplyConfiguration`),
    /// its ordinal in the group for a worker (`pkg/webhooks/pod_webhook.go`, `Default`); the
    /// group index, the leader's ordinal (`0` when the set has one group); the subgroup index,
    /// `0` for a leader not excluded; the group and subgroup keys and the revision hash, hashes
    /// only the cluster settles; and the leader and worker StatefulSets' own labels.
    fn label<'a>(&self, owner: &Owner<'a>, key: &str, template: Option<&str>) -> Option<Lookup<'a>> {
        // The pods are leaders alone (the leader template, or the worker template of a group
        // of one), workers alone (the worker template beside a leader template), or both.
        let leaders = owner.template == LEADER_TEMPLATE || (!self.leader_template && self.size == Some(1));
        let workers = owner.template == WORKER_TEMPLATE && self.leader_template;
        let known = |value: &'static str| Lookup::Value(value);
        // The pod webhook sets a leader's group index and key only where its template sets
        // none (and the workers of a set without a leader template copy the leader's), and
        // any pod's subgroup index and key only where its subgroup index is empty: the
        // template's stand (`pkg/webhooks/pod_webhook.go`, `Default`).
        let kept_by_webhook = match key {
            GROUP_INDEX | "leaderworkerset.sigs.k8s.io/group-key" => !workers,
            SUBGROUP_INDEX | "leaderworkerset.sigs.k8s.io/subgroup-key" => {
                let (leader, worker) = self.pins_subgroup_index;
                if owner.template == LEADER_TEMPLATE { leader } else { worker }
            }
            _ => false,
        };
        if kept_by_webhook && (template.is_some_and(|v| !v.is_empty()) || key.contains("subgroup")) {
            return None;
        }
        Some(match key {
            "leaderworkerset.sigs.k8s.io/name" => Lookup::Value(owner.name),
            "leaderworkerset.sigs.k8s.io/worker-index" if leaders => known("0"),
            // A worker whose template says `0` is a leader to the webhook, which then leaves
            // the label as it is (`pkg/utils/pod/pod_utils.go`, `LeaderPod`).
            "leaderworkerset.sigs.k8s.io/worker-index" if template == Some("0") => known("0"),
            "leaderworkerset.sigs.k8s.io/worker-index" if workers && self.size == Some(2) => known("1"),
            "leaderworkerset.sigs.k8s.io/worker-index" => Lookup::Present,
            // The workers take the leader's, which its template may set.
            GROUP_INDEX if workers && self.pins_group_index => Lookup::Unknown,
            GROUP_INDEX => {
                if self.replicas == Some(1) {
                    known("0")
                } else {
                    Lookup::Present
                }
            }
            "leaderworkerset.sigs.k8s.io/subgroup-index" | "leaderworkerset.sigs.k8s.io/subgroup-key" => {
                let (_, excluded) = self.subgroup?;
                match (leaders, workers, excluded) {
                    (true, _, true) => return None,
                    (true, _, false) if key.ends_with("index") => known("0"),
                    // Leaders and workers, the leaders excluded: some pods have none.
                    (false, false, true) => Lookup::Unknown,
                    _ => Lookup::Present,
                }
            }
            "leaderworkerset.sigs.k8s.io/group-key"
            | "leaderworkerset.sigs.k8s.io/template-revision-hash" => Lookup::Present,
            // A key a later LWS may add.
            _ if key.starts_with("leaderworkerset.sigs.k8s.io/") => Lookup::Unknown,
            "statefulset.kubernetes.io/pod-name"
            | "apps.kubernetes.io/pod-index"
            | "controller-revision-hash" => Lookup::Present,
            _ => return None,
        })
    }
}

/// The labels of a LeaderWorkerSet pod's group and subgroup index.
const GROUP_INDEX: &str = "leaderworkerset.sigs.k8s.io/group-index";
const SUBGROUP_INDEX: &str = "leaderworkerset.sigs.k8s.io/subgroup-index";

/// Whether a pod template sets label `key` to a value the webhook takes as set (not empty).
fn sets(template: &Value, key: &str) -> bool {
    let labels = template.pointer("/metadata/labels");
    labels.and_then(|l| l.get(key)).and_then(Value::as_str).is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::GroupShape;
    use crate::api::value::item_json as json;

    /// One group has index `0`, unless a rolling update may surge past it.
    #[test]
    fn a_surge_leaves_the_group_count_to_the_cluster() {
        let lws = |strategy: crate::api::value::Value| {
            json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                   "spec": {"replicas": 1, "rolloutStrategy": strategy}})
        };
        assert_eq!(GroupShape::of(&lws(json!(null))).replicas, Some(1));
        let none = json!({"rollingUpdateConfiguration": {"maxSurge": 0, "maxUnavailable": 1}});
        assert_eq!(GroupShape::of(&lws(none)).replicas, Some(1));
        for surge in [json!(1), json!("50%")] {
            let strategy = json!({"rollingUpdateConfiguration": {"maxSurge": surge}});
            assert_eq!(GroupShape::of(&lws(strategy)).replicas, None);
        }
    }
}
