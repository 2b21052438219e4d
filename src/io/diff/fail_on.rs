//! The exit status of `diff` and `--fail-on`: 2 when the sides differ in what the flag asks
//! about, 0 otherwise.

use super::changes::Diff;

/// When the diff exits 2: `--fail-on`'s values, lowercased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Any change of identities or reach.
    Change,
    /// Only a change that grants: a workload gains an SVID or may gain one (a gate does not
    /// pass what may grant access), an identity is added or widened.
    Grant,
}

/// The exit status when the sides differ (as `terraform plan -detailed-exitcode`).
pub const DIFFERS: i32 = 2;

/// The exit status of a diff under `--fail-on`. Findings alone never make it differ.
pub(super) fn exit_code(diff: &Diff, fail_on: FailOn) -> i32 {
    let differs = match fail_on {
        FailOn::Change => {
            diff.manager.is_some()
                || !diff.identities.is_empty()
                || !diff.workloads.is_empty()
                || !diff.spire_objects.is_empty()
                || !diff.unjudged.is_empty()
                || diff.guard.is_some()
        }
        FailOn::Grant => diff.grants(),
    };
    if differs { DIFFERS } else { 0 }
}
