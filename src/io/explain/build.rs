//! From the reconcile's outcome to the report: per binding its verdict, identity, scope and
//! the pod templates it reaches; per pod template what SPIRE gives its pods
//! (reconcile::spire); the findings; and the reach `diff` compares.

use super::report::{
    At, BindingReport, FederationReport, FindingReport, GuardReport, HeldReport, HeldText, LabelSelector,
    MadeIf, MayHold, NotMade, Power, Reach, Removed, Report, StaticEntryReport, UnjudgedReport, UnknownSvid,
    WorkloadRef,
};
use crate::api::binding::InferenceIdentityBindingStatus;
use crate::api::cluster_spiffe_id::ClusterSpiffeId;
use crate::api::value::Value;
use crate::reconcile::Outcome;
use crate::reconcile::cluster::workload::Workload;
use crate::reconcile::findings::Ref;
use crate::reconcile::item::Item;
use crate::reconcile::spire::server;
use std::borrow::Cow;
use std::collections::HashMap;

impl From<&Ref> for WorkloadRef {
    fn from(r: &Ref) -> Self {
        WorkloadRef {
            api_version: r.api_version.clone(),
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            path: r.path.clone().filter(|p| !p.is_empty()),
        }
    }
}

/// The report of an outcome; `at` says where the input item at a position starts. Its
/// `config` is left for the caller, who knows which was read.
/// `text` gives the item's text as written, for the digest of a pod template an unknown
/// hangs on ([`template_fact`]).
pub(super) fn report(
    outcome: &Outcome,
    at: &dyn Fn(usize) -> Option<At>,
    text: &dyn Fn(usize) -> Option<String>,
) -> Report {
    let places = Places::of(outcome);
    let rendered: HashMap<&str, &ClusterSpiffeId> = outcome
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Rendered(object, _) => Some((object.metadata.name.as_str(), &**object)),
            _ => None,
        })
        .collect();
    let bindings = outcome
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Binding(position, value, status) => {
                let mut binding = binding(*position, value, status, &rendered, outcome, &places);
                binding.at = at(*position);
                Some(binding)
            }
            _ => None,
        })
        .collect();
    let findings = outcome
        .findings
        .iter()
        .map(|f| FindingReport {
            at: at(f.about.item),
            severity: outcome.severity(f).into(),
            reason: f.kind.as_str().to_string(),
            message: f.message.clone(),
            refs: std::iter::once(&f.about).chain(&f.also).map(WorkloadRef::from).collect(),
        })
        .collect();
    let model = &outcome.coverage.spire;
    // What Kubernetes writes into pods beside their template, which the same unknowns may read.
    let context = &outcome.coverage.pod_context;
    let context = (!context.is_empty())
        .then(|| format!("what Kubernetes writes into pods beside their template: {}", &context[..12]));
    let workloads: Vec<HeldReport> = model
        .held
        .iter()
        .filter_map(|h| {
            let names = |sources: &mut dyn Iterator<Item = usize>| -> Vec<String> {
                sources.map(|s| model.sources[s].name.clone()).collect()
            };
            let WorkloadRef { api_version, kind, namespace, name, path } =
                places.workload(h.item, h.template)?;
            // What an entry's unknowns hang on: its own facts, and the template as written
            // when they may read it (made once per template).
            let template = h
                .entries
                .iter()
                .any(|e| e.reads_template)
                .then(|| template_fact(text(h.item).as_deref(), path.as_deref()));
            let hangs_on = |e: &crate::reconcile::spire::Entry| -> Vec<String> {
                let mut facts = e.hangs_on.clone();
                if e.reads_template {
                    facts.extend(template.clone());
                    facts.extend(context.clone());
                }
                facts
            };
            Some(HeldReport {
                at: at(h.item),
                api_version,
                kind,
                namespace,
                name,
                path,
                svids: h.svids().map(|e| e.spiffe_id.text.clone()).collect(),
                entries_without_identity: names(&mut model.without_identity(h).into_iter()),
                fallbacks_skipped: names(&mut h.skipped.iter().map(|k| k.source)),
                svids_with_unknowns: h
                    .svids()
                    .filter(|e| !e.spiffe_id.is_known())
                    .map(|e| UnknownSvid {
                        spiffe_id: e.spiffe_id.text.clone(),
                        unknown: e.spiffe_id.unknown.clone(),
                        hangs_on: hangs_on(e),
                    })
                    .collect(),
                entries_not_made: h
                    .failed
                    .iter()
                    .map(|f| NotMade {
                        cluster_spiffe_id: model.sources[f.source].name.clone(),
                        reason: f.why.clone(),
                    })
                    .collect(),
                may_hold: h
                    .entries
                    .iter()
                    .filter(|e| !e.is_sure())
                    .map(|e| MayHold {
                        spiffe_id: e.spiffe_id.text.clone(),
                        cluster_spiffe_id: model.sources[e.source].name.clone(),
                        made_if: e.unsure.map(MadeIf::from),
                        attests_if: e.misses.clone(),
                        hangs_on: hangs_on(e),
                        unknown: e.spiffe_id.unknown.clone(),
                    })
                    .collect(),
                powers: powers(model, &h.entries, &hangs_on),
                text: HeldText {
                    svids: h.svids().map(|e| svid_line(&e.spiffe_id)).collect(),
                    ignored: h
                        .ignored_namespace
                        .then(|| "its namespace: the manager's ignoreNamespaces".to_string()),
                },
            })
        })
        .collect();
    let reach = reach(&workloads);
    let mut static_entries: Vec<StaticEntryReport> = model
        .sources
        .iter()
        .enumerate()
        .filter_map(|(s, source)| {
            let item = match source.origin {
                crate::reconcile::spire::source::Origin::Input { item } => Some(item),
                crate::reconcile::spire::source::Origin::Rendered { .. }
                | crate::reconcile::spire::source::Origin::Withheld { .. } => None,
            };
            Some(StaticEntryReport {
                at: item.and_then(at),
                name: source.name.clone(),
                read: !model.ignored[s] && model.refused[s].is_none(),
                spiffe_id: source.spiffe_id_template.clone(),
                parent_id: source.static_parent.clone()?,
                selectors: source.selector_templates.clone(),
                admin: source.admin,
                downstream: source.downstream,
                federates_with: source.federates_with.clone(),
                dns_names: source.dns_name_templates.clone(),
                x509_svid_ttl: source.ttls[0].clone(),
                jwt_svid_ttl: source.ttls[1].clone(),
                store_svid: source.store_svid,
                hint: (server::of_hint(&source.hint) != server::Verdict::Takes).then(|| source.hint.clone()),
                may_not_be_kept: source.may_not_be_kept.clone(),
            })
        })
        .collect();
    static_entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut federated_trust_domains: Vec<FederationReport> = model
        .federations
        .iter()
        .map(|(f, read)| FederationReport {
            at: at(f.item),
            name: f.name.clone(),
            read: *read,
            trust_domain: f.trust_domain.clone(),
            bundle_endpoint_url: f.bundle_endpoint_url.clone(),
            bundle_endpoint_profile: f.bundle_endpoint_profile.clone(),
            trust_domain_bundle: f.trust_domain_bundle.clone(),
            may_not_be_kept: f.may_not_be_kept.clone(),
        })
        .collect();
    federated_trust_domains.sort_by(|a, b| a.name.cmp(&b.name));
    Report {
        config: None,
        spire: None,
        reach,
        bindings,
        workloads,
        findings,
        static_entries,
        federated_trust_domains,
        unjudged: Vec::new(),
        object_names: {
            // An object whose spec does not parse the manager's webhook refused: the cluster
            // never stored it, so it is no older than what HEAD adds.
            let stored = |s: &usize| model.refused.get(*s).is_none_or(|why| why.is_none());
            // Each kind's names once; a name both kinds use, twice (two objects).
            let mut names: Vec<(bool, String)> = (0..model.sources.len())
                .filter(stored)
                .map(|s| (model.sources[s].static_parent.is_some(), model.sources[s].name.clone()))
                .collect();
            names.sort();
            names.dedup();
            let mut names: Vec<String> = names.into_iter().map(|(_, name)| name).collect();
            names.sort();
            names
        },
        admission_guard: outcome.guard.as_ref().map(|g| GuardReport {
            name: g.name.clone(),
            action: format!("{:?}", g.action),
            param_namespace: g.param_namespace.clone(),
            controllers: g.controllers.iter().map(|(k, u)| (k.to_string(), u.clone())).collect(),
            committed: g.committed,
        }),
    }
}

