//! Identities compared per binding (by namespace and name): added, removed or changed in
//! what a diff compares of one, and whether the change grants, reaching pods the binding
//! did not give its identity to.

use crate::io::explain::{LabelSelector, Report};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Serialize, Debug)]
pub struct IdentityChange {
    pub change: &'static str,
    pub namespace: Option<String>,
    pub name: String,
    pub before: Option<Identity>,
    pub after: Option<Identity>,
}

/// What a diff compares of a binding.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: Option<String>,
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: Option<String>,
    pub class_name: Option<String>,
    /// Its `spire.spiffe.io/class-name` label, which a manager with `filterByClassName` reads
    /// it by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_label: Option<String>,
    /// What its ClusterSPIFFEID makes entries for (its scope): pods, and namespaces (null:
    /// all of them).
    pub pod_selector: Option<LabelSelector>,
    pub namespace_selector: Option<LabelSelector>,
    pub selectors: Vec<String>,
    pub ready: bool,
    pub reason: String,
}

impl Identity {
    /// Whether this identity reaches pods `before` did not give it to: it is new, renders
    /// where it did not, names another SPIFFE ID or class, gains a class label or another one
    /// (a manager filtering by it starts reading it), drops a selector (fewer selectors
    /// match more pods), or selects pods or namespaces it did not (a `selectorScope` of
    /// `Binding` made `Pool`).
    fn widens(&self, before: Option<&Identity>) -> bool {
        let Some(id) = &self.spiffe_id else { return false };
        let Some(before) = before.filter(|b| b.spiffe_id.is_some()) else { return true };
        before.spiffe_id.as_ref() != Some(id)
            || before.class_name != self.class_name
            || (self.class_label.is_some() && before.class_label != self.class_label)
            || before.selectors.iter().any(|s| !self.selectors.contains(s))
            || selects_more(before.pod_selector.as_ref(), self.pod_selector.as_ref())
            || selects_more(before.namespace_selector.as_ref(), self.namespace_selector.as_ref())
    }
}

/// Whether `after` selects what `before` did not: a label `before` asks for that `after`
/// does not (none selects everything).
fn selects_more(before: Option<&LabelSelector>, after: Option<&LabelSelector>) -> bool {
    let Some(before) = before else { return false };
    let empty = BTreeMap::new();
    let after = after.map_or(&empty, |a| &a.match_labels);
    before.match_labels.iter().any(|(k, v)| after.get(k) != Some(v))
}

impl IdentityChange {
    /// Whether the change grants: the identity is added or widened.
    pub(super) fn grants(&self) -> bool {
        self.after.as_ref().is_some_and(|a| a.widens(self.before.as_ref()))
    }
}

type Key = (Option<String>, String);

fn identities(report: &Report) -> BTreeMap<Key, Identity> {
    report
        .bindings
        .iter()
        .map(|b| {
            let mut selectors = b.selectors.clone();
            selectors.sort();
            let identity = Identity {
                spiffe_id: b.spiffe_id.clone(),
                cluster_spiffe_id: b.cluster_spiffe_id.clone(),
                class_name: b.class_name.clone(),
                class_label: b.class_label.clone(),
                pod_selector: b.pod_selector.clone(),
                namespace_selector: b.namespace_selector.clone(),
                selectors,
                ready: b.ready,
                reason: b.reason.clone(),
            };
            ((b.namespace.clone(), b.name.clone()), identity)
        })
        .collect()
}

