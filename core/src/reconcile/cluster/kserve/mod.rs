//! What KServe's controller makes of an `LLMInferenceService` (`serving.kserve.io` v1alpha1
//! and v1alpha2) at run time, derived at build time (docs/clients.md#kserve): the
//! InferencePool, the pod templates of its model servers and the accounts they run as, from
//! the service laid over its presets. Read at kserve/kserve
//! aaac4e294dae2c7b1aa1886447793f3aa1c30912; `presets.rs` says which presets apply,
//! `merge.rs` how they merge, `template.rs` how their templates execute, `names.rs` how KServe
//! names what it makes, `pods.rs` which pods come of the result. What the build cannot know
//! is a [`Note`], never a guess; what makes KServe refuse the service (a preset found nowhere,
//! a template Go fails on) is a refusal note, and then KServe makes nothing of it. Derived
//! objects are facts for the reconcile only: they are never written out, and the service
//! passes through untouched.

mod merge;
mod names;
mod pods;
mod presets;
mod template;
#[cfg(test)]
mod tests;
mod vocabulary;

pub use names::child_name;
pub use presets::{Presets, SYSTEM_NAMESPACE};
pub use vocabulary::{
    CONFIG_KIND, Maker, MakerKind, Note, SERVICE_KIND, Template, creates_account, fields_of, is_config,
};

use vocabulary::{COMPONENT_LABEL, GROUP_SLASH, NAME_LABEL, PART_OF, PART_OF_LABEL, WORKLOAD};

use crate::api::fields;
use crate::api::value::Value as ItemValue;
use crate::reconcile::findings::{Finding, Kind, Level, Ref};
use serde_json::{Map, Value, json};

/// Why a service without a scheduler has no pool.
const NO_SCHEDULER: &str =
    "has no spec.router.scheduler, so KServe runs no scheduler for it and creates no pool";

/// Whether an item is KServe's `LLMInferenceService`.
pub fn is_service<T: fields::Tree>(item: &T) -> bool {
    fields::str_at(item, "kind") == Some(SERVICE_KIND)
        && fields::str_at(item, "apiVersion").is_some_and(|v| v.starts_with(GROUP_SLASH))
}

/// What KServe will make of one service, as far as the build can know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derivation {
    pub api_version: String,
    pub name: String,
    pub namespace: Option<String>,
    pub pool: Pool,
    /// The pod templates of its model servers.
    pub templates: Vec<Template>,
    pub notes: Vec<Note>,
}

/// The InferencePool side of a service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pool {
    /// KServe creates this pool with this selector; `custom`: the service's (or a preset's of
    /// the input) `spec.router.scheduler.pool.spec.selector` is laid over the scheduler's.
    Creates { name: String, selector: Vec<(String, String)>, custom: bool },
    /// The service uses a pool that exists (`spec.router.scheduler.pool.ref`).
    Uses(String),
    /// KServe refuses the service, for this reason: it makes neither pool nor pods.
    Refused(String),
    /// KServe creates none, for this reason (said of the service: `has no …`).
    None(&'static str),
    /// KServe creates one the build cannot name or whose selector it cannot read (a note says
    /// why).
    Unknown,
}

impl Derivation {
    /// `namespace/name` of the service.
    pub fn describe(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        }
    }

    /// The pool KServe creates, as an InferencePool item of the input would hold it.
    pub fn pool_item(&self) -> Option<Value> {
        let Pool::Creates { name, selector, .. } = &self.pool else { return None };
        let labels: Map<String, Value> =
            selector.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        Some(json!({
            "apiVersion": "inference.networking.k8s.io/v1",
            "kind": "InferencePool",
            "metadata": {"name": name, "namespace": self.namespace},
            "spec": {"selector": {"matchLabels": labels}, "targetPorts": [{"number": 8000}]},
        }))
    }

    /// Where a binding's pool came from, for its status.
    pub fn origin(&self) -> String {
        let how = match &self.pool {
            Pool::Creates { custom: true, .. } => {
                ", its selector the scheduler preset's with spec.router.scheduler.pool.spec.selector laid over it"
            }
            _ => "",
        };
        format!(
            "the InferencePool is the one KServe creates at run time for LLMInferenceService {}, derived \
             from it at build time{how}",
            self.describe()
        )
    }

    /// Its notes as findings about the service at input position `item`.
    pub fn findings(&self, item: usize) -> Vec<Finding> {
        let about = Ref {
            item,
            api_version: self.api_version.clone(),
            kind: SERVICE_KIND.to_string(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            path: None,
        };
        let level = |warning| if warning { Level::Warning } else { Level::Info };
        let finding = |n: &Note| Finding {
            kind: Kind::KServeUnknown,
            level: level(n.warning),
            message: n.message.clone(),
            about: about.clone(),
            also: Vec::new(),
        };
        self.notes.iter().map(finding).collect()
    }
}

