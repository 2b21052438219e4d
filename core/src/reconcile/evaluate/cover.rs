//! Workload coverage in the reconcile (docs/reference.md#workload-coverage): what this run's
//! bindings ask of [`coverage`] and [`spire`], taken from their records before their statuses
//! are written, and the run of both, one after the other.

use super::state::{Binding, InputIndex, Passing};
use crate::api::binding::BindingInput;
use crate::api::fields;
use crate::api::labels::Labels;
use crate::api::pool::PoolApi;
use crate::api::value::Value;
use crate::config::WorkloadPolicy;
use crate::parallel;
use crate::reconcile::context::{Context, Model};
use crate::reconcile::coverage::{self, Coverage, Identity, PoolUse};
use crate::reconcile::findings::{self, Kind};
use crate::reconcile::items::input::Input;
use crate::reconcile::outputs::ownership;
use crate::reconcile::rules::identity;
use crate::reconcile::spire;
use crate::reconcile::unjudged;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// A binding that renders, as its checks planned it: what coverage reads of it.
struct Rendering<'a> {
    namespace: &'a str,
    service_account: &'a str,
    variant: &'a str,
    /// Its ClusterSPIFFEID's name.
    output: String,
    /// The pool the checks resolved: its final name, API and selector labels.
    pool: (&'a str, PoolApi),
    pool_labels: Labels,
}

/// What coverage needs of the bindings, by binding.
pub(super) struct Request<'a> {
    /// By binding, for each one that renders: what its checks planned.
    rendering: Vec<Option<Rendering<'a>>>,
    /// Every binding with a namespace and a variant, and whether it fails: coverage names
    /// the failing one when pods carry its variant.
    bound: Vec<coverage::Bound>,
    /// The objects this run renders, as SPIRE Controller Manager will read them.
    rendered: Vec<spire::Source>,
    /// The bindings whose verdict hangs on an API the folders do not say the cluster serves,
    /// by item: where they are rendered in the cluster, it decides.
    unserved: Vec<(usize, unjudged::Unserved)>,
    /// By binding that renders, its pool's input position.
    pools_of: Vec<(usize, usize)>,
}