/// The identity changes from `before` to `after`, by namespace and name.
pub(super) fn compare(before: &Report, after: &Report) -> Vec<IdentityChange> {
    let (old, new) = (identities(before), identities(after));
    let keys: BTreeSet<&Key> = old.keys().chain(new.keys()).collect();
    keys.into_iter()
        .filter_map(|key| {
            let (b, a) = (old.get(key), new.get(key));
            let change = match (b, a) {
                (None, Some(_)) => "added",
                (Some(_), None) => "removed",
                (Some(b), Some(a)) if b != a => "changed",
                _ => return None,
            };
            Some(IdentityChange {
                change,
                namespace: key.0.clone(),
                name: key.1.clone(),
                before: b.cloned(),
                after: a.cloned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::changes::compare;
    use super::super::testing::{binding, report};
    use super::super::text::text;
    use super::super::words::identity_line;
    use serde_json::json;

    #[test]
    fn a_narrowed_selector_is_no_grant_and_a_dropped_one_is() {
        let wide = report(json!([binding("a", &["k8s:ns:ns"])]), json!([]));
        let narrow = report(json!([binding("a", &["k8s:ns:ns", "k8s:sa:x"])]), json!([]));
        let narrowed = compare(&wide, &narrow);
        assert_eq!(narrowed.identities.len(), 1);
        assert!(!narrowed.grants());
        assert!(compare(&narrow, &wide).grants());
        assert!(compare(&wide, &wide).identities.is_empty());
    }

    #[test]
    fn each_way_of_widening_grants_on_its_own_and_its_reverse_does_not() {
        let base = binding("a", &["k8s:ns:ns", "k8s:sa:x"]);
        let scoped = |mut b: serde_json::Value| {
            b["namespaceSelector"] = json!({"matchLabels": {"kubernetes.io/metadata.name": "ns"}});
            b
        };
        let mut wider: Vec<(&str, serde_json::Value, serde_json::Value)> = Vec::new();
        let mut other_id = base.clone();
        other_id["spiffeID"] = json!("spiffe://x/other");
        wider.push(("another SPIFFE ID", base.clone(), other_id));
        let mut classed = base.clone();
        classed["className"] = json!("spire-system-spire");
        wider.push(("another class", base.clone(), classed));
        let mut labelled = base.clone();
        labelled["classLabel"] = json!("spire-system-spire");
        wider.push(("a class label", base.clone(), labelled));
        wider.push(("a dropped selector", base.clone(), binding("a", &["k8s:ns:ns"])));
        let mut all_pods = base.clone();
        all_pods["podSelector"] = json!({"matchLabels": {}});
        wider.push(("fewer pod labels", base.clone(), all_pods));
        wider.push(("all namespaces", scoped(base.clone()), base.clone()));
        for (what, before, after) in wider {
            let (before, after) = (report(json!([before]), json!([])), report(json!([after]), json!([])));
            let widened = compare(&before, &after);
            assert_eq!(widened.identities.len(), 1, "{what}");
            assert!(widened.grants(), "{what} grants");
            // A new SPIFFE ID or class is new access both ways; the rest narrow back.
            let back = compare(&after, &before).grants();
            assert_eq!(back, what == "another SPIFFE ID" || what == "another class", "{what} back");
        }
    }

    #[test]
    fn a_scope_made_wider_is_a_change_and_a_grant() {
        let pool = binding("a", &["k8s:ns:ns"]);
        let mut scoped = pool.clone();
        scoped["podSelector"] =
            json!({"matchLabels": {"app": "a", "identity.kleym.sonda.red/variant": "decode"}});
        scoped["namespaceSelector"] = json!({"matchLabels": {"kubernetes.io/metadata.name": "ns"}});
        let (pool, scoped) = (report(json!([pool]), json!([])), report(json!([scoped]), json!([])));
        let widened = compare(&scoped, &pool);
        assert_eq!(widened.identities.len(), 1, "{}", text(&widened));
        assert!(widened.grants());
        let line = identity_line(&widened.identities[0]);
        assert!(
            line.contains("podSelector app=a, identity.kleym.sonda.red/variant=decode -> app=a"),
            "{line}"
        );
        assert!(
            line.contains("namespaceSelector kubernetes.io/metadata.name=ns -> all namespaces"),
            "{line}"
        );
        let narrowed = compare(&pool, &scoped);
        assert_eq!(narrowed.identities.len(), 1);
        assert!(!narrowed.grants());
    }
}