/// Every service among `values` (with their input positions) and what KServe makes of it,
/// with the presets among them.
pub fn derive_all(values: &[(usize, &ItemValue)]) -> Vec<(usize, Derivation)> {
    if !values.iter().any(|(_, v)| is_service(*v)) {
        return Vec::new();
    }
    // Laying presets under a service changes trees: the services and presets are read as
    // `serde_json` values, the few there are.
    let read: Vec<(usize, Value)> = values
        .iter()
        .filter(|(_, v)| is_service(*v) || fields::str_at(*v, "kind") == Some(vocabulary::CONFIG_KIND))
        .map(|(i, v)| (*i, v.to_json()))
        .collect();
    let presets = Presets::of(read.iter().map(|(_, v)| v));
    read.iter().filter(|(_, v)| is_service(v)).map(|(i, v)| (*i, derive(v, &presets))).collect()
}

/// Where a preset comes from, for messages.
fn not_found(preset: &str, namespace: Option<&str>) -> String {
    let namespace = namespace.unwrap_or("default");
    format!(
        "LLMInferenceServiceConfig {preset:?}, which is in neither namespace {namespace} nor {} of the input and \
         which KServe does not ship",
        presets::SYSTEM_NAMESPACE
    )
}

/// What KServe makes of `service`, laid over the presets it names and the well-known ones.
pub fn derive(service: &Value, presets: &Presets<'_>) -> Derivation {
    let text = |path: &str| fields::str_at(service, path).unwrap_or_default();
    let (api_version, name) = (text("apiVersion"), text("metadata.name"));
    let namespace = fields::str_at(service, "metadata.namespace").filter(|ns| !ns.is_empty());
    let own = merge::normalised(api_version, service.get("spec").unwrap_or(&Value::Null));
    let mut derivation = Derivation {
        api_version: api_version.to_string(),
        name: name.to_string(),
        namespace: namespace.map(str::to_string),
        pool: Pool::None(NO_SCHEDULER),
        templates: Vec::new(),
        notes: Vec::new(),
    };
    let stopped = fields::child(service, &["metadata", "annotations", "serving.kserve.io/stop"])
        .and_then(Value::as_str)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if stopped {
        // utils.GetForceStopRuntime: a stopped service keeps neither pool nor pods, whatever
        // its presets (reconcileBaseRefs goes on without them).
        derivation.pool = Pool::None("is stopped (serving.kserve.io/stop), so KServe keeps no pool for it");
        return derivation;
    }
    let notes = &mut derivation.notes;
    // KServe's first pass: the service with its baseRefs laid over it says what is set
    // (`combineBaseRefsConfig`); the well-known presets follow from it. A preset found nowhere
    // stops it there (`getConfig`, `configNotFoundError`).
    let mut resolved = own.clone();
    let mut laid = Vec::new();
    let refs = own.get("baseRefs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, reference) in refs.iter().enumerate() {
        let Some(preset) = reference.get("name").and_then(Value::as_str) else { continue };
        let spec = match presets.find(namespace, preset) {
            presets::Found::Input(version, spec) => merge::normalised(version, spec),
            presets::Found::Shipped(spec) => spec,
            presets::Found::Missing => {
                notes.push(Note::refusal(format!(
                    "spec.baseRefs[{i}] names {}: KServe stops at it (ConfigNotFound); add that \
                     LLMInferenceServiceConfig to the input, or drop the reference",
                    not_found(preset, namespace)
                )));
                return refused(derivation);
            }
        };
        if let Err(why) = merge::merge(&mut resolved, &spec) {
            return refused_merge(derivation, &why);
        }
        laid.push(spec);
    }
    let (well_known, unread) = presets::well_known(&resolved);
    notes.extend(unread.into_iter().map(Note::warning));
    let mut merged = json!({});
    for preset in well_known {
        match presets.find(namespace, preset) {
            presets::Found::Input(version, spec) => {
                if let Err(why) = merge::merge(&mut merged, &merge::normalised(version, spec)) {
                    return refused_merge(derivation, &why);
                }
            }
            presets::Found::Shipped(spec) => {
                if let Err(why) = merge::merge(&mut merged, &spec) {
                    return refused_merge(derivation, &why);
                }
            }
            presets::Found::Missing => {
                notes.push(Note::refusal(format!(
                    "its spec (a pipeline-parallel worker: parallelism.pipeline) makes KServe lay the well-known \
                     {}: KServe stops at it (ConfigNotFound); add that LLMInferenceServiceConfig to the input, or \
                     use data parallelism",
                    not_found(preset, namespace)
                )));
                return refused(derivation);
            }
        }
    }
    for spec in laid.iter().chain([&own]) {
        if let Err(why) = merge::merge(&mut merged, spec) {
            return refused_merge(derivation, &why);
        }
    }
    let namespace = namespace.unwrap_or_default();
    let pool_name = pool_name(&merged, name);
    let pool_text = format!("{namespace}/{pool_name}");
    let data = template::Data { name, namespace, service, pool: &pool_text };
    let context = pods::Context { service, spec: &merged, data: &data };
    derivation.templates = pods::templates(&context, &mut derivation.notes);
    derivation.pool = pool(&merged, &data, &laid, &own, &mut derivation.notes);
    if derivation.notes.iter().any(|n| n.refuses) {
        return refused(derivation);
    }
    check_custom_selector(&mut derivation);
    derivation
}

