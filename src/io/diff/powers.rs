//! The powers of the entries of one SVID, compared: what an entry lets its pods do beyond
//! holding the SVID (`admin`, `downstream`, `storeSVID`, `federatesWith`, DNS names, the
//! lifetimes the SPIRE server issues it for), what two entries give together or each, and what
//! HEAD's entries of an SVID may give that BASE's surely did not, by the manager's preference
//! among the objects that declare one entry ([`super::preference`]).

use super::preference;
use crate::io::explain::report::Power;
use crate::reconcile::spire::lifetime::{Lifetime, whole_seconds};

/// The names a pod template's powers give the two lifetimes (`ttl`, `jwtTtl`).
pub(super) const TTL_NAMES: [&str; 2] = ["ttl", "jwtTtl"];

/// What `after` lets the pods do that `before` did not, the lifetimes named by `ttl_names`.
pub(super) fn gained(before: Option<&Power>, after: &Power, ttl_names: [&str; 2]) -> Vec<String> {
    let mut gains = Vec::new();
    let had = |f: fn(&Power) -> bool| before.is_some_and(f);
    if after.admin && !had(|p| p.admin) {
        gains.push("admin".to_string());
    }
    if after.downstream && !had(|p| p.downstream) {
        gains.push("downstream".to_string());
    }
    if after.store_svid && !had(|p| p.store_svid) {
        gains.push("storeSVID".to_string());
    }
    for td in &after.federates_with {
        if !before.is_some_and(|p| p.federates_with.contains(td)) {
            gains.push(format!("federatesWith {td}"));
        }
    }
    // A name only the cluster settles is another name when what it hangs on changes.
    let moved = !after.hangs_on.iter().all(|f| before.is_some_and(|p| p.hangs_on.contains(f)));
    for name in &after.dns_names {
        let unsettled = moved && name.contains("{{");
        if unsettled || !before.is_some_and(|p| p.dns_names.contains(name)) {
            gains.push(format!("dnsName {name}"));
        }
    }
    let ttls = |p: Option<&Power>| [p.and_then(|p| p.ttl.clone()), p.and_then(|p| p.jwt_ttl.clone())];
    gains.extend(longer_ttls(&ttls(before), &ttls(Some(after)), ttl_names));
    gains
}

/// SPIRE server's default X.509 and JWT SVID lifetimes (`default_x509_svid_ttl`,
/// `default_jwt_svid_ttl`) unless its configuration sets others, which the build does not see.
const DEFAULT_TTLS: [&str; 2] = ["1h", "5m"];

/// The lifetimes of `after` longer than those of `before`, each named by `names`, as the SPIRE
/// server reads them ([`Lifetime`]: whole seconds, cast to int32 as the manager sends them):
/// an explicit one longer than before (than the server's usual default where BASE had none),
/// the server's default where BASE had an explicit one (its length is the server's
/// configuration, which the build does not see), and any where BASE's made the server refuse
/// the entry.
fn longer_ttls(before: &[Option<String>; 2], after: &[Option<String>; 2], names: [&str; 2]) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..2 {
        let (was, now) = (Lifetime::of(before[i].as_deref()), Lifetime::of(after[i].as_deref()));
        let longer = match (was, now) {
            (_, Lifetime::Refused(_)) => false,
            (Lifetime::Refused(_), _) => true,
            (Lifetime::ServerDefault, Lifetime::ServerDefault) => false,
            (_, Lifetime::ServerDefault) => true,
            (Lifetime::ServerDefault, n) => Lifetime::of(Some(DEFAULT_TTLS[i])).length() < n.length(),
            (w, n) => w.length() < n.length(),
        };
        if !longer {
            continue;
        }
        let name = names[i];
        let default = "the SPIRE server's default, which the build does not know";
        out.push(match (now, after[i].as_deref()) {
            (Lifetime::Seconds(sent), Some(written)) if whole_seconds(written) != Some(i64::from(sent)) => {
                format!("{name} {written}: the manager's int32 conversion wraps it to {sent} seconds")
            }
            (_, Some(written)) if now != Lifetime::ServerDefault => format!("{name} {written}"),
            (_, Some(written)) if whole_seconds(written).is_some_and(|s| s != 0) => {
                format!(
                    "{name} {written}: the manager's int32 conversion wraps it to 0 seconds, so {default}"
                )
            }
            (_, Some(written)) => format!("{name} {written}: 0 whole seconds, so {default}"),
            (_, None) => format!("{name} unset: {default}"),
        });
    }
    out
}

