//! SPIRE Controller Manager's other objects compared: a `ClusterStaticEntry` or
//! `ClusterFederatedTrustDomain` added, removed or changed, by name (the report's
//! `staticEntries` and `federatedTrustDomains`), and one the manager may apply now in place of
//! another that declares the same entry or trust domain (`promoted`). Each reaches past the
//! pod templates of the input (a static entry every pod on its parent's node whose selectors
//! hold, a federation every workload that gets its bundle), so what grants is judged on the
//! object itself.

use super::preference;
use crate::api::cluster_spiffe_id::{FEDERATED_TRUST_DOMAIN_KIND, STATIC_ENTRY_KIND};
use crate::io::explain::Report;
use crate::io::explain::report::{FederationReport, StaticEntryReport};
use crate::reconcile::spire::server::{self, Verdict};
use crate::reconcile::spire::{source, spiffe_id};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One object that differs, with what of the change grants.
#[derive(Serialize, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SpireObjectChange {
    pub kind: &'static str,
    pub name: String,
    /// `added`, `removed` or `changed`; an object the manager does not read counts as absent.
    /// `promoted`: unchanged itself, it declares an entry (a trust domain) with objects BASE
    /// held, and the manager, which applies the oldest of them, may apply it now in place of
    /// one it may have applied before.
    pub change: &'static str,
    /// What the change gives that was not there: empty when it only takes away.
    pub grants: Vec<String>,
    /// The objects of its entry (its trust domain) whose declaration BASE may have applied,
    /// and HEAD may apply this one's instead: what it grants is over theirs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub in_place_of: Vec<String>,
}

impl SpireObjectChange {
    pub(super) fn grants(&self) -> bool {
        !self.grants.is_empty()
    }
}

/// The objects that differ from `before` to `after`, static entries first, each kind by name.
pub(super) fn compare(before: &Report, after: &Report) -> Vec<SpireObjectChange> {
    // Where an object stands (its file and line) is no change to it.
    let entry = |e: &StaticEntryReport| StaticEntryReport { at: None, ..e.clone() };
    let federation = |f: &FederationReport| FederationReport { at: None, ..f.clone() };
    // An object BASE declares that the cluster may not keep (an owner, a field its schema
    // does not know) is not surely held: by name, BASE counts it as absent, while HEAD's may
    // hold it. Among the declarations of one thing it may still be the one applied, but is
    // not surely older than HEAD's (`Declarations::by_thing`).
    let (kept_entries, kept_federations): (Vec<_>, Vec<_>) = (
        before.static_entries.iter().filter(|e| e.may_not_be_kept.is_none()).cloned().collect(),
        before.federated_trust_domains.iter().filter(|f| f.may_not_be_kept.is_none()).cloned().collect(),
    );
    let (entries, federations) = (
        Declarations {
            before: &before.static_entries,
            after: &after.static_entries,
            kind: STATIC_ENTRY_KIND,
        },
        Declarations {
            before: &before.federated_trust_domains,
            after: &after.federated_trust_domains,
            kind: FEDERATED_TRUST_DOMAIN_KIND,
        },
    );
    // A static entry the SPIRE server refuses is no entry, as one the manager does not read;
    // among the declarations of one entry it still counts, as the manager may keep it (and
    // then the server refuses the entry) or another.
    let stored = |e: &StaticEntryReport| e.read && !matches!(server(e), Verdict::Refuses(_));
    let mut out = by_name(&kept_entries, entries.after, |e| &e.name, stored)
        .filter_map(|(name, b, a)| {
            change(STATIC_ENTRY_KIND, name, b.map(entry).as_ref(), a.map(entry).as_ref(), static_grants)
        })
        .collect::<Vec<_>>();
    let kept = |e: &StaticEntryReport| e.may_not_be_kept.is_none();
    entries.by_thing(&mut out, |e| &e.name, |e| e.read, kept, entry_key, static_grants);
    let mut trust = by_name(&kept_federations, federations.after, |f| &f.name, |f| f.read)
        .filter_map(|(name, b, a)| {
            let (b, a) = (b.map(federation), a.map(federation));
            change(FEDERATED_TRUST_DOMAIN_KIND, name, b.as_ref(), a.as_ref(), federation_grants)
        })
        .collect::<Vec<_>>();
    let kept = |f: &FederationReport| f.may_not_be_kept.is_none();
    federations.by_thing(
        &mut trust,
        |f| &f.name,
        |f| f.read,
        kept,
        |f| f.trust_domain.clone(),
        federation_grants,
    );
    out.extend(trust);
    out
}