/// A service whose presets KServe's merge fails on, for `why`: refused.
fn refused_merge(mut derivation: Derivation, why: &str) -> Derivation {
    derivation
        .notes
        .push(Note::refusal(format!("{why}: KServe stops at it (CombineBaseError); remove the directive")));
    refused(derivation)
}

/// A refused service: KServe makes neither pool nor pods of it (`reconcileBaseRefs` returns
/// before the workloads and the router are reconciled).
fn refused(mut derivation: Derivation) -> Derivation {
    derivation.templates.clear();
    let why: Vec<&str> = derivation.notes.iter().filter(|n| n.refuses).map(|n| n.message.as_str()).collect();
    derivation.pool = Pool::Refused(why.join("; "));
    derivation.notes.retain(|n| n.refuses);
    for note in &mut derivation.notes {
        note.message =
            format!("KServe refuses the service and makes no pool and no pods for it: {}", note.message);
    }
    derivation
}

/// The name of the pool the service uses or creates, as `GlobalConfig.InferencePoolNamespacedName`
/// gives it (`SchedulerSpec.InferencePoolName`): its `pool.ref` as written, else the name
/// KServe gives the pool it creates.
fn pool_name(merged: &Value, name: &str) -> String {
    match merged.pointer("/router/scheduler/pool/ref/name").and_then(Value::as_str) {
        Some(reference) if !reference.is_empty() => reference.to_string(),
        _ => child_name(name, "-inference-pool"),
    }
}

/// The pool side of the merged spec (`scheduler.go`, `reconcileSchedulerInferencePool`,
/// `expectedSchedulerInferencePool`: a pool `ChildName(<name>, "-inference-pool")` when the
/// scheduler has a template and names no pool; its selector the merged one, else the workload
/// selector of `workload.go` `GetWorkloadLabelSelector`, as `combineBaseRefsConfig` sets it).
fn pool(
    merged: &Value,
    data: &template::Data<'_>,
    laid: &[Value],
    own: &Value,
    notes: &mut Vec<Note>,
) -> Pool {
    let scheduler = merged.pointer("/router/scheduler").filter(|s| !s.is_null());
    let Some(scheduler) = scheduler else {
        return Pool::None(NO_SCHEDULER);
    };
    if let Some(reference) =
        scheduler.pointer("/pool/ref/name").and_then(Value::as_str).filter(|n| !n.is_empty())
    {
        return match merge::evaluated(reference, data) {
            Ok(reference) => Pool::Uses(reference),
            Err(eval) => {
                notes.push(
                    eval.note(
                        "spec.router.scheduler.pool.ref.name",
                        "the pool the service uses is not known",
                    ),
                );
                Pool::Unknown
            }
        };
    }
    if scheduler.get("template").is_none_or(Value::is_null) {
        return Pool::None("has a scheduler without a template, so KServe creates no pool for it");
    }
    let pool_name = child_name(data.name, "-inference-pool");
    let path = ["router", "scheduler", "pool", "spec", "selector", "matchLabels"];
    let (mut selector, unknown) = merge::labels_at(merged, &path, data);
    if let Some((key, eval)) = unknown.into_iter().next() {
        let field = format!("spec.router.scheduler.pool.spec.selector.matchLabels[{key:?}]");
        notes.push(eval.note(&field, "the pool's selector is not known"));
        return Pool::Unknown;
    }
    if selector.is_empty() {
        selector = vec![
            (PART_OF_LABEL.to_string(), PART_OF.to_string()),
            (NAME_LABEL.to_string(), data.name.to_string()),
            (COMPONENT_LABEL.to_string(), WORKLOAD.to_string()),
        ];
    }
    selector.sort();
    let sets_selector =
        |spec: &Value| spec.pointer("/router/scheduler/pool/spec/selector").is_some_and(|s| !s.is_null());
    let custom = sets_selector(own) || laid.iter().any(sets_selector);
    Pool::Creates { name: pool_name, selector, custom }
}

/// A custom pool selector is said, and said louder when it selects none of the pods KServe
/// makes for the service.
fn check_custom_selector(derivation: &mut Derivation) {
    let Pool::Creates { selector, custom: true, .. } = &derivation.pool else { return };
    let listed = selector.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", ");
    let selects = |t: &Template| selector.iter().all(|label| t.labels.contains(label));
    let message = if derivation.templates.iter().any(selects) {
        format!(
            "spec.router.scheduler.pool.spec.selector is laid over the scheduler preset's selector, key by key, \
             as KServe merges them: the pool selects {listed}"
        )
    } else {
        format!(
            "spec.router.scheduler.pool.spec.selector is laid over the scheduler preset's selector, key by key, \
             as KServe merges them: the pool selects {listed}, which none of the pods KServe makes for the \
             service carries; add the labels the selector adds to spec.labels (and spec.prefill.labels), or \
             drop them from the selector"
        )
    };
    let warning = !derivation.templates.iter().any(selects);
    derivation.notes.push(Note { message, warning, refuses: false });
}
