//! The pure reconcile: items and configuration in, items with statuses and outputs plus
//! results out. No process, files, environment or clock. Each rule of the contract has
//! its module here; nothing here knows how items are read or written.

pub mod checks;
pub mod conflict;
pub mod files;
pub mod identity;
pub mod item;
pub mod ownership;
pub mod reason;
pub mod resolve;
pub mod results;
pub mod served;
pub mod status;

use crate::api::binding::{self, BindingInput, ConflictEntry, InferenceIdentityBindingStatus};
use crate::api::cluster_spiffe_id::{self as csid, ClusterSpiffeId, RenderInput};
use crate::config::{Config, FailurePolicy};
use crate::parallel;
use crate::reconcile::item::Item;
use crate::reconcile::reason::{Failure, Reason};
use crate::reconcile::resolve::PoolIndex;
use crate::reconcile::results::{FileRef, KrmResult, ResourceRef, Severity};
use crate::reconcile::served::ServedApis;
use checks::{Inputs, Planned};
use conflict::Candidate;
use files::FileSlot;
use k8s_openapi::jiff::Timestamp;
use ownership::Renders;
use serde_json::Value;
use status::RenderedIdentity;
use std::collections::{BTreeMap, HashSet};

/// What the reconcile needs beside the items.
pub struct Context<'c> {
    pub config: &'c Config,
    /// Served APIs listed by the environment (`KUBE_API_VERSIONS`), beside the config's.
    pub env_api_versions: Vec<String>,
    /// `lastTransitionTime` of conditions that change.
    pub transition_time: Timestamp,
    /// Whether new outputs get file path and index annotations (KRM mode) or not (plain
    /// streams, where nothing writes files and the annotations would reach the cluster).
    pub output_files: bool,
    /// File slots taken by input items passed without their annotations (items copied
    /// from the input text carry none).
    pub taken_slots: Vec<FileSlot>,
}

/// The reconciled items and what to tell the user.
#[derive(Debug)]
pub struct Outcome {
    pub items: Vec<Item>,
    pub results: Vec<KrmResult>,
    /// One line per failing binding, for stderr.
    pub failures: Vec<String>,
}

impl Outcome {
    pub fn has_errors(&self) -> bool {
        self.results.iter().any(|r| r.severity == Severity::Error)
    }
}

/// Input that cannot be reconciled at all: the item at fault and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// Position of the item in the input.
    pub item: usize,
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The message may quote input: the edges escape control characters where they print it.
        write!(f, "items[{}]: {}", self.item, self.message)
    }
}

/// One binding after all checks.
struct Evaluated {
    item: usize,
    namespace: Option<String>,
    name: String,
    status: Box<InferenceIdentityBindingStatus>,
    /// The failure's result; `None` when the binding rendered.
    result: Option<KrmResult>,
}

/// Reconciles every binding of `items` (contract sections 3 to 7).
pub fn reconcile(items: Vec<Value>, ctx: &Context<'_>) -> Result<Outcome, InputError> {
    let plan = plan(&items, ctx)?;
    Ok(plan.apply(items, ctx))
}

/// What the reconcile decided, worked out on borrowed items; [`Plan::apply`] writes it.
/// Unusable input is found here, before any item is touched.
pub struct Plan {
    evaluated: Vec<Evaluated>,
    renders: Renders,
    output_files: bool,
}

/// Checks every binding, finds conflicts and renders the outputs.
pub fn plan(items: &[Value], ctx: &Context<'_>) -> Result<Plan, InputError> {
    let (evaluated, renders) = evaluate_all(items, ctx)?;
    Ok(Plan { evaluated, renders, output_files: ctx.output_files })
}

