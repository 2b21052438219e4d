//! What SPIRE will do (docs/reference.md#what-spire-will-do): SPIRE Controller Manager's
//! entry reconcile, simulated over the input at build time, once, for coverage, `explain`
//! and any later view to read. Read from spiffe/spire-controller-manager at commit
//! 430567cc024fb0a2c07d2a1972128e68d1c1f54d (`pkg/spireentry/reconciler.go`, `entries.go`,
//! `pkg/namespace`), and restated here in this project's terms:
//!
//! - the manager reads a ClusterSPIFFEID when its `className` is the manager's, or it has
//!   none and the manager sets `watchClassless`;
//! - it takes them non-fallback first (each group in list order, by name), and for each,
//!   every namespace its `namespaceSelector` selects (all when unset) but those an
//!   `ignoreNamespaces` pattern matches anywhere in the name, every pod there its
//!   `podSelector` selects (all when unset) gets an entry;
//! - a fallback object gives no entry to a pod that already has one from a non-fallback
//!   object, whether that entry attests or not;
//! - an entry's selectors are `k8s:pod-uid:<uid>` and its rendered
//!   `workloadSelectorTemplates`: the pod gets the SVID only when they all hold for it; its
//!   SPIFFE ID is `spiffeIDTemplate` rendered, and an ID that does not parse, or is of
//!   another trust domain, gives no entry at all.
//!
//! A pod template stands for its pods. Namespaces are judged by the input's Namespace
//! objects and the `kubernetes.io/metadata.name` label every namespace carries; a
//! namespace the input does not hold answers "unknown" to any other label. Templates are
//! found by their rarest label, never by trying every object on every template.

pub mod findings;
pub mod template;

use crate::config::{SelectorScope, SpireManager};
use crate::reconcile::coverage::Seen;
use crate::reconcile::coverage::selector::{Answer, Expression, Selector};
use std::collections::{BTreeMap, HashMap};
use template::{Data, Evaluated};

/// The label every namespace carries, its name.
pub use crate::api::cluster_spiffe_id::NAMESPACE_NAME_LABEL;

/// Where a ClusterSPIFFEID of the output comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Rendered in this run for the binding at this input position.
    Rendered { binding: usize },
    /// Kept from the input at this position (foreign, the operator's, a fallback...).
    Input { item: usize },
}

/// A ClusterSPIFFEID of the output, as the manager reads it.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub origin: Origin,
    pub class_name: String,
    pub fallback: bool,
    /// `None` when the selector cannot be read (the manager skips the object).
    pub pods: Option<Selector>,
    pub namespaces: Option<Selector>,
    pub spiffe_id_template: String,
    pub selector_templates: Vec<String>,
}

impl Source {
    /// The rendered object of a binding, under `scope`.
    pub fn rendered(binding: usize, out: RenderedOutput<'_>, scope: SelectorScope) -> Source {
        let mut pods: Vec<(String, String)> =
            out.pool_labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut namespaces = Selector::default();
        if scope == SelectorScope::Binding {
            pods.push((crate::reconcile::identity::VARIANT_LABEL.to_string(), out.variant.to_string()));
            namespaces.match_labels.push((NAMESPACE_NAME_LABEL.to_string(), out.namespace.to_string()));
        }
        Source {
            name: out.name.to_string(),
            origin: Origin::Rendered { binding },
            class_name: out.class_name.unwrap_or_default().to_string(),
            fallback: false,
            pods: Some(Selector { match_labels: pods, expressions: Vec::new() }),
            namespaces: Some(namespaces),
            spiffe_id_template: out.spiffe_id.to_string(),
            selector_templates: out.selectors.to_vec(),
        }
    }
}

/// What a binding renders, for [`Source::rendered`].
pub struct RenderedOutput<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub variant: &'a str,
    pub pool_labels: &'a crate::api::labels::Labels,
    pub spiffe_id: &'a str,
    pub selectors: &'a [String],
    pub class_name: Option<&'a str>,
}

/// One entry the manager makes for a pod template's pods.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The object it comes from, by position in [`Model::sources`].
    pub source: usize,
    /// `Unknown` when it hangs on labels of a namespace the input does not hold.
    pub selected: Answer,
    /// Whether its selectors hold for the pods: they get its SVID.
    pub attests: Answer,
    /// The selectors that do not hold (`k8s:ns:other`), or cannot be judged.
    pub misses: Vec<String>,
    pub spiffe_id: Evaluated,
}

/// A fallback object the manager skips for a pod template, and whether it would attest.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub source: usize,
    pub would_attest: Answer,
    pub spiffe_id: Evaluated,
}