/// What HEAD's entries of one SVID may let its pods do that BASE's surely did not: `before`
/// and `after` hold each side's entries of it, each with the objects that declare it and the
/// powers each would give (`workloads[].powers`); `older` names the objects BASE held. A
/// HEAD entry's BASE declarations are those of BASE's entries of the SVID that share an
/// object with it: the manager applies one declaration per entry ([`preference::pairs`]), and
/// BASE's other entries stand beside it. What a DNS name only the cluster settles hangs on in
/// HEAD and did not in BASE is noted in `hangs_on`.
pub(super) fn gains(
    spiffe_id: &str,
    before: &[Vec<&Power>],
    after: &[Vec<&Power>],
    older: &std::collections::BTreeSet<&str>,
    hangs_on: &mut Vec<String>,
) -> Vec<String> {
    // What every declaration of each of `entries` gives, together.
    let surely = |entries: &[&Vec<&Power>]| {
        entries
            .iter()
            .filter_map(|declared| declared.iter().copied().cloned().reduce(|a, p| both(&a, &p)))
            .reduce(|a, p| either(&a, &p))
    };
    if after.is_empty() {
        // HEAD's entries carry no power at all, where BASE's may have carried a lifetime.
        let bare = Power { spiffe_id: spiffe_id.to_string(), ..Power::default() };
        return match surely(&before.iter().collect::<Vec<_>>()) {
            Some(base) => gained(Some(&base), &bare, TTL_NAMES),
            None => Vec::new(),
        };
    }
    let mut out: Vec<String> = Vec::new();
    for declared in after {
        let shares =
            |entry: &&Vec<&Power>| entry.iter().any(|p| declared.iter().any(|d| d.object == p.object));
        let (same, rest): (Vec<&Vec<&Power>>, Vec<&Vec<&Power>>) = before.iter().partition(shares);
        let rest = surely(&rest);
        let was: Vec<(&str, &Power)> = same.into_iter().flatten().map(|p| (p.object.as_str(), *p)).collect();
        let is: Vec<(&str, &Power)> = declared.iter().map(|p| (p.object.as_str(), *p)).collect();
        let grants = preference::grants(&was, &is, older, |b, a| {
            let base = match (&rest, b) {
                (Some(rest), Some(b)) => Some(either(rest, b)),
                (rest, b) => rest.clone().or(b.map(|b| (*b).clone())),
            };
            let gains = gained(base.as_ref(), a, TTL_NAMES);
            if gains.iter().any(|g| g.starts_with("dnsName ") && g.contains("{{")) {
                let had = base.as_ref().map(|p| p.hangs_on.as_slice()).unwrap_or_default();
                note(hangs_on, a.hangs_on.iter().filter(|f| !had.contains(f)));
            }
            gains
        });
        for grant in grants {
            if !out.contains(&grant) {
                out.push(grant);
            }
        }
    }
    out
}

/// What either of two entries gives: each power of one or the other, the longer lifetime.
fn either(a: &Power, b: &Power) -> Power {
    let mut out = a.clone();
    out.admin |= b.admin;
    out.downstream |= b.downstream;
    out.store_svid |= b.store_svid;
    for td in &b.federates_with {
        if !out.federates_with.contains(td) {
            out.federates_with.push(td.clone());
        }
    }
    for name in &b.dns_names {
        if !out.dns_names.contains(name) {
            out.dns_names.push(name.clone());
        }
    }
    out.ttl = ttl(&a.ttl, &b.ttl, true);
    out.jwt_ttl = ttl(&a.jwt_ttl, &b.jwt_ttl, true);
    for fact in &b.hangs_on {
        if !out.hangs_on.contains(fact) {
            out.hangs_on.push(fact.clone());
        }
    }
    out
}

