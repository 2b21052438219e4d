//! Of the objects that declare one thing, SPIRE Controller Manager applies the oldest: of
//! the ClusterSPIFFEIDs and ClusterStaticEntries that declare one entry (one key:
//! `makeEntryKey`), the first by creation time (`sortDeclaredEntriesByPreference`,
//! `objectCmp`, pkg/spireentry/reconciler.go); of the ClusterFederatedTrustDomains of one
//! trust domain, likewise (`listClusterFederatedTrustDomains`, which skips the others,
//! pkg/spirefederationrelationship/reconciler.go). Creation times are the cluster's: the
//! build knows only that an object BASE held is older than one HEAD adds. The one rule every
//! comparison of such declarations reads: which declaration each side may apply, together.

use std::collections::BTreeSet;

/// The pairs (BASE's, HEAD's) of the declarations of one thing the manager may apply on the
/// two sides, by position in `before` and `after` (the declaring objects' names; `None`:
/// BASE declared it nowhere). `older` names every object BASE surely held, of any thing;
/// `may_be` every other object BASE declared, which the cluster may hold (one it may not
/// have stored or kept): it may be older than one of `older`, and is no older than one HEAD
/// adds.
///
/// BASE's applied declaration may be any of its own, so what BASE surely gave is what every
/// one gives. HEAD's is the oldest of its own: one of those BASE held, when some are, else any.
/// And where BASE's applied one still declares it in HEAD, it is still the oldest of those,
/// unless an object BASE held that did not declare it then (whose age against it only the
/// cluster knows) declares it now: so an unchanged set of declarations applies the same one.
///
/// With `none_before`, BASE may have applied none of its declarations (one of them the cluster
/// may not have kept): each of HEAD's may then be applied over nothing, `(None, a)`.
pub(super) fn pairs(
    before: &[&str],
    after: &[&str],
    older: &BTreeSet<&str>,
    may_be: &BTreeSet<&str>,
    none_before: bool,
) -> Vec<(Option<usize>, usize)> {
    // Those of HEAD's that may be older than every one HEAD adds.
    let held: Vec<usize> =
        (0..after.len()).filter(|&i| older.contains(after[i]) || may_be.contains(after[i])).collect();
    let surely = after.iter().any(|a| older.contains(a));
    let any = if surely { held.clone() } else { (0..after.len()).collect() };
    if before.is_empty() {
        return any.into_iter().map(|a| (None, a)).collect();
    }
    let mut out: Vec<(Option<usize>, usize)> = Vec::new();
    for (b, name) in before.iter().enumerate() {
        match after.iter().position(|a| a == name) {
            Some(same) => {
                let joined = held.iter().copied().filter(|&a| !before.contains(&after[a]) && a != same);
                out.extend(std::iter::once(same).chain(joined).map(|a| (Some(b), a)));
            }
            None => out.extend(any.iter().map(|&a| (Some(b), a))),
        }
    }
    if none_before {
        out.extend((0..after.len()).map(|a| (None, a)));
    }
    out
}

