//! `diff -o sarif` and `-o github`: of HEAD's manifests, the bindings that fail in HEAD and
//! did not in BASE, then the new findings, as the annotations `explain` shows
//! ([`crate::io::explain::annotations`]), then what grants: each workload that gains an SVID,
//! may gain one or gains power, each SPIRE object that grants, and each thing the build
//! cannot judge that HEAD adds or changes, at its line in HEAD.

use super::changes::Diff;
use super::reach::WorkloadChange;
use super::spire_objects::SpireObjectChange;
use super::{findings, words};
use crate::api::cluster_spiffe_id::STATIC_ENTRY_KIND;
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
    found.extend(diff.workloads.iter().filter(|w| w.grants()).map(|w| workload_grant(w, head)));
    found.extend(diff.spire_objects.iter().filter(|o| o.grants()).map(|o| object_grant(o, head)));
    found.extend(diff.unjudged.iter().map(|u| {
        let at = head.unjudged.iter().find(|h| h.key() == u.key()).and_then(|h| h.at.clone());
        let message = format!("may gain: {}", words::unjudged_line(u));
        annotations::grant(annotations::UNJUDGED, message, at, &[&u.words()])
    }));
    found
}

fn workload_grant(w: &WorkloadChange, head: &Report) -> Annotation {
    let at = head.workloads.iter().find(|h| {
        (&h.api_version, &h.kind, &h.namespace, &h.name, &h.path)
            == (&w.api_version, &w.kind, &w.namespace, &w.name, &w.path)
    });
    let mut parts = Vec::new();
    if !w.gains.is_empty() {
        parts.push(format!("gains {}", w.gains.join(", ")));
    }
    if !w.may_gain.is_empty() {
        parts.push(format!("may gain {}", w.may_gain.join(", ")));
    }
    parts.extend(w.gains_powers.iter().map(|p| format!("gains power over {}", words::power_line(p))));
    parts.extend(w.hangs_on.iter().map(|fact| format!("because {}", words::hangs_on_line(fact))));
    let message = format!("{}: {}", words::workload_name(w), parts.join("; "));
    let namespace = w.namespace.as_deref().unwrap_or_default();
    let identity =
        [w.api_version.as_str(), &w.kind, namespace, &w.name, w.path.as_deref().unwrap_or_default()];
    annotations::grant(annotations::WORKLOAD_GAINS, message, at.and_then(|h| h.at.clone()), &identity)
}

fn object_grant(o: &SpireObjectChange, head: &Report) -> Annotation {
    let at = if o.kind == STATIC_ENTRY_KIND {
        head.static_entries.iter().find(|e| e.name == o.name).and_then(|e| e.at.clone())
    } else {
        head.federated_trust_domains.iter().find(|f| f.name == o.name).and_then(|f| f.at.clone())
    };
    let message =
        format!("{} {} {}{}: {}", o.kind, o.name, o.change, words::in_place_of(o), o.grants.join("; "));
    annotations::grant(annotations::SPIRE_OBJECT_GRANTS, message, at, &[o.kind, &o.name])
}
