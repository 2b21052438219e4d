//! The `LLMInferenceServiceConfig` presets KServe lays under a service: which of its
//! well-known ones apply, what the ones it ships set of what the build reads, and where a
//! preset is looked for (docs/clients.md#kserve). Read at kserve/kserve
//! aaac4e294dae2c7b1aa1886447793f3aa1c30912.
//!
//! - KServe picks the well-known presets from the spec its `baseRefs` give: the scheduler's when
//!   `router.scheduler` is set without `pool.ref`; for the main workload the single-node
//!   template, or the data- or pipeline-parallel worker one when `worker` is set; with `prefill`
//!   set, the decode and prefill flavours of those instead
//!   (`pkg/controller/v1alpha2/llmisvc/config_merge.go`, `combineBaseRefsConfig`, lines
//!   298-355). The pipeline-parallel ones are named but not shipped (lines 94-99).
//! - A preset is looked for in the service's namespace, then in `kserve` (`getConfig`, lines
//!   823-840).
//! - Of what they set, the build reads the pool selector, whether a template is set and has the
//!   routing sidecar, and nothing else: no shipped preset sets labels or a service account
//!   (`config/llmisvcconfig/*.yaml`).

use serde_json::{Value, json};
use std::collections::HashMap;

/// Where KServe looks for a preset after the service's own namespace.
pub const SYSTEM_NAMESPACE: &str = "kserve";

/// The init container that makes a main workload run as the account KServe creates
/// (`pkg/constants/constants.go` line 469, `workload.go` lines 197-213).
pub const ROUTING_SIDECAR: &str = "llm-d-routing-sidecar";

/// The well-known presets, by the name KServe gives them (its default prefix `kserve-`).
pub const SCHEDULER: &str = "kserve-config-llm-scheduler";
pub const TEMPLATE: &str = "kserve-config-llm-template";
pub const DECODE_TEMPLATE: &str = "kserve-config-llm-decode-template";
pub const PREFILL_TEMPLATE: &str = "kserve-config-llm-prefill-template";
pub const WORKER_DATA_PARALLEL: &str = "kserve-config-llm-worker-data-parallel";
pub const DECODE_WORKER_DATA_PARALLEL: &str = "kserve-config-llm-decode-worker-data-parallel";
pub const PREFILL_WORKER_DATA_PARALLEL: &str = "kserve-config-llm-prefill-worker-data-parallel";
pub const WORKER_PIPELINE_PARALLEL: &str = "kserve-config-llm-worker-pipeline-parallel";
pub const DECODE_WORKER_PIPELINE_PARALLEL: &str = "kserve-config-llm-decode-worker-pipeline-parallel";
pub const PREFILL_WORKER_PIPELINE_PARALLEL: &str = "kserve-config-llm-prefill-worker-pipeline-parallel";

/// Well-known presets that touch neither the pool nor the pods' labels and accounts: the
/// route, tracing, tokenizer and latency predictor ones.
const HARMLESS: [&str; 4] = [
    "kserve-config-llm-router-route",
    "kserve-config-llm-tracing",
    "kserve-config-llm-tokenizer",
    "kserve-config-llm-scheduler-latency-predictor",
];

/// What a shipped preset sets of what the build reads; `None` for a name KServe does not ship.
pub fn shipped(name: &str) -> Option<Value> {
    let template = |sidecar: bool| {
        let init: Vec<Value> = if sidecar { vec![json!({"name": ROUTING_SIDECAR})] } else { Vec::new() };
        json!({"containers": [{"name": "main"}], "initContainers": init})
    };
    let spec = match name {
        // config-llm-scheduler.yaml: the pool's selector and the scheduler's template.
        SCHEDULER => json!({"router": {"scheduler": {
            "pool": {"spec": {"selector": {"matchLabels": {
                "app.kubernetes.io/name": "{{ .ObjectMeta.Name }}",
                "app.kubernetes.io/part-of": "llminferenceservice",
                "kserve.io/component": "workload",
            }}, "targetPorts": [{"number": 8000}]}},
            "template": {"containers": [{"name": "main"}]},
        }}}),
        TEMPLATE => json!({"template": template(false)}),
        // config-llm-decode-template.yaml line 241: the decode template has the sidecar.
        DECODE_TEMPLATE => json!({"template": template(true)}),
        PREFILL_TEMPLATE => json!({"prefill": {"template": template(false)}}),
        WORKER_DATA_PARALLEL => json!({"template": template(false), "worker": template(false)}),
        // config-llm-decode-worker-data-parallel.yaml line 10.
        DECODE_WORKER_DATA_PARALLEL => json!({"template": template(true), "worker": template(false)}),
        PREFILL_WORKER_DATA_PARALLEL => {
            json!({"prefill": {"template": template(false), "worker": template(false)}})
        }
        _ if HARMLESS.contains(&name) => json!({}),
        _ => return None,
    };
    Some(spec)
}

/// The well-known presets KServe lays under a spec, in its order.
pub fn well_known(resolved: &Value) -> Vec<&'static str> {
    let at = |path: &[&str]| path.iter().try_fold(resolved, |v, k| v.get(k)).filter(|v| !v.is_null());
    let mut out = Vec::new();
    let scheduler = at(&["router", "scheduler"]);
    let has_ref = at(&["router", "scheduler", "pool", "ref", "name"])
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    if scheduler.is_some() && !has_ref {
        out.push(SCHEDULER);
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
    out
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
            if text("kind") != Some(super::vocabulary::CONFIG_KIND)
                || !api_version.starts_with(super::vocabulary::GROUP_SLASH)
            {
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