/// What the manager does for one pod template of the input.
#[derive(Debug, Clone, Default)]
pub struct Held {
    /// The item's input position and the template's index in its workload.
    pub item: usize,
    pub template: usize,
    /// Its entries, in the manager's order.
    pub entries: Vec<Entry>,
    pub skipped: Vec<Skipped>,
    /// Objects whose entry cannot be made (a SPIFFE ID that does not parse): by source, why.
    pub failed: Vec<(usize, String)>,
    /// Whether its namespace is one the manager ignores.
    pub ignored_namespace: bool,
}

impl Held {
    /// The entries that give the pods an SVID (their selectors hold), in the manager's order.
    pub fn svids(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.attests == Answer::Yes && e.selected == Answer::Yes)
    }

    /// The entries that never give the pods an SVID.
    pub fn without_identity(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.attests == Answer::No)
    }
}

/// The manager, simulated: the objects it reads and what each pod template holds.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// The ClusterSPIFFEIDs of the output, in the manager's order.
    pub sources: Vec<Source>,
    /// By position in `sources`: whether the class rules make the manager ignore it.
    pub ignored: Vec<bool>,
    /// Every pod template of the input with a namespace, in input order.
    pub held: Vec<Held>,
    /// The manager's settings the model ran with.
    pub manager: SpireManager,
}

impl Model {
    /// The held pod templates by (item, template), for lookups.
    pub fn by_place(&self) -> HashMap<(usize, usize), &Held> {
        self.held.iter().map(|h| ((h.item, h.template), h)).collect()
    }

