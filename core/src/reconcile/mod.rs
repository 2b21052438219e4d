//! The pure reconcile: items and configuration in, items with statuses and outputs plus what
//! the run found out, as data ([`results`]). No process, files, environment or clock. Each
//! rule of docs/reference.md has its module here; nothing here knows how items are read or
//! written, nor words anything for one mode.

pub mod cluster;
mod context;
pub mod coverage;
mod evaluate;
pub mod findings;
pub mod guard;
pub mod items;
pub mod outputs;
pub mod results;
pub mod rules;
pub mod spire;
pub mod unjudged;

pub use items::{file_slots, input, item, kinds, lists, near_binding, unusable};
pub use outputs::{ownership, stale};
pub use rules::{checks, conflict, identity, not_found, reason, renames, resolve, served, status};

use crate::config::FailurePolicy;
use coverage::Coverage;
use evaluate::Decided;
use items::input::Input;
use items::item::Item;
use outputs::ownership::Renders;
use std::collections::HashMap;
use std::sync::Arc;

pub use context::{Context, Model, keep_freed};
pub use findings::Severity;
pub use results::{BindingFailure, Counts, Outcome};
pub use unusable::InputError;

/// Reconciles every binding of `items` (docs/reference.md, from Rendering one binding to
/// Results and exit codes).
pub fn reconcile(items: Vec<Input>, ctx: &Context<'_>) -> Result<Outcome, InputError> {
    let plan = plan(&items, ctx)?;
    Ok(plan.apply(items, ctx))
}

/// What the reconcile decided, worked out on borrowed items; [`Plan::apply`] writes it.
/// Unusable input is found here, before any item is touched.
pub struct Plan {
    evaluated: Vec<Decided>,
    renders: Renders,
    /// What workload coverage found.
    coverage: Coverage,
    /// The admission guard, when the run writes it.
    guard: Option<guard::Guard>,
}

/// Checks every binding, finds conflicts and renders the outputs.
pub fn plan(items: &[Input], ctx: &Context<'_>) -> Result<Plan, InputError> {
    let (evaluated, renders, coverage, guard) = evaluate::evaluate_all(items, ctx)?;
    Ok(Plan { evaluated, renders, coverage, guard })
}

impl Plan {
    /// The names of the ClusterSPIFFEIDs this plan renders.
    pub fn output_names(&self) -> impl Iterator<Item = &str> {
        self.renders.keys().map(String::as_str)
    }

    /// The names of the admission guard's objects this plan writes.
    pub fn guard_names(&self) -> impl Iterator<Item = &str> {
        self.guard.iter().flat_map(|g| g.objects.iter().map(|o| o.metadata().name.as_str()))
    }

    /// Writes the statuses into the bindings, places the outputs among the items, and says
    /// what the run found.
    pub fn apply(self, items: Vec<Input>, ctx: &Context<'_>) -> Outcome {
        let config = ctx.config;
        let seen = self.evaluated.len();
        let bindings: HashMap<(String, String), stale::InputBinding> = self
            .evaluated
            .iter()
            .filter_map(|e| {
                let binding = stale::InputBinding { item: e.item, verdict: e.verdict() };
                Some(((e.namespace.clone()?, e.name.clone()), binding))
            })
            .collect();
        let mut stale = stale::find(&items, &self.renders, &bindings, config.prune);
        let mut near_bindings = near_binding::findings(
            items.iter().enumerate().filter_map(|(i, item)| Some((i, item.near_binding()?))),
        );
        let values: Vec<_> = input::values(&items).collect();
        let mut kserve: Vec<findings::Finding> =
            cluster::kserve::derive_all(&values).iter().flat_map(|(i, d)| d.findings(*i)).collect();
        let severity = match config.failure_policy {
            FailurePolicy::Report => Severity::Warning,
            FailurePolicy::Fail => Severity::Error,
        };
        let mut failures = Vec::new();
        // By item position, in order: bindings were evaluated in input order.
        let mut statuses = Vec::with_capacity(seen);
        for e in self.evaluated {
            statuses.push((e.item, e.status));
            if let Some(failure) = e.failure {
                let key = e.namespace.clone().map(|ns| (ns, e.name.clone()));
                let removes = key.and_then(|key| stale.lost.remove(&key)).unwrap_or_default();
                let (item, namespace, name) = (e.item, e.namespace, e.name);
                failures.push(BindingFailure { item, namespace, name, failure, severity, removes });
            }
        }
        let mut statuses = statuses.into_iter().peekable();
        // With room for the new outputs, which `place` puts after them in the same list.
        let mut output = Vec::with_capacity(items.len() + self.renders.len());
        output.extend(items.into_iter().enumerate().map(|(position, item)| {
            match (statuses.next_if(|(at, _)| *at == position), item) {
                (Some((_, status)), Input::Whole(value)) if value.is_object() => {
                    Item::Binding(position, value, status)
                }
                (_, item) => Item::Input(position, item),
            }
        }));
        let (items, outputs) = ownership::place(
            output,
            self.renders,
            |ns, name| bindings.contains_key(&(ns.to_string(), name.to_string())),
            config.prune,
            &config.output_path,
        );
        let (guard, guard_objects, mut guard_findings) = match self.guard {
            Some(g) => (Some(g.summary), g.objects, g.findings),
            None => (None, Vec::new(), Vec::new()),
        };
        let settings = config.admission_guard.as_ref();
        let (items, guard_outputs) = outputs::guard::place(
            items,
            guard_objects,
            settings.map(|g| g.name.as_str()),
            config.prune,
            settings.map_or("", |g| g.output_path.as_str()),
        );
        // Coverage's findings are most of them (a first run on a large repository has tens
        // of thousands): the others join their list.
        let mut coverage = self.coverage;
        let mut findings = std::mem::take(&mut coverage.findings);
        findings.append(&mut stale.findings);
        findings.append(&mut near_bindings);
        findings.append(&mut kserve);
        findings.append(&mut guard_findings);
        findings.sort_by(|a, b| (&a.about, a.kind, &a.message).cmp(&(&b.about, b.kind, &b.message)));
        Outcome {
            items,
            trust_domain_missing: config.trust_domain.is_none(),
            counts: Counts { bindings: seen, failed: failures.len(), outputs, guard: guard_outputs },
            failures,
            findings: Arc::new(findings),
            coverage,
            workload_policy: config.workload_policy,
            guard,
        }
    }
}
