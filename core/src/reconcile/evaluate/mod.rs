//! The reconcile's phases over the bindings (docs/reference.md#order-of-checks): every
//! binding is one [`Binding`] record, which each numbered phase of [`evaluate_all`] reads or
//! narrows, from reading the input to each binding's status and render.

mod cover;
mod state;

use crate::api::binding::{self, BindingInput, InferenceIdentityBindingStatus};
use crate::api::cluster_spiffe_id::ClusterSpiffeId;
use crate::api::value::Value;
use crate::config::SelectorScope;
use crate::parallel;
use crate::reconcile::context::Context;
use crate::reconcile::coverage::Coverage;
use crate::reconcile::guard::{self, Guard};
use crate::reconcile::items::input::{self, Input};
use crate::reconcile::items::lists;
use crate::reconcile::items::unusable::InputError;
use crate::reconcile::outputs::guard as outputs_guard;
use crate::reconcile::outputs::ownership::{self, OutputIndex, Renders};
use crate::reconcile::outputs::stale;
use crate::reconcile::rules::checks::{self, Inputs};
use crate::reconcile::rules::conflict::{self, Candidate};
use crate::reconcile::rules::identity;
use crate::reconcile::rules::identity::RenderInput;
use crate::reconcile::rules::reason::{Failure, Reason};
use crate::reconcile::rules::renames::Renames;
use crate::reconcile::rules::resolve::PoolIndex;
use crate::reconcile::rules::served::{self, ServedApis};
use crate::reconcile::rules::status::{self, RenderedIdentity};
use crate::reconcile::unjudged;
pub(super) use state::{Binding, InputIndex, Passing};
use std::collections::{BTreeMap, HashMap};

/// One binding after all phases: its status, and its failure when it does not render.
pub(super) struct Decided {
    pub item: usize,
    pub namespace: Option<String>,
    pub name: String,
    pub status: Box<InferenceIdentityBindingStatus>,
    pub failure: Option<Failure>,
}

impl Decided {
    /// What the binding does in this run, for the stale outputs.
    pub fn verdict(&self) -> stale::Verdict {
        match (&self.failure, &self.status.rendered_cluster_spiffeid) {
            (None, Some(rendered)) => stale::Verdict::Renders(rendered.name.clone()),
            (Some(f), _) => {
                stale::Verdict::Fails(format!("{}/{}", f.reason.condition().as_str(), f.reason.as_str()))
            }
            (None, None) => unreachable!("a binding that does not fail renders"),
        }
    }
}

/// Everything [`super::plan`] works out: bindings evaluated, the renders, coverage, and the
/// admission guard when the run writes it.
pub(super) type Evaluation = (Vec<Decided>, Renders, Coverage, Option<Guard>);

/// The phases, in order; each is one helper below.
pub(super) fn evaluate_all(items: &[Input], ctx: &Context<'_>) -> Result<Evaluation, InputError> {
    // 1. Read the bindings, and index what they refer to.
    let (inputs, index) = read(items, ctx)?;
    // 2. Checks 0 to 7, each binding on its own.
    let mut bindings = check_each(&inputs, &index, ctx);
    // 3. Check 8: conflicts among the bindings that passed.
    find_conflicts(&mut bindings);
    // 4. Check 9: the ClusterSPIFFEID API must be served.
    require_served(&mut bindings, &index.served);
    // 5. Check 10: every output must be writable.
    require_writable(&mut bindings, &index.outputs, items);
    // 6. Statuses and renders, with workload coverage beside them.
    let ((evaluated, renders, mut coverage), identities) = finish_all(bindings, items, &inputs, &index, ctx);
    // 7. The admission guard of the identities rendered, and what its files as committed
    // admit that it does not.
    let mut guard = admission_guard(identities, items, ctx)?;
    if let Some(g) = &mut guard {
        let edits = unjudged::guard_edits(items, &g.summary.name, &g.objects);
        g.summary.committed = edits.committed;
        coverage.unjudged.extend(edits.records);
        coverage.unjudged.extend(unjudged::guard_impersonators(items, &g.summary.controllers, ctx.written));
        coverage.unjudged.extend(unjudged::guard_foreign_identities(items, ctx.written));
    }
    // Admission objects this run does not render: named as a guard's own, of its guard or, where
    // it renders none, of a guard of the defaults another package may run; any other policy.
    let (name, param_namespace) = ctx
        .config
        .admission_guard
        .as_ref()
        .map_or((crate::config::DEFAULT_GUARD_NAME, crate::config::DEFAULT_GUARD_PARAM_NAMESPACE), |g| {
            (g.name.as_str(), g.param_namespace.as_str())
        });
    let fresh: Vec<_> = guard.iter().flat_map(|g| g.objects.iter().map(|o| o.key())).collect();
    coverage.unjudged.extend(unjudged::guard_admission_objects(
        items,
        name,
        param_namespace,
        &fresh,
        ctx.written,
    ));
    Ok((evaluated, renders, coverage, guard))
}