    /// The position of the rendered object of the binding at `binding`.
    pub fn rendered(&self, binding: usize) -> Option<usize> {
        self.sources.iter().position(|s| s.origin == Origin::Rendered { binding })
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

/// Whether `namespace` is one the manager ignores: a pattern matches anywhere in its name.
pub fn ignores(patterns: &[regex::Regex], namespace: &str) -> bool {
    patterns.iter().any(|p| p.is_match(namespace))
}

/// A pod template as the model reads it.
struct Pod<'a> {
    item: usize,
    template: usize,
    namespace: &'a str,
    labels: &'a crate::reconcile::coverage::workload::PodTemplate,
    account: &'a str,
}

/// Simulates the manager over `sources` and the pod templates of `seen`.
pub fn simulate(
    mut sources: Vec<Source>,
    seen: &Seen<'_>,
    manager: &SpireManager,
    trust_domain: Option<&str>,
) -> Model {
    // The API lists objects by name; the manager moves the fallbacks last, keeping order.
    sources.sort_by(|a, b| (a.fallback, &a.name).cmp(&(b.fallback, &b.name)));
    let ignored: Vec<bool> = sources.iter().map(|s| !reads(manager, &s.class_name)).collect();
    let patterns: Vec<regex::Regex> =
        manager.ignore_namespaces.iter().filter_map(|p| regex::Regex::new(p).ok()).collect();

    let mut pods = Vec::new();
    let mut by_label: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (item, workload) in &seen.workloads {
        let Some(namespace) = workload.namespace() else { continue };
        for (at, template) in workload.templates().iter().enumerate() {
            let account = seen.accounts.get(&(*item, at)).map_or(template.service_account(), String::as_str);
            for (k, v) in template.labels() {
                by_label.entry((k, v)).or_default().push(pods.len());
            }
            pods.push(Pod { item: *item, template: at, namespace, labels: template, account });
        }
    }
    let mut held: Vec<Held> = pods
        .iter()
        .map(|p| Held {
            item: p.item,
            template: p.template,
            ignored_namespace: ignores(&patterns, p.namespace),
            ..Held::default()
        })
        .collect();
    let all: Vec<usize> = (0..pods.len()).collect();
    // Pods that hold an entry of a non-fallback object.
    let mut has_entry = vec![false; pods.len()];

    for (s, source) in sources.iter().enumerate() {
        let (false, Some(pod_selector), Some(ns_selector)) = (ignored[s], &source.pods, &source.namespaces)
        else {
            continue;
        };
        let candidates = pod_selector
            .match_labels
            .iter()
            .map(|(k, v)| by_label.get(&(k.as_str(), v.as_str())).map_or(&[][..], Vec::as_slice))
            .min_by_key(|list| list.len())
            .unwrap_or(&all);
        for &p in candidates {
            let pod = &pods[p];
            if held[p].ignored_namespace {
                continue;
            }
            let label = |key: &str| pod.labels.label(key);
            if pod_selector.selects(Some(&label)) != Answer::Yes {
                continue;
            }
            let selected = namespace_selects(ns_selector, pod.namespace, seen.namespaces.get(pod.namespace));
            if selected == Answer::No {
                continue;
            }
            let data =
                Data { trust_domain, namespace: pod.namespace, labels: &label, service_account: pod.account };
            let rendered = render(source, &data, trust_domain);
            if source.fallback && has_entry[p] {
                if let Ok((spiffe_id, attests, _)) = rendered {
                    held[p].skipped.push(Skipped { source: s, would_attest: attests, spiffe_id });
                }
                continue;
            }
            match rendered {
                Ok((spiffe_id, attests, misses)) => {
                    if !source.fallback && selected == Answer::Yes {
                        has_entry[p] = true;
                    }
                    held[p].entries.push(Entry { source: s, selected, attests, misses, spiffe_id });
                }
                Err(why) => held[p].failed.push((s, why)),
            }
        }
    }
    Model { sources, ignored, held, manager: manager.clone() }
}

/// The entry of `source` for a pod: its SPIFFE ID, whether it attests, and the selectors
/// that miss; `Err` when the manager cannot make it.
fn render(
    source: &Source,
    data: &Data<'_>,
    trust_domain: Option<&str>,
) -> Result<(Evaluated, Answer, Vec<String>), String> {
    let spiffe_id = template::evaluate(&source.spiffe_id_template, data)
        .ok_or_else(|| format!("spiffeIDTemplate {:?} is not a template", source.spiffe_id_template))?;
    if spiffe_id.is_known() {
        let id = spiffe::SpiffeId::new(&spiffe_id.text)
            .map_err(|e| format!("its SPIFFE ID {:?} is not valid: {e}", spiffe_id.text))?;
        if let Some(td) = trust_domain
            && id.trust_domain().to_string() != td
        {
            return Err(format!("its SPIFFE ID {} is not of trust domain {td}", spiffe_id.text));
        }
    }
    let mut attests = Answer::Yes;
    let mut misses = Vec::new();
    for t in &source.selector_templates {
        let selector = template::evaluate(t, data)
            .ok_or_else(|| format!("workload selector template {t:?} is not a template"))?;
        let holds = if selector.is_known() { holds(&selector.text, data)? } else { Answer::Unknown };
        match holds {
            Answer::Yes => continue,
            Answer::No => attests = Answer::No,
            Answer::Unknown if attests == Answer::Yes => attests = Answer::Unknown,
            Answer::Unknown => {}
        }
        misses.push(selector.text);
    }
    Ok((spiffe_id, attests, misses))
}

/// Whether a rendered workload selector holds for the pods: `k8s:ns`, `k8s:sa` and
/// `k8s:pod-label` are judged; any other is unknown at build time.
fn holds(selector: &str, data: &Data<'_>) -> Result<Answer, String> {
    let Some((kind, value)) = selector.split_once(':').filter(|(k, v)| !k.is_empty() && !v.is_empty()) else {
        return Err(format!("workload selector {selector:?} is not type:value"));
    };
    let yes = |b: bool| if b { Answer::Yes } else { Answer::No };
    Ok(match (kind, value.split_once(':')) {
        ("k8s", Some(("ns", ns))) => yes(ns == data.namespace),
        ("k8s", Some(("sa", sa))) => yes(sa == data.service_account),
        ("k8s", Some(("pod-label", label))) => match label.split_once(':') {
            Some((k, v)) => yes((data.labels)(k) == Some(v)),
            None => Answer::No,
        },
        _ => Answer::Unknown,
    })
}

/// Whether `selector` selects `namespace`, judged by its Namespace object's labels when
/// the input holds it, else by its name label alone.
pub fn namespace_selects(
    selector: &Selector,
    namespace: &str,
    labels: Option<&BTreeMap<String, String>>,
) -> Answer {
    let label = |key: &str| match labels {
        _ if key == NAMESPACE_NAME_LABEL => Some(namespace),
        Some(labels) => labels.get(key).map(String::as_str),
        None => None,
    };
    if labels.is_some() {
        return selector.selects(Some(&label));
    }
    // Only the name label is known: judge the requirements on it, the rest are unknown.
    let on_name = |key: &str| key == NAMESPACE_NAME_LABEL;
    let known = Selector {
        match_labels: selector.match_labels.iter().filter(|(k, _)| on_name(k)).cloned().collect(),
        expressions: selector
            .expressions
            .iter()
            .filter(|e| on_name(&e.key))
            .cloned()
            .collect::<Vec<Expression>>(),
    };
    if known.selects(Some(&label)) == Answer::No {
        return Answer::No;
    }
    let rest = selector.match_labels.iter().any(|(k, _)| !on_name(k))
        || selector.expressions.iter().any(|e| !on_name(&e.key));
    if rest { Answer::Unknown } else { Answer::Yes }
}

#[cfg(test)]
mod tests;
