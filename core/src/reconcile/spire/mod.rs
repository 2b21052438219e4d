//! What SPIRE will do (docs/reference.md#what-spire-will-do): SPIRE Controller Manager's
//! entry reconcile, simulated over the input at build time, once, for coverage, `explain`
//! and any later view to read. Read from spiffe/spire-controller-manager at commit
//! 430567cc024fb0a2c07d2a1972128e68d1c1f54d (`pkg/spireentry/reconciler.go`, `entries.go`,
//! `api/v1alpha1/clusterspiffeid_webhook.go`, `pkg/namespace`), and restated here in this
//! project's terms:
//!
//! - the manager reads a ClusterSPIFFEID when its `className` is the manager's, or it has
//!   none and the manager sets `watchClassless` (reconciler.go:294-296);
//! - it skips an object whose spec does not parse: a template Go refuses, a selector
//!   apimachinery refuses, a `federatesWith` that is no trust domain (reconciler.go:464-470,
//!   `ParseClusterSPIFFEIDSpec`);
//! - it takes them non-fallback first (each group in list order, by name), and for each,
//!   every namespace its `namespaceSelector` selects (all when unset) but those an
//!   `ignoreNamespaces` pattern matches anywhere in the name, every pod there its
//!   `podSelector` selects (all when unset) gets an entry (reconciler.go:448-532);
//! - a fallback object gives no entry to a pod that already has one from a non-fallback
//!   object, whether that entry attests or not;
//! - an entry's selectors are `k8s:pod-uid:<uid>` and its rendered
//!   `workloadSelectorTemplates`: the pod gets the SVID only when they all hold for it; its
//!   SPIFFE ID is `spiffeIDTemplate` rendered. A template that fails to execute, an ID that
//!   does not parse or is of another trust domain, a selector that is not `type:value` give
//!   that pod no entry (entries.go:72-131), and so do not make a fallback skip it;
//! - entries with the same SPIFFE ID, parent and selectors are one entry (reconciler.go:
//!   213-224, 702-712): two objects giving a pod the same ID and selectors give it one SVID.
//!
//! A pod template stands for its pods. Namespaces are judged by the input's Namespace
//! objects and the `kubernetes.io/metadata.name` label every namespace carries; a
//! namespace the input does not hold answers "unknown" to any other label. A pod carries the
//! labels its controller adds, settled by its workload's kind ([`template::controller_sets`]):
//! a hash or UID exists with a value only the cluster knows.
//!
//! Cost: pod templates are indexed by label, globally and per namespace, so an object
//! looks only at the templates of its rarest label in the namespaces its selector can
//! pick. What is kept per (object, template) pair that never attests is the object's
//! position alone; strings are kept only for the entries that give an SVID or may.

pub mod findings;
mod pods;

pub mod source;
pub mod template;

use crate::config::SpireManager;
use crate::pattern;
use crate::reconcile::cluster::seen::{Federation, Seen};
use crate::reconcile::cluster::selector::{Answer, Lookup, Selector};
use pods::{PodIndex, pod_at};
pub use source::{Origin, Powers, RenderedOutput, Source};
use std::collections::{BTreeMap, HashMap};
use template::Evaluated;

/// The label every namespace carries, its name.
pub use crate::api::cluster_spiffe_id::NAMESPACE_NAME_LABEL;

/// Why an entry's answer is unknown when it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsure {
    /// Its object's `namespaceSelector` asks for labels of a Namespace the input lacks.
    NamespaceLabels,
    /// Its object's `podSelector` reads labels controllers add to pods.
    PodLabels,
    /// A fallback the manager skips if an entry above, itself unsure, is made.
    FallbackSkipped,
    /// A ClusterStaticEntry's: it reaches the pods only on the node whose agent (or a node
    /// alias of which) is its parent ID.
    ParentNode,
    /// The item names no namespace: where it is applied (`kubectl apply -n`, an Argo CD
    /// application's destination) decides, and this is one namespace it may land in.
    NamespaceUnset,
}