impl Plan {
    /// Writes the statuses into the bindings and places the outputs among the items.
    pub fn apply(self, items: Vec<Value>, ctx: &Context<'_>) -> Outcome {
        let config = ctx.config;
        let mut results = Vec::new();
        if config.trust_domain.is_none() {
            results.push(
                KrmResult::new(Severity::Error, "trustDomain is required: set it in the functionConfig")
                    .with_field("spec.trustDomain"),
            );
        }
        let seen = self.evaluated.len();
        let mut failures = Vec::new();
        let mut present = HashSet::new();
        // By item position, in order: bindings were evaluated in input order.
        let mut statuses = Vec::with_capacity(seen);
        for e in self.evaluated {
            statuses.push((e.item, e.status));
            if let Some(ns) = &e.namespace {
                present.insert((ns.clone(), e.name.clone()));
            }
            if let Some(result) = e.result {
                let ns = e.namespace.as_deref().filter(|ns| !ns.is_empty()).unwrap_or("<no namespace>");
                failures.push(format!("{ns}/{}: {}", e.name, result.message));
                results.push(result);
            }
        }
        let mut statuses = statuses.into_iter().peekable();
        let items = items
            .into_iter()
            .enumerate()
            .map(|(position, item)| match statuses.next_if(|(at, _)| *at == position) {
                // A binding is always a mapping: `is_binding` reads its apiVersion and kind.
                Some((_, status)) => Item::Binding(item, status),
                None => Item::Input(position, item),
            })
            .collect();
        let (items, counts) = ownership::place(
            items,
            self.renders,
            &present,
            config.prune,
            self.output_files.then_some(config.output_path.as_str()),
            &ctx.taken_slots,
        );
        results.push(KrmResult::new(
            Severity::Info,
            format!(
                "{seen} binding(s): {} rendered, {} failed; ClusterSPIFFEIDs: {} added, {} replaced, \
                 {} removed, {} pruned",
                seen - failures.len(),
                failures.len(),
                counts.added,
                counts.replaced,
                counts.removed,
                counts.pruned
            ),
        ));
        Outcome { items, results, failures }
    }
}

fn evaluate_all(items: &[Value], ctx: &Context<'_>) -> Result<(Vec<Evaluated>, Renders), InputError> {
    let config = ctx.config;
    let mut bindings = Vec::new();
    let mut keys = HashSet::new();
    for (i, item) in items.iter().enumerate().filter(|(_, item)| binding::is_binding(item)) {
        let b = BindingInput::read(i, item)
            .map_err(|m| InputError { item: i, message: format!("InferenceIdentityBinding {m}") })?;
        // Bindings without a readable namespace cannot collide: each gets its own status.
        if let Ok(ns) = b.namespace
            && !keys.insert((ns, b.name))
        {
            return Err(InputError {
                item: i,
                message: format!("InferenceIdentityBinding {ns}/{} appears twice in the input", b.name),
            });
        }
        bindings.push(b);
    }
    let pools = PoolIndex::build(items).map_err(|(item, message)| InputError { item, message })?;
    let outputs = ownership::index_outputs(items).map_err(|(item, message)| InputError { item, message })?;
    let listed = config.api_versions.iter().chain(&ctx.env_api_versions).map(String::as_str);
    let served = ServedApis::collect(listed, items);
    let inputs = Inputs { pools: &pools, served: &served, trust_domain: config.trust_domain.as_deref() };

    // Checks 1 to 7.
    let mut outcomes: Vec<Result<Planned, Failure>> =
        parallel::map(bindings.iter().collect(), |b| checks::evaluate(b, &inputs));

    // 8. Conflicts, among the bindings that passed 1 to 7.
    let passed: Vec<usize> = (0..outcomes.len()).filter(|&i| outcomes[i].is_ok()).collect();
    let candidates: Vec<Candidate> = passed
        .iter()
        .map(|&i| {
            let p = outcomes[i].as_ref().expect("passed");
            Candidate {
                name: bindings[i].name,
                namespace: p.namespace,
                service_account: p.service_account,
                variant: p.variant,
                spiffe_id: &p.spiffe_id,
            }
        })
        .collect();
    let reports = conflict::find_conflicts(&candidates);
    let mut conflicts: Vec<Vec<ConflictEntry>> = vec![Vec::new(); bindings.len()];
    for (&i, report) in passed.iter().zip(reports) {
        if let Some(report) = report {
            conflicts[i] = report.entries;
            outcomes[i] = Err(Failure::new(report.reason, report.message));
        }
    }

    // 9. The ClusterSPIFFEID API must be served.
    if !served.serves(csid::GROUP, csid::VERSION, csid::KIND) {
        for outcome in outcomes.iter_mut().filter(|o| o.is_ok()) {
            *outcome = Err(Failure::new(
                Reason::ClusterSPIFFEIDCRDMissing,
                format!(
                    "the target cluster does not serve {}/{}: install SPIRE Controller Manager's CRD \
                     or list the API in apiVersions",
                    csid::API_VERSION,
                    csid::KIND
                ),
            ));
        }
    }

    // 10. The output must be writable: a valid label value, no foreign object, no shared name.
    let mut named: Vec<Option<String>> = bindings
        .iter()
        .zip(&outcomes)
        .map(|(b, o)| {
            o.as_ref()
                .ok()
                .map(|p| crate::reconcile::identity::output_name(p.namespace, b.name, &p.spiffe_id))
        })
        .collect();
    let binding_names: Vec<&str> = bindings.iter().map(|b| b.name).collect();
    let apply_failures = ownership::unwritable(&binding_names, &named, &outputs, items);
    for (i, message) in apply_failures {
        outcomes[i] = Err(Failure::new(Reason::ManagedOutputApplyFailed, message));
        named[i] = None;
    }

    // Statuses, results and renders.
    let work: Vec<_> = bindings.iter().zip(outcomes).zip(named.into_iter().zip(conflicts)).collect();
    let finished =
        parallel::map(work, |((b, outcome), (name, conflicts))| finish(b, outcome, name, conflicts, ctx));
    let mut evaluated = Vec::with_capacity(finished.len());
    let mut renders = BTreeMap::new();
    for (e, render) in finished {
        evaluated.push(e);
        renders.extend(render);
    }
    Ok((evaluated, renders))
}

