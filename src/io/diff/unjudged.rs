//! What the build cannot judge, compared: each record of HEAD's report (an item or file the
//! build cannot judge exactly that could reach an identity) that BASE's report does not hold
//! with the same digest is new, and a possible grant: what the gate cannot judge is `may
//! gain` (docs/review.md, "What the gate cannot judge").

use crate::io::explain::Report;
use crate::io::explain::report::UnjudgedReport;
use std::collections::BTreeSet;

/// HEAD's records that BASE does not hold: new, or changed in what they depend on.
pub(super) fn compare(before: &Report, after: &Report) -> Vec<UnjudgedReport> {
    let known: BTreeSet<_> = before.unjudged.iter().map(UnjudgedReport::key).collect();
    after.unjudged.iter().filter(|u| !known.contains(&u.key())).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::super::changes;
    use super::super::testing::report;
    use serde_json::json;

    /// A report holding records of `(file, digest)`.
    fn with(records: &[(&str, &str)]) -> crate::io::explain::Report {
        let mut r = report(json!([]), json!([]));
        r.unjudged = records
            .iter()
            .map(|(file, digest)| crate::io::explain::report::UnjudgedReport {
                at: None,
                file: Some(file.to_string()),
                object: None,
                field: String::new(),
                message: "m".into(),
                digest: digest.to_string(),
            })
            .collect();
        r
    }

    #[test]
    fn a_record_head_adds_or_changes_grants_and_one_it_keeps_or_drops_does_not() {
        let base = with(&[("Kptfile", "a"), ("hidden.yaml", "b")]);
        let kept = changes::compare(&base, &with(&[("Kptfile", "a")]));
        assert!(kept.unjudged.is_empty() && !kept.grants(), "dropping or keeping one grants nothing");
        let changed = changes::compare(&base, &with(&[("Kptfile", "c"), ("hidden.yaml", "b")]));
        assert_eq!(changed.unjudged.len(), 1);
        assert_eq!(changed.unjudged[0].digest, "c");
        assert!(changed.grants());
        let added = changes::compare(&with(&[]), &with(&[("other.yaml", "a")]));
        assert!(added.grants());
    }
}
