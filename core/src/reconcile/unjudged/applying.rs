//! What may stand while a pull request is applied. An applier applies one object at a time,
//! in an order the pull request can set, keeps or prunes what it drops, and a workload's old
//! pods run until they are replaced: so beside each side's own objects, the other side's may
//! stand. `diff` judges HEAD, and BASE, with each [`Mix`] of the two (`src/io/diff/mod.rs`).

use super::duplicates::{Key, cluster_scoped_kinds, key_of};
use super::narrowed;
use crate::api::value::Value;
use crate::api::{fields, group_of};
use crate::reconcile::items::input::Input;
use crate::reconcile::items::kinds;
use std::collections::BTreeMap;

/// A state the cluster may pass through while a pull request is applied: one side's
/// objects, with the other side's version of each object of some [`parts`], and BASE's
/// objects HEAD drops kept beside HEAD's or pruned from BASE's. HEAD's identities (its
/// objects that declare identities, [`kinds::DECLARES_IDENTITIES`]) are taken whole; BASE's
/// take HEAD's bindings, pools or SPIRE objects by part, so a pool of one side beside the
/// bindings of the other is judged. Objects of one part move together: one binding of each
/// side at once is not judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    /// HEAD's identities, with BASE's objects taken in; else BASE's, with HEAD's.
    pub head: bool,
    /// The parts of the other side's objects taken in, by their bits ([`parts`]).
    pub parts: u8,
    /// With HEAD's identities, BASE's objects HEAD drops kept beside them (an applier may
    /// keep them); with BASE's, pruned (Argo CD prunes first in a sync wave).
    pub dropped: bool,
    /// The side whole, but each ClusterSPIFFEID the pull request changes narrowed to what
    /// both its versions select ([`super::narrowed`]), and HEAD's added bindings and
    /// identities not yet applied (HEAD's side) or BASE's dropped ones pruned before the rest
    /// (BASE's, with [`Mix::dropped`]): the fewest entries any order of the identities leaves,
    /// which stands for every such order where a fallback identity takes the pods left
    /// without one.
    pub narrowed: bool,
    /// BASE's identities with HEAD's version of only some of the SPIRE objects it adds or
    /// changes, by their bits in [`spire_changes`]' order: one of them applied while another
    /// is still BASE's (an older declaration of an entry moved away before a newer one with
    /// more power is changed: the newer applies meanwhile). 0 where the part moves whole.
    pub one_by_one: u16,
}

/// The most SPIRE objects a pull request adds or changes whose every choice of sides is
/// judged ([`Mix::one_by_one`]); beyond, each alone from either side.
pub const ONE_BY_ONE: usize = 4;

/// The parts of a side's objects, which an applier may apply in any order: of those that
/// declare no identity, workloads (a workload's old pods run until a rollout replaces them),
/// what gives pods DNS names, Namespaces (their labels), the rest; of those that declare
/// identities, bindings, pools (the operator reads a binding's pool as it stands) and SPIRE's
/// own objects.
pub mod parts {
    pub const PODS: u8 = 1;
    pub const SERVICES: u8 = 2;
    pub const NAMESPACES: u8 = 4;
    pub const REST: u8 = 8;
    pub const BINDINGS: u8 = 16;
    pub const POOLS: u8 = 32;
    pub const SPIRE: u8 = 64;
    /// The parts of the objects that declare identities.
    pub const IDENTITIES: u8 = BINDINGS | POOLS | SPIRE;
}

impl Mix {
    /// HEAD with BASE's objects it drops and those whose HEAD version the API server refuses:
    /// the mix `diff` reads first, which tells what the sides differ in.
    pub const FIRST: Mix = Mix { head: true, parts: 0, dropped: true, narrowed: false, one_by_one: 0 };

