//! Workload coverage (docs/reference.md#workload-coverage): which pod templates of the
//! input each rendered identity reaches, and the findings a platform engineer needs before
//! deploy. SPIRE matches a pod to a rendered ClusterSPIFFEID when the pod is in the
//! binding's namespace, its labels hold every label of the pool selector and
//! `identity.kleym.sonda.red/variant: <variant>`, and it runs as the binding's service
//! account.
//!
//! Everything is found by grouping: templates are indexed by namespace and by label, and
//! each identity, pool and other ClusterSPIFFEID looks only at the templates of its rarest
//! label. Findings are results only: they never change a status or an output. What SPIRE
//! Controller Manager will actually do with every ClusterSPIFFEID of the output is
//! reconcile::spire, whose findings join these.

pub mod inputs;

use crate::api::labels::Labels;
use crate::api::pool::PoolApi;
use crate::reconcile::cluster::seen::Seen;
use crate::reconcile::cluster::workload::{self, PodTemplate, Workload};
use crate::reconcile::findings::{Finding, Kind, Level, Ref};
use crate::reconcile::rules::identity::VARIANT_LABEL;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// The service fields that set the labels and the account of a pod template KServe makes,
/// when `at` is one.
fn fields_of(at: &Ref, leader: bool) -> Option<(&'static str, &'static str)> {
    let derived = at.kind == crate::reconcile::cluster::kserve::SERVICE_KIND;
    let role = at.path.as_deref().filter(|_| derived)?;
    crate::reconcile::cluster::kserve::fields_of(role, leader)
}

/// Whether `workload`, a multi-node server KServe makes, has a leader on the side of `at`'s
/// role (`(decode worker)` beside `(decode leader)`): its workers then run as its template's
/// account.
fn has_leader(workload: &Workload, at: &Ref) -> bool {
    let side = at.path.as_deref().and_then(|p| p.strip_prefix('(')).and_then(|p| p.split(' ').next());
    side.is_some_and(|side| workload.templates().iter().any(|t| t.path() == format!("({side} leader)")))
}

/// A binding that renders: what SPIRE will match its pods by.
#[derive(Debug, Clone)]
pub struct Identity {
    /// The binding and its pool, shared with the pool uses.
    pub used: Arc<PoolUse>,
    pub service_account: String,
    pub variant: String,
    /// Its ClusterSPIFFEID's name.
    pub output: String,
}

impl Identity {
    fn binding(&self) -> usize {
        self.used.binding
    }

    fn namespace(&self) -> &str {
        &self.used.namespace
    }

    fn name(&self) -> &str {
        &self.used.binding_name
    }

    fn pool_labels(&self) -> &Labels {
        &self.used.labels
    }
}

/// A binding whose pool resolves with a valid selector, rendered or not: the pool is in use.
#[derive(Debug, Clone)]
pub struct PoolUse {
    pub binding: usize,
    pub binding_name: String,
    pub namespace: String,
    /// The pool, as `namespace/name (apiVersion)` would name it.
    pub pool: String,
    pub pool_api: PoolApi,
    /// The pool's selector labels, sorted by key.
    pub labels: Labels,
    /// The binding's variant, when it is a valid one.
    pub variant: Option<String>,
}

/// A binding with a namespace and a variant, rendered or not.
#[derive(Debug, Clone)]
pub struct Bound {
    pub item: usize,
    pub namespace: String,
    pub name: String,
    pub variant: String,
    /// `Type/Reason: message` when it fails.
    pub failure: Option<String>,
}

/// What coverage found.
#[derive(Debug, Default)]
pub struct Coverage {
    pub findings: Vec<Finding>,
    /// What SPIRE Controller Manager will do with the output (docs/reference.md#what-spire-will-do).
    pub spire: crate::reconcile::spire::Model,
    /// What the build cannot judge exactly and that could reach an identity.
    pub unjudged: Vec<crate::reconcile::unjudged::Unjudged>,
    /// What Kubernetes writes into pods beside their template, by digest
    /// ([`crate::reconcile::unjudged::pod_context`]); empty when no entry reads the pod beyond
    /// what its template settles.
    pub pod_context: String,
}

/// One pod template of the input.
struct InputTemplate<'a> {
    item: usize,
    workload: &'a Workload,
    template: &'a PodTemplate,
    /// The service account its pods run as once kustomize has fixed name references.
    account: &'a str,
}

