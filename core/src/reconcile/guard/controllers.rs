//! The guard's facts about Kubernetes and the controllers it trusts, in one place: the
//! kinds whose pods it judges ([`KINDS`], with where their pod templates stand), and, per
//! controller, what it makes, for which owner, under which user name by default and how it
//! names what it makes ([`CONTROLLERS`]). Each row says where in the controller's code the
//! fact was read. The policy's expressions and what `explain` says the guard admits are made
//! from these two tables alone.

/// A kind the guard judges or names.
#[derive(Debug, PartialEq, Eq)]
pub struct Kind {
    /// Its API group (empty: the core group).
    pub group: &'static str,
    pub kind: &'static str,
    /// Its resource, as admission rules name it.
    pub resource: &'static str,
    /// Where its pod templates stand, as dotted paths (empty: the object itself, a Pod);
    /// none for a kind whose pods only its controller knows (KServe's), which the guard
    /// names as an owner and never judges.
    pub templates: &'static [&'static str],
}

impl Kind {
    /// `group/Kind`, as the policy compares an owner reference's.
    pub fn group_kind(&self) -> String {
        format!("{}/{}", self.group, self.kind)
    }

    /// Whether an object of this `apiVersion` and kind is one of these.
    pub fn is(&self, api_version: &str, kind: &str) -> bool {
        let group = crate::api::group_of(api_version);
        self.kind == kind && self.group == group
    }
}

pub const POD: Kind = Kind { group: "", kind: "Pod", resource: "pods", templates: &[""] };
pub const DEPLOYMENT: Kind =
    Kind { group: "apps", kind: "Deployment", resource: "deployments", templates: &["spec.template"] };
pub const REPLICA_SET: Kind =
    Kind { group: "apps", kind: "ReplicaSet", resource: "replicasets", templates: &["spec.template"] };
pub const STATEFUL_SET: Kind =
    Kind { group: "apps", kind: "StatefulSet", resource: "statefulsets", templates: &["spec.template"] };
pub const DAEMON_SET: Kind =
    Kind { group: "apps", kind: "DaemonSet", resource: "daemonsets", templates: &["spec.template"] };
pub const JOB: Kind = Kind { group: "batch", kind: "Job", resource: "jobs", templates: &["spec.template"] };
pub const CRON_JOB: Kind = Kind {
    group: "batch",
    kind: "CronJob",
    resource: "cronjobs",
    templates: &["spec.jobTemplate.spec.template"],
};
/// LeaderWorkerSet (sigs.k8s.io/lws `api/leaderworkerset/v1`): the leader runs the leader
/// template when there is one, else the worker template.
pub const LEADER_WORKER_SET: Kind = Kind {
    group: "leaderworkerset.x-k8s.io",
    kind: "LeaderWorkerSet",
    resource: "leaderworkersets",
    templates: &["spec.leaderWorkerTemplate.workerTemplate", "spec.leaderWorkerTemplate.leaderTemplate"],
};
/// An Argo Rollout with its own template (one that refers to a Deployment's by
/// `workloadRef` holds none).
pub const ROLLOUT: Kind =
    Kind { group: "argoproj.io", kind: "Rollout", resource: "rollouts", templates: &["spec.template"] };
pub const LLM_INFERENCE_SERVICE: Kind = Kind {
    group: "serving.kserve.io",
    kind: "LLMInferenceService",
    resource: "llminferenceservices",
    templates: &[],
};
pub const INFERENCE_SERVICE: Kind = Kind {
    group: "serving.kserve.io",
    kind: "InferenceService",
    resource: "inferenceservices",
    templates: &[],
};

/// Every kind the guard knows, those it judges first.
pub const KINDS: [&Kind; 11] = [
    &POD,
    &DEPLOYMENT,
    &REPLICA_SET,
    &STATEFUL_SET,
    &DAEMON_SET,
    &JOB,
    &CRON_JOB,
    &LEADER_WORKER_SET,
    &ROLLOUT,
    &LLM_INFERENCE_SERVICE,
    &INFERENCE_SERVICE,
];

/// How a controller names what it makes after its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// `<owner>-<hash>`: the pod-template hash, `rand.SafeEncodeString` of a number
    /// (k8s.io/apimachinery `pkg/util/rand`), letters and digits that never spell a word.
    Hash,
    /// `<owner>-<digits>`: an ordinal, or a scheduled time in minutes.
    Number,
    /// `<owner><suffix>` for one of the suffixes (`""`: the owner's own name); past
    /// `longest` characters the controller shortens the name with a hash the build does not
    /// compute.
    Suffix { suffixes: &'static [&'static str], longest: Option<usize> },
    /// `<owner>-` and what the API server generates (`generateName`): the owner cannot be
    /// told from the name.
    Generated,
}

