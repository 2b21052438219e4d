//! Identity conflicts between bindings (docs/reference.md#conflicts), found by grouping,
//! never by comparing all pairs.
//!
//! Two bindings conflict when they render the same SPIFFE ID (`DuplicateSPIFFEID`) or share
//! namespace, service account and variant (`VariantReuse`). A SPIFFE ID holds namespace,
//! service account, pool and variant as separate path segments (none may contain `/`), so
//! equal SPIFFE IDs imply equal (namespace, service account, variant): every
//! `DuplicateSPIFFEID` peer is inside the `VariantReuse` group, and grouping by that key
//! finds both causes.

use crate::api::binding::ConflictEntry;
use crate::reconcile::rules::reason::Reason;
use std::collections::HashMap;

/// The most peers listed in `status.conflicts`; the message gives the full count.
pub const MAX_LISTED: usize = 32;

/// Names of peers quoted in a condition message.
const NAMED_IN_MESSAGE: usize = 3;

pub const CAUSE_DUPLICATE: &str = "DuplicateSPIFFEID";
pub const CAUSE_VARIANT_REUSE: &str = "VariantReuse";

/// A binding that passed checks 1 to 7, with its rendered SPIFFE ID.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub service_account: &'a str,
    pub variant: &'a str,
    pub spiffe_id: &'a str,
}

/// What one conflicting binding reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictReport {
    pub reason: Reason,
    pub message: String,
    /// Peers sorted by bindingName, cause, spiffeID, variant; at most [`MAX_LISTED`].
    pub entries: Vec<ConflictEntry>,
}

/// For each candidate (same order), its conflict report, or `None` when it is exclusive.
pub fn find_conflicts(candidates: &[Candidate<'_>]) -> Vec<Option<ConflictReport>> {
    let mut groups: HashMap<(&str, &str, &str), Vec<usize>> = HashMap::new();
    for (i, c) in candidates.iter().enumerate() {
        groups.entry((c.namespace, c.service_account, c.variant)).or_default().push(i);
    }
    let mut reports = vec![None; candidates.len()];
    for mut members in groups.into_values().filter(|m| m.len() > 1) {
        // Names are unique within a namespace, so the name alone fixes the order.
        members.sort_by_key(|&i| candidates[i].name);
        // Per SPIFFE ID: how many members render it, and the first few of them by name.
        let mut per_id: HashMap<&str, (usize, Vec<usize>)> = HashMap::new();
        for &i in &members {
            let (count, first) = per_id.entry(candidates[i].spiffe_id).or_default();
            *count += 1;
            if first.len() <= NAMED_IN_MESSAGE {
                first.push(i);
            }
        }
        let first_members = &members[..members.len().min(NAMED_IN_MESSAGE + 1)];
        for &me in &members {
            let own = &candidates[me];
            let entries = members
                .iter()
                .filter(|&&peer| peer != me)
                .take(MAX_LISTED)
                .map(|&peer| entry(own, &candidates[peer]))
                .collect();
            let named = |first: &[usize]| -> Vec<&str> {
                first
                    .iter()
                    .filter(|&&peer| peer != me)
                    .take(NAMED_IN_MESSAGE)
                    .map(|&p| candidates[p].name)
                    .collect()
            };
            let (same_id, first_same_id) = &per_id[own.spiffe_id];
            let all = Peers { count: members.len() - 1, named: named(first_members) };
            let duplicates = Peers { count: same_id - 1, named: named(first_same_id) };
            reports[me] = Some(report(own, entries, all, duplicates));
        }
    }
    reports
}

fn entry(own: &Candidate<'_>, peer: &Candidate<'_>) -> ConflictEntry {
    let cause = if peer.spiffe_id == own.spiffe_id { CAUSE_DUPLICATE } else { CAUSE_VARIANT_REUSE };
    ConflictEntry {
        binding_name: peer.name.to_string(),
        cause: cause.to_string(),
        spiffe_id: peer.spiffe_id.to_string(),
        variant: peer.variant.to_string(),
    }
}

/// Peers of one binding: how many, and the first few names.
struct Peers<'a> {
    count: usize,
    named: Vec<&'a str>,
}