impl InputTemplate<'_> {
    fn has(&self, labels: &Labels) -> bool {
        labels.iter().all(|(k, v)| self.template.label(k) == Some(v))
    }

    fn reference(&self) -> Ref {
        Ref {
            item: self.item,
            api_version: self.workload.api_version().to_string(),
            kind: self.workload.kind().to_string(),
            namespace: self.workload.namespace().map(str::to_string),
            name: self.workload.name().to_string(),
            path: Some(self.template.path().to_string()),
        }
    }
}

/// The templates, indexed by namespace, by namespace, label key and value, and by label
/// key and value across namespaces.
struct TemplateIndex<'a> {
    templates: Vec<InputTemplate<'a>>,
    by_namespace: HashMap<&'a str, Vec<usize>>,
    by_label: HashMap<&'a str, HashMap<&'a str, HashMap<&'a str, Vec<usize>>>>,
    anywhere: HashMap<(&'a str, &'a str), Vec<usize>>,
}

impl<'a> TemplateIndex<'a> {
    fn build(seen: &'a Seen<'a>) -> Self {
        let mut index = TemplateIndex {
            templates: Vec::new(),
            by_namespace: HashMap::new(),
            by_label: HashMap::new(),
            anywhere: HashMap::new(),
        };
        for (item, workload) in &seen.workloads {
            for (at, template) in workload.templates().iter().enumerate() {
                let account =
                    seen.accounts.get(&(*item, at)).map_or(template.service_account(), String::as_str);
                let t = index.templates.len();
                let ns = workload.namespace().unwrap_or_default();
                index.by_namespace.entry(ns).or_default().push(t);
                for (k, v) in template.labels() {
                    let keys = index.by_label.entry(ns).or_default();
                    keys.entry(k).or_default().entry(v).or_default().push(t);
                    index.anywhere.entry((k, v)).or_default().push(t);
                }
                index.templates.push(InputTemplate { item: *item, workload, template, account });
            }
        }
        index
    }

    /// The templates of `namespace` that may hold all `labels`: those of the rarest one.
    fn candidates(&self, namespace: &str, labels: &[(&str, &str)]) -> &[usize] {
        let keys = self.by_label.get(namespace);
        let list =
            |k: &str, v: &str| keys.and_then(|keys| keys.get(k)?.get(v)).map_or(&[][..], Vec::as_slice);
        let lists = labels.iter().map(|(k, v)| list(k, v));
        match lists.min_by_key(|list| list.len()) {
            Some(rarest) => rarest,
            None => self.by_namespace.get(namespace).map_or(&[], Vec::as_slice),
        }
    }
}

/// Finds what the identities reach and what is worth saying about it.
pub fn coverage(
    identities: &[Identity],
    uses: &[Arc<PoolUse>],
    bound: &[Bound],
    seen: &Seen<'_>,
    binding_refs: &(dyn Fn(usize) -> Ref + Sync),
) -> Coverage {
    let index = TemplateIndex::build(seen);
    let mut declared: HashMap<&str, Vec<&str>> = HashMap::new();
    for (ns, name) in &seen.service_accounts {
        declared.entry(ns).or_default().push(name);
    }
    // Each identity on its own, on all cores, in order.
    let covered = crate::parallel::map(identities.iter().collect(), |identity| {
        cover(identity, &index, declared.get(identity.namespace()).map_or(&[], Vec::as_slice), binding_refs)
    });
    let mut out = Coverage::default();
    // By template: the bindings whose identity reaches it.
    let mut reached_templates: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (identity, (findings, reached)) in identities.iter().zip(covered) {
        out.findings.extend(findings);
        for t in reached {
            reached_templates.entry(t).or_default().push(identity.binding());
        }
    }
    out.findings.extend(pool_findings(uses, bound, &index, &reached_templates));
    out.findings.sort_by(|a, b| (&a.about, a.kind, &a.message).cmp(&(&b.about, b.kind, &b.message)));
    out
}

