//! The admission guard compared (the report's `admissionGuard` and each binding's
//! `guardAdmits`): written or not, what its bindings do, where its parameters are, the user
//! names it trusts, and the objects it admits per identity. What lets more pods hold an
//! identity in the cluster weakens it, and a weakened guard grants as a widened identity does.

use crate::io::explain::Report;
use crate::io::explain::report::{BindingReport, GuardReport, WorkloadRef};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How the guard changed: `added`, `removed` or `changed`, and what of it weakens.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct GuardChange {
    pub change: &'static str,
    /// What lets more pods hold an identity than BASE's guard did.
    pub weakens: Vec<String>,
    /// What else changed.
    pub other: Vec<String>,
}

impl GuardChange {
    pub(super) fn grants(&self) -> bool {
        !self.weakens.is_empty()
    }
}

/// The objects each identity's guard admits, by binding.
fn admits(report: &Report) -> BTreeMap<String, BTreeSet<String>> {
    let name = |w: &WorkloadRef| match &w.namespace {
        Some(ns) => format!("{} {ns}/{}", w.kind, w.name),
        None => format!("{} {}", w.kind, w.name),
    };
    report
        .bindings
        .iter()
        .filter_map(|b| Some((key_of(b), b.guard_admits.as_ref()?.iter().map(name).collect())))
        .collect()
}

/// A binding's name in the guard's words: `namespace/name`.
fn key_of(b: &BindingReport) -> String {
    match &b.namespace {
        Some(ns) => format!("{ns}/{}", b.name),
        None => b.name.clone(),
    }
}

/// The bindings of `report` that render an identity, by [`key_of`].
fn rendered(report: &Report) -> BTreeMap<String, &BindingReport> {
    report.bindings.iter().filter(|b| b.spiffe_id.is_some()).map(|b| (key_of(b), b)).collect()
}

/// The labels a binding's identity requires as `now` renders it that it did not as `was`
/// does: the guard's entry for it asks for them, while the cluster may hold the identity as
/// `was` selects.
fn required_more(was: &BindingReport, now: &BindingReport) -> Option<String> {
    let labels =
        |b: &BindingReport| b.pod_selector.as_ref().map(|s| s.match_labels.clone()).unwrap_or_default();
    let (was, now) = (labels(was), labels(now));
    let more: Vec<_> =
        now.iter().filter(|(k, v)| was.get(*k) != Some(*v)).map(|(k, v)| format!("{k}={v}")).collect();
    (!more.is_empty()).then(|| more.join(", "))
}

/// The ConfigMaps of the guard's parameters that hold a binding's identity's entry as `was`
/// and `now` render it, where they differ (a namespace's parameters cut otherwise).
fn moved(was: &BindingReport, now: &BindingReport) -> Option<(String, String)> {
    let (from, to) = (was.guard_parameters.clone()?, now.guard_parameters.clone()?);
    (from != to).then_some((from, to))
}

/// The bindings of `report`, each with the first label its identity requires that a controller
/// puts on its pods (a StatefulSet's `apps.kubernetes.io/pod-index`, a Job's completion
/// index): the guard judges a workload by its template's labels, which may lack it, while
/// its pods carry it (kubernetes `pkg/controller/statefulset/stateful_set_utils.go`,
/// `updateIdentity`).
fn unpinned(report: &Report) -> BTreeSet<(String, String)> {
    use crate::reconcile::cluster::controllers::sets_label;
    report
        .bindings
        .iter()
        .filter_map(|b| {
            let key = b.pod_selector.as_ref()?.match_labels.keys().find(|k| sets_label(k))?;
            Some((key_of(b), key.clone()))
        })
        .collect()
}

