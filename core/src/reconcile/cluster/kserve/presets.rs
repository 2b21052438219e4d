//! The `LLMInferenceServiceConfig` presets KServe lays under a service: which of its
//! well-known ones apply, what each one it ships sets of what the build reads, and where a
//! preset is looked for (docs/clients.md#kserve). Read at kserve/kserve
//! aaac4e294dae2c7b1aa1886447793f3aa1c30912.
//!
//! - KServe picks the well-known presets from the spec its `baseRefs` give, in this order
//!   (`pkg/controller/v1alpha2/llmisvc/config_merge.go`, `combineBaseRefsConfig`): the
//!   scheduler's when `router.scheduler` is set without `pool.ref`; the tokenizer's when the
//!   scheduler is set and has a tokenizer or a `token-producer` (or `precise-prefix-cache-scorer`)
//!   plugin in its inline config (`tokenizer.go`, `isTokenizerEnabled`); the latency
//!   predictor's when that config has a `predicted-latency-producer` plugin
//!   (`scheduler_latency_predictor.go`, `hasLatencyProducerInSpec`); the route's when
//!   `router.route` is set without `http.refs`; the tracing one when `tracing` is set; for the
//!   main workload the single-node template, or the data- or pipeline-parallel worker one when
//!   `worker` is set; with `prefill` set, the decode and prefill flavours of those instead.
//!   The pipeline-parallel ones are named but not shipped (lines 94-99): a service that needs
//!   one is refused until the cluster holds it.
//! - A preset is looked for in the service's namespace, then in `kserve` (`getConfig`); one
//!   found nowhere stops KServe (`configNotFoundError`, a terminal error).
//! - Every preset it ships (`config/llmisvcconfig/*.yaml`) is read here for what it sets of
//!   what the build reads: whether the scheduler, its template and tokenizer, the route and
//!   tracing are set, the pool's selector, the workload templates and worker templates with
//!   the names of their containers and init containers. None sets labels or a service account.
//!   Two set `router.scheduler` beside the scheduler's own: the tokenizer's and the latency
//!   predictor's, so naming either in `baseRefs` makes KServe run a scheduler and create a pool.

use serde_json::{Value, json};
use std::collections::HashMap;

/// Where KServe looks for a preset after the service's own namespace.
pub const SYSTEM_NAMESPACE: &str = "kserve";

/// The init container that makes a main workload run as the account KServe creates
/// (`pkg/constants/constants.go` line 469, `workload.go` lines 197-213).
pub const ROUTING_SIDECAR: &str = "llm-d-routing-sidecar";

/// The well-known presets, by the name KServe gives them (its default prefix `kserve-`).
pub const SCHEDULER: &str = "kserve-config-llm-scheduler";
pub const TOKENIZER: &str = "kserve-config-llm-tokenizer";
pub const LATENCY_PREDICTOR: &str = "kserve-config-llm-scheduler-latency-predictor";
pub const ROUTE: &str = "kserve-config-llm-router-route";
pub const TRACING: &str = "kserve-config-llm-tracing";
pub const TEMPLATE: &str = "kserve-config-llm-template";
pub const DECODE_TEMPLATE: &str = "kserve-config-llm-decode-template";
pub const PREFILL_TEMPLATE: &str = "kserve-config-llm-prefill-template";
pub const WORKER_DATA_PARALLEL: &str = "kserve-config-llm-worker-data-parallel";
pub const DECODE_WORKER_DATA_PARALLEL: &str = "kserve-config-llm-decode-worker-data-parallel";
pub const PREFILL_WORKER_DATA_PARALLEL: &str = "kserve-config-llm-prefill-worker-data-parallel";
pub const WORKER_PIPELINE_PARALLEL: &str = "kserve-config-llm-worker-pipeline-parallel";
pub const DECODE_WORKER_PIPELINE_PARALLEL: &str = "kserve-config-llm-decode-worker-pipeline-parallel";
pub const PREFILL_WORKER_PIPELINE_PARALLEL: &str = "kserve-config-llm-prefill-worker-pipeline-parallel";

/// The scheduler plugins that make KServe run a tokenizer, and a latency predictor.
const TOKENIZER_PLUGINS: [&str; 2] = ["token-producer", "precise-prefix-cache-scorer"];
const LATENCY_PLUGIN: &str = "predicted-latency-producer";