/// What the build cannot judge: the reconcile's records of items, and what the files mode
/// found of files (`render::FileUnjudged`: files kpt passes over, Kptfiles' mutators).
pub(super) fn unjudged(
    outcome: &Outcome,
    files: &[crate::io::render::FileUnjudged],
    at: &dyn Fn(usize) -> Option<At>,
) -> Vec<UnjudgedReport> {
    use sha2::{Digest, Sha256};
    let items = outcome.coverage.unjudged.iter().map(|u| UnjudgedReport {
        at: at(u.about.item),
        file: None,
        object: Some(WorkloadRef::from(&u.about)),
        field: u.field.clone(),
        message: u.message.clone(),
        digest: u.digest.clone(),
        copy: u.copy,
    });
    let files = files.iter().map(|f| UnjudgedReport {
        at: Some(At { file: Some(f.path.clone()), line: f.line }),
        file: Some(f.relative.to_string_lossy().to_string()),
        object: None,
        field: f.field.clone(),
        message: f.message.clone(),
        digest: crate::reconcile::rules::identity::hex(&Sha256::digest(&f.digested)),
        copy: false,
    });
    items.chain(files).collect()
}

/// Per entry of `entries` that carries a power, each object that declares it with the
/// powers its entry would give, sorted by ID, entry and object.
fn powers(
    model: &crate::reconcile::spire::Model,
    entries: &[crate::reconcile::spire::Entry],
    hangs_on: &dyn Fn(&crate::reconcile::spire::Entry) -> Vec<String>,
) -> Vec<Power> {
    let mut out = Vec::new();
    for (n, e) in entries.iter().enumerate() {
        if e.declared().all(|(_, p)| p.is_empty()) {
            continue;
        }
        for (source, p) in e.declared() {
            out.push(Power {
                spiffe_id: e.spiffe_id.text.clone(),
                object: model.sources[source].name.clone(),
                entry: n as u32,
                admin: p.admin,
                downstream: p.downstream,
                federates_with: p.federates_with.clone(),
                dns_names: p.dns_names.clone(),
                ttl: p.ttls[0].clone(),
                jwt_ttl: p.ttls[1].clone(),
                store_svid: p.store_svid,
                hangs_on: hangs_on(e),
            });
        }
    }
    out.sort_by(|a, b| (&a.spiffe_id, a.entry, &a.object).cmp(&(&b.spiffe_id, b.entry, &b.object)));
    out
}