/// What HEAD may apply of one thing that BASE did not surely apply: `gained` of each pair the
/// manager may make ([`pairs`]), once each, in order.
pub(super) fn grants<T>(
    before: &[(&str, T)],
    after: &[(&str, T)],
    older: &BTreeSet<&str>,
    mut gained: impl FnMut(Option<&T>, &T) -> Vec<String>,
) -> Vec<String> {
    let (was, is): (Vec<&str>, Vec<&str>) =
        (before.iter().map(|(n, _)| *n).collect(), after.iter().map(|(n, _)| *n).collect());
    let mut out: Vec<String> = Vec::new();
    for (b, a) in pairs(&was, &is, older, &BTreeSet::new(), false) {
        for grant in gained(b.map(|b| &before[b].1), &after[a].1) {
            if !out.contains(&grant) {
                out.push(grant);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HEAD's declarations that may be applied, given BASE applied `b`.
    fn applied<'n>(before: &[&str], after: &[&'n str], older: &[&str], b: Option<&str>) -> Vec<&'n str> {
        let older = older.iter().copied().collect();
        let at = b.map(|b| before.iter().position(|n| *n == b).unwrap());
        pairs(before, after, &older, &BTreeSet::new(), false)
            .into_iter()
            .filter(|(x, _)| *x == at)
            .map(|(_, a)| after[a])
            .collect()
    }

    #[test]
    fn an_unchanged_set_applies_the_same_declaration_and_a_removed_oldest_promotes_another() {
        let base = ["plain", "admin"];
        for b in base {
            assert_eq!(applied(&base, &base, &base, Some(b)), [b], "unchanged, {b} applied");
        }
        // The one BASE applied is gone: any other BASE held may be the oldest now.
        assert_eq!(applied(&base, &["admin"], &base, Some("plain")), ["admin"]);
        assert_eq!(applied(&base, &["admin"], &base, Some("admin")), ["admin"]);
        // An object HEAD adds is younger than every one BASE held.
        assert_eq!(applied(&["plain"], &["plain", "new"], &["plain"], Some("plain")), ["plain"]);
        assert_eq!(applied(&["old"], &["a", "b"], &["old"], Some("old")), ["a", "b"], "none held: any");
        assert_eq!(applied(&[], &["a", "b"], &["a"], None), ["a"], "a held object is older");
        assert_eq!(applied(&[], &["a", "b"], &[], None), ["a", "b"]);
        // An object BASE held that joins may be older than the one BASE applied.
        assert_eq!(
            applied(&["plain"], &["plain", "other"], &["plain", "other"], Some("plain")),
            ["plain", "other"]
        );
    }

    #[test]
    fn a_grant_is_what_some_pair_gives_that_its_base_did_not() {
        let gained =
            |b: Option<&u8>, a: &u8| if b.is_none_or(|b| a > b) { vec![format!("{a}")] } else { vec![] };
        let older: BTreeSet<&str> = ["plain", "admin"].into();
        let base = [("plain", 0), ("admin", 1)];
        assert!(grants(&base, &base, &older, gained).is_empty(), "unchanged");
        assert_eq!(grants(&base, &[("admin", 1)], &older, gained), ["1"], "promoted");
        assert!(grants(&[("admin", 1)], &[("admin", 1), ("plain", 0)], &older, gained).is_empty());
        assert_eq!(grants(&[], &[("new", 2), ("newer", 2)], &older, gained), ["2"], "once");
    }

    #[test]
    fn one_base_may_not_have_held_may_be_older_than_those_it_held_but_not_than_head_s_own() {
        let (older, may_be): (BTreeSet<&str>, BTreeSet<&str>) = (["plain"].into(), ["other"].into());
        let applied = |after: &[&str]| {
            pairs(&["plain"], after, &older, &may_be, false).into_iter().map(|(_, a)| a).collect::<Vec<_>>()
        };
        assert_eq!(applied(&["plain", "other", "new"]), [0, 1], "joins beside one held");
        assert_eq!(applied(&["other", "new"]), [0, 1], "none surely held: any");
        let none_held = pairs(&[], &["other", "new"], &BTreeSet::new(), &may_be, false);
        assert_eq!(none_held, [(None, 0), (None, 1)]);
    }

    #[test]
    fn where_base_may_have_applied_none_every_declaration_of_head_may_be_applied_over_nothing() {
        let older: BTreeSet<&str> = ["plain", "admin"].into_iter().collect();
        let pairs = pairs(&["plain", "admin"], &["admin"], &older, &BTreeSet::new(), true);
        assert!(pairs.contains(&(None, 0)), "{pairs:?}");
        assert!(pairs.contains(&(Some(0), 0)) && pairs.contains(&(Some(1), 0)), "{pairs:?}");
        assert!(!super::pairs(&["plain"], &["plain"], &older, &BTreeSet::new(), false).contains(&(None, 0)));
    }
}
