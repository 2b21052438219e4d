//! Reach compared per pod template: the SPIFFE IDs a template's pods gain and lose, from
//! the `reach` of the two reports, and those they may gain or lose, from what each report
//! says its pods may hold (`workloads[].mayHold`); and the powers the entries of an SVID it
//! holds in both gain (`workloads[].powers`).

use crate::io::explain::Report;
use crate::io::explain::report::Power;
use crate::reconcile::spire::lifetime::{Lifetime, whole_seconds};
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
    /// IDs held for sure now, and not held nor possibly held before.
    pub gains: Vec<String>,
    /// IDs held for sure before, and not held nor possibly held now.
    pub loses: Vec<String>,
    /// IDs it may hold now and did not hold before, or holds for sure now and only may have
    /// held before, or may hold on both sides but now by containers as written it did not
    /// run before: what the cluster settles decides whether it gains them.
    pub may_gain: Vec<String>,
    /// The reverse: IDs it held for sure and only may hold now, or may have held and does
    /// not now.
    pub may_lose: Vec<String>,
    /// IDs held (or possibly held) on both sides whose entries now let the pods do more:
    /// each with the powers gained.
    pub gains_powers: Vec<PowerGain>,
    /// What HEAD changes of what a `mayGain` or a power only the cluster settles hangs on
    /// (`hangsOn` of the report): a pod template as written, a container, a namespace label.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hangs_on: Vec<String>,
}

/// Powers the entries of one SVID gain: `admin`, `downstream`, `federatesWith <trust
/// domain>`, `dnsName <name>`.
#[derive(Serialize, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PowerGain {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    pub gains: Vec<String>,
}

/// The names a pod template's powers give the two lifetimes (`ttl`, `jwtTtl`).
const TTL_NAMES: [&str; 2] = ["ttl", "jwtTtl"];

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

impl WorkloadChange {
    /// Whether its pods gain or may gain an SVID, or power over one they hold.
    pub(super) fn grants(&self) -> bool {
        !self.gains.is_empty() || !self.may_gain.is_empty() || !self.gains_powers.is_empty()
    }

    /// Whether its pods lose or may lose an SVID.
    pub(super) fn takes(&self) -> bool {
        !self.loses.is_empty() || !self.may_lose.is_empty()
    }
}

/// A pod template: (namespace, kind, name, path, apiVersion), the order the diff lists them.
type TemplateKey = (Option<String>, String, String, Option<String>, String);

/// How a template's pods hold an SPIFFE ID; an ID a report does not name is not held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
enum Held {
    #[default]
    No,
    Maybe,
    Sure,
}

/// How a template's pods hold an ID, and the containers as written a may-hold of it hangs
/// on (`mayHold[].hangsOn`).
type HeldWith = (Held, BTreeSet<String>);

/// Per pod template, the IDs its pods hold for sure (`reach`) or may hold (`mayHold`); an
/// ID held both ways is held for sure.
fn held(report: &Report) -> BTreeMap<TemplateKey, BTreeMap<String, HeldWith>> {
    let mut held: BTreeMap<TemplateKey, BTreeMap<String, HeldWith>> = BTreeMap::new();
    let key = |namespace: &Option<String>, kind: &str, name: &str, path: &Option<String>, api: &str| {
        (namespace.clone(), kind.to_string(), name.to_string(), path.clone(), api.to_string())
    };
    for w in report.workloads.iter().filter(|w| !w.may_hold.is_empty()) {
        let ids = held.entry(key(&w.namespace, &w.kind, &w.name, &w.path, &w.api_version)).or_default();
        for m in &w.may_hold {
            let (how, hangs_on) = ids.entry(m.spiffe_id.clone()).or_insert((Held::Maybe, BTreeSet::new()));
            *how = Held::Maybe;
            hangs_on.extend(m.hangs_on.iter().cloned());
        }
    }
    for r in &report.reach {
        let ids = held.entry(key(&r.namespace, &r.kind, &r.name, &r.path, &r.api_version)).or_default();
        for id in &r.spiffe_ids {
            ids.entry(id.clone()).or_default().0 = Held::Sure;
        }
    }
    // An SVID held for sure whose ID only the cluster settles in part: what it hangs on.
    for w in report.workloads.iter().filter(|w| w.svids_with_unknowns.iter().any(|u| !u.hangs_on.is_empty()))
    {
        let ids = held.entry(key(&w.namespace, &w.kind, &w.name, &w.path, &w.api_version)).or_default();
        for u in &w.svids_with_unknowns {
            ids.entry(u.spiffe_id.clone()).or_default().1.extend(u.hangs_on.iter().cloned());
        }
    }
    held
}