/// Per pod template of the input, the SPIFFE IDs its pods get (what SPIRE Controller
/// Manager issues them, from every ClusterSPIFFEID of the output), sorted; templates that get
/// none are left out. The one place `diff` learns what reaches what.
fn reach(workloads: &[HeldReport]) -> Vec<Reach> {
    workloads
        .iter()
        .filter(|w| !w.svids.is_empty())
        .map(|w| {
            let mut spiffe_ids = w.svids.clone();
            spiffe_ids.sort();
            spiffe_ids.dedup();
            let WorkloadRef { api_version, kind, namespace, name, path } = w.workload();
            Reach { api_version, kind, namespace, name, path, spiffe_ids }
        })
        .collect()
}

fn binding(
    position: usize,
    value: &Value,
    status: &InferenceIdentityBindingStatus,
    objects: &HashMap<&str, &ClusterSpiffeId>,
    outcome: &Outcome,
    places: &Places<'_>,
) -> BindingReport {
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str).map(str::to_string);
    let ready = status.conditions.iter().find(|c| c.type_ == "Ready");
    let rendered = status.rendered_cluster_spiffeid.as_ref();
    let object = rendered.and_then(|r| objects.get(r.name.as_str()));
    let selector = |labels: &crate::api::labels::Labels| LabelSelector {
        match_labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    BindingReport {
        at: None,
        namespace: text("/metadata/namespace"),
        name: text("/metadata/name").unwrap_or_default(),
        ready: ready.is_some_and(|c| c.status == "True"),
        reason: ready.map(|c| c.reason.to_string()).unwrap_or_default(),
        message: ready.map(|c| c.message.to_string()).unwrap_or_default(),
        spiffe_id: rendered.map(|r| r.spiffe_id.clone()),
        cluster_spiffe_id: rendered.map(|r| r.name.clone()),
        class_name: rendered.and(status.cluster_spiffeid_class_name.clone()),
        class_label: object.and_then(|o| o.metadata.labels.class_name.clone()),
        pod_selector: object.map(|o| selector(&o.spec.pod_selector.match_labels)),
        namespace_selector: object
            .and_then(|o| o.spec.namespace_selector.as_ref())
            .map(|n| selector(&n.match_labels)),
        selectors: status.rendered_selectors.first().map(|s| s.selectors.clone()).unwrap_or_default(),
        workloads: places.held_by(outcome, position, true),
        selected_without_identity: places.held_by(outcome, position, false),
        removes: outcome
            .failure_of(position)
            .into_iter()
            .flat_map(|f| &f.removes)
            .map(|l| Removed { cluster_spiffe_id: l.output.clone(), spiffe_id: l.spiffe_id.clone() })
            .collect(),
        guard_admits: outcome
            .guard
            .as_ref()
            .map(|g| g.admits.get(&position).into_iter().flatten().map(WorkloadRef::from).collect()),
        guard_parameters: outcome.guard.as_ref().and_then(|g| g.parameters.get(&position).cloned()),
    }
}