/// The objects of one kind on the two sides, each declaring one thing of which the manager
/// applies the oldest declaration: a static entry its entry, a federation its trust domain.
struct Declarations<'r, T> {
    before: &'r [T],
    after: &'r [T],
    kind: &'static str,
}

impl<'r, T> Declarations<'r, T> {
    /// Judges the objects HEAD reads of each thing (`key`) that BASE's declared too by the
    /// pairs of declarations the manager may apply on the two sides ([`preference::pairs`]):
    /// each such object's record in `changes` (this kind's, by name) grants what it gives over
    /// the declaration BASE may have applied in its place, or over its own, and nothing when
    /// it is never the oldest (an object HEAD adds beside one BASE held); an object unchanged
    /// itself that grants so is `promoted`. A thing BASE did not declare keeps its objects'
    /// by-name records, which already say what each gives anew.
    fn by_thing(
        &self,
        changes: &mut Vec<SpireObjectChange>,
        name: impl Fn(&T) -> &String,
        read: impl Fn(&T) -> bool,
        kept: impl Fn(&T) -> bool,
        key: impl Fn(&T) -> String,
        grants: fn(Option<&T>, &T) -> Vec<String>,
    ) {
        // Every object BASE held that the manager read: its creation time is the cluster's,
        // before HEAD's. One it did not read may never have been stored (a spec its webhook
        // refuses, a bundle it cannot read), and one the cluster may not keep may be gone: so
        // neither is surely older than one HEAD adds, but either may be older than the others
        // (one of another class that HEAD makes the manager's own).
        let (older, may_be): (BTreeSet<&str>, BTreeSet<&str>) = {
            let (sure, other): (Vec<&T>, Vec<&T>) = self.before.iter().partition(|t| read(t) && kept(t));
            let names = |list: Vec<&'r T>| list.into_iter().map(|t| name(t).as_str()).collect();
            (names(sure), names(other))
        };
        let [was, is] = [self.before, self.after].map(|list: &'r [T]| {
            let mut out: BTreeMap<String, Vec<&'r T>> = BTreeMap::new();
            for t in list.iter().filter(|t| read(t)) {
                out.entry(key(t)).or_default().push(t);
            }
            out
        });
        for (thing, declared) in &is {
            let Some(base) = was.get(thing) else { continue };
            let (base_names, head_names): (Vec<&str>, Vec<&str>) = (
                base.iter().map(|t| name(t).as_str()).collect(),
                declared.iter().map(|t| name(t).as_str()).collect(),
            );
            // Per HEAD object: what it grants, and over which other objects' declarations.
            let mut judged: Vec<(Vec<String>, Vec<String>)> = vec![Default::default(); declared.len()];
            // A declaration BASE may not have kept: BASE may have applied none of them, and
            // unless HEAD declares the thing as BASE did, each of HEAD's may give all it gives.
            let unchanged = base.len() == declared.len()
                && declared.iter().all(|a| {
                    base.iter()
                        .any(|b| name(b) == name(a) && kept(a) == kept(b) && grants(Some(b), a).is_empty())
                });
            let none_before = !unchanged && base.iter().any(|t| !kept(t));
            for (b, a) in preference::pairs(&base_names, &head_names, &older, &may_be, none_before) {
                let gains = grants(b.map(|b| base[b]), declared[a]);
                if gains.is_empty() {
                    continue;
                }
                let (given, over) = &mut judged[a];
                for g in gains {
                    if !given.contains(&g) {
                        given.push(g);
                    }
                }
                let Some(b) = b else { continue };
                let other = base_names[b].to_string();
                if other != head_names[a] && !over.contains(&other) {
                    over.push(other);
                }
            }
            for (a, (given, over)) in judged.into_iter().enumerate() {
                match changes.iter_mut().find(|c| c.name == head_names[a]) {
                    Some(record) => (record.grants, record.in_place_of) = (given, over),
                    None if !given.is_empty() => changes.push(SpireObjectChange {
                        kind: self.kind,
                        name: head_names[a].to_string(),
                        change: "promoted",
                        grants: given,
                        in_place_of: over,
                    }),
                    None => {}
                }
            }
        }
        changes.sort_by(|x, y| x.name.cmp(&y.name));
    }
}

