//! What KServe's controller makes of an `LLMInferenceService` (`serving.kserve.io` v1alpha1
//! and v1alpha2) at run time, derived at build time (docs/clients.md#kserve): the
//! InferencePool, the pod templates of its model servers and the accounts they run as, from
//! the service laid over its presets. Read at kserve/kserve
//! aaac4e294dae2c7b1aa1886447793f3aa1c30912; `presets.rs` says which presets apply,
//! `merge.rs` how they merge, `pods.rs` which pods come of the result. What the build cannot
//! know is a [`Note`], never a guess. Derived objects are facts for the reconcile only: they
//! are never written out, and the service passes through untouched.

mod merge;
mod pods;
mod presets;
#[cfg(test)]
mod tests;
mod vocabulary;

pub use presets::Presets;
pub use vocabulary::{CONFIG_KIND, Note, SERVICE_KIND, Template, creates_account, fields_of};

use vocabulary::{
    COMPONENT_LABEL, GROUP_SLASH, LONGEST_NAME, NAME_LABEL, PART_OF, PART_OF_LABEL, WORKLOAD, child_name,
};

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

/// What KServe makes of `service`, laid over the presets it names and the well-known ones.
pub fn derive(service: &Value, presets: &Presets<'_>) -> Derivation {
    let text = |path: &str| fields::str_at(service, path).unwrap_or_default();
    let (api_version, name) = (text("apiVersion"), text("metadata.name"));
    let namespace = fields::str_at(service, "metadata.namespace").filter(|ns| !ns.is_empty());
    let own = merge::normalised(api_version, service.get("spec").unwrap_or(&Value::Null));
    let mut notes = Vec::new();
    let mut open = false;
    // KServe's first pass: the service with its baseRefs laid over it says what is set
    // (config_merge.go lines 275-289); the well-known presets follow from it.
    let mut resolved = own.clone();
    let mut laid = Vec::new();
    let refs = own.get("baseRefs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, reference) in refs.iter().enumerate() {
        let Some(preset) = reference.get("name").and_then(Value::as_str) else { continue };
        match presets.find(namespace, preset) {
            presets::Found::Input(version, spec) => laid.push(merge::normalised(version, spec)),
            presets::Found::Shipped(spec) => laid.push(spec),
            presets::Found::Missing => {
                open = true;
                notes.push(Note {
                    message: format!(
                        "spec.baseRefs[{i}] names LLMInferenceServiceConfig {preset:?}, which the input does not \
                         hold and KServe does not ship: it may set the labels and service account of the pods KServe \
                         makes, and their pool, so the pods derived here may carry labels not shown; add that \
                         LLMInferenceServiceConfig to the input"
                    ),
                    warning: true,
                });
                continue;
            }
        }
        merge::merge(&mut resolved, laid.last().expect("just pushed"));
    }
    let mut merged = json!({});
    for preset in presets::well_known(&resolved) {
        match presets.find(namespace, preset) {
            presets::Found::Input(version, spec) => {
                merge::merge(&mut merged, &merge::normalised(version, spec))
            }
            presets::Found::Shipped(spec) => merge::merge(&mut merged, &spec),
            presets::Found::Missing => {
                open = true;
                notes.push(Note {
                    message: format!(
                        "a pipeline-parallel worker (parallelism.pipeline) makes KServe lay its preset {preset:?} \
                         under the service, which KServe does not ship and the input does not hold: KServe refuses \
                         the service until the cluster holds it, and it may set the pods' labels and service \
                         account; add that LLMInferenceServiceConfig to the input"
                    ),
                    warning: true,
                });
            }
        }
    }
    for spec in &laid {
        merge::merge(&mut merged, spec);
    }
    merge::merge(&mut merged, &own);
    let mut derivation = Derivation {
        api_version: api_version.to_string(),
        name: name.to_string(),
        namespace: namespace.map(str::to_string),
        pool: Pool::None(NO_SCHEDULER),
        templates: Vec::new(),
        notes,
    };
    let stopped = fields::child(service, &["metadata", "annotations", "serving.kserve.io/stop"])
        .and_then(Value::as_str)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if stopped {
        // utils.GetForceStopRuntime: a stopped service keeps neither pool nor pods.
        derivation.pool = Pool::None("is stopped (serving.kserve.io/stop), so KServe keeps no pool for it");
        return derivation;
    }
    let context =
        pods::Context { service, spec: &merged, name, namespace: namespace.unwrap_or_default(), open };
    derivation.templates = pods::templates(&context, &mut derivation.notes);
    derivation.pool = pool(&merged, name, namespace.unwrap_or_default(), &laid, &own, &mut derivation.notes);
    check_custom_selector(&mut derivation);
    derivation
}

/// The pool side of the merged spec (`scheduler.go` lines 221-260 and 332-352: a pool when
/// the scheduler has a template and names no pool; its selector the merged one, else the
/// workload selector of `workload.go` lines 166-176, as config_merge.go lines 392-404 set it).
fn pool(
    merged: &Value,
    name: &str,
    namespace: &str,
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
        return match merge::evaluated(reference, name, namespace) {
            Ok(reference) => Pool::Uses(reference),
            Err(expression) => {
                notes.push(Note {
                    message: format!(
                        "spec.router.scheduler.pool.ref.name holds {expression}, which only KServe evaluates: the \
                         pool the service uses is not known; name it plainly"
                    ),
                    warning: true,
                });
                Pool::Unknown
            }
        };
    }
    if scheduler.get("template").is_none_or(Value::is_null) {
        return Pool::None("has a scheduler without a template, so KServe creates no pool for it");
    }
    let Some(pool_name) = child_name(name, "-inference-pool") else {
        notes.push(Note {
            message: format!(
                "metadata.name {name:?} is longer than {} characters, so KServe names its InferencePool with a \
                 hash the build does not compute; give the service a shorter name, or name an existing pool in \
                 spec.router.scheduler.pool.ref",
                LONGEST_NAME - "-inference-pool".len()
            ),
            warning: true,
        });
        return Pool::Unknown;
    };
    let path = ["router", "scheduler", "pool", "spec", "selector", "matchLabels"];
    let (mut selector, unknown) = merge::labels_at(merged, &path, name, namespace);
    if let Some((key, expression)) = unknown.first() {
        notes.push(Note {
            message: format!(
                "spec.router.scheduler.pool.spec.selector.matchLabels[{key:?}] holds {expression}, which only \
                 KServe evaluates: the pool's selector is not known; give the label plainly"
            ),
            warning: true,
        });
        return Pool::Unknown;
    }
    if selector.is_empty() {
        selector = vec![
            (PART_OF_LABEL.to_string(), PART_OF.to_string()),
            (NAME_LABEL.to_string(), name.to_string()),
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
    derivation.notes.push(Note { message, warning });
}
