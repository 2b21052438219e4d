//! Objects made as one group (docs/reference.md#findings, "judged together"): objects with
//! the same selectors whose entries differ only in the pods of one namespace each. For the
//! pods of any other namespace each member's entry is made and never attests, so the model
//! judges those pods once for the whole group and records `(group, namespace)` on their
//! templates, instead of one record per (object, template) pair.

use super::namespaces::{Picks, pinned};
use super::pods::{Pod, PodIndex};
use super::source::{Prepared, Source};
use crate::reconcile::cluster::seen::Seen;
use crate::reconcile::cluster::selector::{Answer, Lookup, Selector};
use std::collections::HashMap;

/// Objects that select the same pods and whose entries differ only for the pods of one
/// namespace each: for any other pod their entry is made and never attests (a binding's
/// object under `selectorScope: Pool`, its `k8s:ns` selector missing the pods of every other
/// namespace). The model makes those entries once per group, not once per object: one chart
/// in N namespaces gives N x 2N entries, but N + 2N records.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// Its objects, by position in the model's `sources`, in order.
    pub members: Vec<u32>,
    /// By member: the namespace whose pods alone its entry may attest for, a position among
    /// the model's namespaces ([`NO_NAMESPACE`] when no pod template stands there).
    pub namespaces: Vec<u32>,
}

/// A group member's namespace where no pod template stands.
pub const NO_NAMESPACE: u32 = u32::MAX;

impl Group {
    /// Its members that are not of namespace `ns`, in order.
    pub fn all_but(&self, ns: u32) -> impl Iterator<Item = usize> + '_ {
        self.members.iter().zip(&self.namespaces).filter(move |(_, n)| **n != ns).map(|(&s, _)| s as usize)
    }
}

/// The objects that can share a [`Group`]: by selectors, the members and each one's only
/// namespace. Only objects whose selectors another object also has are parsed here (and
/// again when their entries are made, so that no parsed spec is kept).
pub(super) fn found(
    sources: &[Source],
    ignored: &[bool],
    trust_domain: Option<&str>,
) -> Vec<(Vec<u32>, Vec<String>)> {
    // An output as committed, or a render a conflict withholds, makes only may-be entries:
    // never one of a group's sure ones.
    let candidate = |s: usize| {
        !ignored[s]
            && !sources[s].fallback
            && sources[s].static_parent.is_none()
            && !sources[s].committed
            && !matches!(sources[s].origin, super::Origin::Withheld { .. })
    };
    let mut alike: HashMap<(&Option<Selector>, &Option<Selector>), u32> = HashMap::new();
    for (_, source) in sources.iter().enumerate().filter(|(s, _)| candidate(*s)) {
        *alike.entry((&source.pods, &source.namespaces)).or_insert(0) += 1;
    }
    let mut by_selectors: HashMap<(Selector, Selector), (Vec<u32>, Vec<String>)> = HashMap::new();
    let mut order = Vec::new();
    for (s, source) in sources.iter().enumerate() {
        if !candidate(s) || alike[&(&source.pods, &source.namespaces)] < 2 {
            continue;
        }
        let Ok(prepared) = Prepared::of(source, trust_domain) else { continue };
        let Some(ns) = prepared.only_namespace() else { continue };
        let ns = ns.to_string();
        let key = (prepared.pods, prepared.namespaces);
        let group = by_selectors.entry(key.clone()).or_default();
        if group.0.is_empty() {
            order.push(key);
        }
        group.0.push(s as u32);
        group.1.push(ns);
    }
    order
        .into_iter()
        .filter_map(|key| by_selectors.remove(&key))
        .filter(|(members, _)| members.len() > 1)
        .collect()
}

/// The groups of a run, indexed for the simulation.
pub(super) struct Groups {
    pub(super) list: Vec<Group>,
    /// By source: its group, if any.
    pub(super) of: Vec<Option<u32>>,
    /// By group: how many members it has, and by namespace how many stand there.
    counts: Vec<(Members, HashMap<u32, Members>)>,
}