/// The templates one identity reaches and its findings; `declared` holds the service
/// accounts the input declares in its namespace.
fn cover(
    identity: &Identity,
    index: &TemplateIndex<'_>,
    declared: &[&str],
    binding_refs: &(dyn Fn(usize) -> Ref + Sync),
) -> (Vec<Finding>, Vec<usize>) {
    let mut findings = Vec::new();
    let about = binding_refs(identity.binding());
    let mut labels: Vec<(&str, &str)> = identity.pool_labels().iter().collect();
    labels.push((VARIANT_LABEL, identity.variant.as_str()));
    let mut reached = Vec::new();
    for &t in index.candidates(identity.namespace(), &labels) {
        let template = &index.templates[t];
        if !labels.iter().all(|(k, v)| template.template.label(k) == Some(*v)) {
            continue;
        }
        // Pods that may run as any account (a kind known only by its pod labels) may be the
        // identity's.
        if template.account == identity.service_account || template.account == workload::ANY_ACCOUNT {
            reached.push(t);
            continue;
        }
        let at = template.reference();
        let fields = fields_of(&at, has_leader(template.workload, &at));
        let (_, field) = fields.unwrap_or(("", "spec.serviceAccountName"));
        let place = if fields.is_some() { "that service" } else { "that pod template" };
        findings.push(Finding {
            kind: Kind::ServiceAccountMismatch,
            level: Level::Warning,
            message: format!(
                "{} carries the labels of binding {}/{} ({}) but runs as service account {:?}, not {:?}: \
                 set {field}: {} in {place}, or bind service account {}",
                at.describe(),
                identity.namespace(),
                identity.name(),
                pairs(&labels),
                template.account,
                identity.service_account,
                identity.service_account,
                template.account
            ),
            about: at,
            also: vec![about.clone()],
        });
    }
    if reached.is_empty() {
        findings.push(no_match(identity, &labels, index, about.clone()));
    }
    // Every namespace has a `default` service account: Kubernetes makes it.
    let declared_or_default = identity.service_account == workload::DEFAULT_SERVICE_ACCOUNT
        || declared.contains(&identity.service_account.as_str());
    if !declared.is_empty() && !declared_or_default {
        findings.push(Finding {
            kind: Kind::ServiceAccountNotDeclared,
            level: Level::Info,
            message: format!(
                "binding {}/{} names service account {:?}, which the input does not declare in namespace {} \
                 (it declares {}): check the name, or add the ServiceAccount",
                identity.namespace(),
                identity.name(),
                identity.service_account,
                identity.namespace(),
                listed(declared, 5)
            ),
            about,
            also: Vec::new(),
        });
    }
    (findings, reached)
}

/// `NoMatchingWorkload` for an identity that reaches no template, saying what came closest.
fn no_match(identity: &Identity, labels: &[(&str, &str)], index: &TemplateIndex<'_>, about: Ref) -> Finding {
    let ns = identity.namespace();
    let needs = format!(
        "its pods need, in namespace {ns}, the labels {} and service account {:?}",
        pairs(labels),
        identity.service_account
    );
    let in_namespace = index.by_namespace.get(ns).map_or(&[][..], Vec::as_slice);
    let (level, why) = if in_namespace.is_empty() {
        // The templates of the pool's rarest label, in any namespace.
        let rarest = identity
            .pool_labels()
            .iter()
            .map(|key| index.anywhere.get(&key).map_or(&[][..], Vec::as_slice))
            .min_by_key(|list| list.len())
            .unwrap_or(&[]);
        let elsewhere: Vec<String> = rarest
            .iter()
            .map(|&t| &index.templates[t])
            .filter(|t| t.has(identity.pool_labels()))
            .map(|t| {
                let place =
                    t.workload.namespace().map_or("no namespace".to_string(), |n| format!("namespace {n}"));
                format!("{} ({place})", t.reference().describe())
            })
            .collect();
        let why = if elsewhere.is_empty() {
            format!(
                "no pod template of the input is in namespace {ns} (the workloads may be deployed from elsewhere)"
            )
        } else {
            format!(
                "no pod template of the input is in namespace {ns}, but {} {} the pool's labels: deploy {} in {ns}",
                listed(&elsewhere, 3),
                verb(elsewhere.len(), "carries", "carry"),
                verb(elsewhere.len(), "it", "them")
            )
        };
        (Level::Info, why)
    } else {
        (Level::Warning, closest(identity, in_namespace, index))
    };
    Finding {
        kind: Kind::NoMatchingWorkload,
        level,
        message: format!(
            "binding {}/{} reaches no pod: {why}; {needs}",
            identity.namespace(),
            identity.name()
        ),
        about,
        also: Vec::new(),
    }
}