/// The guard's change from `before` to `after`, if any.
pub(super) fn compare(before: &Report, after: &Report) -> Option<GuardChange> {
    let (b, a) = (before.admission_guard.as_ref(), after.admission_guard.as_ref());
    let (change, mut weakens, mut other) = match (b, a) {
        (None, None) => return None,
        (None, Some(a)) => ("added", Vec::new(), vec![format!("HEAD writes the admission guard {}", a.name)]),
        (Some(b), None) => (
            "removed",
            vec![format!(
                "HEAD writes no admission guard: {} goes, and a pod that carries an identity's labels holds \
                 it whatever made it",
                b.name
            )],
            Vec::new(),
        ),
        (Some(b), Some(a)) => {
            let (weakens, other) = settings(b, a);
            ("changed", weakens, other)
        }
    };
    if let (Some(_), Some(_)) = (b, a) {
        let held = unpinned(before);
        for (identity, key) in unpinned(after).into_iter().filter(|u| !held.contains(u)) {
            weakens.push(format!(
                "{identity}: its identity requires {key}, a label a controller puts on the pods it makes \
                 whatever their template says: the guard judges a workload by its template, so it admits one \
                 whose template lacks the label, and that workload's pods hold the identity"
            ));
        }
        let (was, is) = (admits(before), admits(after));
        let (rendered, renders) = (rendered(before), rendered(after));
        for (binding, objects) in &is {
            let old = was.get(binding);
            for o in objects.iter().filter(|o| !old.is_some_and(|old| old.contains(*o))) {
                weakens.push(format!("{binding}: admits {o}"));
            }
        }
        for (binding, objects) in &was {
            let (then, now) = (rendered.get(binding), renders.get(binding));
            if then.is_some() && now.is_none() {
                weakens.push(if is.contains_key(binding) {
                    format!(
                        "{binding}: renders no identity in HEAD, so HEAD's guard parameters lose its entry, but the \
                         cluster may keep the identity: an applier may leave what it renders from in place (a pool \
                         or objective HEAD drops: kubectl apply deletes nothing without --prune, Argo CD keeps an \
                         object marked Prune=false), refuse HEAD's version of the binding (a field its schema \
                         lacks, under strict field validation), or keep its ClusterSPIFFEID as committed, and \
                         HEAD's parameters admit any pod that carries its labels: make the binding render, or \
                         delete it and its ClusterSPIFFEID from the cluster with the change"
                    )
                } else {
                    format!(
                        "{binding}: HEAD drops this binding and with it the guard's entry for its identity, but \
                         an applier may leave the binding in place (kubectl apply deletes nothing without \
                         --prune; Argo CD keeps an object marked Prune=false while it prunes the rest), and its \
                         identity then stands with no entry in HEAD's parameters, which admit any pod that \
                         carries its labels: delete the binding from the cluster with the change"
                    )
                });
            }
            let both = then.zip(now);
            if let Some(labels) = both.and_then(|(was, now)| required_more(was, now)) {
                weakens.push(format!(
                    "{binding}: the guard's entry for its identity now requires {labels}, which BASE's did not, but \
                     the cluster's identity may still select as BASE's does (its pool's update refused, or applied \
                     after the guard's parameters, one object at a time), and the guard admits a pod without them \
                     that the identity is given: review it, and apply the pool's change before the guard's"
                ));
            }
            if let Some((from, to)) = both.and_then(|(was, now)| moved(was, now)) {
                weakens.push(format!(
                    "{binding}: its identity's entry moves from the guard's parameters {from} to {to}, and an \
                     applier that prunes first (Argo CD, by default) or applies them side by side leaves a moment \
                     when neither holds it, when a pod with its labels is admitted and keeps its SVID: review it"
                ));
            }
            let Some(new) = is.get(binding) else { continue };
            for o in objects.iter().filter(|o| !new.contains(*o)) {
                other.push(format!("{binding}: no longer admits {o}"));
            }
        }
    }
    (change != "changed" || !weakens.is_empty() || !other.is_empty()).then_some(GuardChange {
        change,
        weakens,
        other,
    })
}

