//! What the build cannot judge, compared: each record of HEAD's report (an item or file the
//! build cannot judge exactly that could reach an identity) that BASE's report does not hold
//! with the same digest is new, and a possible grant: what the gate cannot judge is `may
//! gain` (docs/review.md, "What the gate cannot judge").

use crate::io::explain::Report;
use crate::io::explain::report::UnjudgedReport;
use std::collections::BTreeSet;

/// HEAD's records that BASE does not hold: new, or changed in what they depend on. And
/// BASE's records of an object declared more than once that HEAD does not hold: the copy
/// HEAD keeps may not be the one that ran, so what runs may change.
pub(super) fn compare(before: &Report, after: &Report) -> Vec<UnjudgedReport> {
    let known: BTreeSet<_> = before.unjudged.iter().map(UnjudgedReport::key).collect();
    // What HEAD still records of an object, whatever the digest: a copy it changes is new there.
    let recorded: BTreeSet<_> = after.unjudged.iter().map(|u| (&u.file, &u.object, &u.field)).collect();
    let mut out: Vec<UnjudgedReport> =
        after.unjudged.iter().filter(|u| !known.contains(&u.key())).cloned().collect();
    let dropped = |u: &&UnjudgedReport| !recorded.contains(&(&u.file, &u.object, &u.field));
    for gone in before.unjudged.iter().filter(|u| u.copy).filter(dropped) {
        let mut record = gone.clone();
        record.message = format!(
            "in BASE {}; HEAD changes its copies, so the one kubectl and Argo CD apply last may be another",
            gone.message
        );
        out.push(record);
    }
    out
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
                copy: false,
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

    #[test]
    fn a_copy_base_declared_twice_that_head_drops_may_change_what_runs() {
        let mut base = with(&[("", "a")]);
        base.unjudged[0].message = "declared 2 times with other pod templates".to_string();
        base.unjudged[0].copy = true;
        let dropped = changes::compare(&base, &with(&[]));
        assert_eq!(dropped.unjudged.len(), 1);
        assert!(
            dropped.unjudged[0].message.starts_with("in BASE declared 2 times"),
            "{}",
            dropped.unjudged[0].message
        );
        assert!(dropped.grants());
        assert!(changes::compare(&base, &base).unjudged.is_empty(), "kept, it is no change");
    }
}