/// A SPIFFE ID, with the parts known only in the cluster said as such.
fn svid_line(id: &crate::reconcile::spire::template::Evaluated) -> String {
    super::text::svid_words(&id.text, &id.unknown)
}

/// Lookups the report makes for every binding and pod template, built once.
struct Places<'o> {
    /// The input items with pod templates, by position, each read as one once.
    workloads: HashMap<usize, Cow<'o, Workload>>,
    /// By object of the model: the held templates it gives its SVID, and those it selects without.
    by_source: Vec<(Vec<usize>, Vec<usize>)>,
}

impl<'o> Places<'o> {
    fn of(outcome: &'o Outcome) -> Places<'o> {
        Places { workloads: outcome.workloads(), by_source: outcome.coverage.spire.by_source() }
    }

    /// The pod templates the rendered object of the binding at `position` gives its SVID
    /// to (`attesting`), or selects without one.
    fn held_by(&self, outcome: &Outcome, position: usize, attesting: bool) -> Vec<WorkloadRef> {
        let model = &outcome.coverage.spire;
        let Some(source) = model.rendered(position) else { return Vec::new() };
        let (with, without) = &self.by_source[source];
        let held = if attesting { with } else { without };
        held.iter().filter_map(|&h| self.workload(model.held[h].item, model.held[h].template)).collect()
    }

    /// The reference of the `template`-th pod template of the input item at `item`.
    fn workload(&self, item: usize, template: usize) -> Option<WorkloadRef> {
        let workload = self.workloads.get(&item)?;
        let path = workload.templates().get(template)?.path().to_string();
        Some(WorkloadRef {
            api_version: workload.api_version().to_string(),
            kind: workload.kind().to_string(),
            namespace: workload.namespace().map(str::to_string),
            name: workload.name().to_string(),
            path: Some(path).filter(|p| !p.is_empty()),
        })
    }
}

/// The pod template an entry's unknowns may read, as `hangsOn` names it: its path and a
/// digest of the workload's whole `spec` as written, the template among it (read whole from
/// the item's text, keys in order, so that only a change of what it says changes the digest;
/// the item's whole text when it cannot be read or the path is not in it: a template a
/// controller derives). The whole spec, as a controller sets pod fields from outside the
/// template too: a StatefulSet's `serviceName` is its pods' `subdomain`
/// (`stateful_set_utils.go`, `initIdentity`).
fn template_fact(text: Option<&str>, path: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    let value = text.and_then(|t| crate::yaml::parse(t).ok());
    let path_text = path.unwrap_or_default();
    let node = value.as_ref().and_then(|v| {
        let spec = if path_text.starts_with("spec.") { v.get("spec") } else { None };
        spec.or_else(|| at_path(v, path_text))
    });
    let written = match node {
        Some(node) => canonical(node),
        None => text.unwrap_or_default().to_string(),
    };
    let digest: String =
        Sha256::digest(written.as_bytes()).iter().take(6).map(|b| format!("{b:02x}")).collect();
    match path {
        Some(path) => format!("pod template {path}, in its workload's spec as written: {digest}"),
        None => format!("pod template as written: {digest}"),
    }
}

/// The node at a template's path (`spec.template`, `spec.roles[0].template`; empty: the item).
fn at_path<'v>(value: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
    let mut node = value;
    for step in path.split('.').filter(|s| !s.is_empty()) {
        let (key, indices) = step.split_once('[').map_or((step, ""), |(k, rest)| (k, rest));
        node = node.get(key)?;
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            node = node.get(index.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(node)
}

/// A value as JSON with every mapping's keys sorted: the same for the same content.
fn canonical(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", serde_json::Value::String(k.clone()), canonical(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        serde_json::Value::Array(list) => {
            format!("[{}]", list.iter().map(canonical).collect::<Vec<_>>().join(","))
        }
        other => other.to_string(),
    }
}