/// Why the templates of the identity's namespace miss it, nearest first.
fn closest(identity: &Identity, in_namespace: &[usize], index: &TemplateIndex<'_>) -> String {
    let ns = identity.namespace();
    let of =
        |list: &[usize]| -> Vec<&InputTemplate<'_>> { list.iter().map(|&t| &index.templates[t]).collect() };
    let pool: Vec<(&str, &str)> = identity.pool_labels().iter().collect();
    let with_pool: Vec<&InputTemplate<'_>> =
        of(index.candidates(ns, &pool)).into_iter().filter(|t| t.has(identity.pool_labels())).collect();
    // The templates meant for this identity carry its variant: when none of them has the
    // pool's labels, the fault is a pool label they miss or spell otherwise, not the variant
    // of the templates that do have them.
    let meant = of(index.candidates(ns, &[(VARIANT_LABEL, identity.variant.as_str())]));
    if !meant.is_empty() && !meant.iter().any(|t| t.has(identity.pool_labels())) {
        let faults: Vec<String> = meant.iter().map(|t| missing_pool_labels(identity, t)).collect();
        return format!("{}: make the pool selector and the pod labels agree", listed(&faults, 3));
    }
    if with_pool.is_empty() {
        let templates = of(in_namespace);
        for (key, _) in identity.pool_labels().iter() {
            let near: Option<(&InputTemplate<'_>, &str)> = templates.iter().find_map(|t| {
                let found = t.template.labels().find(|(k, _)| *k != key && same_but_spelling(k, key))?;
                Some((*t, found.0))
            });
            if let Some((t, found)) = near {
                return format!(
                    "no pod template carries the pool's label key {key:?}, but {} carries {found:?}, which differs \
                     only in case or punctuation: make the pool selector and the pod labels agree",
                    t.reference().describe()
                );
            }
        }
        let count = templates.len();
        return format!(
            "none of the {count} pod {} in namespace {} carries the pool's labels {}",
            verb(count, "template", "templates"),
            identity.namespace(),
            pairs(&identity.pool_labels().iter().collect::<Vec<_>>())
        );
    }
    let other_account: Vec<String> = with_pool
        .iter()
        .filter(|t| t.template.label(VARIANT_LABEL) == Some(identity.variant.as_str()))
        .map(|t| format!("{} runs as {:?}", t.reference().describe(), t.account))
        .collect();
    if !other_account.is_empty() {
        return format!(
            "the pod templates with its labels run as another service account than {:?}: {}",
            identity.service_account,
            listed(&other_account, 3)
        );
    }
    let variants: BTreeSet<&str> = with_pool.iter().filter_map(|t| t.template.label(VARIANT_LABEL)).collect();
    let unlabelled: Vec<Ref> = with_pool
        .iter()
        .filter(|t| t.template.label(VARIANT_LABEL).is_none())
        .map(|t| t.reference())
        .collect();
    let without: Vec<String> = unlabelled.iter().map(Ref::describe).collect();
    // A model server KServe makes takes its labels from its service's fields.
    let fields: BTreeSet<&str> = unlabelled.iter().filter_map(|r| Some(fields_of(r, false)?.0)).collect();
    let target = if fields.is_empty() {
        "the pod template".to_string()
    } else {
        let fields: Vec<&str> = fields.into_iter().collect();
        format!("the pod template (an LLMInferenceService's {})", fields.join(" or "))
    };
    let mut parts = Vec::new();
    if !without.is_empty() {
        parts.push(format!(
            "{} {} the pool's labels but no {VARIANT_LABEL} label: add {VARIANT_LABEL}: {} to {target} \
             meant to run as this identity",
            listed(&without, 3),
            verb(without.len(), "carries", "carry"),
            identity.variant
        ));
    }
    if !variants.is_empty() {
        let quoted: Vec<String> = variants.iter().map(|v| format!("{v:?}")).collect();
        parts.push(format!(
            "the pool's pod templates carry {VARIANT_LABEL} {}, not {:?}",
            listed(&quoted, 5),
            identity.variant
        ));
    }
    parts.join("; ")
}

/// `Kind ns/name (path) carries the variant but not the pool's label k=v (it carries ...)`.
fn missing_pool_labels(identity: &Identity, t: &InputTemplate<'_>) -> String {
    let missing: Vec<String> = identity
        .pool_labels()
        .iter()
        .filter(|(k, v)| t.template.label(k) != Some(*v))
        .map(|(k, v)| match t.template.labels().find(|(near, _)| *near != k && same_but_spelling(near, k)) {
            Some((near, _)) => {
                format!("{k}={v} (it carries {near:?}, which differs only in case or punctuation)")
            }
            None => match t.template.label(k) {
                Some(other) => format!("{k}={v} (it carries {k}={other})"),
                None => format!("{k}={v}"),
            },
        })
        .collect();
    format!(
        "{} carries {VARIANT_LABEL}: {} but not the pool's {} {}",
        t.reference().describe(),
        identity.variant,
        verb(missing.len(), "label", "labels"),
        missing.join(", ")
    )
}

/// `one` for a single thing, else `many`.
fn verb(count: usize, one: &'static str, many: &'static str) -> &'static str {
    if count == 1 { one } else { many }
}