/// Every preset KServe ships, by name.
#[cfg(test)]
pub const SHIPPED: [&str; 11] = [
    SCHEDULER,
    TOKENIZER,
    LATENCY_PREDICTOR,
    ROUTE,
    TRACING,
    TEMPLATE,
    DECODE_TEMPLATE,
    PREFILL_TEMPLATE,
    WORKER_DATA_PARALLEL,
    DECODE_WORKER_DATA_PARALLEL,
    PREFILL_WORKER_DATA_PARALLEL,
];

/// What a shipped preset sets of what the build reads; `None` for a name KServe does not ship.
pub fn shipped(name: &str) -> Option<Value> {
    let pod = |containers: &[&str], init: &[&str]| {
        let named = |names: &[&str]| names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>();
        let mut pod = json!({"containers": named(containers)});
        if !init.is_empty() {
            pod["initContainers"] = Value::Array(named(init));
        }
        pod
    };
    let main = || pod(&["main"], &[]);
    let spec = match name {
        // config-llm-scheduler.yaml: the pool's selector, and the scheduler's template.
        SCHEDULER => json!({"router": {"scheduler": {
            "pool": {"spec": {"selector": {"matchLabels": {
                "app.kubernetes.io/name": "{{ .ObjectMeta.Name }}",
                "app.kubernetes.io/part-of": "llminferenceservice",
                "kserve.io/component": "workload",
            }}, "targetPorts": [{"number": 8000}]}},
            "template": main(),
        }}}),
        // config-llm-tokenizer.yaml: a tokenizer under the scheduler.
        TOKENIZER => json!({"router": {"scheduler": {"tokenizer": {"template": main()}}}}),
        // config-llm-scheduler-latency-predictor.yaml: the scheduler's template, with two
        // containers beside `main`.
        LATENCY_PREDICTOR => {
            json!({"router": {"scheduler": {"template": pod(&["main", "training-server", "prediction-server"], &[])}}})
        }
        // config-llm-router-route.yaml: an HTTPRoute spec.
        ROUTE => json!({"router": {"route": {"http": {"spec": {}}}}}),
        // config-llm-tracing.yaml: an exporter.
        TRACING => json!({"tracing": {"exporter": "otlp"}}),
        TEMPLATE => json!({"template": main()}),
        // config-llm-decode-template.yaml line 241: the decode template has the sidecar.
        DECODE_TEMPLATE => json!({"template": pod(&["main"], &[ROUTING_SIDECAR])}),
        PREFILL_TEMPLATE => json!({"prefill": {"template": main()}}),
        WORKER_DATA_PARALLEL => json!({"template": main(), "worker": main()}),
        // config-llm-decode-worker-data-parallel.yaml line 10.
        DECODE_WORKER_DATA_PARALLEL => {
            json!({"template": pod(&["main"], &[ROUTING_SIDECAR]), "worker": main()})
        }
        PREFILL_WORKER_DATA_PARALLEL => json!({"prefill": {"template": main(), "worker": main()}}),
        _ => return None,
    };
    Some(spec)
}

/// Whether the scheduler's inline config names a plugin of `kind`: `Some(true)` or
/// `Some(false)` when read, `None` for a config given as text, which the build does not parse
/// and which names the plugin.
fn has_plugin(scheduler: &Value, kinds: &[&str]) -> Option<bool> {
    match scheduler.pointer("/config/inline") {
        Some(Value::Object(config)) => {
            Some(config.get("plugins").and_then(Value::as_array).is_some_and(|plugins| {
                plugins
                    .iter()
                    .any(|p| p.get("type").and_then(Value::as_str).is_some_and(|t| kinds.contains(&t)))
            }))
        }
        Some(Value::String(text)) if kinds.iter().any(|k| text.contains(k)) => None,
        _ => Some(false),
    }
}

/// Whether the scheduler's inline config names a plugin that makes KServe run a tokenizer.
pub fn tokenizer_plugin(scheduler: &Value) -> bool {
    has_plugin(scheduler, &TOKENIZER_PLUGINS) == Some(true)
}

