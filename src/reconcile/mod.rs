//! The pure reconcile: items and configuration in, items with statuses and outputs plus
//! results out. No process, files, environment or clock. Each rule of docs/reference.md has
//! its module here; nothing here knows how items are read or written.

pub mod checks;
pub mod conflict;
pub mod coverage;
pub mod files;
pub mod findings;
pub mod identity;
pub mod input;
pub mod item;
pub mod not_found;
pub mod ownership;
pub mod reason;
pub mod renames;
pub mod resolve;
pub mod results;
pub mod served;
pub mod spire;
pub mod stale;
pub mod status;

use crate::api::binding::{self, BindingInput, ConflictEntry, InferenceIdentityBindingStatus};
use crate::api::cluster_spiffe_id::{self as csid, ClusterSpiffeId, RenderInput};
use crate::config::{Config, FailurePolicy, WorkloadPolicy};
use crate::parallel;
use crate::reconcile::reason::{Failure, Reason};
use crate::reconcile::resolve::PoolIndex;
use crate::reconcile::results::{FileRef, KrmResult, ResourceRef, Severity, Topic};
use crate::reconcile::served::ServedApis;
use checks::{Inputs, Planned};
use conflict::Candidate;
use coverage::{Coverage, Identity, PoolUse};
use findings::Finding;
use input::Input;
use item::Item;
use k8s_openapi::jiff::Timestamp;
use ownership::Renders;
use serde_json::Value;
use status::RenderedIdentity;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

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
}

/// The reconciled items and what to tell the user.
#[derive(Debug)]
pub struct Outcome {
    pub items: Vec<Item>,
    /// The results, in order: the run's configuration, each failing binding, each finding,
    /// the summary. Each says what it is about ([`Topic`]).
    pub results: Vec<KrmResult>,
    /// Every finding, ordered by the item it is about: stale outputs, and workload coverage
    /// (none of those under `workloadPolicy: Ignore`).
    pub findings: Vec<Finding>,
    /// What each identity reaches (its findings are in `findings`).
    pub coverage: Coverage,
    /// By failing binding's position: the managed outputs of the input its failure removes.
    pub lost: BTreeMap<usize, Vec<stale::Lost>>,
}

impl Outcome {
    pub fn has_errors(&self) -> bool {
        self.results.iter().any(|r| r.severity == Severity::Error)
    }

    /// How many bindings fail.
    pub fn failed(&self) -> usize {
        self.results.iter().filter(|r| matches!(r.topic, Topic::Binding(_))).count()
    }

    /// Frees the pod templates of the items passed on, which only coverage and `explain`
    /// read, before a large output is written.
    pub fn forget_workloads(&mut self) {
        for item in &mut self.items {
            if let Item::Input(_, Input::Passed(passed)) = item {
                passed.workload = None;
            }
        }
    }
}

/// Input that cannot be reconciled at all: the item at fault and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// Position of the item in the input.
    pub item: usize,
    pub message: String,
    /// For an item that appears twice, the position of its first appearance: the edges name
    /// both places.
    pub first: Option<usize>,
}

impl InputError {
    /// An item that repeats the one at `first`.
    pub fn repeating(item: usize, first: usize, message: String) -> Self {
        InputError { item, message, first: Some(first) }
    }
}