    /// Every mix a pull request that differs by `sides` makes possible, but HEAD and BASE
    /// themselves, in the order `diff` judges them: HEAD's identities first, with the most
    /// parts of BASE's first; then, where the sides' identities differ (else the same states
    /// again), BASE's with each of HEAD's parts but all of them (HEAD again, or the first mix).
    pub fn all(sides: Differ) -> Vec<Mix> {
        let subsets = |of: u8| {
            let mut subsets: Vec<u8> = (0..=of).filter(|s| s & !of == 0).collect();
            subsets.sort_by_key(|s| (*s != 0, std::cmp::Reverse(*s)));
            subsets
        };
        let mut out = Vec::new();
        for dropped in [true, false].into_iter().filter(|d| *d || sides.dropped) {
            for parts in subsets(sides.parts & !parts::IDENTITIES) {
                let alone = parts == 0 && !(dropped && sides.dropped) && !sides.refused;
                if !alone {
                    out.push(Mix { head: true, parts, dropped, narrowed: false, one_by_one: 0 });
                }
            }
        }
        if sides.identities {
            for dropped in [false, true].into_iter().filter(|d| !*d || sides.dropped) {
                for parts in subsets(sides.parts) {
                    if (parts != 0 || dropped) && parts != sides.parts {
                        out.push(Mix { head: false, parts, dropped, narrowed: false, one_by_one: 0 });
                    }
                }
            }
        }
        if sides.narrowed {
            // Each narrowed state beside each choice of the other side's parts but SPIRE's own
            // objects, which it narrows (old pods beside HEAD's fallback, HEAD's pool beside
            // BASE's bindings), those without first; HEAD's keeps its bindings and pools, as
            // BASE's with HEAD's but them stands for it.
            let pruned = [(true, false), (false, false), (false, true)];
            for parts in subsets(sides.parts & !parts::SPIRE) {
                let states = pruned.into_iter().filter(|&(head, dropped)| {
                    !(dropped && (head || !sides.dropped)) && !(head && parts & parts::IDENTITIES != 0)
                });
                out.extend(states.map(|(head, dropped)| Mix {
                    head,
                    parts,
                    dropped,
                    narrowed: true,
                    one_by_one: 0,
                }));
            }
        }
        // BASE's identities with some of HEAD's SPIRE objects: every choice of up to
        // [`ONE_BY_ONE`] of them, else each alone and each but one.
        let n = sides.spire.min(16);
        if n >= 2 {
            let all = (1u32 << n) - 1;
            let masks: Vec<u32> = if n <= ONE_BY_ONE {
                (1..all).collect()
            } else {
                (0..n).flat_map(|k| [1 << k, all & !(1 << k)]).collect()
            };
            out.extend(masks.into_iter().map(|m| Mix {
                head: false,
                parts: 0,
                dropped: false,
                narrowed: false,
                one_by_one: m as u16,
            }));
        }
        out
    }
}

/// What two sides differ in, for [`Mix::all`]: objects HEAD drops, objects whose HEAD
/// version the API server refuses, objects that declare identities, and the [`parts`] of
/// those that declare none it changes or adds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Differ {
    pub dropped: bool,
    pub refused: bool,
    pub identities: bool,
    pub parts: u8,
    /// A binding or ClusterSPIFFEID that may leave a pod without its entry for a moment
    /// (changed, added or dropped), beside a fallback one ([`Mix::narrowed`]).
    pub narrowed: bool,
    /// How many SPIRE objects HEAD adds or changes ([`Mix::one_by_one`]).
    pub spire: usize,
}