/// What both of two entries give: each power of both, the shorter lifetime.
fn both(a: &Power, b: &Power) -> Power {
    let mut out = a.clone();
    out.admin &= b.admin;
    out.downstream &= b.downstream;
    out.store_svid &= b.store_svid;
    out.federates_with.retain(|td| b.federates_with.contains(td));
    out.dns_names.retain(|name| b.dns_names.contains(name));
    out.ttl = ttl(&a.ttl, &b.ttl, false);
    out.jwt_ttl = ttl(&a.jwt_ttl, &b.jwt_ttl, false);
    out.hangs_on.retain(|fact| b.hangs_on.contains(fact));
    out
}

/// Of two lifetimes as written (`None`: the server's default), the longer (`longer`) or the
/// shorter, as [`Lifetime::length`] orders them.
fn ttl(a: &Option<String>, b: &Option<String>, longer: bool) -> Option<String> {
    let length = |t: &Option<String>| Lifetime::of(t.as_deref()).length();
    let a_wins = if longer { length(a) >= length(b) } else { length(a) <= length(b) };
    if a_wins { a.clone() } else { b.clone() }
}

/// Adds `facts` to `list`, once each.
pub(super) fn note<'f>(list: &mut Vec<String>, facts: impl Iterator<Item = &'f String>) {
    for fact in facts {
        if !list.contains(fact) {
            list.push(fact.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn lifetimes_compare_as_the_manager_sends_them_cast_to_int32() {
        use super::{TTL_NAMES, gained};
        let with = |ttl: &str| {
            let mut p = super::super::testing::power("spiffe://x/a", "o", false);
            p.ttl = Some(ttl.to_string());
            p
        };
        // 2^32 + 60 seconds reaches the server as 60.
        assert_eq!(gained(Some(&with("4294967356s")), &with("20h"), TTL_NAMES), ["ttl 20h"]);
        assert!(gained(Some(&with("60s")), &with("4294967356s"), TTL_NAMES).is_empty());
        assert_eq!(
            gained(Some(&with("30s")), &with("4294967356s"), TTL_NAMES),
            ["ttl 4294967356s: the manager's int32 conversion wraps it to 60 seconds"]
        );
        let zero = gained(Some(&with("10m")), &with("4294967296s"), TTL_NAMES);
        assert!(
            zero.len() == 1 && zero[0].contains("wraps it to 0 seconds, so the SPIRE server's default"),
            "{zero:?}"
        );
        // One the server refuses gives nothing; any lifetime after one it refused is gained.
        assert!(gained(Some(&with("1h")), &with("2147483648s"), TTL_NAMES).is_empty());
        assert_eq!(gained(Some(&with("-1h")), &with("1m"), TTL_NAMES), ["ttl 1m"]);
    }

    #[test]
    fn either_of_two_entries_gives_each_power_of_one_and_both_only_what_each_gives() {
        use super::super::testing::power;
        use super::{both, either};
        let mut a = power("spiffe://x/a", "o", true);
        a.federates_with = vec!["p.org".into()];
        a.dns_names = vec!["a.x".into()];
        a.ttl = Some("10m".into());
        let mut b = power("spiffe://x/a", "p", false);
        b.downstream = true;
        b.store_svid = true;
        b.federates_with = vec!["q.org".into()];
        b.dns_names = vec!["a.x".into(), "b.x".into()];
        b.ttl = Some("2h".into());
        a.hangs_on = vec!["image a".into()];
        b.hangs_on = vec!["image a".into(), "image b".into()];
        let one = either(&a, &b);
        assert_eq!(one.hangs_on, ["image a", "image b"], "what either hangs on, once");
        assert!(one.admin && one.downstream && one.store_svid);
        assert_eq!(one.federates_with, ["p.org", "q.org"]);
        assert_eq!(one.dns_names, ["a.x", "b.x"]);
        assert_eq!(one.ttl.as_deref(), Some("2h"), "the longer lifetime");
        let each = both(&a, &b);
        assert!(!each.admin && !each.downstream && !each.store_svid);
        assert!(each.federates_with.is_empty());
        assert_eq!(each.dns_names, ["a.x"]);
        assert_eq!(each.hangs_on, ["image a"], "what both hang on");
        assert_eq!(each.ttl.as_deref(), Some("10m"), "the shorter lifetime");
        // Of a lifetime and the server's default, which its own configuration may raise: the
        // default is the longer, the lifetime the shorter.
        assert_eq!(either(&b, &power("spiffe://x/a", "q", false)).ttl, None);
        assert_eq!(both(&a, &power("spiffe://x/a", "q", false)).ttl.as_deref(), Some("10m"));
    }

    #[test]
    fn each_power_an_svids_entries_gain_is_a_grant_and_a_power_lost_is_none() {
        use super::super::testing::power;
        use super::{Power, TTL_NAMES, gained};
        let none = power("spiffe://x/a", "o", false);
        let with = |edit: fn(&mut Power)| {
            let mut p = none.clone();
            edit(&mut p);
            p
        };
        let cases: [(Power, &str); 6] = [
            (with(|p| p.admin = true), "admin"),
            (with(|p| p.downstream = true), "downstream"),
            (with(|p| p.federates_with = vec!["partner.org".into()]), "federatesWith partner.org"),
            (with(|p| p.dns_names = vec!["a.example.org".into()]), "dnsName a.example.org"),
            (with(|p| p.ttl = Some("24h".into())), "ttl 24h"),
            (with(|p| p.jwt_ttl = Some("1h".into())), "jwtTtl 1h"),
        ];
        for (power, word) in &cases {
            assert_eq!(gained(Some(&none), power, TTL_NAMES), [*word]);
            assert_eq!(gained(None, power, TTL_NAMES), [*word], "a side without powers had none");
            // Losing a lifetime gives the server's default, which the build does not know.
            let lost = gained(Some(power), &none, TTL_NAMES);
            if word.contains("ttl") || word.contains("Ttl") {
                assert!(lost.len() == 1 && lost[0].contains("server's default"), "losing {word}: {lost:?}");
            } else {
                assert!(lost.is_empty(), "losing {word} grants nothing");
            }
            assert!(gained(Some(power), power, TTL_NAMES).is_empty(), "keeping {word} grants nothing");
        }
        // A lifetime shorter than the server's default, or than before, grants nothing.
        let short = with(|p| p.ttl = Some("10m".into()));
        assert!(gained(Some(&none), &short, TTL_NAMES).is_empty());
        assert_eq!(gained(Some(&short), &with(|p| p.ttl = Some("1h30m".into())), TTL_NAMES), ["ttl 1h30m"]);
        assert_eq!(
            gained(Some(&none), &with(|p| p.ttl = Some("forever".into())), TTL_NAMES),
            ["ttl forever"]
        );
    }

    #[test]
    fn a_lifetime_dropped_or_under_a_second_is_the_servers_default_and_a_grant() {
        use super::{TTL_NAMES, gained};
        let with = |ttl: Option<&str>| {
            let mut p = super::super::testing::power("spiffe://x/a", "o", false);
            p.ttl = ttl.map(str::to_string);
            p
        };
        let short = with(Some("10m"));
        for head in [None, Some("0s"), Some("999ms"), Some("0")] {
            let gains = gained(Some(&short), &with(head), TTL_NAMES);
            assert_eq!(gains.len(), 1, "{head:?}: {gains:?}");
            assert!(gains[0].contains("the SPIRE server's default"), "{head:?}: {gains:?}");
        }
        // The default on both sides, or a whole second or more no longer than before: none.
        assert!(gained(Some(&with(None)), &with(Some("0s")), TTL_NAMES).is_empty());
        assert!(gained(Some(&short), &with(Some("1s")), TTL_NAMES).is_empty());
        assert!(gained(Some(&short), &with(Some("600999ms")), TTL_NAMES).is_empty(), "truncated to 600 s");
        // From the default, a lifetime written as the usual default is none; a second more is one.
        assert!(gained(Some(&with(None)), &with(Some("1h")), TTL_NAMES).is_empty());
        assert_eq!(gained(Some(&with(None)), &with(Some("3601s")), TTL_NAMES).len(), 1);
    }
}
