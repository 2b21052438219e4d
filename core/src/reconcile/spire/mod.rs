//! What SPIRE will do (docs/reference.md#what-spire-will-do): SPIRE Controller Manager's
//! entry reconcile, simulated over the input at build time, once, for coverage, `explain`
//! and any later view to read. Read from spiffe/spire-controller-manager at commit
//! 430567cc024fb0a2c07d2a1972128e68d1c1f54d (`pkg/spireentry/reconciler.go`, `entries.go`,
//! `api/v1alpha1/clusterspiffeid_webhook.go`, `pkg/namespace`), and restated here in this
//! project's terms:
//!
//! - the manager reads a ClusterSPIFFEID when its `className` is the manager's, or it has
//!   none and the manager sets `watchClassless` (reconciler.go:294-296), and it carries
//!   every label of the manager's label selector: `clusterSPIFFEIDLabelSelector`, with
//!   `filterByClassName`'s class label over it (`cmd/main.go`, after v0.6.6; one it does not
//!   carry is not in the manager's cache). ClusterStaticEntries and
//!   ClusterFederatedTrustDomains are not filtered by labels;
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
//!   213-224, 702-712): two objects giving a pod the same ID and selectors give it one SVID;
//! - the SPIRE server stores an entry only when it takes it ([`server`]): a lifetime it
//!   receives below 0, or a DNS name every server since v1.5.0 refuses, gives the pods nothing
//!   (still declared: no fallback steps in); a DNS name only some servers take, or a
//!   `federatesWith` trust domain whose bundle it may not hold, makes the entry one it may
//!   refuse.
//!
//! A pod template stands for its pods. Namespaces are judged by the input's Namespace
//! objects and the `kubernetes.io/metadata.name` label every namespace carries; a
//! namespace the input does not hold answers "unknown" to any other label. A pod carries the
//! labels its controller adds, settled by its workload's controller (`cluster/controllers/`):
//! a hash or UID exists with a value only the cluster knows.
//!
//! Cost: pod templates are indexed by label, globally and per namespace, so an object
//! looks only at the templates of its rarest label in the namespaces its selector can
//! pick. What is kept per (object, template) pair that never attests is the object's
//! position alone; strings are kept only for the entries that give an SVID or may. Objects
//! that differ only in the one namespace they may attest in are made as a group
//! ([`group`]), so one chart in N namespaces costs N + 2N records, not N x 2N.

mod about;
pub mod containers;
pub mod dns;
pub mod findings;
mod group;
pub mod lifetime;
mod namespaces;
mod pods;
pub mod server;
mod unlabelled;

pub mod source;
pub mod spiffe_id;
pub mod template;

use crate::config::SpireManager;
use crate::pattern;
use crate::reconcile::cluster::seen::{Federation, Seen};
use crate::reconcile::cluster::selector::Answer;
pub use group::{Group, NO_NAMESPACE};
pub use namespaces::namespace_selects;
use namespaces::{Picks, named_namespaces, pinned};
use pods::{PodIndex, pod_at};
pub use source::{Origin, Powers, RenderedOutput, Source};
use std::collections::HashMap;
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
    /// The manager may ignore the pods' namespace: its `ignoreNamespaces` is not given, and
    /// its defaults or the SPIRE Helm chart's match the namespace.
    NamespaceMayBeIgnored,
    /// The object is one of this function's outputs, as committed, that a render replaces
    /// or removes: it is applied only if the folder is applied as committed.
    Committed,
    /// The pods' item is one an applier of the folder may leave unapplied and another
    /// applies ([`crate::reconcile::context::Context::unapplied`]).
    Unapplied,
    /// The object is one the cluster may not keep: an owner the garbage collector follows,
    /// a field its schema does not know ([`source::Source::may_not_be_kept`]).
    NotKept,
    /// The SPIRE server refuses the entry unless it holds the bundle of each trust domain of
    /// its `federatesWith`, which only the cluster knows ([`server`]).
    FederatedBundles,
    /// Some SPIRE servers refuse one of its DNS names, or only the cluster settles one that
    /// reads the pod template ([`dns`]).
    DnsNames,
    /// Some SPIRE servers refuse its hint: since v1.6.3, one over 1024 bytes; on MySQL, one
    /// over 255 characters or with a character of four UTF-8 bytes ([`server::of_hint`]).
    Hint,
    /// Another object declares the same entry and the SPIRE server refuses, or may refuse,
    /// its declaration: the manager keeps the older of the two, which only the cluster knows.
    Preferred,
    /// The object is a render whose binding's output is committed otherwise: it is applied
    /// only if the folder is rendered before it is applied.
    Rendered,
    /// The object is what a binding would render but for the bindings it conflicts with, or
    /// another whose output has the same name ([`source::Origin::Withheld`]).
    Withheld,
    /// A template of the object writes a number constant, which a manager run with
    /// `enableEntryRenderCache` cannot hash, so it skips the object whole
    /// ([`template::has_number_constant`]).
    RenderCache,
}