/// One entry the manager makes for a pod template's pods that gives them an SVID, or may.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The object it comes from, by position in [`Model::sources`].
    pub source: usize,
    /// Whether the manager makes it: `Unknown` for the reason in `unsure`.
    pub selected: Answer,
    pub unsure: Option<Unsure>,
    /// Whether its selectors hold for the pods (`Yes` or `Unknown`: an entry that never
    /// attests is kept in [`Held::without`]).
    pub attests: Answer,
    /// The selectors that cannot be judged at build time.
    pub misses: Vec<String>,
    pub spiffe_id: Evaluated,
    /// Objects whose entry for these pods is the same (same SPIFFE ID and selectors): the
    /// manager keeps one.
    pub same_as: Vec<usize>,
    /// A hash of its rendered workload selectors, sorted: with the SPIFFE ID, what makes two
    /// entries one (the manager hashes them too, reconciler.go:702-712).
    selectors: u64,
    /// What it lets the pods do beyond holding the SVID; those of `same_as` folded in.
    pub powers: Powers,
}

impl Entry {
    /// Whether the pods get its SVID for sure.
    pub fn is_sure(&self) -> bool {
        self.attests == Answer::Yes && self.selected == Answer::Yes
    }
}

/// A fallback object the manager skips for a pod template, and whether it would attest.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub source: usize,
    pub would_attest: Answer,
    pub spiffe_id: Evaluated,
}

/// An entry the manager cannot make for a pod template's pods: by source, why.
#[derive(Debug, Clone)]
pub struct Failed {
    pub source: usize,
    pub why: String,
}

/// What the manager does for one pod template of the input.
#[derive(Debug, Clone, Default)]
pub struct Held {
    /// The item's input position and the template's index in its workload.
    pub item: usize,
    pub template: usize,
    /// The entries that give (or may give) its pods an SVID, in the manager's order.
    pub entries: Vec<Entry>,
    /// The objects whose entries for its pods never attest, in the manager's order; those
    /// of a [`Group`] are in `without_groups` ([`Model::without_identity`] reads both).
    pub without: Vec<u32>,
    /// (group, namespace): every object of that group but those of that namespace (a
    /// position among [`Model`]'s namespaces) makes its pods an entry that never attests.
    pub without_groups: Vec<(u32, u32)>,
    pub skipped: Vec<Skipped>,
    pub failed: Vec<Failed>,
    /// Whether its namespace is one the manager ignores.
    pub ignored_namespace: bool,
}

impl Held {
    /// The entries that give the pods an SVID for sure, in the manager's order.
    pub fn svids(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.is_sure())
    }
}

/// Objects that select the same pods and whose entries differ only for the pods of one
/// namespace each: for any other pod their entry is made and never attests (a binding's
/// object under `selectorScope: Pool`, its `k8s:ns` selector missing the pods of every other
/// namespace). The model makes those entries once per group, not once per object: one chart
/// in N namespaces gives N x 2N entries, but N + 2N records.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// Its objects, by position in [`Model::sources`], in order.
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

/// How many entries the manager surely makes for the pod templates of the input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Entries for pods an object surely selects.
    pub made: u64,
    /// Of them, those that never attest.
    pub never: u64,
    /// Of them, those a binding's object makes only under `selectorScope: Pool`: for pods
    /// outside its binding's namespace or without its variant.
    pub pool_only: u64,
}

/// The manager, simulated: the objects it reads and what each pod template holds.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// The ClusterSPIFFEIDs of the output, in the manager's order.
    pub sources: Vec<Source>,
    /// By position in `sources`: whether the class rules make the manager ignore it.
    pub ignored: Vec<bool>,
    /// By position in `sources`: why the manager skips an object it reads (its spec does
    /// not parse), so it gives no entry to any pod.
    pub refused: Vec<Option<String>>,
    /// Every pod template of the input with a namespace, in input order.
    pub held: Vec<Held>,
    /// The ClusterFederatedTrustDomains of the input, each with whether the manager reads it
    /// (class rules, and a spec it parses): SPIRE then hands workloads that domain's bundle.
    pub federations: Vec<(Federation, bool)>,
    /// The objects whose entries the model made once for all of them.
    pub groups: Vec<Group>,
    /// The entries made, counted.
    pub totals: Totals,
    /// The manager's settings the model ran with.
    pub manager: SpireManager,
    trust_domain: Option<String>,
    /// By binding position: its rendered object's position in `sources`.
    rendered: HashMap<usize, usize>,
}

impl Model {
    /// The position of the rendered object of the binding at `binding`.
    pub fn rendered(&self, binding: usize) -> Option<usize> {
        self.rendered.get(&binding).copied()
    }

    /// The objects whose entries never give the pods of `held` an SVID, in the manager's
    /// order.
    pub fn without_identity(&self, held: &Held) -> Vec<usize> {
        let mut out: Vec<usize> = held.without.iter().map(|&s| s as usize).collect();
        if held.without_groups.is_empty() {
            return out;
        }
        for &(g, ns) in &held.without_groups {
            out.extend(self.groups[g as usize].all_but(ns));
        }
        out.sort_unstable();
        out
    }

