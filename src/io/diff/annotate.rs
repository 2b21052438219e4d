//! `diff -o sarif` and `-o github`: of HEAD's manifests, the bindings that fail in HEAD and
//! did not in BASE, then the new findings, as the annotations `explain` shows
//! ([`crate::io::explain::annotations`]).

use super::{Diff, findings};
use crate::config::FailurePolicy;
use crate::io::explain::Report;
use crate::io::explain::annotations::{self, Annotation};
use std::collections::BTreeSet;

/// The annotations of a diff, of HEAD's report of manifests read now.
pub(super) fn annotations(diff: &Diff, head: &Report, failure_policy: FailurePolicy) -> Vec<Annotation> {
    let new: BTreeSet<String> = diff.findings.new.iter().map(findings::key).collect();
    let fresh: Vec<_> = head.findings.iter().filter(|f| new.contains(&findings::key(f))).collect();
    let newly_failing: Vec<_> = head
        .bindings
        .iter()
        .filter(|b| {
            diff.identities.iter().any(|c| {
                c.namespace == b.namespace
                    && c.name == b.name
                    && c.after.as_ref().is_some_and(|a| !a.ready)
                    && c.before.as_ref().is_none_or(|b| b.ready)
            })
        })
        .collect();
    let mut found = annotations::failing(&newly_failing, failure_policy);
    found.extend(annotations::findings(&fresh));
    found
}