/// Which side's powers: what BASE's pods surely had, or what HEAD's may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    /// Of the objects that declare one entry, the manager keeps one (the oldest, which only
    /// the cluster knows): only what all of them give is sure.
    Surely,
    /// Any of them may be kept, but an object BASE already held is older than one HEAD adds,
    /// so when some of them are BASE's, one of those is kept.
    Possibly,
}

/// Per pod template, per SPIFFE ID it holds or may hold, the powers its entries give, by the
/// manager's preference among the objects that declare one entry (`Bound`); `older` names
/// the objects BASE held, for [`Bound::Possibly`]. With `sure_only`, only the entries the pods
/// surely hold: an object's entry its `mayHold` names (made only if the cluster allows, or
/// stored only if the SPIRE server takes it) is left out.
fn powers(
    report: &Report,
    bound: Bound,
    older: &BTreeSet<&str>,
    sure_only: bool,
) -> BTreeMap<TemplateKey, BTreeMap<String, Power>> {
    let mut out: BTreeMap<TemplateKey, BTreeMap<String, Power>> = BTreeMap::new();
    for w in report.workloads.iter().filter(|w| !w.powers.is_empty()) {
        let key =
            (w.namespace.clone(), w.kind.clone(), w.name.clone(), w.path.clone(), w.api_version.clone());
        let unsure: BTreeSet<(&str, &str)> = w
            .may_hold
            .iter()
            .filter(|_| sure_only)
            .map(|m| (m.cluster_spiffe_id.as_str(), m.spiffe_id.as_str()))
            .collect();
        let mut entries: BTreeMap<(&str, u32), Vec<&Power>> = BTreeMap::new();
        for p in w.powers.iter().filter(|p| !unsure.contains(&(p.object.as_str(), p.spiffe_id.as_str()))) {
            entries.entry((p.spiffe_id.as_str(), p.entry)).or_default().push(p);
        }
        let ids = out.entry(key).or_default();
        for ((id, _), declared) in entries {
            let kept: Vec<&Power> = match bound {
                Bound::Surely => declared,
                Bound::Possibly => {
                    let old: Vec<&Power> =
                        declared.iter().copied().filter(|p| older.contains(p.object.as_str())).collect();
                    if old.is_empty() { declared } else { old }
                }
            };
            let mut kept = kept.into_iter();
            let Some(first) = kept.next() else { continue };
            let entry = kept.fold(first.clone(), |acc, p| match bound {
                Bound::Surely => both(&acc, p),
                Bound::Possibly => either(&acc, p),
            });
            // Distinct entries of one ID all stand: their powers add up.
            match ids.get_mut(id) {
                Some(held) => *held = either(held, &entry),
                None => {
                    ids.insert(id.to_string(), entry);
                }
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
fn note<'f>(list: &mut Vec<String>, facts: impl Iterator<Item = &'f String>) {
    for fact in facts {
        if !list.contains(fact) {
            list.push(fact.clone());
        }
    }
}

/// The pod templates whose SPIFFE IDs differ from `before` to `after`, held or possibly held,
/// or whose entries for an ID held on both sides gain a power.
pub(super) fn compare(before: &Report, after: &Report) -> Vec<WorkloadChange> {
    let (old, new) = (held(before), held(after));
    let older: BTreeSet<&str> = before.object_names.iter().map(String::as_str).collect();
    let (old_powers, new_powers) =
        (powers(before, Bound::Surely, &older, false), powers(after, Bound::Possibly, &older, false));
    // What the pods surely had and surely have: a power only an entry they may hold gave BASE's
    // pods (one the server may refuse) is gained when HEAD's pods surely hold it.
    let (old_sure, new_sure) =
        (powers(before, Bound::Surely, &older, true), powers(after, Bound::Possibly, &older, true));
    let no_powers = BTreeMap::new();
    let templates: BTreeSet<&TemplateKey> = old.keys().chain(new.keys()).collect();
    let empty = BTreeMap::new();
    templates
        .into_iter()
        .filter_map(|t| {
            let (b, a) = (old.get(t).unwrap_or(&empty), new.get(t).unwrap_or(&empty));
            let ids: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
            let mut change = WorkloadChange {
                api_version: t.4.clone(),
                kind: t.1.clone(),
                namespace: t.0.clone(),
                name: t.2.clone(),
                path: t.3.clone(),
                gains: Vec::new(),
                loses: Vec::new(),
                may_gain: Vec::new(),
                may_lose: Vec::new(),
                gains_powers: Vec::new(),
                hangs_on: Vec::new(),
            };
            let (pb, pa) = (old_powers.get(t).unwrap_or(&no_powers), new_powers.get(t).unwrap_or(&no_powers));
            let (sb, sa) = (old_sure.get(t).unwrap_or(&no_powers), new_sure.get(t).unwrap_or(&no_powers));
            let no = (Held::No, BTreeSet::new());
            for id in ids {
                let (was, hung) = b.get(id).unwrap_or(&no);
                let (is, hangs) = a.get(id).unwrap_or(&no);
                let (was, is) = (*was, *is);
                // An ID held on both sides: a gain of power is a grant of its own.
                // HEAD's entries may carry no power at all, where BASE's carried a lifetime.
                let bare = Power { spiffe_id: id.clone(), ..Power::default() };
                let after = pa.get(id.as_str()).or(pb.get(id.as_str()).map(|_| &bare));
                if was != Held::No
                    && is != Held::No
                    && let Some(after) = after
                {
                    let before = pb.get(id.as_str());
                    let mut gains = gained(before, after, TTL_NAMES);
                    // Held for sure on both sides: what the entries it surely holds give.
                    if (was, is) == (Held::Sure, Held::Sure)
                        && let Some(surely) = sa.get(id.as_str()).or(sb.get(id.as_str()).map(|_| &bare))
                    {
                        for gain in gained(sb.get(id.as_str()), surely, TTL_NAMES) {
                            if !gains.contains(&gain) {
                                gains.push(gain);
                            }
                        }
                    }
                    if gains.iter().any(|g| g.starts_with("dnsName ") && g.contains("{{")) {
                        let had = before.map(|p| p.hangs_on.as_slice()).unwrap_or_default();
                        note(&mut change.hangs_on, after.hangs_on.iter().filter(|f| !had.contains(f)));
                    }
                    if !gains.is_empty() {
                        change.gains_powers.push(PowerGain { spiffe_id: id.clone(), gains });
                    }
                }
                // What it hangs on that BASE's did not: another container, template or
                // namespace label may be what makes it hold, or gives it another ID.
                let moved = !hangs.is_subset(hung);
                let list = match (was, is) {
                    (Held::No, Held::Sure) => &mut change.gains,
                    (Held::Sure, Held::No) => &mut change.loses,
                    (w, i) if i > w => &mut change.may_gain,
                    (_, i) if i != Held::No && moved => {
                        note(&mut change.hangs_on, hangs.difference(hung));
                        &mut change.may_gain
                    }
                    (w, i) if i < w => &mut change.may_lose,
                    _ => continue,
                };
                list.push(id.clone());
            }
            (change.grants() || change.takes()).then_some(change)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::changes::compare;
    use super::super::testing::{held, report};
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

    #[test]
    fn what_may_be_held_is_compared_apart_from_what_is_held_for_sure() {
        let (a, b) = ("spiffe://x/a", "spiffe://x/b");
        // (before sure, before may, after sure, after may) -> (gains, loses, mayGain, mayLose)
        type Lists<'a> = (&'a [&'a str], &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let cases: [(Lists, Lists); 7] = [
            ((&[], &[], &[], &[a]), (&[], &[], &[a], &[])),
            ((&[], &[a], &[], &[]), (&[], &[], &[], &[a])),
            ((&[], &[a], &[a], &[]), (&[], &[], &[a], &[])),
            ((&[a], &[], &[], &[a]), (&[], &[], &[], &[a])),
            ((&[], &[], &[a], &[]), (&[a], &[], &[], &[])),
            ((&[a], &[], &[], &[]), (&[], &[a], &[], &[])),
            ((&[b], &[], &[], &[a]), (&[], &[b], &[a], &[])),
        ];
        for ((bs, bm, as_, am), (gains, loses, may_gain, may_lose)) in cases {
            let diff = compare(&held(bs, bm), &held(as_, am));
            let w = &diff.workloads[0];
            let got = [&w.gains, &w.loses, &w.may_gain, &w.may_lose];
            assert_eq!(got, [gains, loses, may_gain, may_lose], "{bs:?} {bm:?} -> {as_:?} {am:?}");
            assert_eq!(diff.grants(), !gains.is_empty() || !may_gain.is_empty(), "{bs:?} {bm:?}");
        }
        // The same possible SVID on both sides is no change, and one held both ways is held.
        assert!(compare(&held(&[], &[a]), &held(&[], &[a])).workloads.is_empty());
        assert!(compare(&held(&[a], &[a]), &held(&[a], &[])).workloads.is_empty());
    }

    #[test]
    fn a_may_hold_that_hangs_on_another_container_is_a_may_gain() {
        let a = "spiffe://x/a";
        let hanging = |containers: &[&str]| {
            let mut report = held(&[], &[a]);
            report.workloads[0].may_hold[0].hangs_on = containers.iter().map(|c| c.to_string()).collect();
            report
        };
        let (v1, v2) = ("container tool: busybox:1.35", "container tool: busybox:1.36");
        let diff = compare(&hanging(&[v1]), &hanging(&[v2]));
        assert_eq!(diff.workloads[0].may_gain, [a]);
        assert!(diff.grants());
        // The same containers, or fewer of them, change nothing that may hold.
        assert!(compare(&hanging(&[v1]), &hanging(&[v1])).workloads.is_empty());
        assert!(compare(&hanging(&[v1, v2]), &hanging(&[v2])).workloads.is_empty());
        assert!(compare(&hanging(&[]), &hanging(&[])).workloads.is_empty());
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
        let one = either(&a, &b);
        assert!(one.admin && one.downstream && one.store_svid);
        assert_eq!(one.federates_with, ["p.org", "q.org"]);
        assert_eq!(one.dns_names, ["a.x", "b.x"]);
        assert_eq!(one.ttl.as_deref(), Some("2h"), "the longer lifetime");
        let each = both(&a, &b);
        assert!(!each.admin && !each.downstream && !each.store_svid);
        assert!(each.federates_with.is_empty());
        assert_eq!(each.dns_names, ["a.x"]);
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
    }

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
    fn a_power_only_an_entry_they_may_hold_gave_is_gained_when_they_surely_hold_it() {
        use super::super::testing::{held, power};
        let id = "spiffe://x/a";
        // Entry 0 of `plain`, without power, gives the SVID for sure; entry 1 of `c`, with
        // admin, may be made (`held` names `c` in mayHold) or is made for sure.
        let side = |admin_may: bool| {
            let may: &[&str] = if admin_may { &[id] } else { &[] };
            let mut r = held(&[id], may);
            let mut admin = power(id, "c", true);
            admin.entry = 1;
            admin.federates_with = if admin_may { vec!["p.org".into()] } else { Vec::new() };
            r.workloads[0].powers = vec![power(id, "plain", false), admin];
            r.object_names = vec!["plain".into(), "c".into()];
            r
        };
        let diff = compare(&side(true), &side(false));
        assert_eq!(diff.workloads[0].gains_powers[0].gains, ["admin"]);
        assert!(compare(&side(true), &side(true)).workloads.is_empty(), "nothing changed");
        assert!(compare(&side(false), &side(false)).workloads.is_empty());
    }

    #[test]
    fn an_svid_whose_unknown_hangs_on_a_changed_template_may_be_gained() {
        let a = "spiffe://x/{{ .PodSpec.Hostname }}";
        let sure = |fact: &str| {
            let mut report = held(&[a], &[]);
            report.workloads[0].svids_with_unknowns = vec![crate::io::explain::report::UnknownSvid {
                spiffe_id: a.into(),
                unknown: vec!["{{ .PodSpec.Hostname }}".into()],
                hangs_on: vec![fact.into()],
            }];
            report
        };
        let (v1, v2) =
            ("pod template spec.template as written: 1", "pod template spec.template as written: 2");
        let diff = compare(&sure(v1), &sure(v2));
        assert_eq!(diff.workloads[0].may_gain, [a]);
        assert_eq!(diff.workloads[0].hangs_on, [v2]);
        assert!(diff.grants());
        assert!(compare(&sure(v1), &sure(v1)).workloads.is_empty());
        // A DNS name only the cluster settles is gained when what it hangs on changes.
        use super::{TTL_NAMES, gained};
        let dns = |fact: &str| {
            let mut p = super::super::testing::power("spiffe://x/b", "o", false);
            p.dns_names = vec!["{{ .PodSpec.Hostname }}.svc".into()];
            p.hangs_on = vec![fact.into()];
            p
        };
        assert_eq!(gained(Some(&dns(v1)), &dns(v2), TTL_NAMES), ["dnsName {{ .PodSpec.Hostname }}.svc"]);
        assert!(gained(Some(&dns(v1)), &dns(v1), TTL_NAMES).is_empty());
    }

    #[test]
    fn of_the_objects_declaring_one_entry_the_oldest_is_kept() {
        use super::super::testing::{held, power};
        let id = "spiffe://x/a";
        // Each (object, admin) declares entry 0 of the template; `objects`: what BASE held.
        let side = |declared: &[(&str, bool)], objects: &[&str]| {
            let mut r = held(&[id], &[]);
            r.workloads[0].powers =
                declared.iter().map(|(object, admin)| power(id, object, *admin)).collect();
            r.object_names = objects.iter().map(|o| o.to_string()).collect();
            r
        };
        let gains = |before, after| {
            let diff = compare(&before, &after);
            diff.workloads.first().map(|w| w.gains_powers.len()).unwrap_or(0)
        };
        // Removing the kept one promotes the other, with its powers: BASE's pods had admin
        // only if every declaration gave it.
        assert_eq!(
            gains(
                side(&[("plain", false), ("admin", true)], &["plain", "admin"]),
                side(&[("admin", true)], &[])
            ),
            1
        );
        // A newer object with more power than the one BASE held: the older stays kept.
        assert_eq!(
            gains(side(&[("plain", false)], &["plain"]), side(&[("plain", false), ("admin", true)], &[])),
            0
        );
        // Unless BASE held neither: either may be kept.
        assert_eq!(gains(side(&[], &[]), side(&[("plain", false), ("admin", true)], &[])), 1);
        assert_eq!(
            gains(side(&[("old", false)], &["old"]), side(&[("plain", false), ("admin", true)], &[])),
            1
        );
        // Two distinct entries of one ID both stand: their powers add up.
        let mut two = side(&[("plain", false)], &["plain"]);
        let mut other = two.workloads[0].powers[0].clone();
        (other.object, other.entry, other.admin) = ("other".into(), 1, true);
        two.workloads[0].powers.push(other);
        assert_eq!(gains(side(&[("plain", false)], &["plain", "other"]), two), 1);
    }
}