impl<'a> Request<'a> {
    /// The request of the bindings; `None` under `workloadPolicy: Ignore` in a run that does
    /// not keep the model: it runs no coverage. One that keeps it (`explain`, `diff`) runs the
    /// model whatever the policy, which governs findings: a configuration must not blind the
    /// view of what SPIRE will do.
    pub fn of(bindings: &[Binding<'_, 'a>], ctx: &Context<'_>) -> Option<Request<'a>> {
        let config = ctx.config;
        if config.workload_policy == WorkloadPolicy::Ignore && ctx.model == Model::Forget {
            return None;
        }
        let rendering = bindings
            .iter()
            .map(|b| {
                let Passing { planned: p, output } = b.verdict.as_ref().ok()?;
                Some(Rendering {
                    namespace: p.namespace,
                    service_account: p.service_account,
                    variant: p.variant,
                    output: output.clone(),
                    pool: (p.pool, p.pool_api),
                    pool_labels: p.pool_labels.clone(),
                })
            })
            .collect();
        let bound = bindings
            .iter()
            .filter_map(|b| {
                Some(coverage::Bound {
                    item: b.input.item,
                    namespace: b.input.namespace.clone().ok()?.to_string(),
                    name: b.input.name.to_string(),
                    variant: fields::str_at(b.input.value, "spec.identityBoundary.variant")?.to_string(),
                    failure: b.verdict.as_ref().err().map(ToString::to_string),
                })
            })
            .collect();
        // And what a binding would render but for its conflicts, as a may-be object.
        let rendered = bindings
            .iter()
            .filter_map(|b| {
                let (p, withheld) = match (&b.verdict, &b.withheld) {
                    (Ok(p), _) => (p, false),
                    (Err(_), Some(p)) => (p, true),
                    (Err(_), None) => return None,
                };
                // Only a manager that filters by labels reads them.
                let labels = (!config.spire.label_selector.is_empty()).then(|| {
                    identity::output_labels(b.input.name, p.planned.namespace, config.class_label())
                });
                let out = spire::RenderedOutput {
                    name: &p.output,
                    namespace: p.planned.namespace,
                    variant: p.planned.variant,
                    pool_labels: &p.planned.pool_labels,
                    spiffe_id: &p.planned.spiffe_id,
                    selectors: &p.planned.selectors,
                    class_name: config.class_name.as_deref(),
                    labels: labels.as_ref(),
                    hint: identity::output_hint(b.input.name, p.planned.namespace),
                };
                let mut source = spire::Source::rendered(b.input.item, out, config.selector_scope);
                if withheld {
                    source.origin = spire::Origin::Withheld { binding: b.input.item };
                }
                Some(source)
            })
            .collect();
        // Where the binding's verdict hangs on an API the folders do not list.
        let unserved = bindings
            .iter()
            .filter_map(|b| match &b.verdict {
                Err(f) if f.unserved => Some((b.input.item, unjudged::Unserved::Fails(f.reason))),
                Ok(p) if p.planned.pool_shadowed => {
                    let (pool, api) = (p.planned.pool.to_string(), p.planned.pool_api.api_version());
                    Some((b.input.item, unjudged::Unserved::Shadowed { pool, api }))
                }
                _ => None,
            })
            .collect();
        // A binding whose pool an applier may leave unapplied renders only where it applies it.
        let pools_of = bindings
            .iter()
            .filter_map(|b| Some((b.input.item, b.verdict.as_ref().ok()?.planned.pool_position?)))
            .collect();
        Some(Request { rendering, bound, rendered, unserved, pools_of })
    }
}

/// What every rendered identity reaches, and the findings; nothing without a request.
pub(super) fn coverage<'a>(
    items: &'a [Input],
    bindings: &[BindingInput<'a>],
    request: Option<Request<'a>>,
    index: &InputIndex<'a>,
    ctx: &Context<'_>,
) -> Coverage {
    let config = ctx.config;
    let Some(Request { rendering, bound, rendered, unserved, pools_of }) = request else {
        return Coverage::default();
    };
    let prune = config.prune;

    // Each binding's pool on all cores, in order: a binding that renders resolved it in its
    // checks; any other may still use one.
    let resolved = parallel::map(bindings.iter().zip(rendering).collect(), |(b, rendering)| {
        let Some(r) = rendering else {
            return Some((coverage::inputs::pool_use(b, &index.pools, &index.served)?, None));
        };
        let used = coverage::inputs::used(b, r.namespace, r.pool, r.pool_labels, Some(r.variant));
        let identity = coverage::inputs::identity(&used, r.service_account, r.variant, r.output);
        Some((used, Some(identity)))
    });
    let mut uses: Vec<Arc<PoolUse>> = Vec::with_capacity(resolved.len());
    let mut identities: Vec<Identity> = Vec::with_capacity(resolved.len());
    for (used, identity) in resolved.into_iter().flatten() {
        identities.extend(identity);
        uses.push(used);
    }
    let names: HashSet<&str> = identities.iter().map(|i| i.output.as_str()).collect();
    let present: HashSet<(&str, &str)> =
        bindings.iter().filter_map(|b| Some((b.namespace.clone().ok()?, b.name))).collect();
    let stays = |value: &Value| {
        let fate = ownership::fate(value, |n| names.contains(n), |ns, n| present.contains(&(ns, n)), prune);
        fate == ownership::Fate::Kept
    };
    let mut seen = coverage::inputs::seen(items, stays);
    if let Some(namespace) = &config.namespace {
        seen.place_namespaceless(namespace);
    }
    seen.accounts = coverage::inputs::renamed_accounts(&seen, &index.service_accounts);
    seen.unapplied.clone_from(&ctx.unapplied);
    coverage::inputs::mark_unapplied(&mut seen, items, &pools_of);
    let refs: HashMap<usize, findings::Ref> = bindings
        .iter()
        .map(|b| (b.item, findings::binding_ref(b.item, b.namespace.clone().ok(), b.name)))
        .collect();
    let binding_refs = |b: usize| refs[&b].clone();
    // What SPIRE Controller Manager will do with this run's objects and those the input keeps,
    // then coverage: one after the other, so that the model's working sets (and the model,
    // when the caller does not read it) are freed before coverage makes its findings, the
    // peak of a large first run (docs/performance.md).
    // What is applied is what is committed: this function's outputs that a render replaces or
    // removes are applied as they are when the folder is applied without a render. Those whose
    // entries differ from their fresh render (or that have none) stay, as may-be sources, and
    // a record says what each lets pods have that no render does.
    let fresh: HashMap<&str, &spire::Source> = rendered
        .iter()
        .filter(|r| matches!(r.origin, spire::Origin::Rendered { .. }))
        .map(|r| (r.name.as_str(), r))
        .collect();
    let mut committed = Vec::new();
    // The renders whose output is committed otherwise: applied only where the folder is
    // rendered first, the committed output where it is applied as committed.
    let mut replaced: Vec<String> = Vec::new();
    seen.others.retain(|o| {
        if !o.committed {
            return true;
        }
        let source = spire::Source::of_input(o);
        let render = fresh.get(o.name.as_str()).copied();
        // The same entries, read alike by a manager that filters by labels (its class label
        // among them): a label added by hand may make the manager read it.
        let read_alike = |r: &spire::Source| {
            spire::missing_labels(&config.spire, r) == spire::missing_labels(&config.spire, &source)
        };
        // And one the cluster stores and keeps as surely as the render: not refused, kept, applied.
        let stored =
            source.refusal.is_none() && source.may_not_be_kept.is_none() && !seen.unapplied.contains(&o.item);
        if stored && render.is_some_and(|r| r.same_entries(&source) && read_alike(r)) {
            return false;
        }
        committed.push((o.item, render.map(|r| source.additions(r))));
        if let Some(r) = render {
            replaced.push(r.name.clone());
        }
        true
    });
    let committed = unjudged::committed(items, &committed);
    let mut sources = rendered;
    for source in sources.iter_mut().filter(|s| replaced.contains(&s.name)) {
        source.replaced = true;
    }
    sources.extend(seen.others.iter().map(spire::Source::of_input));
    let model = spire::simulate(sources, &seen, &config.spire, config.trust_domain.as_deref());
    let without = spire::findings::Without::of(&model);
    let instead = spire::findings::selected_instead(&model, &without, &seen);
    let cx =
        spire::findings::Context { seen: &seen, scope: config.selector_scope, binding_refs: &binding_refs };
    let spire_findings = spire::findings::findings(&model, &without, &cx);
    drop(without);
    let read = |s: &usize| !model.ignored[*s] && model.refused[*s].is_none();
    let read_sources = || (0..model.sources.len()).filter(read).map(|s| &model.sources[s]);
    let mut unjudged = unjudged::find(items, read_sources(), ctx.written);
    unjudged.extend(committed);
    unjudged.extend(unjudged::unserved(items, &unserved));
    unjudged.extend(unjudged::unapplied_services(items, &seen, read_sources()));
    unjudged.extend(unjudged::duplicates(items, ctx.written));
    // An entry that reads the pod beyond what its template settles hangs on what Kubernetes
    // writes into pods too: made only when one does.
    let reads_pod = model.held.iter().any(|h| h.entries.iter().any(|e| e.reads_template));
    let pod_context = if reads_pod { unjudged::pod_context(items) } else { String::new() };
    let model = match ctx.model {
        Model::Keep => model,
        Model::Forget => {
            drop(model);
            (ctx.release_freed)();
            spire::Model::default()
        }
    };
    if config.workload_policy == WorkloadPolicy::Ignore {
        return Coverage { findings: Vec::new(), spire: model, unjudged, pod_context };
    }
    let mut coverage = coverage::coverage(&identities, &uses, &bound, &seen, &binding_refs);
    // A binding that reaches no pod: what its object selects instead, and what those pods hold.
    for finding in coverage.findings.iter_mut().filter(|f| f.kind == Kind::NoMatchingWorkload) {
        if let Some(instead) = instead.get(&finding.about.item) {
            finding.message.push_str("; ");
            finding.message.push_str(instead);
        }
    }
    coverage.findings.extend(spire_findings);
    // A message is made by growing a string: what it holds, and no more, stays for the
    // run's output (a first run on a large repository has tens of thousands).
    coverage.findings.iter_mut().for_each(|f| f.message.shrink_to_fit());
    coverage.findings.sort_by(|a, b| (&a.about, a.kind, &a.message).cmp(&(&b.about, b.kind, &b.message)));
    coverage.spire = model;
    coverage.unjudged = unjudged;
    coverage.pod_context = pod_context;
    coverage
}