/// What `head` and `base` differ in.
pub fn differ(head: &[Input], base: &[Input]) -> Differ {
    let of_head = lingering(head, base);
    let added_at = lingering(base, head).dropped;
    let added = added_at.iter().map(|&p| part_of(&head[p]));
    let changed =
        of_head.replaced.iter().chain(&of_head.changed).map(|&(p, at)| pair_part(&base[p], &head[at]));
    let identities = |items: &[Input]| {
        let mut texts: Vec<String> =
            items.iter().filter(|i| declares_identities(i)).map(|i| format!("{:?}", i.value())).collect();
        texts.sort_unstable();
        texts
    };
    Differ {
        dropped: !of_head.dropped.is_empty(),
        refused: !of_head.refused.is_empty(),
        identities: identities(head) != identities(base),
        parts: changed.chain(added).fold(0, |all, part| all | part),
        narrowed: (of_head.changed.iter().any(|&(p, at)| narrowed::narrowable(&base[p], &head[at]))
            || of_head.dropped.iter().any(|&p| narrowed::covers(&base[p]))
            || added_at.iter().any(|&p| narrowed::covers(&head[p])))
            && (narrowed::has_fallback(head) || narrowed::has_fallback(base)),
        spire: spire_changes(head, base, &of_head, &added_at).len(),
    }
}

/// The SPIRE objects HEAD adds or changes, in order: each one's position in `head`, and in
/// `base` where it has one. `of_head` is `lingering(head, base)`, `added` the positions in
/// `head` of what `base` lacks (`lingering(base, head).dropped`).
pub fn spire_changes(
    head: &[Input],
    base: &[Input],
    of_head: &Lingering,
    added: &[usize],
) -> Vec<(usize, Option<usize>)> {
    let changed = of_head.changed.iter().filter(|&&(p, at)| pair_part(&base[p], &head[at]) == parts::SPIRE);
    let added = added.iter().filter(|&&at| part_of(&head[at]) == parts::SPIRE);
    changed.map(|&(p, at)| (at, Some(p))).chain(added.map(|&at| (at, None))).collect()
}

/// The parts of an object both sides declare, in two versions: each version's, so that an
/// object that is a workload on one side only moves with either part.
fn pair_part(base: &Input, head: &Input) -> u8 {
    part_of(base) | part_of(head)
}

/// The part an object is of ([`parts`]).
fn part_of(item: &Input) -> u8 {
    if declares_identities(item) {
        return match item.value().and_then(|v| fields::str_at(v, "kind")) {
            Some("InferenceIdentityBinding") => parts::BINDINGS,
            Some("InferencePool") => parts::POOLS,
            _ => parts::SPIRE,
        };
    }
    if item.workload().is_some() {
        return parts::PODS;
    }
    match item.value().and_then(|v| fields::str_at(v, "kind")) {
        Some("Service" | "Endpoints" | "EndpointSlice") => parts::SERVICES,
        Some("Namespace") => parts::NAMESPACES,
        _ => parts::REST,
    }
}

/// Why an object of the other side is taken in, or one of the side's own taken out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lingers {
    /// HEAD does not declare it: an applier may leave it in place.
    Dropped,
    /// The API server refuses HEAD's version of it: it keeps BASE's.
    Refused,
    /// HEAD changes it, and it declares no identity: BASE's version may stand beside HEAD's
    /// identities, a workload's old pods until they are replaced.
    Old,
    /// HEAD adds or changes it: it may stand beside BASE's other objects before HEAD's are
    /// applied (HEAD's pool beside BASE's bindings, say).
    New,
    /// HEAD does not declare it: an applier may prune it before it applies HEAD.
    Pruned,
    /// HEAD changes what it selects: beside another of its part, one of either side's
    /// versions may stand, and a pod selected by neither goes to a fallback identity.
    Narrowed,
    /// HEAD adds it, and it gives pods entries: an applier may apply it after the rest.
    Later,
}

/// One object a mix moves: `from` in the other side's items, taken in after the side's own
/// or in place of the one at `at`; or the side's own at `at`, taken out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    In {
        from: usize,
        at: Option<usize>,
    },
    Out {
        at: usize,
    },
    /// The side's own at `at`, narrowed to what the other side's at `from` selects too.
    Narrowed {
        from: usize,
        at: usize,
    },
}

