//! What a diff found: the changes from BASE's report to HEAD's, gathered from each
//! comparison (`identities.rs`, `spire_objects.rs`, `reach.rs`, `findings.rs`), and whether
//! they grant. Every output format reads this one value.

use super::findings::{self, FindingChanges};
use super::guard::{self, GuardChange};
use super::identities::{self, IdentityChange};
use super::manager::ManagerChange;
use super::reach::{self, WorkloadChange};
use super::spire_objects::{self, SpireObjectChange};
use super::unjudged;
use crate::io::explain::Report;
use crate::io::explain::report::UnjudgedReport;
use serde::Serialize;

/// What a diff found.
#[derive(Serialize, Debug, Default)]
pub struct Diff {
    /// The SPIRE Controller Manager HEAD's config describes, when it is not BASE's: HEAD is
    /// judged by BASE's all the same.
    pub manager: Option<ManagerChange>,
    pub identities: Vec<IdentityChange>,
    /// SPIRE Controller Manager's other objects: static entries, federated trust domains.
    #[serde(rename = "spireObjects")]
    pub spire_objects: Vec<SpireObjectChange>,
    pub workloads: Vec<WorkloadChange>,
    /// What the build cannot judge exactly, new or changed in HEAD: each a possible grant.
    pub unjudged: Vec<UnjudgedReport>,
    pub findings: FindingChanges,
    /// The admission guard, when it changed.
    #[serde(rename = "admissionGuard", skip_serializing_if = "Option::is_none")]
    pub guard: Option<GuardChange>,
}

/// The changes from `before` to `after`.
pub(super) fn compare(before: &Report, after: &Report) -> Diff {
    Diff {
        manager: None,
        identities: identities::compare(before, after),
        spire_objects: spire_objects::compare(before, after),
        workloads: reach::compare(before, after),
        unjudged: unjudged::compare(before, after),
        findings: findings::compare(before, after),
        guard: guard::compare(before, after),
    }
}

impl Diff {
    /// Whether the change grants: a workload gains an SVID or may gain one, or power over
    /// one; an identity is added or widened; a static entry or federation is added or grants
    /// more; something the build cannot judge is added or changed; the admission guard is
    /// weakened.
    pub fn grants(&self) -> bool {
        self.manager.is_some()
            || !self.unjudged.is_empty()
            || self.workloads.iter().any(WorkloadChange::grants)
            || self.identities.iter().any(IdentityChange::grants)
            || self.spire_objects.iter().any(SpireObjectChange::grants)
            || self.guard.as_ref().is_some_and(GuardChange::grants)
    }
}
