//! How the text and the markdown of a diff word it: the summary line, an identity's change
//! as short phrases, a workload's and a finding's line.

use super::changes::Diff;
use super::identities::{Identity, IdentityChange};
use super::reach::WorkloadChange;
use super::spire_objects::SpireObjectChange;
use crate::io::explain::{FindingReport, LabelSelector};
use crate::io::wording;

pub(super) fn qualified(namespace: &Option<String>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

/// The objects of a SPIRE object's entry (trust domain) the manager may apply it in place
/// of, as ` in place of a, b`; empty when there are none.
pub(super) fn in_place_of(c: &SpireObjectChange) -> String {
    if c.in_place_of.is_empty() {
        String::new()
    } else {
        format!(" in place of {}", c.in_place_of.join(", "))
    }
}

pub(super) fn workload_name(w: &WorkloadChange) -> String {
    let name = qualified(&w.namespace, &w.name);
    match &w.path {
        // A role in place of a path, as KServe's derived templates have: `(decode)`.
        Some(role) if role.starts_with('(') => format!("{} {name} {role}", w.kind),
        Some(path) => format!("{} {name} ({path})", w.kind),
        None => format!("{} {name}", w.kind),
    }
}

fn verdict(i: &Identity) -> String {
    if i.ready { "Ready".to_string() } else { format!("not ready: {}", i.reason) }
}

/// A selector's labels as `k=v, k=v`; `none` when there is none.
fn labels(selector: Option<&LabelSelector>, none: &str) -> String {
    match selector {
        None => none.to_string(),
        Some(s) if s.match_labels.is_empty() => none.to_string(),
        Some(s) => s.match_labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "),
    }
}

/// What changed in an identity, as short phrases.
fn what_changed(b: &Identity, a: &Identity) -> Vec<String> {
    let mut out = Vec::new();
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".to_string());
    if b.ready != a.ready || b.reason != a.reason {
        out.push(format!("{} -> {}", verdict(b), verdict(a)));
    }
    if b.spiffe_id != a.spiffe_id {
        out.push(format!("SPIFFE ID {} -> {}", show(&b.spiffe_id), show(&a.spiffe_id)));
    }
    if b.cluster_spiffe_id != a.cluster_spiffe_id {
        out.push(format!("ClusterSPIFFEID {} -> {}", show(&b.cluster_spiffe_id), show(&a.cluster_spiffe_id)));
    }
    if b.class_name != a.class_name {
        out.push(format!("className {} -> {}", show(&b.class_name), show(&a.class_name)));
    }
    if b.class_label != a.class_label {
        out.push(format!("class label {} -> {}", show(&b.class_label), show(&a.class_label)));
    }
    // Only between two renders: a failing side has no object, which the verdict says.
    if a.spiffe_id.is_some() && b.spiffe_id.is_some() {
        if b.pod_selector != a.pod_selector {
            let (was, is) = (b.pod_selector.as_ref(), a.pod_selector.as_ref());
            out.push(format!("podSelector {} -> {}", labels(was, "all pods"), labels(is, "all pods")));
        }
        if b.namespace_selector != a.namespace_selector {
            let (was, is) = (b.namespace_selector.as_ref(), a.namespace_selector.as_ref());
            out.push(format!(
                "namespaceSelector {} -> {}",
                labels(was, "all namespaces"),
                labels(is, "all namespaces")
            ));
        }
        for s in a.selectors.iter().filter(|s| !b.selectors.contains(s)) {
            out.push(format!("selector +{s}"));
        }
        for s in b.selectors.iter().filter(|s| !a.selectors.contains(s)) {
            out.push(format!("selector -{s}"));
        }
    }
    out
}

pub(super) fn identity_line(c: &IdentityChange) -> String {
    match (&c.before, &c.after) {
        (None, Some(a)) | (Some(a), None) => {
            format!("{}, {}", a.spiffe_id.as_deref().unwrap_or("no identity"), verdict(a))
        }
        (Some(b), Some(a)) => what_changed(b, a).join("; "),
        (None, None) => String::new(),
    }
}

pub(super) fn finding_line(f: &FindingReport) -> String {
    format!("{} {}: {}", severity(f), f.reason, f.message)
}

/// A finding's severity as a word.
pub(super) fn severity(f: &FindingReport) -> &'static str {
    wording::severity(f.severity.into())
}

pub(super) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A record of what the build cannot judge: `<file or item>, <field>: <why>`.
pub(super) fn unjudged_line(u: &crate::io::explain::report::UnjudgedReport) -> String {
    format!("{}: {}", u.words(), u.message)
}

/// A power an SVID's entries gain: `<SPIFFE ID>: admin, federatesWith partner.org`.
pub(super) fn power_line(p: &super::reach::PowerGain) -> String {
    format!("{}: {}", p.spiffe_id, p.gains.join(", "))
}