/// Phase 1. The indexes are independent passes over the items: the pool index, the largest,
/// is built on a second thread. Errors are taken in the order they are found one by one.
fn read<'a>(
    items: &'a [Input],
    ctx: &Context<'_>,
) -> Result<(Vec<BindingInput<'a>>, InputIndex<'a>), InputError> {
    // First: a List hides what it holds from every index below.
    lists::check(items.iter().enumerate().filter_map(|(i, item)| Some((i, item.list()?))))?;
    let listed = ctx.config.api_versions.iter().chain(&ctx.env_api_versions).map(String::as_str);
    let (bindings, pools, outputs, served, service_accounts) = std::thread::scope(|scope| {
        let pools = scope.spawn(|| PoolIndex::build(items));
        let bindings = read_bindings(items);
        let outputs = ownership::index_outputs(items);
        let served = ServedApis::collect(listed, input::values(items).map(|(_, item)| item));
        let service_accounts = Renames::build(items, SERVICE_ACCOUNT, is_service_account);
        (bindings, pools.join().expect("the pool index does not panic"), outputs, served, service_accounts)
    });
    let bindings = bindings?;
    let index = InputIndex {
        pools: pools?,
        outputs: outputs?,
        served,
        service_accounts: service_accounts.map_err(InputError::from)?,
    };
    Ok((bindings, index))
}

/// The bindings of the input, read; two with the same namespace and name are unusable input.
fn read_bindings(items: &[Input]) -> Result<Vec<BindingInput<'_>>, InputError> {
    let mut bindings = Vec::new();
    let mut keys = HashMap::new();
    for (i, item) in input::values(items).filter(|(_, item)| binding::is_binding(item)) {
        let b = BindingInput::read(i, item)
            .map_err(|m| InputError::from((i, format!("InferenceIdentityBinding {m}"))))?;
        // Bindings without a readable namespace cannot collide: each gets its own status.
        if let Ok(ns) = b.namespace
            && let Some(first) = keys.insert((ns, b.name), i)
        {
            let message = format!("InferenceIdentityBinding {ns}/{} appears twice in the input", b.name);
            return Err(InputError::repeating(i, first, message));
        }
        bindings.push(b);
    }
    Ok(bindings)
}

/// Phase 2: checks 0 to 7 on all cores, and the name of the output of each that passes.
fn check_each<'i, 'a>(
    inputs: &'i [BindingInput<'a>],
    index: &InputIndex<'a>,
    ctx: &Context<'_>,
) -> Vec<Binding<'i, 'a>> {
    let against = Inputs {
        pools: &index.pools,
        served: &index.served,
        trust_domain: ctx.config.trust_domain.as_deref(),
        service_accounts: &index.service_accounts,
    };
    parallel::map(inputs.iter().collect(), |input| {
        let verdict = checks::evaluate(input, &against).map(|planned| {
            let output = identity::output_name(planned.namespace, input.name, &planned.spiffe_id);
            Passing { planned, output }
        });
        Binding { input, verdict, conflicts: Vec::new(), withheld: None }
    })
}

/// Phase 3: check 8. Only the bindings that passed 0 to 7 can conflict.
fn find_conflicts(bindings: &mut [Binding<'_, '_>]) {
    let passed: Vec<usize> = (0..bindings.len()).filter(|&i| bindings[i].verdict.is_ok()).collect();
    let candidates: Vec<Candidate> = passed
        .iter()
        .map(|&i| {
            let b = &bindings[i];
            let p = &b.verdict.as_ref().expect("passed").planned;
            Candidate {
                name: b.input.name,
                namespace: p.namespace,
                service_account: p.service_account,
                variant: p.variant,
                spiffe_id: &p.spiffe_id,
            }
        })
        .collect();
    let reports = conflict::find_conflicts(&candidates);
    for (&i, report) in passed.iter().zip(reports) {
        if let Some(report) = report {
            bindings[i].conflicts = report.entries;
            let verdict =
                std::mem::replace(&mut bindings[i].verdict, Err(Failure::new(report.reason, report.message)));
            bindings[i].withheld = verdict.ok();
        }
    }
}

/// Phase 4: check 9, the same failure for every binding still passing.
fn require_served(bindings: &mut [Binding<'_, '_>], served: &ServedApis) {
    if let Some(failure) = served::cluster_spiffe_id_missing(served) {
        for b in bindings.iter_mut().filter(|b| b.verdict.is_ok()) {
            b.verdict = Err(failure.clone());
        }
    }
}

/// Phase 5: check 10. A valid label value, no foreign object, no name two bindings render.
fn require_writable(bindings: &mut [Binding<'_, '_>], outputs: &OutputIndex<'_>, items: &[Input]) {
    let names: Vec<&str> = bindings.iter().map(|b| b.input.name).collect();
    let named: Vec<Option<String>> =
        bindings.iter().map(|b| b.verdict.as_ref().ok().map(|p| p.output.clone())).collect();
    for (i, message, shared) in ownership::unwritable(&names, &named, outputs, items) {
        let failed = Err(Failure::new(Reason::ManagedOutputApplyFailed, message));
        let verdict = std::mem::replace(&mut bindings[i].verdict, failed);
        if shared {
            bindings[i].withheld = verdict.ok();
        }
    }
}

