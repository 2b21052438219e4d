//! Reach compared per pod template: the SPIFFE IDs a template's pods gain and lose, from
//! the `reach` of the two reports, and those they may gain or lose, from what each report
//! says its pods may hold (`workloads[].mayHold`); and the powers the entries of an SVID it
//! holds in both gain (`workloads[].powers`, compared in `powers.rs`).

use super::powers::{self, note};
use crate::io::explain::Report;
use crate::io::explain::report::Power;
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

/// One side's entries of an SVID a pod template holds or may hold: each with the objects that
/// declare it and the powers each would give.
type Entries<'r> = Vec<Vec<&'r Power>>;

/// Per pod template, per SPIFFE ID, its entries that carry a power (`workloads[].powers`).
/// With `sure_only`, only the entries the pods surely hold: an object's entry its `mayHold`
/// names (made only if the cluster allows, or stored only if the SPIRE server takes it) is
/// left out.
fn declared(report: &Report, sure_only: bool) -> BTreeMap<TemplateKey, BTreeMap<&str, Entries<'_>>> {
    let mut out: BTreeMap<TemplateKey, BTreeMap<&str, Entries<'_>>> = BTreeMap::new();
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
            ids.entry(id).or_default().push(declared);
        }
    }
    out
}

/// The pod templates whose SPIFFE IDs differ from `before` to `after`, held or possibly held,
/// or whose entries for an ID held on both sides gain a power.
pub(super) fn compare(before: &Report, after: &Report) -> Vec<WorkloadChange> {
    let (old, new) = (held(before), held(after));
    // A name a static entry and a ClusterSPIFFEID share (listed twice) on either side, or that
    // is one kind's in BASE and the other's in HEAD, names two objects: neither is surely the
    // older for the other.
    let twice = |r: &Report| -> BTreeSet<String> {
        r.object_names.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0].clone()).collect()
    };
    let (twice_before, twice_after) = (twice(before), twice(after));
    let static_before: BTreeSet<&str> = before.static_entries.iter().map(|e| e.name.as_str()).collect();
    let static_after: BTreeSet<&str> = after.static_entries.iter().map(|e| e.name.as_str()).collect();
    let older: BTreeSet<&str> = before
        .object_names
        .iter()
        .map(String::as_str)
        .filter(|n| static_before.contains(n) == static_after.contains(n))
        .filter(|n| !twice_before.contains(*n) && !twice_after.contains(*n))
        .collect();
    let (old_powers, new_powers) = (declared(before, false), declared(after, false));
    // What the pods surely had and surely have: a power only an entry they may hold gave BASE's
    // pods (one the server may refuse) is gained when HEAD's pods surely hold it.
    let (old_sure, new_sure) = (declared(before, true), declared(after, true));
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
            let no = (Held::No, BTreeSet::new());
            for id in ids {
                let (was, hung) = b.get(id).unwrap_or(&no);
                let (is, hangs) = a.get(id).unwrap_or(&no);
                let (was, is) = (*was, *is);
                // An ID held on both sides: a gain of power is a grant of its own.
                if was != Held::No && is != Held::No {
                    let none = Vec::new();
                    let (before, after) =
                        (pb.get(id.as_str()).unwrap_or(&none), pa.get(id.as_str()).unwrap_or(&none));
                    let mut gains = powers::gains(id, before, after, &older, &mut change.hangs_on);
                    if (was, is) == (Held::Sure, Held::Sure) {
                        let none = Vec::new();
                        let sb = old_sure.get(t).and_then(|ids| ids.get(id.as_str())).unwrap_or(&none);
                        let sa = new_sure.get(t).and_then(|ids| ids.get(id.as_str())).unwrap_or(&none);
                        for gain in powers::gains(id, sb, sa, &older, &mut change.hangs_on) {
                            if !gains.contains(&gain) {
                                gains.push(gain);
                            }
                        }
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
    fn a_power_only_an_entry_they_may_hold_gave_is_gained_when_they_surely_hold_it() {
        use super::super::testing::power;
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
        use super::super::powers::{TTL_NAMES, gained};
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
        // The same pair on both sides: whichever BASE applied, HEAD applies.
        let pair = [("plain", false), ("admin", true)];
        assert_eq!(gains(side(&pair, &["plain", "admin"]), side(&pair, &[])), 0);
        // An object BASE held that declares the entry only now may be the older.
        assert_eq!(gains(side(&[("plain", false)], &["plain", "admin"]), side(&pair, &[])), 1);
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