/// The manager's key of a static entry's entry (`makeEntryKey`, pkg/spireentry/reconciler.go):
/// its SPIFFE ID, its parent ID, then its selectors ([`source::selectors_key`]).
fn entry_key(e: &StaticEntryReport) -> String {
    let selectors = source::selectors_key(e.selectors.iter().map(String::as_str));
    format!("{}{}{selectors}", e.spiffe_id, e.parent_id)
}

/// Per name on either side, the object the manager reads there, if any.
fn by_name<'r, T>(
    before: &'r [T],
    after: &'r [T],
    name: impl Fn(&T) -> &String,
    read: impl Fn(&T) -> bool,
) -> impl Iterator<Item = (String, Option<&'r T>, Option<&'r T>)> {
    let side = |list: &'r [T]| -> BTreeMap<String, &'r T> {
        list.iter().filter(|t| read(t)).map(|t| (name(t).clone(), t)).collect()
    };
    let (b, a) = (side(before), side(after));
    let names: BTreeSet<String> = b.keys().chain(a.keys()).cloned().collect();
    names.into_iter().map(move |n| {
        let (was, is) = (b.get(&n).copied(), a.get(&n).copied());
        (n, was, is)
    })
}

fn change<T: PartialEq>(
    kind: &'static str,
    name: String,
    before: Option<&T>,
    after: Option<&T>,
    grants: fn(Option<&T>, &T) -> Vec<String>,
) -> Option<SpireObjectChange> {
    let (change, grants) = match (before, after) {
        (None, Some(a)) => ("added", grants(None, a)),
        (Some(_), None) => ("removed", Vec::new()),
        (Some(b), Some(a)) if b != a => ("changed", grants(Some(b), a)),
        _ => return None,
    };
    Some(SpireObjectChange { kind, name, change, grants, in_place_of: Vec::new() })
}

/// What a static entry gives that `before` did not: its SPIFFE ID to the pods its parent and
/// selectors reach, more pods (another parent, a selector dropped), more power.
fn static_grants(before: Option<&StaticEntryReport>, after: &StaticEntryReport) -> Vec<String> {
    // An entry the SPIRE server refused gave nothing: what `after` gives is all new.
    let before = before.filter(|b| !matches!(server(b), Verdict::Refuses(_)));
    let mut grants = Vec::new();
    match before {
        None => grants.push(format!(
            "issues {} to pods on the node of {} with {}",
            after.spiffe_id,
            after.parent_id,
            if after.selectors.is_empty() { "any selectors".to_string() } else { after.selectors.join(", ") }
        )),
        Some(b) => {
            if b.spiffe_id != after.spiffe_id {
                grants.push(format!("issues {} instead of {}", after.spiffe_id, b.spiffe_id));
            }
            if b.parent_id != after.parent_id {
                grants.push(format!("parentID {}", after.parent_id));
            }
            for s in b.selectors.iter().filter(|s| !after.selectors.contains(s)) {
                grants.push(format!("drops selector {s}"));
            }
        }
    }
    // Stored for sure where BASE's was stored only if the server took it.
    if let (Some(Verdict::MayRefuse(why)), Verdict::Takes) = (before.map(server), server(after)) {
        grants.push(format!(
            "the SPIRE server surely stores its entry, where it stored BASE's only {}",
            why.condition()
        ));
    }
    // Its powers are an entry's, compared as a pod template's are.
    let power = before.map(StaticEntryReport::power);
    grants.extend(super::powers::gained(power.as_ref(), &after.power(), ["x509SVIDTTL", "jwtSVIDTTL"]));
    grants
}

/// What the SPIRE server does with a static entry's entry: its selectors, DNS names,
/// lifetimes, federations and hint, its own trust domain being its SPIFFE ID's.
fn server(entry: &StaticEntryReport) -> Verdict {
    let own = spiffe_id::parse(&entry.spiffe_id).ok().map(|(td, _)| td);
    let ttls =
        [("x509SVIDTTL", entry.x509_svid_ttl.as_deref()), ("jwtSVIDTTL", entry.jwt_svid_ttl.as_deref())];
    server::of_static_selectors(&entry.selectors, entry.store_svid)
        .and(server::of_entry(entry.dns_names.iter().map(String::as_str), ttls, &entry.federates_with, own))
        .and(server::of_hint(entry.hint.as_deref().unwrap_or_default()))
}

