//! What may stand while HEAD is applied (`crate::reconcile::unjudged::Mix`): the objects of
//! BASE HEAD drops, which an applier may keep or prune first, BASE's version of what HEAD
//! changes beside HEAD's identities, HEAD's beside BASE's objects. A HEAD that grants nothing alone is
//! judged again with each (`mod.rs`, `compare`), and a diff that grants then names each object
//! the judgement took in or out.

use super::changes::Diff;
use crate::io::explain::Dropped;
use crate::io::explain::report::UnjudgedReport;
use crate::reconcile::unjudged::Lingers;
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
                Lingers::Old => OLD,
                Lingers::New => NEW,
                Lingers::Pruned => PRUNED,
                Lingers::Narrowed => NARROWED,
                Lingers::Later => LATER,
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

/// Why BASE's version of an object HEAD changes may stand beside HEAD's identities.
const OLD: &str = "HEAD changes it, and BASE's version of it may stand beside HEAD's identities: a workload's \
     pods as BASE declares them run until a rollout replaces them, a few at a time, or for good where the API \
     server refuses the update (a selector, kept as first written); and an applier applies one object at a time, \
     in an order a pull request can set (the order of the files for kubectl apply -R, sync waves for Argo CD, \
     config.kubernetes.io/depends-on for kpt live apply). With it, HEAD's identities grant what this diff \
     shows: review the grant, or change it and the identities in two pull requests";

/// Why HEAD's version of an object may stand beside BASE's other objects.
const NEW: &str = "HEAD adds or changes it, and it may stand beside BASE's version of the rest before that is \
     applied: an applier applies one object at a time, in an order a pull request can set (the order of the files \
     for kubectl apply -R, sync waves for Argo CD, config.kubernetes.io/depends-on for kpt live apply, each waiting \
     for the pods), and the operator reads a binding's pool as it stands. With BASE's, it grants what this diff \
     shows: split the pull request so that no state on the way grants (the identities first, then the rest; a \
     pool apart from the bindings that read it), or review the grant";

/// Why BASE without an object HEAD drops may stand.
const PRUNED: &str = "BASE declares it and HEAD does not, and an applier may delete it before it applies HEAD: \
     Argo CD prunes an object first in its sync wave (the wave it carries in the cluster) unless it is marked \
     argocd.argoproj.io/sync-options: PruneLast=true. Without it, BASE's identities grant what this diff shows \
     (another declaration of an entry is applied in its place, say): delete it in a pull request of its own \
     after the rest, or review the grant";

/// Why a ClusterSPIFFEID HEAD changes is judged selecting what both its versions select.
const NARROWED: &str = "HEAD changes which pods it selects or keeps from a fallback, and beside another identity HEAD changes, either \
     side's version of each may stand while the pull request is applied (an applier applies one object at a \
     time, in an order a pull request can set), so a pod may pass through a moment where none selects it, and \
     SPIRE Controller Manager then gives it a fallback identity's entry. Judged selecting only the pods both its \
     versions select, HEAD grants what this diff shows: change such identities in separate pull requests, or \
     keep a fallback identity from holding more than the identities it stands in for";

/// Why HEAD without an identity it adds may stand.
const LATER: &str = "HEAD adds it, and an applier may apply it after the rest (in an order a pull request can \
     set: the order of the files for kubectl apply -R, sync waves for Argo CD, config.kubernetes.io/depends-on \
     for kpt live apply): until then the pods it would give an entry to have none from it, and SPIRE Controller \
     Manager gives them a fallback identity's entry. Without it, HEAD grants what this diff shows: add it in a \
     pull request of its own first, or keep a fallback identity from holding more than the identities it stands \
     in for";
