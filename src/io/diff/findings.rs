//! Findings compared by what they are about: those HEAD has and BASE does not are new,
//! those BASE has and HEAD does not are resolved.

use crate::io::explain::{FindingReport, FindingSeverity, Report};
use crate::reconcile::findings::Kind;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize, Debug, Default)]
pub struct FindingChanges {
    pub new: Vec<FindingReport>,
    pub resolved: Vec<FindingReport>,
}

/// What a finding is about: its reason and the items it names. The message is not part of
/// it: a finding that words itself otherwise is the same finding.
pub(super) fn key(finding: &FindingReport) -> String {
    // The note that no output has a className is about the run, not the outputs it names
    // (the first of them, which a binding added elsewhere changes): one per run.
    if finding.kind() == Some(Kind::IgnoredBySpire) && finding.severity == FindingSeverity::Info {
        return finding.reason.clone();
    }
    // The run's entry totals are about the run, and change when the totals do: by its words.
    if finding.kind() == Some(Kind::EntryVolume) {
        return format!("{}\0{}", finding.reason, finding.message);
    }
    let refs: Vec<String> = finding
        .refs
        .iter()
        .map(|r| {
            format!(
                "{}\0{}\0{}\0{}\0{}",
                r.api_version,
                r.kind,
                r.namespace.as_deref().unwrap_or_default(),
                r.name,
                r.path.as_deref().unwrap_or_default()
            )
        })
        .collect();
    format!("{}\0{}", finding.reason, refs.join("\0\0"))
}

/// Findings by what they are about ([`key`]).
fn findings(report: &Report) -> BTreeMap<String, &FindingReport> {
    report.findings.iter().map(|f| (key(f), f)).collect()
}

/// The findings new in `after` and those it resolved of `before`.
pub(super) fn compare(before: &Report, after: &Report) -> FindingChanges {
    let (old, new) = (findings(before), findings(after));
    FindingChanges {
        new: new.iter().filter(|(k, _)| !old.contains_key(*k)).map(|(_, f)| (*f).clone()).collect(),
        resolved: old.iter().filter(|(k, _)| !new.contains_key(*k)).map(|(_, f)| (*f).clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::compare;
    use crate::io::explain::Report;
    use serde_json::json;

    /// A report of one finding of `severity` and `reason` about ClusterSPIFFEID `about`.
    fn finding(severity: &str, reason: &str, about: &str) -> Report {
        let about = json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
                           "namespace": null, "name": about});
        let finding = json!({"severity": severity, "reason": reason, "message": "m", "refs": [about]});
        let value = json!({"config": null, "bindings": [], "workloads": [], "findings": [finding],
                           "reach": []});
        Report::read(&value.to_string()).unwrap()
    }

    #[test]
    fn findings_are_one_per_item_but_the_note_that_no_output_has_a_class() {
        let moved = |severity: &str, reason: &str| {
            let changes = compare(&finding(severity, reason, "a"), &finding(severity, reason, "b"));
            (changes.new.len(), changes.resolved.len())
        };
        // About another item: one finding resolved, one new; of any severity and kind.
        assert_eq!(moved("info", "NoMatchingWorkload"), (1, 1));
        assert_eq!(moved("warning", "IgnoredBySpire"), (1, 1));
        // The run's one note that no output sets a className names whichever output came
        // first: the same note.
        assert_eq!(moved("info", "IgnoredBySpire"), (0, 0));
    }
}
