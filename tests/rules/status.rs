//! The status the reconcile writes (docs/reference.md#status): the five conditions, the
//! fields a ready binding carries and a failing one does not, and what is kept.

use super::*;
use render_inference_identity::config::Config;

fn conditions(status: &Value) -> Vec<(String, String, String)> {
    let text = |c: &Value, key: &str| c[key].as_str().unwrap_or_default().to_string();
    let all = status["conditions"].as_array().expect("conditions");
    all.iter().map(|c| (text(c, "type"), text(c, "status"), text(c, "reason"))).collect()
}

fn condition(kind: &str, status: &str, reason: &str) -> (String, String, String) {
    (kind.to_string(), status.to_string(), reason.to_string())
}

#[test]
fn every_binding_carries_five_conditions_in_order_one_of_them_its_failure() {
    let out = run(&[
        pool("llama", &[("app", "llama")]),
        binding("ready", "llama", "vllm", "prefill"),
        binding("lost", "mixtral", "vllm", "decode"),
    ]);
    let resolved = |kind| condition(kind, "False", "Resolved");
    assert_eq!(
        conditions(&status(&out, "ready")),
        [
            condition("Ready", "True", "Reconciled"),
            resolved("InvalidRef"),
            resolved("UnsafeSelector"),
            resolved("Conflict"),
            resolved("RenderFailure"),
        ]
    );
    let lost = status(&out, "lost");
    assert_eq!(
        conditions(&lost),
        [
            condition("Ready", "False", "TargetPoolNotFound"),
            condition("InvalidRef", "True", "TargetPoolNotFound"),
            resolved("UnsafeSelector"),
            resolved("Conflict"),
            resolved("RenderFailure"),
        ]
    );
    // Ready repeats the failing condition's message, which is the failure's.
    let message = |i: usize| lost["conditions"][i]["message"].clone();
    assert_eq!(message(0), message(1));
    assert_eq!(message(0), json!(failure(&out, "lost").failure.message));
}

#[test]
fn a_ready_binding_records_its_identity_and_a_failing_one_only_the_trust_domain_and_class() {
    let config = Config { class_name: Some("spire-system-spire".into()), ..config() };
    let items = [
        pool("llama", &[("app", "llama")]),
        binding("ready", "llama", "vllm", "prefill"),
        binding("lost", "mixtral", "vllm", "decode"),
    ];
    let out = run_with(&items, &config).unwrap();
    let [(object, _)] = rendered(&out)[..] else { panic!("one output") };
    let ready = status(&out, "ready");
    let id = &object.spec.spiffe_id_template;
    assert_eq!(ready["computedSpiffeIDs"], json!([{"spiffeID": id}]));
    assert_eq!(
        ready["renderedSelectors"],
        json!([{"spiffeID": id, "selectors": object.spec.workload_selector_templates}])
    );
    let record = &ready["renderedClusterSPIFFEID"];
    assert_eq!((&record["name"], &record["spiffeID"]), (&json!(object.metadata.name), &json!(id)));
    assert!(record["selectorFingerprint"].as_str().unwrap().starts_with("sha256:"), "{record}");

    let lost = status(&out, "lost");
    assert_eq!(lost["trustDomain"], TRUST_DOMAIN);
    assert_eq!(lost["clusterSPIFFEIDClassName"], "spire-system-spire");
    for field in ["computedSpiffeIDs", "renderedSelectors", "renderedClusterSPIFFEID", "conflicts"] {
        assert!(lost.get(field).is_none(), "{field} on a failing binding: {lost}");
    }
}

/// The status is written whole: what the input's status held is gone, but for the
/// operator's ownership records.
#[test]
fn the_status_replaces_everything_but_the_operators_records() {
    let mut ready = binding("ready", "llama", "vllm", "prefill");
    let owned = json!({"name": "kleym-serving-ready-pool-00000000", "uid": "1234"});
    ready["status"] = json!({
        "conflicts": [{"bindingName": "gone", "cause": "VariantReuse", "spiffeID": "spiffe://x/y", "variant": "prefill"}],
        "computedSpiffeIDs": [{"spiffeID": "spiffe://example.org/old"}],
        "ownedClusterSPIFFEID": owned,
        "somethingElse": true,
    });
    let out = run(&[pool("llama", &[("app", "llama")]), ready]);
    let status = status(&out, "ready");
    assert_eq!(status["ownedClusterSPIFFEID"], owned);
    assert!(status.get("conflicts").is_none() && status.get("somethingElse").is_none(), "{status}");
    assert_ne!(status["computedSpiffeIDs"], json!([{"spiffeID": "spiffe://example.org/old"}]));
}