impl Unsure {
    /// What the answer hangs on, in words that fit after "may": the same in every report,
    /// as a finding's message is.
    pub fn condition(self) -> &'static str {
        match self {
            Unsure::NamespaceLabels => "if the namespace carries the labels its namespaceSelector asks for",
            Unsure::PodLabels => "if the labels controllers add to the pods hold its podSelector",
            Unsure::FallbackSkipped => {
                "unless an entry above that hangs on what only the cluster knows is made"
            }
            Unsure::ParentNode => "if they run on the node its parentID names, an agent or a node alias",
            Unsure::NamespaceUnset => "if the pods land in a namespace it selects: the item names none",
            Unsure::NamespaceMayBeIgnored => {
                "unless the manager ignores their namespace: its defaults or the SPIRE Helm chart's \
                 ignoreNamespaces match it, and spireControllerManager.ignoreNamespaces does not say which it runs with"
            }
            Unsure::Committed => {
                "if the folder is applied as committed, without a render first: the object is an output a \
                 render replaces or removes"
            }
            Unsure::Unapplied => {
                "if their object is applied: Argo CD leaves it unapplied (a hook no sync runs, or a file \
                 marked +argocd:skip-file-rendering), kubectl applies it"
            }
            Unsure::NotKept => {
                "if the cluster keeps their object: the garbage collector deletes it once an owner it names \
                 is gone, and kubectl refuses a field its schema does not know where Argo CD stores it"
            }
            Unsure::FederatedBundles => {
                "if the SPIRE server holds the bundle of every trust domain its federatesWith names: it \
                 refuses the entry otherwise, and which bundles it holds only the cluster knows"
            }
            Unsure::DnsNames => {
                "if the SPIRE server takes its DNS names: some SPIRE versions refuse one of them, or only the \
                 cluster settles one"
            }
            Unsure::Rendered => {
                "if the folder is rendered before it is applied: the output committed for its binding is \
                 another, which an applier of the files as committed applies instead"
            }
            Unsure::Preferred => {
                "if the manager keeps its declaration of the entry rather than another object's that the SPIRE \
                 server refuses or may refuse: it keeps the oldest, which only the cluster knows"
            }
            Unsure::Withheld => {
                "if the kleym operator renders its binding: it renders one whose conflicting peers do not stand \
                 beside it, as while a pull request is applied one object at a time, or where the API server \
                 refuses or removes one of them, and of two whose outputs share a name the one it reconciles first"
            }
            Unsure::RenderCache => {
                "unless the manager runs with enableEntryRenderCache: it then hashes the object's parsed templates \
                 with encoding/json, which refuses the complex128 of a number constant one of them writes, and \
                 skips the object whole"
            }
            Unsure::Hint => {
                "if the SPIRE server takes its hint: servers since v1.6.3 refuse one over 1024 bytes, and servers \
                 on MySQL one over 255 characters or with a character of four UTF-8 bytes"
            }
        }
    }
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
    /// The pods' containers as written (`container <name>: <image>`) that a container or
    /// image selector of `misses` hangs on: another of them may make it hold; and the
    /// declared namespace label a `k8s:ns-label` selector of them reads.
    pub hangs_on: Vec<String>,
    /// Whether its SPIFFE ID, a DNS name or a workload selector is unknown in a way the pod
    /// template as written may settle ([`source::Made::reads_template`]).
    pub reads_template: bool,
    pub spiffe_id: Evaluated,
    /// Objects whose entry for these pods is the same (same SPIFFE ID and selectors): the
    /// manager keeps one.
    pub same_as: Vec<usize>,
    /// A hash of its rendered workload selectors, sorted: with the SPIFFE ID, what makes two
    /// entries one (the manager hashes them too, reconciler.go:702-712).
    selectors: u64,
    /// What `source`'s entry lets the pods do beyond holding the SVID.
    pub powers: Powers,
    /// By object of `same_as`, what its entry would let them do: the manager keeps one of
    /// the objects' entries, the oldest (`sortDeclaredEntriesByPreference`, reconciler.go),
    /// which only the cluster knows.
    pub rival_powers: Vec<Powers>,
}