/// The letters of [`Naming::Hash`].
pub const HASH_LETTERS: &str = "bcdfghjklmnpqrstvwxz2456789";

/// What a controller does to the objects it owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acts {
    /// Creates and updates them.
    Makes,
    /// Updates the labels of pods it does not make (Argo Rollouts' ephemeral metadata): the
    /// pod may change identity, to one its owner holds.
    Relabels,
}

/// One controller's part: who it is, what it does to which kind for which owner, and how it
/// names it.
#[derive(Debug, PartialEq, Eq)]
pub struct Controller {
    /// The controller, as `admissionGuard.controllers` names it.
    pub key: &'static str,
    /// The user name its requests come under by default.
    pub user: &'static str,
    pub acts: Acts,
    pub makes: &'static Kind,
    /// The kind of its controller owner reference.
    pub owner: &'static Kind,
    pub naming: Naming,
    /// Where this was read.
    pub read_in: &'static str,
}

/// The controllers the guard trusts, in the order the policy lists them. Kubernetes' own run in
/// kube-controller-manager, by default (kubeadm's, `--use-service-account-credentials`) each
/// under its own service account in kube-system; a distribution that runs them all as
/// `system:kube-controller-manager` sets that name for each.
pub const CONTROLLERS: [Controller; 14] = [
    Controller {
        key: "deployment",
        user: "system:serviceaccount:kube-system:deployment-controller",
        acts: Acts::Makes,
        makes: &REPLICA_SET,
        owner: &DEPLOYMENT,
        naming: Naming::Hash,
        read_in: "kubernetes pkg/controller/deployment/sync.go (getNewReplicaSet)",
    },
    Controller {
        key: "replicaset",
        user: "system:serviceaccount:kube-system:replicaset-controller",
        acts: Acts::Makes,
        makes: &POD,
        owner: &REPLICA_SET,
        naming: Naming::Generated,
        read_in: "kubernetes pkg/controller/controller_utils.go (GetPodFromTemplate)",
    },
    Controller {
        key: "statefulset",
        user: "system:serviceaccount:kube-system:statefulset-controller",
        acts: Acts::Makes,
        makes: &POD,
        owner: &STATEFUL_SET,
        naming: Naming::Number,
        read_in: "kubernetes pkg/controller/statefulset/stateful_set_utils.go (getPodName)",
    },
    Controller {
        key: "daemonset",
        user: "system:serviceaccount:kube-system:daemon-set-controller",
        acts: Acts::Makes,
        makes: &POD,
        owner: &DAEMON_SET,
        naming: Naming::Generated,
        read_in: "kubernetes pkg/controller/daemon/daemon_controller.go (syncNodes)",
    },
    Controller {
        key: "job",
        user: "system:serviceaccount:kube-system:job-controller",
        acts: Acts::Makes,
        makes: &POD,
        owner: &JOB,
        naming: Naming::Generated,
        read_in: "kubernetes pkg/controller/job/job_controller.go (manageJob)",
    },
    Controller {
        key: "cronjob",
        user: "system:serviceaccount:kube-system:cronjob-controller",
        acts: Acts::Makes,
        makes: &JOB,
        owner: &CRON_JOB,
        naming: Naming::Number,
        read_in: "kubernetes pkg/controller/cronjob/utils.go (getJobFromTemplate2)",
    },
    Controller {
        key: "leaderworkerset",
        user: "system:serviceaccount:lws-system:lws-controller-manager",
        acts: Acts::Makes,
        makes: &STATEFUL_SET,
        owner: &LEADER_WORKER_SET,
        naming: Naming::Suffix { suffixes: &[""], longest: None },
        read_in: "sigs.k8s.io/lws pkg/controllers/leaderworkerset_controller.go \
                  (constructLeaderStatefulSetApplyConfiguration): the leaders' StatefulSet",
    },
    Controller {
        key: "leaderworkerset",
        user: "system:serviceaccount:lws-system:lws-controller-manager",
        acts: Acts::Makes,
        makes: &STATEFUL_SET,
        owner: &POD,
        naming: Naming::Suffix { suffixes: &[""], longest: None },
        read_in: "sigs.k8s.io/lws pkg/controllers/pod_controller.go \
                  (constructWorkerStatefulSetApplyConfiguration): a group's workers, named and owned \
                  by its leader pod",
    },
    Controller {
        key: "argo-rollouts",
        user: "system:serviceaccount:argo-rollouts:argo-rollouts",
        acts: Acts::Makes,
        makes: &REPLICA_SET,
        owner: &ROLLOUT,
        naming: Naming::Hash,
        read_in: "argoproj/argo-rollouts rollout/replicaset.go (getAllReplicaSetsAndSyncRevision)",
    },
    Controller {
        key: "argo-rollouts",
        user: "system:serviceaccount:argo-rollouts:argo-rollouts",
        acts: Acts::Relabels,
        makes: &POD,
        owner: &REPLICA_SET,
        naming: Naming::Generated,
        read_in: "argoproj/argo-rollouts rollout/ephemeralmetadata.go (syncEphemeralMetadata)",
    },
    Controller {
        key: "llmisvc",
        user: "system:serviceaccount:kserve:llmisvc-controller-manager",
        acts: Acts::Makes,
        makes: &DEPLOYMENT,
        owner: &LLM_INFERENCE_SERVICE,
        naming: Naming::Suffix { suffixes: &["-kserve", "-kserve-prefill"], longest: Some(63) },
        read_in: "kserve pkg/controller/v1alpha2/llmisvc/workload_single_node.go (expectedMainDeployment)",
    },
    Controller {
        key: "llmisvc",
        user: "system:serviceaccount:kserve:llmisvc-controller-manager",
        acts: Acts::Makes,
        makes: &LEADER_WORKER_SET,
        owner: &LLM_INFERENCE_SERVICE,
        naming: Naming::Suffix { suffixes: &["-kserve-mn", "-kserve-mn-prefill"], longest: Some(63) },
        read_in: "kserve pkg/controller/v1alpha2/llmisvc/workload_multi_node.go (expectedMainMultiNodeLWS)",
    },
    Controller {
        key: "kserve",
        user: "system:serviceaccount:kserve:kserve-controller-manager",
        acts: Acts::Makes,
        makes: &DEPLOYMENT,
        owner: &INFERENCE_SERVICE,
        naming: Naming::Suffix { suffixes: &["-predictor", "-transformer", "-explainer"], longest: None },
        read_in: "kserve pkg/constants/constants.go (PredictorServiceName): raw deployments",
    },
    Controller {
        key: "kserve",
        user: "system:serviceaccount:kserve:kserve-controller-manager",
        acts: Acts::Makes,
        makes: &DEPLOYMENT,
        owner: &INFERENCE_SERVICE,
        naming: Naming::Suffix { suffixes: &["-predictor-worker"], longest: None },
        read_in: "kserve pkg/constants/constants.go (PredictorWorkerServiceName): multi-node workers",
    },
];