/// The well-known presets KServe lays under a spec, in its order, and a note for each choice
/// the build cannot make (a scheduler config given as text).
pub fn well_known(resolved: &Value) -> (Vec<&'static str>, Vec<String>) {
    let at = |path: &[&str]| path.iter().try_fold(resolved, |v, k| v.get(k)).filter(|v| !v.is_null());
    let mut out = Vec::new();
    let mut unread = Vec::new();
    let scheduler = at(&["router", "scheduler"]);
    let has_ref = at(&["router", "scheduler", "pool", "ref", "name"])
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    if let Some(scheduler) = scheduler {
        if !has_ref {
            out.push(SCHEDULER);
        }
        let tokenizer = scheduler.get("tokenizer").is_some_and(|t| !t.is_null());
        match has_plugin(scheduler, &TOKENIZER_PLUGINS) {
            _ if tokenizer => out.push(TOKENIZER),
            Some(true) => out.push(TOKENIZER),
            Some(false) => {}
            None => unread.push(TOKENIZER),
        }
    }
    match scheduler.map(|s| has_plugin(s, &[LATENCY_PLUGIN])) {
        Some(Some(true)) => out.push(LATENCY_PREDICTOR),
        Some(None) => unread.push(LATENCY_PREDICTOR),
        _ => {}
    }
    let route_refs =
        at(&["router", "route", "http", "refs"]).and_then(Value::as_array).is_some_and(|r| !r.is_empty());
    if at(&["router", "route"]).is_some() && !route_refs {
        out.push(ROUTE);
    }
    if at(&["tracing"]).is_some() {
        out.push(TRACING);
    }
    let parallel = |workload: Option<&Value>| {
        let p = workload.and_then(|w| w.get("parallelism"));
        let positive = |key| p.and_then(|p| p.get(key)).and_then(Value::as_i64).is_some_and(|n| n > 0);
        (positive("data") || positive("dataLocal"), positive("pipeline"))
    };
    let pick = |workload: Option<&Value>, [single, data, pipeline]: [&'static str; 3]| {
        let worker = workload.and_then(|w| w.get("worker")).is_some_and(|w| !w.is_null());
        match (worker, parallel(workload)) {
            (false, _) => Some(single),
            (true, (true, _)) => Some(data),
            (true, (false, true)) => Some(pipeline),
            (true, (false, false)) => None,
        }
    };
    match at(&["prefill"]) {
        Some(prefill) => {
            out.extend(pick(
                Some(prefill),
                [PREFILL_TEMPLATE, PREFILL_WORKER_DATA_PARALLEL, PREFILL_WORKER_PIPELINE_PARALLEL],
            ));
            out.extend(pick(
                Some(resolved),
                [DECODE_TEMPLATE, DECODE_WORKER_DATA_PARALLEL, DECODE_WORKER_PIPELINE_PARALLEL],
            ));
        }
        None => out.extend(pick(Some(resolved), [TEMPLATE, WORKER_DATA_PARALLEL, WORKER_PIPELINE_PARALLEL])),
    }
    let unread = unread
        .into_iter()
        .map(|preset| {
            format!(
                "spec.router.scheduler.config.inline is text naming a plugin that makes KServe lay its preset \
                 {preset:?} under the service, which the build does not parse: whether KServe lays it is not known; \
                 give the config as a mapping"
            )
        })
        .collect();
    (out, unread)
}

/// The presets the input holds, by namespace (`None`: the item names none) and name: their
/// `spec`, with their `apiVersion`.
#[derive(Debug, Default)]
pub struct Presets<'a> {
    by_name: HashMap<(Option<&'a str>, &'a str), (&'a str, &'a Value)>,
}

/// Where a preset was found.
pub enum Found<'a> {
    /// In the input: its `apiVersion` and `spec`.
    Input(&'a str, &'a Value),
    /// One KServe ships, the input holding none of that name.
    Shipped(Value),
    Missing,
}

impl<'a> Presets<'a> {
    /// The `LLMInferenceServiceConfig`s (`serving.kserve.io`) among `values`.
    pub fn of(values: impl IntoIterator<Item = &'a Value>) -> Presets<'a> {
        let mut by_name = HashMap::new();
        for value in values {
            let text = |key: &str| value.get(key).and_then(Value::as_str);
            let api_version = text("apiVersion").unwrap_or_default();
            if !super::vocabulary::is_config(value) {
                continue;
            }
            let metadata = value.get("metadata");
            let field = |key: &str| metadata.and_then(|m| m.get(key)).and_then(Value::as_str);
            let (Some(name), Some(spec)) = (field("name"), value.get("spec")) else { continue };
            by_name.entry((field("namespace"), name)).or_insert((api_version, spec));
        }
        Presets { by_name }
    }

    /// The preset `name` as KServe finds it for a service in `namespace`.
    pub fn find(&self, namespace: Option<&str>, name: &str) -> Found<'a> {
        let here = self.by_name.get(&(namespace, name));
        let system = || self.by_name.get(&(Some(SYSTEM_NAMESPACE), name));
        match here.or_else(system) {
            Some(&(api_version, spec)) => Found::Input(api_version, spec),
            None => shipped(name).map_or(Found::Missing, Found::Shipped),
        }
    }
}