/// Phase 6. Workload coverage reads what the identities select; the statuses and renders
/// follow it. Made one beside the other, the run held coverage's indexes and the SPIRE
/// model's working sets together with every status, the peak of a large first run; one
/// after the other, the first is freed before the second is made (docs/performance.md).
fn finish_all<'a>(
    bindings: Vec<Binding<'_, 'a>>,
    items: &'a [Input],
    inputs: &[BindingInput<'a>],
    index: &InputIndex<'a>,
    ctx: &Context<'_>,
) -> ((Vec<Decided>, Renders, Coverage), Vec<guard::Identity>) {
    let identities = match ctx.config.admission_guard {
        Some(_) => bindings.iter().filter_map(guard_identity).collect(),
        None => Vec::new(),
    };
    let reach = cover::Request::of(&bindings, ctx);
    let coverage = cover::coverage(items, inputs, reach, index, ctx);
    // Coverage's working sets are freed: their pages go before the statuses are made.
    (ctx.release_freed)();
    let finished = parallel::map(bindings, |b| finish(b, ctx));
    let mut evaluated = Vec::with_capacity(finished.len());
    let mut renders = BTreeMap::new();
    for (e, render) in finished {
        evaluated.push(e);
        renders.extend(render);
    }
    ((evaluated, renders, coverage), identities)
}

/// The identity a binding that renders gives the admission guard.
fn guard_identity(b: &Binding<'_, '_>) -> Option<guard::Identity> {
    let p = &b.verdict.as_ref().ok()?.planned;
    Some(guard::Identity {
        binding: b.input.item,
        namespace: p.namespace.to_string(),
        name: b.input.name.to_string(),
        service_account: p.service_account.to_string(),
        variant: p.variant.to_string(),
        pool_labels: p.pool_labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        spiffe_id: p.spiffe_id.clone(),
    })
}

/// Phase 7: the admission guard over the workloads of the input, unless an object of the
/// input that is not the guard's stands where it writes one.
fn admission_guard(
    identities: Vec<guard::Identity>,
    items: &[Input],
    ctx: &Context<'_>,
) -> Result<Option<Guard>, InputError> {
    let Some(settings) = &ctx.config.admission_guard else { return Ok(None) };
    let found: Vec<(usize, std::borrow::Cow<'_, _>)> =
        input::workloads(items).enumerate().filter_map(|(i, w)| Some((i, w?))).collect();
    let workloads: Vec<(usize, &_)> = found.iter().map(|(i, w)| (*i, &**w)).collect();
    let guard = guard::render(settings, &identities, &workloads, ctx.config.namespace.as_deref());
    match outputs_guard::clash(items, &guard.objects, &settings.name) {
        Some(e) => Err(e),
        None => Ok(Some(guard)),
    }
}

/// The status and render of one binding whose checks are done.
fn finish(b: Binding<'_, '_>, ctx: &Context<'_>) -> (Decided, Option<(String, Box<ClusterSpiffeId>)>) {
    let config = ctx.config;
    let input = b.input;
    let mut render = None;
    let outcome = b.verdict.map(|Passing { planned: p, output: name }| {
        let object = identity::render(RenderInput {
            name: name.clone(),
            binding_name: input.name,
            binding_namespace: p.namespace,
            spiffe_id: &p.spiffe_id,
            pool_labels: p.pool_labels,
            selectors: p.selectors.clone(),
            class_name: config.class_name.as_deref(),
            class_label: config.class_label(),
            binding_scope: (config.selector_scope == SelectorScope::Binding).then_some(p.variant),
        });
        render = Some((name.clone(), Box::new(object)));
        RenderedIdentity {
            fingerprint: identity::selector_fingerprint(&p.selectors),
            name,
            pool_origin: p.pool_origin,
            spiffe_id: p.spiffe_id,
            selectors: p.selectors,
        }
    });
    let conditions = status::conditions(
        outcome
            .as_ref()
            .map(|r| status::Reconciled { output: &r.name, pool_origin: r.pool_origin.as_deref() }),
        &input.previous_conditions(),
        input.generation,
        ctx.transition_time,
    );
    let status =
        status::status(config, conditions, outcome.as_ref().ok(), b.conflicts, input.operator_records());
    let evaluated = Decided {
        item: input.item,
        namespace: input.namespace.as_ref().ok().map(|s| s.to_string()),
        name: input.name.to_string(),
        status: Box::new(status),
        failure: outcome.err(),
    };
    (evaluated, render)
}

const SERVICE_ACCOUNT: &str = "ServiceAccount";

/// A core `v1` ServiceAccount, as kustomize's nameReference for service accounts selects.
fn is_service_account(item: &Value) -> bool {
    item.get("kind").and_then(Value::as_str) == Some(SERVICE_ACCOUNT)
        && item.get("apiVersion").and_then(Value::as_str) == Some("v1")
}