impl Entry {
    /// Whether the pods get its SVID for sure.
    pub fn is_sure(&self) -> bool {
        self.attests == Answer::Yes && self.selected == Answer::Yes
    }

    /// Each object that declares this entry, with what its entry lets the pods do: the
    /// manager keeps one of them.
    pub fn declared(&self) -> impl Iterator<Item = (usize, &Powers)> {
        std::iter::once((self.source, &self.powers))
            .chain(self.same_as.iter().copied().zip(&self.rival_powers))
    }
}

/// A fallback object the manager skips for a pod template, and whether it would attest.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub source: usize,
    pub would_attest: Answer,
    pub spiffe_id: Evaluated,
}

/// An entry the manager cannot make for a pod template's pods, or one it sends that the SPIRE
/// server refuses (`why` then starts "the SPIRE server refuses"): by source, why.
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
    /// By position in `sources`: whether the class rules or the label selector make the
    /// manager ignore it.
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
        let data = pod.data(self.trust_domain.as_deref(), &labels, seen);
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

/// The labels of the manager's label selector that `source` does not carry (with the value
/// asked for), in key order: it reads the object only when there are none. A
/// ClusterStaticEntry is not filtered by labels.
pub fn missing_labels<'m>(manager: &'m SpireManager, source: &Source) -> Vec<(&'m str, &'m str)> {
    if source.static_parent.is_some() {
        return Vec::new();
    }
    manager
        .label_selector
        .iter()
        .filter(|(key, value)| source.labels.get(*key) != Some(*value))
        .map(|(key, value)| (key.as_str(), value.as_str()))
        .collect()
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
    let ignored: Vec<bool> = sources
        .iter()
        .map(|s| !reads(manager, &s.class_name) || !missing_labels(manager, s).is_empty())
        .collect();
    let mut refused: Vec<Option<String>> = vec![None; sources.len()];
    let found = if grouping { group::found(&sources, &ignored, trust_domain) } else { Vec::new() };
    let pins = !found.is_empty()
        || sources
            .iter()
            .zip(&ignored)
            .any(|(s, ignored)| !ignored && s.namespaces.as_ref().is_some_and(|n| pinned(n).is_some()));
    let named = named_namespaces(&sources);
    let index = PodIndex::build(seen, &named, pins);
    let groups = group::Groups::index(found, &sources, &index);
    // By pod: whether the manager ignores its namespace.
    let pod_ignored: Vec<bool> =
        index.pods.iter().map(|p| pattern::ignores(&manager.ignore_namespaces, p.namespace)).collect();
    let pod_may_be_ignored: Vec<bool> =
        index.pods.iter().map(|p| pattern::ignores(&manager.may_ignore, p.namespace)).collect();
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
    let mut group_done = vec![false; groups.list.len()];
    let mut totals = Totals::default();
    // The declarations the SPIRE server refuses, or may: (template, object, ID, selectors,
    // whether the pod template settles its ID or a selector, which may then be any).
    let mut refused_rivals: Vec<(u32, usize, Evaluated, u64, bool)> = Vec::new();

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
        // A manager with the entry render cache skips an object whose template it cannot hash.
        let templates = || {
            std::iter::once(&source.spiffe_id_template)
                .chain(&source.selector_templates)
                .chain(&source.dns_name_templates)
        };
        let uncached =
            source.static_parent.is_none() && templates().any(|t| template::has_number_constant(t));
        // A template that defines a named one runs its body where it calls it, which the text it
        // keeps of the call does not show: its entries hang on every body as written.
        let definitions = templates().any(|t| t.contains("define")).then(|| {
            let texts: Vec<&str> = templates().map(String::as_str).collect();
            format!("the templates it defines and calls, as written: {}", texts.join("; "))
        });
        let mut pinned = pinned(ns_selector);
        let mut picks = Picks::new(pod_selector, ns_selector, seen);
        if let Some(g) = groups.of[s] {
            let g = g as usize;
            if !std::mem::replace(&mut group_done[g], true) {
                let cx = group::Shared {
                    index: &index,
                    seen,
                    pod_ignored: &pod_ignored,
                    pod_may_be_ignored: &pod_may_be_ignored,
                };
                for shared in cx.made_without(&prepared, &groups, g) {
                    let pod = &index.pods[shared.pod as usize];
                    let mark = &mut has_entry[shared.pod as usize];
                    if shared.sure {
                        *mark = Answer::Yes;
                        held[pod.held as usize].without_groups.push((g as u32, pod.ns));
                        totals.made += shared.made;
                        totals.never += shared.made;
                        // A narrow member's entries here are outside its binding's namespace.
                        totals.pool_only += shared.narrow;
                    } else if *mark == Answer::No {
                        *mark = Answer::Unknown;
                    }
                }
            }
            // Its own entries: only the pods of its namespace can differ from the group's.
            let only = prepared.only_namespace().map(str::to_string).into_iter();
            pinned = Some(match pinned {
                None => only.collect(),
                Some(names) => only.filter(|n| names.contains(n)).collect(),
            });
        }
        // An object an applier of the folder may leave unapplied (an Argo CD hook no sync runs)
        // declares its entries only where another applies it.
        // So does a render whose binding (or its pool) an applier may leave unapplied.
        let object_unapplied = match source.origin {
            Origin::Input { item }
            | Origin::Rendered { binding: item }
            | Origin::Withheld { binding: item } => seen.unapplied.contains(&item),
        };
        for (list, known) in index.candidates(pod_selector, pinned.as_deref()) {
            for &p in list {
                let pod = &index.pods[p as usize];
                let h = &mut held[pod.held as usize];
                // A static entry is not made per pod, so no namespace is ignored for it.
                let is_static = source.static_parent.is_some();
                if pod_ignored[p as usize] && !is_static {
                    continue;
                }
                let Some((by_pod, by_namespace)) = picks.pod(pod, known) else { continue };
                let labels = |key: &str| pod.label(key);
                let (mut selected, mut unsure) = match (by_pod, by_namespace) {
                    _ if is_static => (Answer::Unknown, Some(Unsure::ParentNode)),
                    _ if source.may_not_be_kept.is_some() => (Answer::Unknown, Some(Unsure::NotKept)),
                    _ if matches!(source.origin, Origin::Withheld { .. }) => {
                        (Answer::Unknown, Some(Unsure::Withheld))
                    }
                    _ if uncached => (Answer::Unknown, Some(Unsure::RenderCache)),
                    _ if pod.unapplied || object_unapplied => (Answer::Unknown, Some(Unsure::Unapplied)),
                    _ if pod_may_be_ignored[p as usize] => {
                        (Answer::Unknown, Some(Unsure::NamespaceMayBeIgnored))
                    }
                    _ if pod.unset => (Answer::Unknown, Some(Unsure::NamespaceUnset)),
                    // Held but for how the folder is applied: as committed, or rendered first.
                    (Answer::Yes, Answer::Yes) if source.committed => {
                        (Answer::Unknown, Some(Unsure::Committed))
                    }
                    (Answer::Yes, Answer::Yes) if source.replaced => {
                        (Answer::Unknown, Some(Unsure::Rendered))
                    }
                    (Answer::Yes, Answer::Yes) => (Answer::Yes, None),
                    (_, Answer::Unknown) => (Answer::Unknown, Some(Unsure::NamespaceLabels)),
                    _ => (Answer::Unknown, Some(Unsure::PodLabels)),
                };
                let data = pod.data(trust_domain, &labels, seen);
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
                // An output as committed is another way the folder may be applied, not an entry
                // beside the render's: it may make a fallback skip the pods, or not.
                if !source.fallback && !is_static {
                    let mark = &mut has_entry[p as usize];
                    if selected == Answer::Yes && !source.committed && !source.replaced {
                        *mark = Answer::Yes;
                    } else if *mark == Answer::No {
                        *mark = Answer::Unknown;
                    }
                }
                if selected == Answer::Yes {
                    totals.made += 1;
                    totals.pool_only += u64::from(group::pool_only(source, pod));
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
                // Declared whatever the server does with it: any fallback is skipped above.
                let spiffe_id = made.spiffe_id.unwrap_or_else(|| prepared.constant_id());
                if made.server != server::Verdict::Takes {
                    refused_rivals.push((
                        pod.held,
                        s,
                        spiffe_id.clone(),
                        made.selectors,
                        made.reads_template,
                    ));
                }
                match made.server {
                    server::Verdict::Takes => {}
                    server::Verdict::Refuses(why) => {
                        if !h.failed.iter().any(|f| f.source == s && f.why == why) {
                            h.failed.push(Failed { source: s, why });
                        }
                        continue;
                    }
                    server::Verdict::MayRefuse(why) => {
                        if selected == Answer::Yes {
                            (selected, unsure) = (Answer::Unknown, Some(why));
                        }
                    }
                }
                // A podSelector unknown by a label the controller sets hangs on how it numbers
                // the pods too (a StatefulSet's `statefulset.kubernetes.io/pod-name`).
                let mut hangs_on = made.hangs_on;
                if by_pod == Answer::Unknown
                    && let Some(fact) = source::numbering_fact(&data)
                    && !hangs_on.contains(&fact)
                {
                    hangs_on.push(fact);
                }
                // One unknown by a label an admission webhook writes hangs on what the webhook
                // reads: the template's labels and its namespace's.
                if by_pod == Answer::Unknown
                    && source
                        .pods
                        .as_ref()
                        .is_some_and(crate::reconcile::cluster::controllers::reads_webhook_keys)
                {
                    let words = |labels: &mut dyn Iterator<Item = (&str, &str)>| {
                        labels.map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
                    };
                    let namespace = seen.namespaces.get(pod.namespace);
                    hangs_on.push(format!(
                        "the labels an admission webhook reads: the template's {}; its namespace's {}",
                        words(&mut pod.labels.labels()),
                        words(&mut namespace.into_iter().flatten().map(|(k, v)| (k.as_str(), v.as_str())))
                    ));
                }
                if let Some(fact) = &definitions
                    && !hangs_on.contains(fact)
                {
                    hangs_on.push(fact.clone());
                }
                let mut powers = made.powers;
                if source.auto_dns {
                    for name in pods::service_dns_names(seen, pod) {
                        if !powers.dns_names.contains(&name) {
                            powers.dns_names.push(name);
                        }
                    }
                }
                let entry = Entry {
                    source: s,
                    selected,
                    unsure,
                    attests: made.attests,
                    misses: made.misses,
                    hangs_on,
                    reads_template: made.reads_template,
                    spiffe_id,
                    same_as: Vec::new(),
                    rival_powers: Vec::new(),
                    selectors: made.selectors,
                    powers,
                };
                push_entry(h, entry);
            }
        }
    }
    // Of the objects that declare one entry the manager keeps the oldest, which only the
    // cluster knows, whatever the server then does with it: where it refuses, or may refuse,
    // one object's declaration, another's is held only if the manager keeps that one.
    for (h, rival, id, selectors, unsettled) in refused_rivals {
        // An ID or selector only the cluster settles may be the same.
        let same = |e: &Entry| {
            e.source != rival
                && (unsettled
                    || e.selectors == selectors
                        && (e.spiffe_id == id || !e.spiffe_id.is_known() || !id.is_known()))
        };
        for e in held[h as usize].entries.iter_mut().filter(|e| same(e) && e.selected == Answer::Yes) {
            (e.selected, e.unsure) = (Answer::Unknown, Some(Unsure::Preferred));
        }
    }
    let rendered = sources
        .iter()
        .enumerate()
        .filter_map(|(s, source)| match source.origin {
            Origin::Rendered { binding } => Some((binding, s)),
            Origin::Input { .. } | Origin::Withheld { .. } => None,
        })
        .collect();
    let federations = seen
        .federations
        .iter()
        .map(|f| {
            let read = reads(manager, &f.class_name) && federation_parses(f);
            // The trust domain as the manager holds it: `spiffe://partner.org` is `partner.org`.
            let trust_domain =
                spiffe_id::trust_domain(&f.trust_domain).unwrap_or(&f.trust_domain).to_string();
            (Federation { trust_domain, ..f.clone() }, read)
        })
        .collect();
    Model {
        sources,
        ignored,
        refused,
        held,
        federations,
        groups: groups.list,
        totals,
        manager: manager.clone(),
        trust_domain: trust_domain.map(str::to_string),
        rendered,
    }
}