/// What the side `items` takes of `other` under `mix`, and why: HEAD's items and BASE's
/// where [`Mix::head`], else BASE's and HEAD's.
pub fn mix(items: &[Input], other: &[Input], mix: Mix) -> Vec<(Take, Lingers)> {
    if mix.narrowed {
        // The fewest entries any order leaves: each changed identity narrowed, HEAD's added
        // ones not yet applied, or BASE's dropped ones pruned first.
        let (base, head) = if mix.head { (other, items) } else { (items, other) };
        let of_head = lingering(head, base);
        let changed = of_head.changed.into_iter();
        let changed = changed.filter(|&(p, at)| narrowed::narrowable(&base[p], &head[at]));
        let takes = changed.map(|(p, at)| if mix.head { (p, at) } else { (at, p) });
        let mut out: Vec<_> =
            takes.map(|(from, at)| (Take::Narrowed { from, at }, Lingers::Narrowed)).collect();
        if mix.head {
            let added = lingering(base, head).dropped.into_iter().filter(|&at| narrowed::covers(&head[at]));
            out.extend(added.map(|at| (Take::Out { at }, Lingers::Later)));
        } else if mix.dropped {
            // Those that give entries, pruned before the rest (a fallback among the rest).
            let dropped = of_head.dropped.into_iter().filter(|&at| narrowed::covers(&base[at]));
            out.extend(dropped.map(|at| (Take::Out { at }, Lingers::Pruned)));
        }
        let parts = mix.parts & if mix.head { !parts::IDENTITIES } else { !parts::SPIRE };
        if parts != 0 {
            let beside = Mix { head: mix.head, parts, dropped: false, narrowed: false, one_by_one: 0 };
            out.extend(
                self::mix(items, other, beside).into_iter().filter(|(_, why)| *why != Lingers::Refused),
            );
        }
        return out;
    }
    let mut out = Vec::new();
    // HEAD's identities stay whole.
    let parts = if mix.head { mix.parts & !parts::IDENTITIES } else { mix.parts };
    let taken = |part: u8| part & parts != 0;
    if mix.head {
        let of_head = lingering(items, other);
        if mix.dropped {
            out.extend(of_head.dropped.iter().map(|&p| (Take::In { from: p, at: None }, Lingers::Dropped)));
        }
        let refused = of_head.refused.iter();
        out.extend(refused.map(|&(p, at)| (Take::In { from: p, at: Some(at) }, Lingers::Refused)));
        let changed = of_head.replaced.iter().chain(&of_head.changed);
        let changed = changed.filter(|&&(p, at)| taken(pair_part(&other[p], &items[at])));
        out.extend(changed.map(|&(p, at)| (Take::In { from: p, at: Some(at) }, Lingers::Old)));
        return out;
    }
    let of_head = lingering(other, items);
    let added_at = lingering(items, other).dropped;
    if mix.one_by_one != 0 {
        let spire = spire_changes(other, items, &of_head, &added_at);
        let chosen = spire.into_iter().enumerate().filter(|(k, _)| mix.one_by_one >> k & 1 == 1);
        out.extend(chosen.map(|(_, (from, at))| (Take::In { from, at }, Lingers::New)));
    }
    if mix.dropped {
        out.extend(of_head.dropped.iter().map(|&at| (Take::Out { at }, Lingers::Pruned)));
    }
    let changed = of_head.replaced.iter().chain(&of_head.changed);
    let changed = changed.filter(|&&(at, from)| taken(pair_part(&items[at], &other[from])));
    out.extend(changed.map(|&(at, from)| (Take::In { from, at: Some(at) }, Lingers::New)));
    let added = added_at.into_iter().filter(|&p| taken(part_of(&other[p])));
    out.extend(added.map(|from| (Take::In { from, at: None }, Lingers::New)));
    out
}