impl Groups {
    /// The groups [`found`], their namespaces placed among those of `index`.
    pub(super) fn index(
        found: Vec<(Vec<u32>, Vec<String>)>,
        sources: &[Source],
        index: &PodIndex<'_>,
    ) -> Groups {
        let mut groups = Groups { list: Vec::new(), of: vec![None; sources.len()], counts: Vec::new() };
        for (g, (members, namespaces)) in found.into_iter().enumerate() {
            let namespaces: Vec<u32> = namespaces
                .iter()
                .map(|n| index.ns_of.get(n.as_str()).copied().unwrap_or(NO_NAMESPACE))
                .collect();
            let mut all = (0, 0);
            let mut counts: HashMap<u32, Members> = HashMap::new();
            for (&s, &ns) in members.iter().zip(&namespaces) {
                groups.of[s as usize] = Some(g as u32);
                let narrow = u64::from(sources[s as usize].narrow.is_some());
                let here = counts.entry(ns).or_default();
                (here.0, here.1) = (here.0 + 1, here.1 + narrow);
                (all.0, all.1) = (all.0 + 1, all.1 + narrow);
            }
            groups.counts.push((all, counts));
            groups.list.push(Group { members, namespaces });
        }
        groups
    }

    /// The members of group `g` outside namespace `ns`: all of them, and the narrow ones.
    fn others(&self, g: usize, ns: u32) -> Members {
        let (all, counts) = &self.counts[g];
        let here = counts.get(&ns).copied().unwrap_or_default();
        (all.0 - here.0, all.1 - here.1)
    }
}

/// Whether `source` selects `pod` only under `selectorScope: Pool`: a binding's object, and
/// the pod outside its binding's namespace or surely without its variant.
pub(super) fn pool_only(source: &Source, pod: &Pod<'_>) -> bool {
    let Some((namespace, variant)) = &source.narrow else { return false };
    let label = crate::reconcile::rules::identity::VARIANT_LABEL;
    pod.namespace != namespace
        || match pod.label(label) {
            Lookup::Value(v) => v != variant,
            Lookup::Absent => true,
            Lookup::Unknown | Lookup::Present => false,
        }
}

/// How many members of a group: all, and those with a narrow selection.
type Members = (u64, u64);

/// What a group's shared entries are judged against.
pub(super) struct Shared<'i, 'a> {
    pub(super) index: &'i PodIndex<'a>,
    pub(super) seen: &'i Seen<'a>,
    pub(super) pod_ignored: &'i [bool],
    /// By pod: whether the manager may ignore its namespace (its `ignoreNamespaces` unknown).
    pub(super) pod_may_be_ignored: &'i [bool],
}

impl Shared<'_, '_> {
    /// The entries group `g` makes, all alike, for the pods its selectors pick in the
    /// namespaces where some of its members do not stand: made, never attesting. As for one
    /// object, each such pod counts as holding an entry, and a pod surely selected lists the
    /// group (`Held::without_groups`).
    pub(super) fn made_without(&self, prepared: &Prepared, groups: &Groups, g: usize) -> Vec<SharedEntry> {
        let mut picks = Picks::new(&prepared.pods, &prepared.namespaces, self.seen);
        let mut out = Vec::new();
        for (list, known) in self.index.candidates(&prepared.pods, pinned(&prepared.namespaces).as_deref()) {
            for &p in list {
                let pod = &self.index.pods[p as usize];
                let (made, narrow) = groups.others(g, pod.ns);
                if self.pod_ignored[p as usize] || made == 0 {
                    continue;
                }
                let Some((by_pod, by_namespace)) = picks.pod(pod, known) else { continue };
                let sure = !pod.unset
                    && !self.pod_may_be_ignored[p as usize]
                    && by_pod == Answer::Yes
                    && by_namespace == Answer::Yes;
                out.push(SharedEntry { pod: p, sure, made, narrow });
            }
        }
        out
    }
}

/// The entries a group's members make for one pod outside their namespaces, all alike.
pub(super) struct SharedEntry {
    /// The pod, a position in [`PodIndex::pods`].
    pub(super) pod: u32,
    /// Whether the members surely select it.
    pub(super) sure: bool,
    /// How many members make it an entry, and how many of those have a narrow selection.
    pub(super) made: u64,
    pub(super) narrow: u64,
}