impl From<(usize, String)> for InputError {
    fn from((item, message): (usize, String)) -> Self {
        InputError { item, message, first: None }
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The message may quote input: the edges escape control characters where they print it.
        write!(f, "items[{}]: {}", self.item, self.message)?;
        match self.first {
            Some(first) => write!(f, " (first as items[{first}])"),
            None => Ok(()),
        }
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

impl Evaluated {
    /// What the binding does in this run, for the stale outputs.
    fn verdict(&self) -> stale::Verdict {
        if let Some(rendered) = &self.status.rendered_cluster_spiffeid {
            return stale::Verdict::Renders(rendered.name.clone());
        }
        let failing = self.status.conditions.iter().find(|c| c.type_ != "Ready" && c.status == "True");
        stale::Verdict::Fails(failing.map(|c| format!("{}/{}", c.type_, c.reason)).unwrap_or_default())
    }
}

/// Reconciles every binding of `items` (docs/reference.md, from Rendering one binding to
/// Results and exit codes).
pub fn reconcile(items: Vec<Input>, ctx: &Context<'_>) -> Result<Outcome, InputError> {
    let plan = plan(&items, ctx)?;
    Ok(plan.apply(items, ctx))
}

/// What the reconcile decided, worked out on borrowed items; [`Plan::apply`] writes it.
/// Unusable input is found here, before any item is touched.
pub struct Plan {
    evaluated: Vec<Evaluated>,
    renders: Renders,
    output_files: bool,
    /// What workload coverage found.
    coverage: Coverage,
}

/// Checks every binding, finds conflicts and renders the outputs.
pub fn plan(items: &[Input], ctx: &Context<'_>) -> Result<Plan, InputError> {
    let (evaluated, renders, coverage) = evaluate_all(items, ctx)?;
    Ok(Plan { evaluated, renders, output_files: ctx.output_files, coverage })
}

impl Plan {
    /// The names of the ClusterSPIFFEIDs this plan renders.
    pub fn output_names(&self) -> impl Iterator<Item = &str> {
        self.renders.keys().map(String::as_str)
    }

    /// Writes the statuses into the bindings and places the outputs among the items.
    pub fn apply(self, items: Vec<Input>, ctx: &Context<'_>) -> Outcome {
        let config = ctx.config;
        let mut results = Vec::new();
        if config.trust_domain.is_none() {
            let mut missing =
                KrmResult::new(Severity::Error, "trustDomain is required").with_field("spec.trustDomain");
            missing.topic = Topic::TrustDomain;
            results.push(missing);
        }
        let seen = self.evaluated.len();
        let bindings: HashMap<(String, String), stale::Binding> = self
            .evaluated
            .iter()
            .filter_map(|e| {
                let binding = stale::Binding { item: e.item, verdict: e.verdict() };
                Some(((e.namespace.clone()?, e.name.clone()), binding))
            })
            .collect();
        let mut stale = stale::find(&items, &self.renders, &bindings, config.prune);
        let mut failed = 0;
        let mut lost_by_binding = BTreeMap::new();
        // By item position, in order: bindings were evaluated in input order.
        let mut statuses = Vec::with_capacity(seen);
        for e in self.evaluated {
            statuses.push((e.item, e.status));
            if let Some(mut result) = e.result {
                failed += 1;
                let key = e.namespace.map(|ns| (ns, e.name));
                if let Some(lost) = key.and_then(|key| stale.lost.remove(&key)) {
                    for l in &lost {
                        result.message.push_str(&format!(
                            "; this removes ClusterSPIFFEID {} of the input, and its pods lose SPIFFE ID {} on \
                             the next apply",
                            l.output, l.spiffe_id
                        ));
                    }
                    lost_by_binding.insert(e.item, lost);
                }
                results.push(result);
            }
        }
        let mut statuses = statuses.into_iter().peekable();
        let items = items
            .into_iter()
            .enumerate()
            .map(|(position, item)| match (statuses.next_if(|(at, _)| *at == position), item) {
                (Some((_, status)), Input::Whole(value)) if value.is_object() => {
                    Item::Binding(position, value, status)
                }
                (_, item) => Item::Input(position, item),
            })
            .collect();
        let (items, counts) = ownership::place(
            items,
            self.renders,
            |ns, name| bindings.contains_key(&(ns.to_string(), name.to_string())),
            config.prune,
            self.output_files.then_some(config.output_path.as_str()),
        );
        let mut coverage = self.coverage;
        let mut findings = std::mem::take(&mut stale.findings);
        findings.append(&mut coverage.findings);
        findings.sort_by(|a, b| (&a.about, a.kind, &a.message).cmp(&(&b.about, b.kind, &b.message)));
        report_findings(&findings, config.workload_policy, &items, &mut results);
        results.push(KrmResult::new(
            Severity::Info,
            format!(
                "{seen} binding(s): {} rendered, {failed} failed; ClusterSPIFFEIDs: {} added, {} replaced, \
                 {} removed, {} pruned{}",
                seen - failed,
                counts.added,
                counts.replaced,
                counts.removed,
                counts.pruned,
                match findings.len() {
                    0 => String::new(),
                    n => format!("; {n} finding(s)"),
                }
            ),
        ));
        Outcome { items, results, findings, coverage, lost: lost_by_binding }
    }
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

/// Everything [`plan`] works out: bindings evaluated, the renders, and coverage's inputs.
type Evaluation = (Vec<Evaluated>, Renders, Coverage);

fn evaluate_all(items: &[Input], ctx: &Context<'_>) -> Result<Evaluation, InputError> {
    let config = ctx.config;
    let listed = config.api_versions.iter().chain(&ctx.env_api_versions).map(String::as_str);
    // The indexes are independent passes over the items: the pool index, the largest, is
    // built on a second thread. Errors are taken in the order they are found one by one.
    let (bindings, pools, outputs, served, service_accounts) = std::thread::scope(|scope| {
        let pools = scope.spawn(|| PoolIndex::build(items));
        let bindings = read_bindings(items);
        let outputs = ownership::index_outputs(items);
        let served = ServedApis::collect(listed, input::values(items).map(|(_, item)| item));
        let service_accounts = renames::Renames::build(items, SERVICE_ACCOUNT, is_service_account);
        (bindings, pools.join().expect("the pool index does not panic"), outputs, served, service_accounts)
    });
    let bindings = bindings?;
    let pools = pools?;
    let outputs = outputs?;
    let service_accounts = service_accounts.map_err(InputError::from)?;
    let inputs = Inputs {
        pools: &pools,
        served: &served,
        trust_domain: config.trust_domain.as_deref(),
        service_accounts: &service_accounts,
    };

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
    if let Some(failure) = served::cluster_spiffe_id_missing(&served) {
        for outcome in outcomes.iter_mut().filter(|o| o.is_ok()) {
            *outcome = Err(failure.clone());
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

    // Workload coverage reads what the identities select, and runs beside the statuses and
    // renders: it is mostly one thread's work, which the cores finishing bindings share.
    let identities: Vec<Option<(&str, &str, String)>> = outcomes
        .iter()
        .zip(&named)
        .map(|(outcome, name)| match (outcome, name) {
            (Ok(p), Some(name)) => Some((p.service_account, p.variant, name.clone())),
            _ => None,
        })
        .collect();
    // Every binding with a namespace and a variant, and whether it fails: coverage names the
    // failing one when pods carry its variant.
    let bound: Vec<coverage::Bound> = bindings
        .iter()
        .zip(&outcomes)
        .filter_map(|(b, outcome)| {
            Some(coverage::Bound {
                item: b.item,
                namespace: b.namespace.clone().ok()?.to_string(),
                name: b.name.to_string(),
                variant: crate::api::fields::str_at(b.value, "spec.identityBoundary.variant")?.to_string(),
                failure: outcome.as_ref().err().map(|f| {
                    format!("{}/{}: {}", f.reason.condition().as_str(), f.reason.as_str(), f.message)
                }),
            })
        })
        .collect();
    // The objects this run renders, as SPIRE Controller Manager will read them.
    let rendered: Vec<spire::Source> = bindings
        .iter()
        .zip(&outcomes)
        .zip(&named)
        .filter_map(|((b, outcome), name)| {
            let (Ok(p), Some(name)) = (outcome, name) else { return None };
            let out = spire::RenderedOutput {
                name,
                namespace: p.namespace,
                variant: p.variant,
                pool_labels: &p.pool_labels,
                spiffe_id: &p.spiffe_id,
                selectors: &p.selectors,
                class_name: config.class_name.as_deref(),
            };
            Some(spire::Source::rendered(b.item, out, config.selector_scope))
        })
        .collect();
    let work: Vec<_> = bindings.iter().zip(outcomes).zip(named.into_iter().zip(conflicts)).collect();
    let (coverage, finished) = std::thread::scope(|scope| {
        let coverage = scope.spawn(|| match config.workload_policy {
            WorkloadPolicy::Ignore => Coverage::default(),
            _ => workload_coverage(
                items,
                (&bindings, &bound),
                &identities,
                (&pools, &served, &service_accounts),
                rendered,
                config,
            ),
        });
        // Statuses, results and renders.
        let finished =
            parallel::map(work, |((b, outcome), (name, conflicts))| finish(b, outcome, name, conflicts, ctx));
        (coverage.join().expect("workload coverage does not panic"), finished)
    });
    let mut evaluated = Vec::with_capacity(finished.len());
    let mut renders = BTreeMap::new();
    for (e, render) in finished {
        evaluated.push(e);
        renders.extend(render);
    }
    Ok((evaluated, renders, coverage))
}

/// What every rendered identity reaches, and the findings
/// (docs/reference.md#workload-coverage).
fn workload_coverage<'a>(
    items: &'a [Input],
    (bindings, bound): (&[BindingInput<'a>], &[coverage::Bound]),
    rendering: &[Option<(&'a str, &'a str, String)>],
    (pools, served, accounts): (&PoolIndex<'a>, &ServedApis, &renames::Renames<'a>),
    rendered_sources: Vec<spire::Source>,
    config: &Config,
) -> Coverage {
    let prune = config.prune;
    // Each binding's pool on all cores, in order.
    let resolved = parallel::map(bindings.iter().zip(rendering).collect(), |(b, rendered)| {
        let used = coverage::inputs::pool_use(b, pools, served)?;
        let identity = rendered.as_ref().map(|(service_account, variant, name)| {
            coverage::inputs::identity(&used, service_account, variant, name)
        });
        Some((used, identity))
    });
    let mut uses: Vec<Arc<PoolUse>> = Vec::with_capacity(resolved.len());
    let mut identities: Vec<Identity> = Vec::with_capacity(resolved.len());
    for (used, identity) in resolved.into_iter().flatten() {
        identities.extend(identity);
        uses.push(used);
    }
    let rendered: HashSet<&str> = rendering.iter().flatten().map(|(_, _, name)| name.as_str()).collect();
    let present: HashSet<(&str, &str)> =
        bindings.iter().filter_map(|b| Some((b.namespace.clone().ok()?, b.name))).collect();
    let stays = |value: &Value| {
        let fate =
            ownership::fate(value, |n| rendered.contains(n), |ns, n| present.contains(&(ns, n)), prune);
        fate == ownership::Fate::Kept
    };
    let mut seen = coverage::inputs::seen(items, stays);
    seen.accounts = coverage::inputs::renamed_accounts(&seen, accounts);
    let refs: HashMap<usize, findings::Ref> = bindings
        .iter()
        .map(|b| (b.item, findings::binding_ref(b.item, b.namespace.clone().ok(), b.name)))
        .collect();
    let binding_refs = |b: usize| refs[&b].clone();
    let mut coverage = coverage::coverage(&identities, &uses, bound, &seen, &binding_refs);
    // What SPIRE Controller Manager will do with this run's objects and those the input keeps.
    let mut sources = rendered_sources;
    sources.extend(seen.others.iter().map(spire::Source::of_input));
    let model = spire::simulate(sources, &seen, &config.spire, config.trust_domain.as_deref());
    // A binding that reaches no pod: what its object selects instead, and what those pods hold.
    let without = spire::findings::Without::of(&model);
    let instead = spire::findings::selected_instead(&model, &without, &seen);
    for finding in coverage.findings.iter_mut().filter(|f| f.kind == findings::Kind::NoMatchingWorkload) {
        if let Some(instead) = instead.get(&finding.about.item) {
            finding.message.push_str("; ");
            finding.message.push_str(instead);
        }
    }
    let cx =
        spire::findings::Context { seen: &seen, scope: config.selector_scope, binding_refs: &binding_refs };
    coverage.findings.extend(spire::findings::findings(&model, &without, &cx));
    coverage.findings.sort_by(|a, b| (&a.about, a.kind, &a.message).cmp(&(&b.about, b.kind, &b.message)));
    coverage.spire = model;
    coverage
}

/// The findings as results (severities by `workloadPolicy`).
fn report_findings(
    findings: &[Finding],
    policy: WorkloadPolicy,
    items: &[Item],
    results: &mut Vec<KrmResult>,
) {
    if findings.is_empty() {
        return;
    }
    let wanted: HashSet<usize> = findings.iter().map(|f| f.about.item).collect();
    let files: HashMap<usize, FileRef> = items
        .iter()
        .filter(|item| item.position().is_some_and(|p| wanted.contains(&p)))
        .filter_map(|item| {
            let (path, index) = item.slots().first().copied()?;
            Some((item.position()?, FileRef { path: path.to_string(), index }))
        })
        .collect();
    for finding in findings {
        let about = &finding.about;
        let mut result = KrmResult::new(
            finding.severity(policy),
            format!("{}: {}", finding.kind.as_str(), finding.message),
        );
        result.resource_ref = Some(ResourceRef {
            api_version: about.api_version.clone(),
            kind: about.kind.clone(),
            name: about.name.clone(),
            namespace: about.namespace.clone(),
        });
        if let Some(path) = about.path.as_deref().filter(|p| !p.is_empty()) {
            result = result.with_field(path);
        }
        result.file = files.get(&about.item).cloned();
        result.topic = Topic::Finding(about.item);
        results.push(result);
    }
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
                binding_scope: (config.selector_scope == crate::config::SelectorScope::Binding)
                    .then_some(p.variant),
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
    result.topic = Topic::Binding(b.item);
    result
}

const SERVICE_ACCOUNT: &str = "ServiceAccount";

/// A core `v1` ServiceAccount, as kustomize's nameReference for service accounts selects.
fn is_service_account(item: &Value) -> bool {
    item.get("kind").and_then(Value::as_str) == Some(SERVICE_ACCOUNT)
        && item.get("apiVersion").and_then(Value::as_str) == Some("v1")
}
