//! What `-o sarif` and `-o github` show of a report, shared by `explain` and `diff`: the
//! failing bindings and the findings as annotations, each at the file and line where the
//! item at fault starts, with a fingerprint that holds when the item moves. `sarif.rs`
//! and `github.rs` write them.

use super::report::{At, BindingReport, FindingReport, Report};
use crate::config::FailurePolicy;
use crate::reconcile::findings::Severity;
use crate::reconcile::reason::Reason;
use sha2::{Digest, Sha256};

/// One thing to show: a failing binding or a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The rule's name: the finding's, or the failing binding's reason.
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub at: Option<At>,
    /// Stable across edits that move the item: the rule and the item's identity.
    pub fingerprint: String,
}

/// The rules of what `diff` shows as granting, beside the findings and failure reasons:
/// (name, what it is about).
pub const GRANTS: [(&str, &str); 3] = [
    (WORKLOAD_GAINS, "A pod template's pods gain an SVID, may gain one, or gain power over one they hold."),
    (
        SPIRE_OBJECT_GRANTS,
        "A ClusterStaticEntry or ClusterFederatedTrustDomain is added, or changed so that it grants more.",
    ),
    (
        UNJUDGED,
        "An item or file the build cannot judge exactly, which could reach an identity, is added or changed: a possible grant.",
    ),
];
pub const WORKLOAD_GAINS: &str = "WorkloadGainsSVID";
pub const UNJUDGED: &str = "Unjudged";
pub const SPIRE_OBJECT_GRANTS: &str = "SpireObjectGrants";

/// An annotation of what a change grants, at `at`, about the object `identity` names.
pub fn grant(rule: &'static str, message: String, at: Option<At>, identity: &[&str]) -> Annotation {
    let mut parts = vec![rule];
    parts.extend(identity);
    Annotation { rule, severity: Severity::Warning, message, at, fingerprint: fingerprint(&parts) }
}

/// The annotations of a report: failing bindings first (input order), then the findings.
pub fn of(report: &Report, failure_policy: FailurePolicy) -> Vec<Annotation> {
    let mut out = failing(&report.bindings.iter().collect::<Vec<_>>(), failure_policy);
    out.extend(findings(&report.findings.iter().collect::<Vec<_>>()));
    out
}

/// The annotations of the bindings given that fail, in the order given.
pub fn failing(bindings: &[&BindingReport], failure_policy: FailurePolicy) -> Vec<Annotation> {
    let failing = bindings.iter().filter(|b| !b.ready).filter_map(|b| {
        let reason = Reason::ALL.iter().find(|r| r.as_str() == b.reason)?;
        let name = match &b.namespace {
            Some(ns) => format!("{ns}/{}", b.name),
            None => b.name.clone(),
        };
        Some(Annotation {
            rule: reason.as_str(),
            severity: match failure_policy {
                FailurePolicy::Fail => Severity::Error,
                FailurePolicy::Report => Severity::Warning,
            },
            message: format!("binding {name} is not ready: {}: {}", b.reason, b.message),
            at: b.at.clone(),
            fingerprint: fingerprint(&[
                reason.as_str(),
                crate::api::binding::API_VERSION,
                crate::api::binding::KIND,
                b.namespace.as_deref().unwrap_or_default(),
                &b.name,
                "",
            ]),
        })
    });
    failing.collect()
}

/// The annotations of findings alone, in the order given; each names its kind, as every
/// finding of manifests read now does.
pub fn findings(findings: &[&FindingReport]) -> Vec<Annotation> {
    let findings = findings.iter().filter_map(|f| {
        let kind = f.kind()?;
        // The item it is about and those it names (another ClusterSPIFFEID, say): two
        // findings of one kind about one item differ in what they name.
        let mut identity = vec![kind.as_str()];
        for r in &f.refs {
            identity.extend([
                r.api_version.as_str(),
                &r.kind,
                r.namespace.as_deref().unwrap_or_default(),
                &r.name,
                r.path.as_deref().unwrap_or_default(),
            ]);
        }
        Some(Annotation {
            rule: kind.as_str(),
            severity: f.severity.into(),
            message: f.message.clone(),
            at: f.at.clone(),
            fingerprint: fingerprint(&identity),
        })
    });
    findings.collect()
}

/// SHA-256 of the parts, each ended by a NUL, as hex.
fn fingerprint(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_do_not_collide_across_fields() {
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