/// What changed in the guard's own settings: what weakens it, and the rest.
fn settings(b: &GuardReport, a: &GuardReport) -> (Vec<String>, Vec<String>) {
    let (mut weakens, mut other) = (Vec::new(), Vec::new());
    if b.action != a.action {
        let line = format!("action {} -> {}", b.action, a.action);
        if a.action == "Deny" { other.push(line) } else { weakens.push(line) }
    }
    if b.name != a.name {
        other.push(format!("policy {} -> {}", b.name, a.name));
    }
    if b.param_namespace != a.param_namespace {
        // Whoever may write ConfigMaps there decides what the guard admits.
        weakens.push(format!("parameters in namespace {} -> {}", b.param_namespace, a.param_namespace));
    }
    if b.committed && !a.committed {
        // Applied as committed with prune (an Argo CD directory application, kpt live apply),
        // a folder without the guard's files removes it, whatever a render would write.
        weakens.push(
            "HEAD commits none of the guard's files, which BASE commits: applied as committed with prune, \
             the guard goes"
                .to_string(),
        );
    }
    for (controller, user) in &a.controllers {
        if b.controllers.get(controller) != Some(user) {
            weakens.push(format!("trusts {controller} as {user}"));
        }
    }
    (weakens, other)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{binding, report};
    use super::*;
    use serde_json::json;

    fn with_guard(action: &str, admits: &[&str]) -> Report {
        let mut b = binding("a", &[]);
        b["guardAdmits"] =
            json!(admits
            .iter()
            .map(|n| json!({"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ns", "name": n}))
            .collect::<Vec<_>>());
        let mut r = serde_json::to_value(report(json!([b]), json!([]))).unwrap();
        r["admissionGuard"] = json!({
            "name": "g", "action": action, "paramNamespace": "kleym-system",
            "controllers": {"deployment": "system:serviceaccount:kube-system:deployment-controller"},
        });
        Report::read(&r.to_string()).unwrap()
    }

    #[test]
    fn what_lets_more_pods_hold_an_identity_weakens_the_guard() {
        let base = with_guard("Deny", &["web"]);
        assert_eq!(compare(&base, &with_guard("Deny", &["web"])), None);
        let warn = compare(&base, &with_guard("Warn", &["web"])).unwrap();
        assert_eq!(
            (warn.change, warn.weakens.as_slice()),
            ("changed", &["action Deny -> Warn".to_string()][..])
        );
        let more = compare(&base, &with_guard("Deny", &["web", "batch"])).unwrap();
        assert_eq!(more.weakens, ["ns/a: admits Deployment ns/batch"]);
        let fewer = compare(&with_guard("Deny", &["web", "batch"]), &base).unwrap();
        assert!(fewer.weakens.is_empty() && !fewer.grants());
        assert_eq!(fewer.other, ["ns/a: no longer admits Deployment ns/batch"]);
        let none = report(json!([binding("a", &[])]), json!([]));
        let removed = compare(&base, &none).unwrap();
        assert!(removed.change == "removed" && removed.grants());
        let added = compare(&none, &base).unwrap();
        assert!(added.change == "added" && !added.grants());
    }

    #[test]
    fn a_binding_dropped_or_no_longer_rendering_while_the_guard_stays_weakens_it() {
        let base = with_guard("Deny", &["web"]);
        let mut dropped = with_guard("Deny", &[]);
        dropped.bindings.clear();
        let change = compare(&base, &dropped).unwrap();
        assert!(
            change.grants() && change.weakens[0].starts_with("ns/a: HEAD drops this binding"),
            "{change:?}"
        );
        let mut failing = with_guard("Deny", &["web"]);
        failing.bindings[0].spiffe_id = None;
        assert!(
            !compare(&failing, &dropped).is_some_and(|c| c.grants()),
            "a binding that rendered nothing leaves no identity"
        );
        let mut unrendered = with_guard("Deny", &[]);
        unrendered.bindings[0].spiffe_id = None;
        let change = compare(&base, &unrendered).unwrap();
        assert!(
            change.grants() && change.weakens[0].starts_with("ns/a: renders no identity in HEAD"),
            "{change:?}"
        );
        let none = report(json!([]), json!([]));
        assert_eq!(compare(&base, &none).unwrap().change, "removed");
    }

    #[test]
    fn an_identity_whose_entry_moves_to_other_parameters_weakens_the_guard() {
        let placed = |name: &str| {
            let mut r = with_guard("Deny", &["web"]);
            r.bindings[0].guard_parameters = Some(name.into());
            r
        };
        let change = compare(&placed("g-ns.2"), &placed("g-ns")).unwrap();
        assert!(
            change.grants() && change.weakens[0].contains("moves from the guard's parameters g-ns.2 to g-ns")
        );
        assert_eq!(compare(&placed("g-ns"), &placed("g-ns")), None);
        assert_eq!(
            compare(&with_guard("Deny", &["web"]), &placed("g-ns")),
            None,
            "a saved report without it"
        );
    }

    #[test]
    fn an_identity_whose_entry_requires_more_labels_weakens_the_guard() {
        let selecting = |labels: &[(&str, &str)]| {
            let mut r = with_guard("Deny", &["web"]);
            r.bindings[0].pod_selector.as_mut().unwrap().match_labels =
                labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            r
        };
        let base = selecting(&[("app", "a")]);
        let narrowed = compare(&base, &selecting(&[("app", "a"), ("tier", "gpu")])).unwrap();
        assert!(narrowed.grants() && narrowed.weakens[0].contains("now requires tier=gpu,"), "{narrowed:?}");
        let moved = compare(&base, &selecting(&[("app", "b")])).unwrap();
        assert!(moved.weakens[0].contains("now requires app=b,"), "{moved:?}");
        assert_eq!(compare(&selecting(&[("app", "a"), ("tier", "gpu")]), &base), None, "a wider entry");
        let mut unrendered = selecting(&[("app", "a")]);
        unrendered.bindings[0].spiffe_id = None;
        assert!(
            !compare(&unrendered, &selecting(&[("app", "a"), ("tier", "gpu")])).is_some_and(|c| c.grants()),
            "BASE gave no identity to keep"
        );
    }

    #[test]
    fn a_guard_no_longer_committed_is_weakened() {
        let committed = |on: bool| {
            let mut r = with_guard("Deny", &["web"]);
            r.admission_guard.as_mut().unwrap().committed = on;
            r
        };
        let gone = compare(&committed(true), &committed(false)).unwrap();
        assert!(gone.grants() && gone.weakens[0].contains("commits none of the guard's files"), "{gone:?}");
        assert_eq!(compare(&committed(false), &committed(true)), None);
        assert_eq!(compare(&committed(true), &committed(true)), None);
    }

    #[test]
    fn an_identity_requiring_a_label_its_controller_sets_weakens_the_guard() {
        let requiring = |key: &str| {
            let mut r = with_guard("Deny", &["web"]);
            r.bindings[0].pod_selector.as_mut().unwrap().match_labels.insert(key.into(), "0".into());
            r
        };
        let base = with_guard("Deny", &["web"]);
        let index = compare(&base, &requiring("apps.kubernetes.io/pod-index")).unwrap();
        assert!(index.grants() && index.weakens[0].contains("apps.kubernetes.io/pod-index"), "{index:?}");
        let same = requiring("apps.kubernetes.io/pod-index");
        assert_eq!(compare(&same, &requiring("apps.kubernetes.io/pod-index")), None, "BASE's already did");
        let tier = compare(&base, &requiring("tier")).unwrap();
        assert!(
            !tier.weakens.iter().any(|w| w.contains("a controller puts")),
            "a label templates carry: {tier:?}"
        );
    }
}