/// The controllers' keys, each once, in table order.
pub fn keys() -> Vec<&'static str> {
    let mut keys: Vec<&str> = Vec::new();
    for c in &CONTROLLERS {
        if !keys.contains(&c.key) {
            keys.push(c.key);
        }
    }
    keys
}

/// The kind of an object of this `apiVersion` and kind, when the guard knows it.
pub fn kind_of(api_version: &str, kind: &str) -> Option<&'static Kind> {
    KINDS.into_iter().find(|k| k.is(api_version, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_tell_the_kinds_apart_and_every_owner_is_known() {
        for (i, a) in KINDS.iter().enumerate() {
            assert!(KINDS[i + 1..].iter().all(|b| a.kind != b.kind), "{} twice", a.kind);
        }
        for c in &CONTROLLERS {
            assert!(KINDS.contains(&c.makes) && KINDS.contains(&c.owner), "{}", c.read_in);
            // A controller's rows agree on its user name.
            assert!(CONTROLLERS.iter().filter(|d| d.key == c.key).all(|d| d.user == c.user), "{}", c.key);
            // What it makes the guard judges: it has pod templates.
            assert!(!c.makes.templates.is_empty(), "{}", c.key);
        }
        assert_eq!(
            keys(),
            [
                "deployment",
                "replicaset",
                "statefulset",
                "daemonset",
                "job",
                "cronjob",
                "leaderworkerset",
                "argo-rollouts",
                "llmisvc",
                "kserve"
            ]
        );
    }

    #[test]
    fn a_kind_is_told_by_its_group() {
        assert_eq!(kind_of("apps/v1", "Deployment"), Some(&DEPLOYMENT));
        assert_eq!(kind_of("v1", "Pod"), Some(&POD));
        assert_eq!(
            kind_of("serving.kserve.io/v1alpha2", "LLMInferenceService"),
            Some(&LLM_INFERENCE_SERVICE)
        );
        assert_eq!(kind_of("example.org/v1", "Deployment"), None);
        assert_eq!(kind_of("apps/v1", "Pod"), None);
    }
}
