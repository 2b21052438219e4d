//! Workload coverage in the reconcile (docs/reference.md#workload-coverage): what this run's
//! bindings ask of [`coverage`] and [`spire`], taken from their records before their statuses
//! are written, and the run of both beside them.

use super::coverage::{self, Coverage, Identity, PoolUse};
use super::evaluate::{Binding, Index};
use super::findings::{self, Kind};
use super::input::Input;
use super::ownership;
use super::spire;
use crate::api::binding::BindingInput;
use crate::api::fields;
use crate::api::labels::Labels;
use crate::api::pool::PoolApi;
use crate::config::{Config, WorkloadPolicy};
use crate::parallel;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The pool of a binding that renders, as check 2 and 3 resolved it.
struct PlannedPool<'a> {
    namespace: &'a str,
    pool: &'a str,
    api: PoolApi,
    labels: Labels,
    variant: &'a str,
}

/// What coverage needs of the bindings, by binding.
pub(super) struct Request<'a> {
    /// For each binding that renders: its service account, variant and output name.
    rendering: Vec<Option<(&'a str, &'a str, String)>>,
    /// For each binding that renders: the pool it resolved to, as the checks found it.
    planned_pools: Vec<Option<PlannedPool<'a>>>,
    /// Every binding with a namespace and a variant, and whether it fails: coverage names
    /// the failing one when pods carry its variant.
    bound: Vec<coverage::Bound>,
    /// The objects this run renders, as SPIRE Controller Manager will read them.
    rendered: Vec<spire::Source>,
}

impl<'a> Request<'a> {
    /// The request of the bindings; `None` under `workloadPolicy: Ignore`, which runs no
    /// coverage.
    pub fn of(bindings: &[Binding<'_, 'a>], config: &Config) -> Option<Request<'a>> {
        if config.workload_policy == WorkloadPolicy::Ignore {
            return None;
        }
        let rendering = bindings
            .iter()
            .map(|b| {
                let p = b.verdict.as_ref().ok()?;
                Some((p.planned.service_account, p.planned.variant, p.output.clone()))
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
        let rendered = bindings
            .iter()
            .filter_map(|b| {
                let p = b.verdict.as_ref().ok()?;
                let out = spire::RenderedOutput {
                    name: &p.output,
                    namespace: p.planned.namespace,
                    variant: p.planned.variant,
                    pool_labels: &p.planned.pool_labels,
                    spiffe_id: &p.planned.spiffe_id,
                    selectors: &p.planned.selectors,
                    class_name: config.class_name.as_deref(),
                };
                Some(spire::Source::rendered(b.input.item, out, config.selector_scope))
            })
            .collect();
        let planned_pools = bindings
            .iter()
            .map(|b| {
                let p = &b.verdict.as_ref().ok()?.planned;
                Some(PlannedPool {
                    namespace: p.namespace,
                    pool: p.pool,
                    api: p.pool_api,
                    labels: p.pool_labels.clone(),
                    variant: p.variant,
                })
            })
            .collect();
        Some(Request { rendering, planned_pools, bound, rendered })
    }
}

/// What every rendered identity reaches, and the findings; nothing without a request.
pub(super) fn coverage<'a>(
    items: &'a [Input],
    bindings: &[BindingInput<'a>],
    request: Option<Request<'a>>,
    index: &Index<'a>,
    config: &Config,
) -> Coverage {
    let Some(Request { rendering, planned_pools, bound, rendered }) = request else {
        return Coverage::default();
    };
    let prune = config.prune;

    // Each binding's pool on all cores, in order.
    let resolved = parallel::map(
        bindings.iter().zip(&rendering).zip(planned_pools).collect(),
        |((b, rendered), planned)| {
            // A binding that renders resolved its pool in the checks; any other may still use one.
            let used = match planned {
                Some(p) => Arc::new(PoolUse {
                    binding: b.item,
                    binding_name: b.name.to_string(),
                    namespace: p.namespace.to_string(),
                    pool: p.pool.to_string(),
                    pool_api: p.api,
                    labels: p.labels,
                    variant: Some(p.variant.to_string()),
                }),
                None => coverage::inputs::pool_use(b, &index.pools, &index.served)?,
            };
            let identity = rendered.as_ref().map(|(service_account, variant, name)| {
                coverage::inputs::identity(&used, service_account, variant, name)
            });
            Some((used, identity))
        },
    );
    let mut uses: Vec<Arc<PoolUse>> = Vec::with_capacity(resolved.len());
    let mut identities: Vec<Identity> = Vec::with_capacity(resolved.len());
    for (used, identity) in resolved.into_iter().flatten() {
        identities.extend(identity);
        uses.push(used);
    }
    let names: HashSet<&str> = rendering.iter().flatten().map(|(_, _, name)| name.as_str()).collect();
    let present: HashSet<(&str, &str)> =
        bindings.iter().filter_map(|b| Some((b.namespace.clone().ok()?, b.name))).collect();
    let stays = |value: &Value| {
        let fate = ownership::fate(value, |n| names.contains(n), |ns, n| present.contains(&(ns, n)), prune);
        fate == ownership::Fate::Kept
    };
    let mut seen = coverage::inputs::seen(items, stays);
    seen.accounts = coverage::inputs::renamed_accounts(&seen, &index.service_accounts);
    let refs: HashMap<usize, findings::Ref> = bindings
        .iter()
        .map(|b| (b.item, findings::binding_ref(b.item, b.namespace.clone().ok(), b.name)))
        .collect();
    let binding_refs = |b: usize| refs[&b].clone();
    // What SPIRE Controller Manager will do with this run's objects and those the input keeps,
    // beside coverage: neither reads the other's work.
    let mut sources = rendered;
    sources.extend(seen.others.iter().map(spire::Source::of_input));
    let (mut coverage, (model, instead, spire_findings)) = std::thread::scope(|scope| {
        let spire = scope.spawn(|| {
            let model = spire::simulate(sources, &seen, &config.spire, config.trust_domain.as_deref());
            let without = spire::findings::Without::of(&model);
            let instead = spire::findings::selected_instead(&model, &without, &seen);
            let cx = spire::findings::Context {
                seen: &seen,
                scope: config.selector_scope,
                binding_refs: &binding_refs,
            };
            let found = spire::findings::findings(&model, &without, &cx);
            (model, instead, found)
        });
        let coverage = coverage::coverage(&identities, &uses, &bound, &seen, &binding_refs);
        (coverage, spire.join().expect("the SPIRE model does not panic"))
    });
    // A binding that reaches no pod: what its object selects instead, and what those pods hold.
    for finding in coverage.findings.iter_mut().filter(|f| f.kind == Kind::NoMatchingWorkload) {
        if let Some(instead) = instead.get(&finding.about.item) {
            finding.message.push_str("; ");
            finding.message.push_str(instead);
        }
    }
    coverage.findings.extend(spire_findings);
    coverage.findings.sort_by(|a, b| (&a.about, a.kind, &a.message).cmp(&(&b.about, b.kind, &b.message)));
    coverage.spire = model;
    coverage
}