/// What of `before`'s objects may still run where `after` is applied: by position in
/// `before`, each object `after` does not declare (no item of one API group, kind and name in
/// the same namespace, or where either names none, as a copy without one lands in any), each
/// whose update the API server refuses, each workload whose pod templates `after` changes,
/// and each other object it changes that declares no identity, with the positions in `after`
/// of its versions.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Lingering {
    /// An applier may leave them in place: `kubectl apply` deletes nothing without `--prune`;
    /// Argo CD prunes only when a sync is told to, and never an object marked
    /// `argocd.argoproj.io/sync-options: Prune=false` (gitops-engine
    /// `pkg/sync/sync_context.go`); `kpt live apply` keeps one marked
    /// `cli-utils.sigs.k8s.io/on-remove: keep` (cli-utils
    /// `pkg/apply/filter/prevent-remove-filter.go`).
    pub dropped: Vec<usize>,
    /// (in `before`, in `after`): the API server refuses `after`'s version as an update of
    /// `before`'s ([`refused_update`]), so `before`'s stays. A workload so refused holds no
    /// templates in `after` and is among `dropped`.
    pub refused: Vec<(usize, usize)>,
    /// (in `before`, in `after`): its pods as `before` declares them run until they are
    /// replaced: a rollout replaces them a few at a time (kubernetes
    /// `pkg/controller/deployment/rolling.go`), and an update the API server refuses keeps
    /// them (a selector it keeps as first written: `ValidateDeploymentUpdate`).
    pub replaced: Vec<(usize, usize)>,
    /// (in `before`, in `after`): any other change. An applier applies one object at a time,
    /// in an order the manifests can set (the order of the files for `kubectl apply -R`, sync
    /// waves for Argo CD, `config.kubernetes.io/depends-on` for `kpt live apply`, each waiting
    /// for the pods), so either side's version may stand beside the other side's other objects.
    pub changed: Vec<(usize, usize)>,
}

/// What of `before`'s objects may still run where `after` is applied ([`Lingering`]).
pub fn lingering(after: &[Input], before: &[Input]) -> Lingering {
    let mut cluster = cluster_scoped_kinds(after);
    cluster.extend(cluster_scoped_kinds(before));
    let mut declared: BTreeMap<Key, Vec<(String, usize)>> = BTreeMap::new();
    for (position, item) in after.iter().enumerate() {
        let Some((key, namespace)) = key_of(item, &cluster) else { continue };
        declared.entry(key).or_default().push((namespace, position));
    }
    let mut out = Lingering::default();
    for (position, item) in before.iter().enumerate() {
        let Some((key, namespace)) = key_of(item, &cluster) else { continue };
        let same: Vec<(usize, bool)> = declared
            .get(&key)
            .into_iter()
            .flatten()
            .filter(|(ns, _)| ns.is_empty() || namespace.is_empty() || *ns == namespace)
            .map(|(ns, p)| (*p, *ns != namespace))
            .collect();
        if same.is_empty() {
            out.dropped.push(position);
            continue;
        }
        // Every version `after` declares of it: copies, or one in each namespace a copy of
        // `before` without one may have landed in.
        let was = item.workload().map(|w| w.placed_in(""));
        for (at, placed) in same {
            if refused_update(item.value(), after[at].value()) {
                out.refused.push((position, at));
            } else if let Some(was) = &was
                && after[at].workload().is_some_and(|now| now.placed_in("") != *was)
            {
                out.replaced.push((position, at));
            } else if if placed || namespace.is_empty() {
                unplaced(&after[at]) != unplaced(item)
            } else {
                after[at] != *item
            } {
                out.changed.push((position, at));
            }
        }
    }
    out
}

/// Whether the API server refuses `after` as an update of `before`, for what the build judges
/// of it: its metadata ([`crate::api::object_meta::refusal`], checked on every update:
/// apimachinery `ValidateObjectMetaAccessorUpdate`), a SPIRE object's spec against its schema
/// ([`crate::api::cluster_spiffe_id::schema_refusal`]: apiextensions-apiserver
/// `customResourceStrategy.ValidateUpdate`), a Service's ([`service_refused`]).
fn refused_update(before: Option<&Value>, after: Option<&Value>) -> bool {
    let Some(after) = after else { return false };
    let text = |value: &Value, path: &str| fields::str_at(value, path).map(str::to_string);
    let kind = text(after, "kind").unwrap_or_default();
    after.get("metadata").is_some_and(|m| crate::api::object_meta::refusal(m).is_some())
        || crate::api::cluster_spiffe_id::schema_refusal(&kind, after).is_some()
        || (group_of(&text(after, "apiVersion").unwrap_or_default()).is_empty()
            && kind == "Service"
            && service_refused(before, after))
}