/// What a federation gives that `before` did not: any bundle it fetches is trusted anew, and
/// so is a `trustDomainBundle` it carries that `before` did not. The manager sends that bundle
/// whenever it creates or updates the relationship (`ParseClusterFederatedTrustDomainSpec`;
/// pkg/spirefederationrelationship `reconcile`): whether SPIRE holds the relationship already,
/// which would keep the bundle out until its endpoint or profile changes, only the cluster
/// knows.
fn federation_grants(before: Option<&FederationReport>, after: &FederationReport) -> Vec<String> {
    let mut grants = Vec::new();
    // The relationship the manager sends SPIRE (`FederationRelationship.Equal`), its bundle apart.
    let endpoint = |f: &FederationReport| {
        (f.trust_domain.clone(), f.bundle_endpoint_url.clone(), f.bundle_endpoint_profile.clone())
    };
    // A bundle the manager cannot read (`ParseClusterFederatedTrustDomainSpec`,
    // `spiffebundle.Read`) leaves the object ignored, which the build does not judge: BASE's,
    // carrying one HEAD drops or replaces, may never have made the relationship.
    let unread = before.is_some_and(|b| b.trust_domain_bundle.is_some())
        && before.is_some_and(|b| b.trust_domain_bundle != after.trust_domain_bundle);
    if before.is_none_or(|b| endpoint(b) != endpoint(after)) || unread {
        grants.push(format!(
            "trusts {} from {} ({})",
            after.trust_domain, after.bundle_endpoint_url, after.bundle_endpoint_profile
        ));
    }
    if let Some(bundle) = &after.trust_domain_bundle
        && before.is_none_or(|b| b.trust_domain_bundle.as_ref() != Some(bundle))
    {
        grants.push(format!("trusts {} by the trustDomainBundle it carries ({bundle})", after.trust_domain));
    }
    grants
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> StaticEntryReport {
        StaticEntryReport {
            at: None,
            name: "e".into(),
            read: true,
            spiffe_id: "spiffe://x/a".into(),
            parent_id: "spiffe://x/agent".into(),
            selectors: vec!["k8s:ns:a".into(), "k8s:sa:b".into()],
            admin: false,
            downstream: false,
            federates_with: Vec::new(),
            dns_names: Vec::new(),
            x509_svid_ttl: None,
            jwt_svid_ttl: None,
            store_svid: false,
            hint: None,
            may_not_be_kept: None,
        }
    }

    /// A report of those static entries and federations, sorted by name as `explain` sorts them.
    fn sides(mut static_entries: Vec<StaticEntryReport>, mut federations: Vec<FederationReport>) -> Report {
        static_entries.sort_by(|a, b| a.name.cmp(&b.name));
        federations.sort_by(|a, b| a.name.cmp(&b.name));
        Report {
            config: None,
            spire: None,
            bindings: Vec::new(),
            workloads: Vec::new(),
            findings: Vec::new(),
            reach: Vec::new(),
            static_entries,
            federated_trust_domains: federations,
            unjudged: Vec::new(),
            object_names: Vec::new(),
            admission_guard: None,
        }
    }

    /// (kind of change, name, grants, in place of) of each record.
    fn records(before: &Report, after: &Report) -> Vec<(&'static str, String, Vec<String>, Vec<String>)> {
        compare(before, after).into_iter().map(|c| (c.change, c.name, c.grants, c.in_place_of)).collect()
    }

    #[test]
    fn static_entries_of_one_entry_are_judged_by_the_declaration_the_manager_may_apply() {
        let named = |name: &str, admin: bool| StaticEntryReport { name: name.into(), admin, ..entry() };
        let (plain, admin) = (named("plain", false), named("admin", true));
        let side =
            |list: &[&StaticEntryReport]| sides(list.iter().map(|e| (*e).clone()).collect(), Vec::new());
        let both = side(&[&plain, &admin]);
        // The pair unchanged: whichever the manager applied, it still applies.
        assert!(compare(&both, &both).is_empty());
        // The one it may have applied deleted: the other is promoted, with its powers.
        let promoted = records(&both, &side(&[&admin]));
        let admin_record =
            ("promoted", "admin".to_string(), vec!["admin".to_string()], vec!["plain".to_string()]);
        assert_eq!(promoted, [admin_record.clone(), ("removed", "plain".into(), vec![], vec![])]);
        // So, too, when it leaves the entry: another key (a selector added), another class.
        let mut moved = plain.clone();
        moved.selectors.push("k8s:pod-label:app:x".into());
        assert_eq!(records(&both, &side(&[&moved, &admin]))[0], admin_record);
        let unread = StaticEntryReport { read: false, ..plain.clone() };
        assert_eq!(records(&both, &side(&[&unread, &admin]))[0], admin_record);
        // One HEAD adds beside one BASE held is younger: never applied, no grant.
        let added = records(&side(&[&plain]), &side(&[&plain, &admin]));
        assert_eq!(added, [("added", "admin".to_string(), vec![], vec![])]);
        // One BASE held that joins the entry (its selectors now the entry's) may be the older.
        let mut elsewhere = admin.clone();
        elsewhere.selectors.truncate(1);
        let joined = records(&side(&[&plain, &elsewhere]), &side(&[&plain, &admin]));
        assert_eq!(
            joined,
            [("changed", "admin".to_string(), vec!["admin".to_string()], vec!["plain".to_string()])]
        );
        // Another parent is another entry: a new one, judged by name.
        let mut other_parent = admin.clone();
        other_parent.parent_id = "spiffe://x/other-agent".into();
        assert_eq!(
            entry_key(&plain),
            entry_key(&StaticEntryReport {
                selectors: vec!["k8s:sa:b".into(), "k8s:ns:a".into()],
                ..plain.clone()
            })
        );
        assert_ne!(entry_key(&plain), entry_key(&other_parent));
        let elsewhere = records(&side(&[&plain]), &side(&[&plain, &other_parent]));
        assert_eq!((elsewhere[0].0, elsewhere[0].2.len()), ("added", 2), "issues it, with admin");
    }

    #[test]
    fn one_base_may_not_have_stored_or_kept_may_still_be_older_than_the_rest() {
        let named = |name: &str, admin: bool| StaticEntryReport { name: name.into(), admin, ..entry() };
        let (plain, admin) = (named("plain", false), named("admin", true));
        let side =
            |list: &[&StaticEntryReport]| sides(list.iter().map(|e| (*e).clone()).collect(), Vec::new());
        // Of another class in BASE, yet stored, perhaps before `plain`: made the manager's own,
        // it may be the oldest of the entry's declarations.
        let other_class = StaticEntryReport { read: false, ..admin.clone() };
        let joined = records(&side(&[&plain, &other_class]), &side(&[&plain, &admin]));
        assert_eq!(
            joined,
            [("added", "admin".to_string(), vec!["admin".to_string()], vec!["plain".to_string()])]
        );
        // Only it left of BASE's: not surely stored (its spec unread), so not surely older than
        // one HEAD adds, which may be applied in place of the one HEAD deletes.
        let gone = named("gone", false);
        let unread = StaticEntryReport { read: false, ..named("kept", false) };
        let (kept, new) = (named("kept", false), named("new", true));
        let over_gone = records(&side(&[&gone, &unread]), &side(&[&kept, &new]));
        let new_record = over_gone.iter().find(|r| r.1 == "new").expect("new judged");
        assert_eq!(new_record.2, ["admin"], "{over_gone:?}");
        // Two BASE may not have kept, their powers swapped: each may be applied over nothing.
        let unkept = |e: &StaticEntryReport| StaticEntryReport {
            may_not_be_kept: Some("an owner".into()),
            ..e.clone()
        };
        let (p_admin, q_plain) = (unkept(&named("p", true)), unkept(&named("q", false)));
        let (p_plain, q_admin) = (unkept(&named("p", false)), unkept(&named("q", true)));
        let swapped = records(&side(&[&p_admin, &q_plain]), &side(&[&p_plain, &q_admin]));
        let q = swapped.iter().find(|r| r.1 == "q").expect("q judged");
        assert!(q.2.iter().any(|g| g.starts_with("issues spiffe://x/a")), "{swapped:?}");
    }

    #[test]
    fn federations_of_one_trust_domain_are_judged_by_the_one_the_manager_may_use() {
        let f = |name: &str, url: &str| FederationReport {
            at: None,
            name: name.into(),
            read: true,
            trust_domain: "p.org".into(),
            bundle_endpoint_url: url.into(),
            bundle_endpoint_profile: "https_web".into(),
            trust_domain_bundle: None,
            may_not_be_kept: None,
        };
        let (real, standby) = (f("real", "https://real"), f("standby", "https://standby"));
        let side =
            |list: &[&FederationReport]| sides(Vec::new(), list.iter().map(|f| (*f).clone()).collect());
        let both = side(&[&real, &standby]);
        assert!(compare(&both, &both).is_empty(), "unchanged");
        let promoted = records(&both, &side(&[&standby]));
        assert_eq!(
            promoted[1],
            (
                "promoted",
                "standby".to_string(),
                vec!["trusts p.org from https://standby (https_web)".to_string()],
                vec!["real".to_string()]
            )
        );
        // A standby HEAD adds is younger than the one BASE used: the manager skips it.
        assert_eq!(
            records(&side(&[&real]), &side(&[&real, &standby])),
            [("added", "standby".to_string(), vec![], vec![])]
        );
        // Two that agree on the relationship: none is promoted over the other.
        let same = f("same", "https://real");
        assert_eq!(
            records(&side(&[&real, &same]), &side(&[&same])),
            [("removed", "real".to_string(), vec![], vec![])]
        );
    }

    #[test]
    fn a_static_entry_grants_when_added_widened_or_given_power_and_not_when_narrowed() {
        let base = entry();
        assert_eq!(static_grants(None, &base).len(), 1, "added");
        type Edit = fn(&mut StaticEntryReport);
        let cases: [(Edit, &str); 8] = [
            (|e| e.spiffe_id = "spiffe://x/b".into(), "issues spiffe://x/b instead of spiffe://x/a"),
            (|e| e.parent_id = "spiffe://x/other".into(), "parentID spiffe://x/other"),
            (|e| e.selectors.truncate(1), "drops selector k8s:sa:b"),
            (|e| e.admin = true, "admin"),
            (|e| e.downstream = true, "downstream"),
            (|e| e.federates_with = vec!["p.org".into()], "federatesWith p.org"),
            (|e| e.dns_names = vec!["a.x".into()], "dnsName a.x"),
            (|e| e.x509_svid_ttl = Some("48h".into()), "x509SVIDTTL 48h"),
        ];
        for (edit, word) in cases {
            let mut head = entry();
            edit(&mut head);
            assert_eq!(static_grants(Some(&base), &head), [word]);
            assert!(
                static_grants(Some(&head), &base).iter().all(|g| g.starts_with("issues")
                    || g.starts_with("parentID")
                    || g.contains("server's default")
                    || g.starts_with("the SPIRE server surely stores its entry")),
                "{word} undone"
            );
        }
        let mut narrowed = entry();
        narrowed.selectors.push("k8s:pod-label:app:x".into());
        assert!(static_grants(Some(&base), &narrowed).is_empty(), "a selector added narrows");
    }

    #[test]
    fn a_static_entry_the_server_refuses_for_its_selectors_or_may_refuse_for_its_hint_is_judged_so() {
        let changed = |before: StaticEntryReport, after: StaticEntryReport| {
            compare(&sides(vec![before], Vec::new()), &sides(vec![after], Vec::new()))
        };
        let mut none = entry();
        none.selectors.clear();
        let grants = changed(none, entry());
        assert!(grants[0].grants[0].starts_with("issues spiffe://x/a"), "none were stored: {grants:?}");
        let mut mixed = entry();
        mixed.store_svid = true;
        mixed.selectors.push("unix:uid:0".into());
        let mut kept = mixed.clone();
        kept.store_svid = false;
        let grants = changed(mixed, kept);
        assert!(
            grants[0].grants[0].starts_with("issues spiffe://x/a"),
            "storeSVID over two types: {grants:?}"
        );
        let mut long = entry();
        long.hint = Some("h".repeat(1025));
        let grants = changed(long, entry());
        assert!(grants[0].grants.iter().any(|g| g.contains("takes its hint")), "{grants:?}");
    }

    #[test]
    fn a_static_entry_the_spire_server_refuses_is_none_and_one_it_may_refuse_is_a_may() {
        let side = |edit: fn(&mut StaticEntryReport)| {
            let mut report = crate::io::diff::testing::report(serde_json::json!([]), serde_json::json!([]));
            let mut e = entry();
            edit(&mut e);
            report.static_entries = vec![e];
            report
        };
        let changes = |before, after| compare(&side(before), &side(after));
        // A lifetime received below 0 (here after the int32 conversion): no entry in BASE.
        for refused in [
            (|e: &mut StaticEntryReport| e.x509_svid_ttl = Some("-1h".into())) as fn(&mut StaticEntryReport),
            |e| e.jwt_svid_ttl = Some("2147483648s".into()),
            |e| e.dns_names = vec!["a..x".into()],
        ] {
            let fixed = changes(refused, |_| {});
            assert_eq!((fixed[0].change, fixed[0].grants[0].starts_with("issues")), ("added", true));
            assert_eq!(changes(|_| {}, refused)[0].change, "removed");
        }
        // A federation whose bundle the server may not hold, or a DNS name some servers
        // refuse: dropping it makes the entry sure.
        for may in [
            (|e: &mut StaticEntryReport| e.federates_with = vec!["p.org".into()])
                as fn(&mut StaticEntryReport),
            |e| e.dns_names = vec!["a_b.x".into()],
        ] {
            let sure = changes(may, |_| {});
            assert!(sure[0].grants[0].starts_with("the SPIRE server surely stores its entry"), "{sure:?}");
        }
        // Its own trust domain's bundle the server holds.
        assert!(changes(|e| e.federates_with = vec!["x".into()], |_| {})[0].grants.is_empty());
    }

    #[test]
    fn a_federation_grants_when_added_or_pointed_elsewhere_and_a_class_that_is_not_read_is_none() {
        let f = |url: &str, read: bool| FederationReport {
            at: None,
            name: "p".into(),
            read,
            trust_domain: "p.org".into(),
            bundle_endpoint_url: url.into(),
            bundle_endpoint_profile: "https_web".into(),
            trust_domain_bundle: None,
            may_not_be_kept: None,
        };
        let report = |list: Vec<FederationReport>| sides(Vec::new(), list);
        let changes = compare(&report(vec![]), &report(vec![f("https://a", true)]));
        assert_eq!((changes[0].change, changes[0].grants()), ("added", true));
        let unkept = FederationReport { may_not_be_kept: Some("an owner".into()), ..f("https://a", true) };
        let changes = compare(&report(vec![unkept]), &report(vec![f("https://a", true)]));
        assert_eq!((changes[0].change, changes[0].grants()), ("added", true), "BASE may never have kept it");
        let changes = compare(&report(vec![f("https://a", true)]), &report(vec![f("https://b", true)]));
        assert_eq!((changes[0].change, changes[0].grants()), ("changed", true));
        assert!(compare(&report(vec![]), &report(vec![f("https://a", false)])).is_empty(), "not read");
        let changes = compare(&report(vec![f("https://a", true)]), &report(vec![]));
        assert_eq!((changes[0].change, changes[0].grants()), ("removed", false));
        // A bundle carried is trusted when SPIRE takes it: added or replaced it grants, gone it
        // does not, and it grants beside an endpoint moved.
        let carrying = |bundle: &str| FederationReport {
            trust_domain_bundle: Some(bundle.into()),
            ..f("https://a", true)
        };
        let grants = |b: FederationReport, a: FederationReport| {
            compare(&report(vec![b]), &report(vec![a])).into_iter().flat_map(|c| c.grants).collect::<Vec<_>>()
        };
        assert_eq!(
            grants(f("https://a", true), carrying("sha256:1")),
            ["trusts p.org by the trustDomainBundle it carries (sha256:1)"]
        );
        // BASE's bundle may have been one the manager could not read, and its relationship
        // never made: replaced or dropped, the federation may be made now.
        assert_eq!(grants(carrying("sha256:1"), carrying("sha256:2")).len(), 2, "replaced");
        assert_eq!(
            grants(carrying("sha256:1"), f("https://a", true)),
            ["trusts p.org from https://a (https_web)"],
            "dropped"
        );
        assert!(grants(carrying("sha256:1"), carrying("sha256:1")).is_empty(), "kept");
        let moved_with = FederationReport { bundle_endpoint_url: "https://b".into(), ..carrying("sha256:2") };
        assert_eq!(grants(f("https://a", true), moved_with).len(), 2, "endpoint and bundle");
        let added = compare(&report(vec![]), &report(vec![carrying("sha256:1")]));
        assert_eq!(added[0].grants.len(), 2, "a new federation carrying a bundle");
        // The same object elsewhere in the files (each side's own path, another line) is none.
        use crate::io::explain::report::At;
        let moved = |line| FederationReport { at: Some(At { file: None, line }), ..f("https://a", true) };
        assert!(compare(&report(vec![moved(1)]), &report(vec![moved(9)])).is_empty(), "moved");
    }
}