impl std::fmt::Display for Peers<'_> {
    /// `1 other binding (a)`, or `39 other bindings (a, b, c and 36 more)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let noun = if self.count == 1 { "binding" } else { "bindings" };
        write!(f, "{} other {noun} ({}", self.count, self.named.join(", "))?;
        match self.count - self.named.len() {
            0 => write!(f, ")"),
            more => write!(f, " and {more} more)"),
        }
    }
}

/// One sentence: why, how many peers, and the first few by name (`status.conflicts` lists
/// up to [`MAX_LISTED`]).
fn report(
    own: &Candidate<'_>,
    entries: Vec<ConflictEntry>,
    all: Peers<'_>,
    duplicates: Peers<'_>,
) -> ConflictReport {
    let (reason, message) = if duplicates.count > 0 {
        (
            Reason::DuplicateSPIFFEID,
            format!(
                "SPIFFE ID {} is also claimed by {duplicates} in namespace {}",
                own.spiffe_id, own.namespace
            ),
        )
    } else {
        (
            Reason::VariantConflict,
            format!(
                "service account {} with variant {} is also bound by {all} in namespace {}",
                own.service_account, own.variant, own.namespace
            ),
        )
    };
    ConflictReport { reason, message, entries }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand<'a>(name: &'a str, ns: &'a str, sa: &'a str, variant: &'a str, id: &'a str) -> Candidate<'a> {
        Candidate { name, namespace: ns, service_account: sa, variant, spiffe_id: id }
    }

    #[test]
    fn different_namespace_sa_or_variant_is_exclusive() {
        let c = [
            cand("a", "ns1", "sa", "v", "id1"),
            cand("a", "ns2", "sa", "v", "id2"),
            cand("b", "ns1", "sa2", "v", "id3"),
            cand("c", "ns1", "sa", "w", "id4"),
        ];
        assert!(find_conflicts(&c).iter().all(Option::is_none));
    }

    #[test]
    fn duplicate_id_wins_over_variant_reuse() {
        let c = [
            cand("c", "ns", "sa", "v", "same"),
            cand("a", "ns", "sa", "v", "same"),
            cand("b", "ns", "sa", "v", "other-pool"),
        ];
        let r = find_conflicts(&c);
        let first = r[0].as_ref().unwrap();
        assert_eq!(first.reason, Reason::DuplicateSPIFFEID);
        let peers: Vec<(&str, &str)> =
            first.entries.iter().map(|e| (e.binding_name.as_str(), e.cause.as_str())).collect();
        assert_eq!(peers, [("a", CAUSE_DUPLICATE), ("b", CAUSE_VARIANT_REUSE)]);
        let third = r[2].as_ref().unwrap();
        assert_eq!(third.reason, Reason::VariantConflict);
        assert!(third.entries.iter().all(|e| e.cause == CAUSE_VARIANT_REUSE));
        assert_eq!(
            third.message,
            "service account sa with variant v is also bound by 2 other bindings (a, c) in namespace ns"
        );
        assert_eq!(first.message, "SPIFFE ID same is also claimed by 1 other binding (a) in namespace ns");
    }

    #[test]
    fn peer_list_is_capped_and_the_message_counts_all() {
        let names: Vec<String> = (0..40).map(|i| format!("b{i:02}")).collect();
        let c: Vec<Candidate> = names.iter().map(|n| cand(n, "ns", "sa", "v", n)).collect();
        let r = find_conflicts(&c);
        let last = r[39].as_ref().unwrap();
        assert_eq!(last.entries.len(), MAX_LISTED);
        assert_eq!(last.entries[0].binding_name, "b00");
        assert_eq!(last.entries[31].binding_name, "b31");
        assert_eq!(
            last.message,
            "service account sa with variant v is also bound by 39 other bindings (b00, b01, b02 and 36 more) \
             in namespace ns"
        );
        // The member itself is never its own peer.
        let first = r[0].as_ref().unwrap();
        assert_eq!(first.entries[0].binding_name, "b01");
    }
}
