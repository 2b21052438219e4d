//! What of BASE may still run where HEAD is applied: the objects HEAD drops, which an applier
//! may leave in place, and BASE's pods of the workloads HEAD changes, until they are replaced.
//! A HEAD that grants nothing without them is judged again with them (`mod.rs`, `compare`),
//! and a diff that grants then names each of them.

use super::changes::Diff;
use crate::io::explain::Dropped;
use crate::io::explain::report::UnjudgedReport;
use crate::io::render::Lingers;
use sha2::{Digest, Sha256};

/// `diff` (HEAD judged with `dropped` in place), each object of `dropped` a record of its own:
/// why it may stay, and what to do.
pub(super) fn noted(mut diff: Diff, dropped: &[Dropped]) -> Diff {
    for d in dropped {
        let digest = Sha256::digest(format!("{:?}", d.object).as_bytes());
        diff.unjudged.push(UnjudgedReport {
            at: d.at.clone(),
            file: None,
            object: Some(d.object.clone()),
            field: String::new(),
            message: match d.how {
                Lingers::Dropped => DROPPED,
                Lingers::Refused => REFUSED,
                Lingers::OldPods => OLD_PODS,
            }
            .to_string(),
            digest: crate::reconcile::rules::identity::hex(&digest),
            copy: false,
        });
    }
    diff
}

/// Why an object HEAD drops may stay, and what to do about it.
const DROPPED: &str = "BASE declares it and HEAD does not, and an applier may leave it in place: `kubectl apply` \
     deletes nothing without --prune, Argo CD prunes only when a sync is told to and never an object marked \
     argocd.argoproj.io/sync-options: Prune=false, kpt live apply keeps one marked \
     cli-utils.sigs.k8s.io/on-remove: keep. With it in place HEAD grants what this diff shows: delete it from \
     the cluster with the change, or keep it in HEAD and review the grant";

/// Why BASE's version of an object stays where HEAD's is refused.
const REFUSED: &str = "HEAD's version of it carries metadata the API server refuses on any update (a label \
     value, a name, an annotation key), so the cluster keeps BASE's. With it, HEAD grants what this diff shows: \
     mend HEAD's version, and review the grant";

/// Why a workload's pods as BASE declares them may run beside HEAD's objects.
const OLD_PODS: &str = "HEAD changes its pod templates, and its pods as BASE declares them run until they are \
     replaced: a rollout replaces them a few at a time, and an update the API server refuses (a selector, \
     kept as first written) keeps them. With them, HEAD's identities grant what this diff shows: review the \
     grant, or change the workload and the identities in two steps";