/// Whether the manager can parse a ClusterFederatedTrustDomain's spec
/// (`ParseClusterFederatedTrustDomainSpec`, api/v1alpha1/clusterfederatedtrustdomain_webhook.go):
/// a trust domain, an https endpoint, and a known profile (`https_spiffe` with the endpoint's
/// SPIFFE ID).
fn federation_parses(f: &Federation) -> bool {
    let profile = match f.bundle_endpoint_profile.split_once(' ') {
        Some(("https_spiffe", id)) => spiffe_id::parse(id).is_ok(),
        None => f.bundle_endpoint_profile == "https_web",
        _ => false,
    };
    f.refusal.is_none()
        && spiffe_id::trust_domain(&f.trust_domain).is_ok()
        && f.bundle_endpoint_url.starts_with("https://")
        && profile
}

/// Adds an entry to a pod template's, or folds it into an equal one made for sure, or into
/// another static entry's of one key: the manager keys entries by SPIFFE ID, parent (the
/// pod's node, the same; a static entry's own) and sorted selectors, and keeps one object's
/// entry of those that declare it, with that object's powers.
fn push_entry(held: &mut Held, mut entry: Entry) {
    // Two objects whose entries share the manager's key but not what they attest by (`k:8sns:x`
    // and `k8s:ns:x` hash alike: `makeEntryKey` writes each selector's type and value with
    // nothing between) are one entry, with the selectors of the object the manager keeps,
    // which only the cluster knows: each attests only if its own is kept, so neither is sure.
    for e in held.entries.iter_mut() {
        let one_key = e.source != entry.source
            && e.spiffe_id.is_known()
            && e.spiffe_id == entry.spiffe_id
            && e.selectors == entry.selectors;
        if one_key && e.misses != entry.misses {
            let (mine, theirs) = (e.misses.clone(), entry.misses.clone());
            share_key(e, &theirs);
            share_key(&mut entry, &mine);
        }
    }
    // Two static entries of one key are one entry wherever they may attest: the manager makes
    // a static entry whatever the pods, and their one parent names one node.
    let is_static = |e: &Entry| e.unsure == Some(Unsure::ParentNode);
    let equal = |e: &&mut Entry| {
        let both =
            (e.is_sure() && entry.is_sure() && e.misses.is_empty()) || (is_static(e) && is_static(&entry));
        both && e.spiffe_id.is_known() && e.spiffe_id == entry.spiffe_id && e.selectors == entry.selectors
    };
    // An output as committed declares the entry of another object of its key, where the folder
    // is applied as committed: the manager may keep its declaration, with its powers.
    // So does its binding's render, where the folder is rendered first: one of the two is
    // applied, so the entry is held either way.
    let only =
        |e: &Entry, why: Unsure| e.unsure == Some(why) && e.attests == Answer::Yes && e.misses.is_empty();
    let committed = |e: &Entry| only(e, Unsure::Committed);
    let other = |e: &Entry| (e.is_sure() && e.misses.is_empty()) || only(e, Unsure::Rendered);
    let declares = |e: &&mut Entry| {
        let pair = (committed(e) && other(&entry)) || (committed(&entry) && other(e));
        pair && e.spiffe_id.is_known() && e.spiffe_id == entry.spiffe_id && e.selectors == entry.selectors
    };
    if let Some(kept) = held.entries.iter_mut().find(|e| declares(e)) {
        // The sure one (or the render) stands for the entry, the output's declaration beside it.
        if committed(kept) {
            std::mem::swap(kept, &mut entry);
            kept.same_as.extend(std::mem::take(&mut entry.same_as));
            kept.rival_powers.extend(std::mem::take(&mut entry.rival_powers));
        }
        if kept.unsure == Some(Unsure::Rendered) {
            (kept.selected, kept.unsure) = (Answer::Yes, None);
        }
        kept.reads_template |= entry.reads_template;
        kept.same_as.push(entry.source);
        kept.rival_powers.push(entry.powers);
        return;
    }
    // The same object's unsure entry from another namespace a template may land in.
    let again = |e: &&mut Entry| !e.is_sure() && e.source == entry.source && e.spiffe_id == entry.spiffe_id;
    match held.entries.iter_mut().find(|e| equal(e) || again(e)) {
        Some(kept) if kept.source == entry.source => {
            kept.powers.merge(&entry.powers);
            kept.reads_template |= entry.reads_template;
        }
        Some(kept) => {
            kept.reads_template |= entry.reads_template;
            kept.same_as.push(entry.source);
            kept.rival_powers.push(entry.powers);
        }
        None => {
            // Most templates hold one entry: room for one, not the four a first push makes,
            // keeps the model's largest part at a quarter of the size.
            if held.entries.capacity() == 0 {
                held.entries.reserve_exact(1);
            }
            held.entries.push(entry)
        }
    }
}

/// An entry that shares its key with another object's, which attests by `other` (what it
/// misses): it attests only if the manager keeps its own.
fn share_key(entry: &mut Entry, other: &[String]) {
    if entry.attests == Answer::Yes {
        entry.attests = Answer::Unknown;
    }
    for miss in other {
        if !entry.misses.contains(miss) {
            entry.misses.push(miss.clone());
        }
    }
}

#[cfg(test)]
mod tests;