/// `WorkloadWithoutVariant` and `VariantNotBound`: templates a pool in use selects that no
/// identity of that pool can reach.
fn pool_findings(
    uses: &[Arc<PoolUse>],
    bound: &[Bound],
    index: &TemplateIndex<'_>,
    reached: &BTreeMap<usize, Vec<usize>>,
) -> Vec<Finding> {
    let mut pools: BTreeMap<(&str, PoolApi, &str), Vec<&PoolUse>> = BTreeMap::new();
    for u in uses {
        pools.entry((&u.namespace, u.pool_api, &u.pool)).or_default().push(u);
    }
    // Each pool on its own, on all cores, in order.
    let found = crate::parallel::map(pools.into_iter().collect(), |((ns, api, pool), uses)| {
        let mut out = Vec::new();
        let api = api.api_version();
        let labels = &uses[0].labels;
        let pairs_of: Vec<(&str, &str)> = labels.iter().collect();
        let bound_here: BTreeSet<&str> = uses.iter().filter_map(|u| u.variant.as_deref()).collect();
        let names: Vec<&str> = uses.iter().map(|u| u.binding_name.as_str()).collect();
        let bound_list = listed(&bound_here.iter().copied().collect::<Vec<_>>(), 8);
        for &t in index.candidates(ns, &pairs_of) {
            let template = &index.templates[t];
            // A template an identity reaches is bound, whichever pool that identity is of
            // (two pools may select the same pods).
            if !template.has(labels) || reached.contains_key(&t) {
                continue;
            }
            let about = template.reference();
            let (kind, message) = match template.template.label(VARIANT_LABEL) {
                None => (
                    Kind::WorkloadWithoutVariant,
                    format!(
                        "{} is selected by InferencePool {ns}/{pool} ({api}), which bindings use ({}), but carries no \
                         {VARIANT_LABEL} label, so no identity of that pool reaches it: add {VARIANT_LABEL} with one of \
                         the bound variants ({bound_list}) to its labels",
                        about.describe(),
                        listed(&names, 3)
                    ),
                ),
                Some(variant) if !bound_here.contains(variant) => (
                    Kind::VariantNotBound,
                    format!(
                        "{} is selected by InferencePool {ns}/{pool} ({api}) and carries {VARIANT_LABEL}: {variant}, \
                         which no binding of that pool binds (bound: {bound_list}): {}",
                        about.describe(),
                        unbound_fix(bound, ns, pool, variant)
                    ),
                ),
                Some(_) => continue,
            };
            out.push(Finding { kind, level: Level::Warning, message, about, also: Vec::new() });
        }
        out
    });
    found.into_iter().flatten().collect()
}

/// What to do about pods of `pool` whose variant no binding of the pool binds: fix the
/// binding of that variant that fails, or the one that names another pool; else add one.
fn unbound_fix(bound: &[Bound], ns: &str, pool: &str, variant: &str) -> String {
    let mine: Vec<&Bound> = bound.iter().filter(|b| b.namespace == ns && b.variant == variant).collect();
    if let Some(b) = mine.iter().find(|b| b.failure.is_some()) {
        return format!(
            "binding {ns}/{} binds variant {variant} but fails ({}); fix that binding",
            b.name,
            b.failure.as_deref().unwrap_or_default()
        );
    }
    if let Some(b) = mine.first() {
        return format!(
            "binding {ns}/{} binds variant {variant} on another pool than {pool}; point its spec.poolRef at {pool}, \
             or give the pods a bound variant",
            b.name
        );
    }
    let variants: BTreeSet<&str> =
        bound.iter().filter(|b| b.namespace == ns).map(|b| b.variant.as_str()).collect();
    match crate::reconcile::rules::not_found::nearest(variant, &variants) {
        Some(near) => format!(
            "did you mean {near:?}? A binding in {ns} binds variant {near}: correct the pods' \
             {VARIANT_LABEL} label, or add a binding for variant {variant}"
        ),
        None => format!("add a binding for variant {variant}, or give the pods a bound variant"),
    }
}

/// Two label keys that are the same but for case and punctuation
/// (`inference-serving`, `inferenceServing`).
fn same_but_spelling(a: &str, b: &str) -> bool {
    let plain = |s: &str| {
        s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect::<String>()
    };
    plain(a) == plain(b)
}

/// `k=v, k=v`.
fn pairs(labels: &[(&str, &str)]) -> String {
    labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

/// The first `most` names and how many more.
fn listed<T: AsRef<str>>(names: &[T], most: usize) -> String {
    let shown: Vec<&str> = names.iter().take(most).map(AsRef::as_ref).collect();
    match names.len().saturating_sub(most) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}