    /// The first object, in the manager's order, whose entry never gives the pods of `held`
    /// an SVID and that `wanted` picks; without listing them all.
    pub fn first_without(&self, held: &Held, wanted: impl Fn(usize) -> bool) -> Option<usize> {
        let explicit = held.without.iter().map(|&s| s as usize).find(|&s| wanted(s));
        let grouped = held
            .without_groups
            .iter()
            .filter_map(|&(g, ns)| self.groups[g as usize].all_but(ns).find(|&s| wanted(s)));
        explicit.into_iter().chain(grouped).min()
    }

    /// By source: the held templates (positions in `held`) whose pods get its SVID for
    /// sure, and those it selects without one. One pass over every entry.
    pub fn by_source(&self) -> Vec<(Vec<usize>, Vec<usize>)> {
        let mut out = vec![(Vec::new(), Vec::new()); self.sources.len()];
        for (h, held) in self.held.iter().enumerate() {
            for e in held.svids() {
                out[e.source].0.push(h);
                for &s in &e.same_as {
                    out[s].0.push(h);
                }
            }
            for s in self.without_identity(held) {
                out[s].1.push(h);
            }
        }
        out
    }

    /// The selectors of `source`'s entry for `held` that do not hold or cannot be judged.
    /// Its spec is parsed again: the model keeps no parsed templates once it is built.
    pub fn misses(&self, seen: &Seen<'_>, held: &Held, source: usize) -> Vec<String> {
        let Ok(prepared) = source::Prepared::of(&self.sources[source], self.trust_domain.as_deref()) else {
            return Vec::new();
        };
        let Some(pod) = pod_at(seen, held.item, held.template) else { return Vec::new() };
        let labels = |key: &str| pod.label(key);
        let data = pod.data(self.trust_domain.as_deref(), &labels);
        prepared.selectors(&data).map(|(_, misses)| misses).unwrap_or_default()
    }
}

/// Whether the manager reads an object of `class`: the class rules.
pub fn reads(manager: &SpireManager, class: &str) -> bool {
    match &manager.class_name {
        // Not configured: every object counts as read.
        None => true,
        Some(own) => (class.is_empty() && manager.watch_classless) || class == own,
    }
}

/// The namespaces a selector can only select by name (`kubernetes.io/metadata.name` as a
/// `matchLabels` label or `In` values), when it names them.
fn pinned(selector: &Selector) -> Option<Vec<String>> {
    if let Some((_, name)) = selector.match_labels.iter().find(|(k, _)| k == NAMESPACE_NAME_LABEL) {
        return Some(vec![name.clone()]);
    }
    let e = selector.expressions.iter().find(|e| e.key == NAMESPACE_NAME_LABEL && e.operator == "In")?;
    Some(e.values.clone())
}

/// The namespaces `sources` name: by a `namespaceSelector` that pins them, or a constant
/// `k8s:ns:` workload selector (a binding's).
fn named_namespaces(sources: &[Source]) -> Vec<String> {
    let mut named = Vec::new();
    for source in sources {
        if let Some(names) = source.namespaces.as_ref().and_then(pinned) {
            named.extend(names);
        }
        named.extend(
            source
                .selector_templates
                .iter()
                .filter_map(|s| s.strip_prefix("k8s:ns:"))
                .filter(|n| !n.contains("{{"))
                .map(str::to_string),
        );
    }
    named.sort();
    named.dedup();
    named
}

/// Simulates the manager over `sources` and the pod templates of `seen`.
pub fn simulate(
    sources: Vec<Source>,
    seen: &Seen<'_>,
    manager: &SpireManager,
    trust_domain: Option<&str>,
) -> Model {
    simulate_with(sources, seen, manager, trust_domain, true)
}

