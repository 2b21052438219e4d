//! The rules of docs/reference.md, one file per family, held on the reconcile itself: each
//! test builds items as values and calls `reconcile::reconcile` directly (no process, no
//! file, no YAML text), and asserts what the rule says of the items, statuses, failures,
//! findings and counts it returns. The golden cases under `testdata/` show the rules as each
//! mode writes them; these hold, as data, the rules a reader of each family looks for that
//! no case already shows.
//!
//! Families: [`identity`] (rendering one binding, the order of checks), [`conflicts`],
//! [`status`], [`ownership`] (ownership, pruning, stale outputs, new outputs' files),
//! [`served`] (served APIs), [`coverage`] (workload coverage and its findings), [`results`]
//! (what a run reports and how much each weighs). This file holds the items they build.

mod conflicts;
mod coverage;
mod identity;
mod ownership;
mod results;
mod served;
mod status;

use render_inference_identity::api::cluster_spiffe_id::ClusterSpiffeId;
use render_inference_identity::config::Config;
use render_inference_identity::reconcile::input::Input;
use render_inference_identity::reconcile::item::Item;
use render_inference_identity::reconcile::reason::Reason;
use render_inference_identity::reconcile::{self, BindingFailure, Context, InputError, Outcome};
use serde_json::{Map, Value, json};

/// The namespace the items are in unless a test moves them ([`in_namespace`]).
pub const NS: &str = "serving";
pub const TRUST_DOMAIN: &str = "example.org";
/// The `lastTransitionTime` of conditions that change.
pub const NOW: &str = "2026-01-01T00:00:00Z";
pub const VARIANT_LABEL: &str = "identity.kleym.sonda.red/variant";

/// The defaults, with a trust domain.
pub fn config() -> Config {
    Config { trust_domain: Some(TRUST_DOMAIN.into()), ..Config::default() }
}

/// A binding in [`NS`].
pub fn binding(name: &str, pool: &str, service_account: &str, variant: &str) -> Value {
    json!({
        "apiVersion": "kleym.sonda.red/v1alpha1",
        "kind": "InferenceIdentityBinding",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "poolRef": {"name": pool},
            "serviceAccountName": service_account,
            "identityBoundary": {"variant": variant},
        },
    })
}

/// A GA `InferencePool` in [`NS`] selecting `labels`.
pub fn pool(name: &str, labels: &[(&str, &str)]) -> Value {
    json!({
        "apiVersion": "inference.networking.k8s.io/v1",
        "kind": "InferencePool",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"selector": {"matchLabels": labels_of(labels)}, "targetPorts": [{"number": 8000}]},
    })
}

/// A Deployment in [`NS`] whose pods carry `labels` and run as `service_account` (the
/// default one when `None`).
pub fn deployment(name: &str, labels: &[(&str, &str)], service_account: Option<&str>) -> Value {
    let mut pod = json!({"containers": [{"name": "server", "image": "vllm"}]});
    if let Some(account) = service_account {
        pod["serviceAccountName"] = json!(account);
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"template": {"metadata": {"labels": labels_of(labels)}, "spec": pod}},
    })
}

/// `item` moved to namespace `ns`, or out of any when `None`.
pub fn in_namespace(mut item: Value, ns: Option<&str>) -> Value {
    let metadata = item["metadata"].as_object_mut().expect("items have metadata");
    match ns {
        Some(ns) => metadata.insert("namespace".into(), json!(ns)),
        None => metadata.remove("namespace"),
    };
    item
}

fn labels_of(labels: &[(&str, &str)]) -> Value {
    Value::Object(labels.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<Map<_, _>>())
}

/// The reconcile of `items` under [`config`]; the input must be usable.
pub fn run(items: &[Value]) -> Outcome {
    run_with(items, &config()).expect("usable input")
}

/// The reconcile of `items` under `config`.
pub fn run_with(items: &[Value], config: &Config) -> Result<Outcome, InputError> {
    run_in_env(items, config, &[])
}

/// The reconcile of `items` under `config`, with served APIs the environment lists.
pub fn run_in_env(
    items: &[Value],
    config: &Config,
    env_api_versions: &[&str],
) -> Result<Outcome, InputError> {
    let env_api_versions = env_api_versions.iter().map(|s| s.to_string()).collect();
    let ctx = Context::new(config, env_api_versions, NOW.parse().expect("a time"));
    reconcile::reconcile(items.iter().cloned().map(Input::of).collect(), &ctx)
}

/// The status the reconcile wrote on the binding named `name`, as a value.
pub fn status(outcome: &Outcome, name: &str) -> Value {
    let status = outcome.items.iter().find_map(|item| match item {
        Item::Binding(_, value, status) if value["metadata"]["name"] == name => Some(status),
        _ => None,
    });
    serde_json::to_value(status.unwrap_or_else(|| panic!("no binding {name} in the output"))).unwrap()
}

/// The reason of the binding's `Ready` condition: `Reconciled`, or its failure's.
pub fn ready_reason(outcome: &Outcome, name: &str) -> String {
    let status = status(outcome, name);
    let ready = status["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "Ready").unwrap();
    ready["reason"].as_str().unwrap().to_string()
}

/// The failure of the binding named `name`.
pub fn failure<'o>(outcome: &'o Outcome, name: &str) -> &'o BindingFailure {
    let found = outcome.failures.iter().find(|f| f.name == name);
    found.unwrap_or_else(|| panic!("binding {name} does not fail: {:?}", outcome.failures))
}

/// The reason the binding named `name` fails with.
pub fn reason(outcome: &Outcome, name: &str) -> Reason {
    failure(outcome, name).failure.reason
}

/// The ClusterSPIFFEIDs this run rendered, in output order, with the file slot of each new one.
pub fn rendered(outcome: &Outcome) -> Vec<(&ClusterSpiffeId, Option<&(String, u64)>)> {
    let objects = outcome.items.iter().filter_map(|item| match item {
        Item::Rendered(object, slot) => Some((object.as_ref(), slot.as_ref())),
        _ => None,
    });
    objects.collect()
}

/// The items of the output as values, in order; `None` for an item passed on as it came.
pub fn values(outcome: &Outcome) -> Vec<Option<Value>> {
    outcome.items.iter().map(|item| serde_json::to_value(item).ok()).collect()
}