/// What HEAD changes that a `may gain` (or a power only the cluster settles) hangs on, and
/// what to do: `pod template spec.template, in its workload's spec as written: 1a2b3c4d5e6f changed: ...`.
pub(super) fn hangs_on_line(fact: &str) -> String {
    format!(
        "{fact} changed, and what only the cluster settles of the SVID reads it: review what the pods now get, \
         or settle it in the manifests"
    )
}

/// One line: what changed, or that nothing did.
pub(super) fn summary(diff: &Diff) -> String {
    let by = |change: &str| diff.identities.iter().filter(|c| c.change == change).count();
    let mut parts = Vec::new();
    if diff.manager.is_some() {
        parts.push(
            "HEAD describes another SPIRE Controller Manager or trust domain (judged by BASE's)".to_string(),
        );
    }
    for change in ["added", "removed", "changed"] {
        let n = by(change);
        if n > 0 {
            parts.push(format!("{} {change}", count(n, "identity", "identities")));
        }
    }
    for change in ["added", "removed", "changed", "promoted"] {
        let n = diff.spire_objects.iter().filter(|c| c.change == change).count();
        if n > 0 {
            parts.push(format!("{} {change}", count(n, "SPIRE object", "SPIRE objects")));
        }
    }
    let gains = diff.workloads.iter().filter(|w| !w.gains.is_empty()).count();
    let loses = diff.workloads.iter().filter(|w| !w.loses.is_empty()).count();
    if gains > 0 {
        parts.push(format!("{} SVIDs", count(gains, "workload gains", "workloads gain")));
    }
    if loses > 0 {
        parts.push(format!("{} SVIDs", count(loses, "workload loses", "workloads lose")));
    }
    let powers = diff.workloads.iter().filter(|w| !w.gains_powers.is_empty()).count();
    if powers > 0 {
        parts.push(format!("{} power over SVIDs", count(powers, "workload gains", "workloads gain")));
    }
    let may_gain = diff.workloads.iter().filter(|w| !w.may_gain.is_empty()).count();
    let may_lose = diff.workloads.iter().filter(|w| !w.may_lose.is_empty()).count();
    if may_gain > 0 {
        parts.push(format!("{} may gain SVIDs", count(may_gain, "workload", "workloads")));
    }
    if may_lose > 0 {
        parts.push(format!("{} may lose SVIDs", count(may_lose, "workload", "workloads")));
    }
    if !diff.unjudged.is_empty() {
        parts.push(format!(
            "{} the build cannot judge (may gain)",
            count(diff.unjudged.len(), "change", "changes")
        ));
    }
    if let Some(g) = &diff.guard {
        let weakened = if g.grants() { ", weakened" } else { "" };
        parts.push(format!("admission guard {}{weakened}", g.change));
    }
    let (new, resolved) = (diff.findings.new.len(), diff.findings.resolved.len());
    if new > 0 {
        parts.push(count(new, "new finding", "new findings"));
    }
    if resolved > 0 {
        parts.push(count(resolved, "finding resolved", "findings resolved"));
    }
    if parts.is_empty() { "no identity, reach or finding changes".to_string() } else { parts.join(", ") }
}

#[cfg(test)]
mod tests {
    use super::super::changes::compare;
    use super::super::testing::{binding, report};
    use super::identity_line;
    use serde_json::json;

    /// The line of the one identity change from a binding `before` to `after`.
    fn line(before: serde_json::Value, after: serde_json::Value) -> String {
        let diff = compare(&report(json!([before]), json!([])), &report(json!([after]), json!([])));
        assert_eq!(diff.identities.len(), 1);
        identity_line(&diff.identities[0])
    }

    #[test]
    fn a_failure_of_another_reason_is_said() {
        let failing = |reason: &str| {
            let mut b = binding("a", &[]);
            for (field, value) in [("ready", json!(false)), ("reason", json!(reason))] {
                b[field] = value;
            }
            for field in ["spiffeID", "clusterSPIFFEID", "podSelector"] {
                b[field] = json!(null);
            }
            b
        };
        assert_eq!(
            line(failing("TargetPoolNotFound"), failing("VariantConflict")),
            "not ready: TargetPoolNotFound -> not ready: VariantConflict"
        );
    }

    #[test]
    fn a_selector_without_labels_is_said_to_select_all() {
        let mut all = binding("a", &[]);
        all["podSelector"] = json!({"matchLabels": {}});
        all["namespaceSelector"] = json!({"matchLabels": {}});
        let mut scoped = binding("a", &[]);
        scoped["namespaceSelector"] = json!({"matchLabels": {"team": "x"}});
        assert_eq!(
            line(scoped, all),
            "podSelector app=a -> all pods; namespaceSelector team=x -> all namespaces"
        );
    }
}
