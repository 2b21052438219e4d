//! Reach compared per pod template: the SPIFFE IDs a template's pods gain and lose, from
//! the `reach` of the two reports.

use crate::io::explain::Report;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadChange {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub path: Option<String>,
    pub gains: Vec<String>,
    pub loses: Vec<String>,
}

/// A pod template: (namespace, kind, name, path, apiVersion), the order the diff lists them.
type Template = (Option<String>, String, String, Option<String>, String);

fn reach(report: &Report) -> BTreeMap<Template, BTreeSet<String>> {
    report
        .reach
        .iter()
        .map(|r| {
            let template =
                (r.namespace.clone(), r.kind.clone(), r.name.clone(), r.path.clone(), r.api_version.clone());
            (template, r.spiffe_ids.iter().cloned().collect())
        })
        .collect()
}

/// The pod templates whose SPIFFE IDs differ from `before` to `after`.
pub(super) fn compare(before: &Report, after: &Report) -> Vec<WorkloadChange> {
    let (old, new) = (reach(before), reach(after));
    let templates: BTreeSet<&Template> = old.keys().chain(new.keys()).collect();
    let empty = BTreeSet::new();
    templates
        .into_iter()
        .filter_map(|t| {
            let (b, a) = (old.get(t).unwrap_or(&empty), new.get(t).unwrap_or(&empty));
            let gains: Vec<String> = a.difference(b).cloned().collect();
            let loses: Vec<String> = b.difference(a).cloned().collect();
            (!gains.is_empty() || !loses.is_empty()).then(|| WorkloadChange {
                api_version: t.4.clone(),
                kind: t.1.clone(),
                namespace: t.0.clone(),
                name: t.2.clone(),
                path: t.3.clone(),
                gains,
                loses,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::compare;
    use super::super::testing::report;
    use serde_json::json;

    #[test]
    fn reach_changes_are_gains_and_losses_per_template() {
        let template = |ids: &[&str]| {
            json!([{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ns", "name": "d",
                    "path": "spec.template", "spiffeIDs": ids}])
        };
        let before = report(json!([]), template(&["spiffe://x/a"]));
        let after = report(json!([]), template(&["spiffe://x/b"]));
        let diff = compare(&before, &after);
        assert_eq!(diff.workloads[0].gains, ["spiffe://x/b"]);
        assert_eq!(diff.workloads[0].loses, ["spiffe://x/a"]);
        assert!(diff.grants());
        assert!(!compare(&after, &report(json!([]), json!([]))).grants());
    }
}