/// The status, result and render of one binding whose checks are done.
fn finish(
    b: &BindingInput<'_>,
    outcome: Result<Planned<'_>, Failure>,
    name: Option<String>,
    conflicts: Vec<ConflictEntry>,
    ctx: &Context<'_>,
) -> (Evaluated, Option<(String, Box<ClusterSpiffeId>)>) {
    let config = ctx.config;
    let mut render = None;
    let outcome = match (outcome, name) {
        (Ok(p), Some(name)) => {
            let object = csid::render(RenderInput {
                name: name.clone(),
                binding_name: b.name,
                binding_namespace: p.namespace,
                spiffe_id: &p.spiffe_id,
                pool_labels: p.pool_labels,
                selectors: p.selectors.clone(),
                class_name: config.class_name.as_deref(),
            });
            render = Some((name.clone(), Box::new(object)));
            Ok(RenderedIdentity {
                fingerprint: crate::reconcile::identity::selector_fingerprint(&p.selectors),
                name,
                spiffe_id: p.spiffe_id,
                selectors: p.selectors,
            })
        }
        (Err(f), _) => Err(f),
        (Ok(_), None) => unreachable!("a passing binding has a name"),
    };
    let conditions = status::conditions(
        outcome.as_ref().map(|r| r.name.as_str()),
        &b.previous_conditions(),
        b.generation,
        ctx.transition_time,
    );
    let status = status::status(config, conditions, outcome.as_ref().ok(), conflicts, b.operator_records());
    let result = outcome.as_ref().err().map(|f| binding_result(b, f, config.failure_policy));
    let evaluated = Evaluated {
        item: b.item,
        namespace: b.namespace.as_ref().ok().map(|s| s.to_string()),
        name: b.name.to_string(),
        status: Box::new(status),
        result,
    };
    (evaluated, render)
}

fn binding_result(b: &BindingInput<'_>, f: &Failure, policy: FailurePolicy) -> KrmResult {
    let severity = match policy {
        FailurePolicy::Report => Severity::Warning,
        FailurePolicy::Fail => Severity::Error,
    };
    let mut result = KrmResult::new(
        severity,
        format!("{}/{}: {}", f.reason.condition().as_str(), f.reason.as_str(), f.message),
    );
    result.resource_ref = Some(ResourceRef {
        api_version: binding::API_VERSION.to_string(),
        kind: binding::KIND.to_string(),
        name: b.name.to_string(),
        namespace: b.namespace.as_ref().ok().map(|s| s.to_string()),
    });
    if let Some(field) = f.field {
        result = result.with_field(field);
    }
    result.file = files::file_of(b.value).map(|(path, index)| FileRef { path, index });
    result
}