/// Whether the API server refuses Service `after` as an update of `before`, for what decides
/// the pods it selects (kubernetes `pkg/apis/core/validation`, `ValidateServiceUpdate`, which
/// runs `ValidateService`): a cluster IP set once that it changes (its first `clusterIPs` where
/// it writes no `clusterIP`: the API server fills the old one in, `patchAllocatedValues`), its
/// primary IP family where both versions have a cluster IP (`validateUpgradeDowngradeIPFamilies`),
/// its `loadBalancerClass` where both are `LoadBalancer`s (`validateLoadBalancerClassField`),
/// no ports where it is neither headless nor an `ExternalName`, a selector label it refuses.
fn service_refused(before: Option<&Value>, after: &Value) -> bool {
    let text = |value: &Value, path: &str| fields::str_at(value, path).map(str::to_string);
    let first_ip = |value: &Value| {
        let listed = fields::child(value, &["spec", "clusterIPs"]).and_then(Value::as_array);
        listed.and_then(|ips| ips.first()).and_then(Value::as_str).map(str::to_string)
    };
    let cluster_ip =
        |value: &Value| text(value, "spec.clusterIP").or_else(|| first_ip(value)).filter(|ip| !ip.is_empty());
    let moved =
        before.and_then(cluster_ip).is_some_and(|was| cluster_ip(after).is_some_and(|now| now != was));
    let headless = text(after, "spec.clusterIP").as_deref() == Some("None");
    let external = text(after, "spec.type").as_deref() == Some("ExternalName");
    let has_ip = |value: &Value| {
        text(value, "spec.clusterIP").as_deref() != Some("None")
            && text(value, "spec.type").as_deref() != Some("ExternalName")
    };
    let family = |value: &Value| {
        let families = fields::child(value, &["spec", "ipFamilies"]).and_then(Value::as_array);
        families.and_then(|f| f.first()).and_then(Value::as_str).map(str::to_string)
    };
    let refamilied = before.is_some_and(|b| {
        has_ip(b) && has_ip(after) && family(b).zip(family(after)).is_some_and(|(was, now)| was != now)
    });
    let balancer = |value: &Value| text(value, "spec.type").as_deref() == Some("LoadBalancer");
    let reclassed = before.is_some_and(|b| {
        balancer(b)
            && balancer(after)
            && text(b, "spec.loadBalancerClass") != text(after, "spec.loadBalancerClass")
    });
    let ports =
        fields::child(after, &["spec", "ports"]).and_then(Value::as_array).is_some_and(|p| !p.is_empty());
    let selector = fields::child(after, &["spec", "selector"]);
    moved
        || refamilied
        || reclassed
        || (!ports && !headless && !external)
        || crate::api::names::labels_refusal(selector).is_some()
}

/// Whether `item` declares identities ([`kinds::DECLARES_IDENTITIES`]; each read whole).
pub fn declares_identities(item: &Input) -> bool {
    let kind = item.value().and_then(|v| fields::str_at(v, "kind")).unwrap_or_default();
    kinds::DECLARES_IDENTITIES.contains(&kind)
}

/// `item` with no namespace: one of the two versions of an object names none, and lands in
/// the other's.
fn unplaced(item: &Input) -> Input {
    match item {
        Input::Whole(value) => {
            let mut value = value.clone();
            if let Some(metadata) =
                value.as_object_mut().map(|v| v.entry("metadata")).and_then(Value::as_object_mut)
            {
                metadata.remove("namespace");
            }
            Input::Whole(value)
        }
        Input::Passed(passed) => {
            let mut passed = passed.clone();
            passed.workload = passed.workload.map(|w| Box::new(w.placed_in("")));
            Input::Passed(passed)
        }
    }
}