/// The objects that can share a [`Group`]: by selectors, the members and each one's only
/// namespace. Only objects whose selectors another object also has are parsed here (and
/// again when their entries are made, so that no parsed spec is kept).
fn grouped(sources: &[Source], ignored: &[bool], trust_domain: Option<&str>) -> Vec<(Vec<u32>, Vec<String>)> {
    let candidate = |s: usize| !ignored[s] && !sources[s].fallback && sources[s].static_parent.is_none();
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
        let Ok(prepared) = source::Prepared::of(source, trust_domain) else { continue };
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

/// [`simulate`], with groups made (`grouping`) or every entry made one by one.
fn simulate_with(
    mut sources: Vec<Source>,
    seen: &Seen<'_>,
    manager: &SpireManager,
    trust_domain: Option<&str>,
    grouping: bool,
) -> Model {
    // The API lists objects by name; the manager moves the fallbacks last, keeping order.
    sources.sort_by(|a, b| (a.fallback, &a.name).cmp(&(b.fallback, &b.name)));
    let ignored: Vec<bool> = sources.iter().map(|s| !reads(manager, &s.class_name)).collect();
    let mut refused: Vec<Option<String>> = vec![None; sources.len()];
    let found = if grouping { grouped(&sources, &ignored, trust_domain) } else { Vec::new() };
    let pins = !found.is_empty()
        || sources
            .iter()
            .zip(&ignored)
            .any(|(s, ignored)| !ignored && s.namespaces.as_ref().is_some_and(|n| pinned(n).is_some()));
    let named = named_namespaces(&sources);
    let index = PodIndex::build(seen, &named, pins);
    // By source: its group, if any; by group: how many members each namespace holds.
    let mut group_of: Vec<Option<u32>> = vec![None; sources.len()];
    let mut groups = Vec::with_capacity(found.len());
    // By group: how many members it has, and by namespace how many stand there; each count
    // of all members and of those with a narrow selection (a binding's object under `Pool`).
    let mut per_namespace: Vec<(Members, HashMap<u32, Members>)> = Vec::with_capacity(found.len());
    for (g, (members, namespaces)) in found.into_iter().enumerate() {
        let namespaces: Vec<u32> =
            namespaces.iter().map(|n| index.ns_of.get(n.as_str()).copied().unwrap_or(NO_NAMESPACE)).collect();
        let mut all = (0, 0);
        let mut counts: HashMap<u32, (u64, u64)> = HashMap::new();
        for (&s, &ns) in members.iter().zip(&namespaces) {
            group_of[s as usize] = Some(g as u32);
            let narrow = u64::from(sources[s as usize].narrow.is_some());
            let here = counts.entry(ns).or_default();
            (here.0, here.1) = (here.0 + 1, here.1 + narrow);
            (all.0, all.1) = (all.0 + 1, all.1 + narrow);
        }
        per_namespace.push((all, counts));
        groups.push(Group { members, namespaces });
    }
    // By pod: whether the manager ignores its namespace.
    let pod_ignored: Vec<bool> =
        index.pods.iter().map(|p| pattern::ignores(&manager.ignore_namespaces, p.namespace)).collect();
    let mut held: Vec<Held> = Vec::with_capacity(index.templates as usize);
    for (p, pod) in index.pods.iter().enumerate() {
        if pod.held as usize == held.len() {
            held.push(Held {
                item: pod.item,
                template: pod.template,
                ignored_namespace: pod_ignored[p] && !pod.unset,
                ..Held::default()
            });
        }
    }
    // Whether a pod holds an entry of a non-fallback object.
    let mut has_entry = vec![Answer::No; index.pods.len()];
    let mut group_done = vec![false; groups.len()];
    let mut totals = Totals::default();

    for (s, source) in sources.iter().enumerate() {
        if ignored[s] {
            continue;
        }
        // Parsed one at a time, and dropped once its entries are made.
        let prepared = match source::Prepared::of(source, trust_domain) {
            Ok(prepared) => prepared,
            Err(why) => {
                refused[s] = Some(why);
                continue;
            }
        };
        let (pod_selector, ns_selector) = (&prepared.pods, &prepared.namespaces);
        let mut pinned = pinned(ns_selector);
        let mut ns_answers: HashMap<u32, Answer> = HashMap::new();
        if let Some(g) = group_of[s] {
            let g = g as usize;
            if !std::mem::replace(&mut group_done[g], true) {
                let cx = Shared { index: &index, seen, pod_ignored: &pod_ignored };
                let (all, counts) = &per_namespace[g];
                // The members outside namespace `ns`: all of them, and the narrow ones.
                let others = |ns: u32| {
                    let here = counts.get(&ns).copied().unwrap_or_default();
                    (all.0 - here.0, all.1 - here.1)
                };
                cx.made_without(&prepared, &others, g as u32, &mut held, &mut has_entry, &mut totals);
            }
            // Its own entries: only the pods of its namespace can differ from the group's.
            let only = prepared.only_namespace().map(str::to_string).into_iter();
            pinned = Some(match pinned {
                None => only.collect(),
                Some(names) => only.filter(|n| names.contains(n)).collect(),
            });
        }
        for (list, known) in index.candidates(pod_selector, pinned.as_deref()) {
            for &p in list {
                let pod = &index.pods[p as usize];
                let h = &mut held[pod.held as usize];
                // A static entry is not made per pod, so no namespace is ignored for it.
                let is_static = source.static_parent.is_some();
                if pod_ignored[p as usize] && !is_static {
                    continue;
                }
                let labels = |key: &str| pod.label(key);
                let by_pod = pod_selector.selects_but(&labels, known);
                if by_pod == Answer::No {
                    continue;
                }
                let by_namespace = if ns_selector.is_empty() {
                    Answer::Yes
                } else {
                    *ns_answers.entry(pod.ns).or_insert_with(|| {
                        namespace_selects(ns_selector, pod.namespace, seen.namespaces.get(pod.namespace))
                    })
                };
                if by_namespace == Answer::No {
                    continue;
                }
                let (mut selected, mut unsure) = match (by_pod, by_namespace) {
                    _ if is_static => (Answer::Unknown, Some(Unsure::ParentNode)),
                    _ if pod.unset => (Answer::Unknown, Some(Unsure::NamespaceUnset)),
                    (Answer::Yes, Answer::Yes) => (Answer::Yes, None),
                    (_, Answer::Unknown) => (Answer::Unknown, Some(Unsure::NamespaceLabels)),
                    _ => (Answer::Unknown, Some(Unsure::PodLabels)),
                };
                let data = pod.data(trust_domain, &labels);
                if source.fallback {
                    match has_entry[p as usize] {
                        Answer::Yes => {
                            if let Ok(made) = prepared.entry(&data, false) {
                                let spiffe_id = made.spiffe_id.unwrap_or_else(|| prepared.constant_id());
                                h.skipped.push(Skipped { source: s, would_attest: made.attests, spiffe_id });
                            }
                            continue;
                        }
                        Answer::Unknown => {
                            selected = Answer::Unknown;
                            unsure = unsure.or(Some(Unsure::FallbackSkipped));
                        }
                        Answer::No => {}
                    }
                }
                let made = match prepared.entry(&data, true) {
                    Ok(made) => made,
                    Err(why) => {
                        if !h.failed.iter().any(|f| f.source == s && f.why == why) {
                            h.failed.push(Failed { source: s, why });
                        }
                        continue;
                    }
                };
                if !source.fallback && !is_static {
                    let mark = &mut has_entry[p as usize];
                    if selected == Answer::Yes {
                        *mark = Answer::Yes;
                    } else if *mark == Answer::No {
                        *mark = Answer::Unknown;
                    }
                }
                if selected == Answer::Yes {
                    totals.made += 1;
                    totals.pool_only += u64::from(pool_only(source, pod));
                }
                if made.attests == Answer::No {
                    // An entry that never attests is said to be made only when it surely
                    // is: one the manager may not make is no entry to report.
                    if selected == Answer::Yes {
                        h.without.push(s as u32);
                        totals.never += 1;
                    }
                    continue;
                }
                let spiffe_id = made.spiffe_id.unwrap_or_else(|| prepared.constant_id());
                let entry = Entry {
                    source: s,
                    selected,
                    unsure,
                    attests: made.attests,
                    misses: made.misses,
                    spiffe_id,
                    same_as: Vec::new(),
                    selectors: made.selectors,
                    powers: made.powers,
                };
                push_entry(h, entry);
            }
        }
    }
    let rendered = sources
        .iter()
        .enumerate()
        .filter_map(|(s, source)| match source.origin {
            Origin::Rendered { binding } => Some((binding, s)),
            Origin::Input { .. } => None,
        })
        .collect();
    let federations = seen
        .federations
        .iter()
        .map(|f| (f.clone(), reads(manager, &f.class_name) && federation_parses(f)))
        .collect();
    Model {
        sources,
        ignored,
        refused,
        held,
        federations,
        groups,
        totals,
        manager: manager.clone(),
        trust_domain: trust_domain.map(str::to_string),
        rendered,
    }
}

/// Whether `source` selects `pod` only under `selectorScope: Pool`: a binding's object, and
/// the pod outside its binding's namespace or surely without its variant.
fn pool_only(source: &Source, pod: &pods::Pod<'_>) -> bool {
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
struct Shared<'i, 'a> {
    index: &'i PodIndex<'a>,
    seen: &'i Seen<'a>,
    pod_ignored: &'i [bool],
}

impl Shared<'_, '_> {
    /// The entries group `g` makes, all alike, for the pods its selectors pick in the
    /// namespaces where `others` of its members do not stand: made, never attesting. As
    /// for one object, a pod counts as holding an entry, and a pod surely selected lists
    /// the group in [`Held::without_groups`].
    fn made_without(
        &self,
        prepared: &source::Prepared,
        others: &dyn Fn(u32) -> (u64, u64),
        g: u32,
        held: &mut [Held],
        has_entry: &mut [Answer],
        totals: &mut Totals,
    ) {
        let (pod_selector, ns_selector) = (&prepared.pods, &prepared.namespaces);
        let mut ns_answers: HashMap<u32, Answer> = HashMap::new();
        for (list, known) in self.index.candidates(pod_selector, pinned(ns_selector).as_deref()) {
            for &p in list {
                let pod = &self.index.pods[p as usize];
                let (made, narrow) = others(pod.ns);
                if self.pod_ignored[p as usize] || made == 0 {
                    continue;
                }
                let labels = |key: &str| pod.label(key);
                let by_pod = pod_selector.selects_but(&labels, known);
                if by_pod == Answer::No {
                    continue;
                }
                let by_namespace = if ns_selector.is_empty() {
                    Answer::Yes
                } else {
                    *ns_answers.entry(pod.ns).or_insert_with(|| {
                        namespace_selects(ns_selector, pod.namespace, self.seen.namespaces.get(pod.namespace))
                    })
                };
                if by_namespace == Answer::No {
                    continue;
                }
                let sure = !pod.unset && by_pod == Answer::Yes && by_namespace == Answer::Yes;
                let mark = &mut has_entry[p as usize];
                if sure {
                    *mark = Answer::Yes;
                    held[pod.held as usize].without_groups.push((g, pod.ns));
                    totals.made += made;
                    totals.never += made;
                    // A narrow member's entries here are outside its binding's namespace.
                    totals.pool_only += narrow;
                } else if *mark == Answer::No {
                    *mark = Answer::Unknown;
                }
            }
        }
    }
}

/// Whether the manager can parse a ClusterFederatedTrustDomain's spec
/// (`ParseClusterFederatedTrustDomainSpec`, api/v1alpha1/clusterfederatedtrustdomain_webhook.go):
/// a trust domain, an https endpoint, and a known profile (`https_spiffe` with the endpoint's
/// SPIFFE ID).
fn federation_parses(f: &Federation) -> bool {
    let profile = match f.bundle_endpoint_profile.split_once(' ') {
        Some(("https_spiffe", id)) => spiffe::SpiffeId::new(id).is_ok(),
        None => f.bundle_endpoint_profile == "https_web",
        _ => false,
    };
    spiffe::TrustDomain::new(&f.trust_domain).is_ok()
        && f.bundle_endpoint_url.starts_with("https://")
        && profile
}

/// Adds an entry to a pod template's, or folds it into an equal one made for sure: the
/// manager keys entries by SPIFFE ID, parent (the pod's node, the same) and sorted selectors.
fn push_entry(held: &mut Held, entry: Entry) {
    let equal = |e: &&mut Entry| {
        e.is_sure()
            && entry.is_sure()
            && e.spiffe_id.is_known()
            && e.spiffe_id == entry.spiffe_id
            && e.misses.is_empty()
            && e.selectors == entry.selectors
    };
    // The same object's unsure entry from another namespace a template may land in.
    let again = |e: &&mut Entry| !e.is_sure() && e.source == entry.source && e.spiffe_id == entry.spiffe_id;
    match held.entries.iter_mut().find(|e| equal(e) || again(e)) {
        Some(kept) if kept.source == entry.source => kept.powers.merge(&entry.powers),
        Some(kept) => {
            kept.same_as.push(entry.source);
            kept.powers.merge(&entry.powers);
        }
        None => held.entries.push(entry),
    }
}

/// Whether `selector` selects `namespace`, judged by its Namespace object's labels when
/// the input holds it, else by its name label alone: any other label is unknown.
pub fn namespace_selects(
    selector: &Selector,
    namespace: &str,
    labels: Option<&BTreeMap<String, String>>,
) -> Answer {
    let label = |key: &str| match labels {
        _ if key == NAMESPACE_NAME_LABEL => Lookup::Value(namespace),
        Some(labels) => labels.get(key).map_or(Lookup::Absent, |v| Lookup::Value(v)),
        None => Lookup::Unknown,
    };
    selector.selects(&label)
}

#[cfg(test)]
mod tests;
