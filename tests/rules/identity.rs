//! Rendering one binding and the order of checks (docs/reference.md#rendering-one-binding,
//! #order-of-checks): what the identity is made of, and which check a binding that fails
//! several reports.

use super::*;
use render_inference_identity::config::Config;

#[test]
fn selectors_are_the_namespace_account_pool_labels_and_variant_sorted_by_bytes() {
    let out = run(&[
        pool("llama", &[("app", "llama"), ("Zone", "a")]),
        binding("llama-prefill", "llama", "vllm", "prefill"),
    ]);
    let [(object, _)] = rendered(&out)[..] else { panic!("one output: {:?}", out.failures) };
    // Bytes, not letters: `Z` sorts before `a`, and `k8s:pod-label` before `k8s:sa`.
    assert_eq!(
        object.spec.workload_selector_templates,
        [
            "k8s:ns:serving",
            "k8s:pod-label:Zone:a",
            "k8s:pod-label:app:llama",
            "k8s:pod-label:identity.kleym.sonda.red/variant:prefill",
            "k8s:sa:vllm",
        ]
    );
    assert_eq!(
        object.spec.spiffe_id_template,
        "spiffe://example.org/ns/serving/sa/vllm/inference/pool/llama/variant/prefill"
    );
}

#[test]
fn a_pool_that_selects_the_bindings_own_variant_gives_one_variant_selector() {
    let out = run(&[
        pool("llama", &[("app", "llama"), (VARIANT_LABEL, "prefill")]),
        binding("llama-prefill", "llama", "vllm", "prefill"),
    ]);
    let [(object, _)] = rendered(&out)[..] else { panic!("one output: {:?}", out.failures) };
    let variant = format!("k8s:pod-label:{VARIANT_LABEL}:prefill");
    let selectors = &object.spec.workload_selector_templates;
    assert_eq!(selectors.iter().filter(|s| **s == variant).count(), 1, "{selectors:?}");
}

#[test]
fn the_namespace_is_checked_before_anything_else() {
    let mut broken = in_namespace(binding("llama-prefill", "llama", "vllm", "prefill"), None);
    broken["spec"] = json!({});
    let out = run(&[broken]);
    let failure = &out.failures[0].failure;
    assert_eq!((failure.reason, failure.field), (Reason::UnsafeSelector, Some("metadata.namespace")));
}

#[test]
fn a_padded_pool_group_is_an_invalid_pool_ref() {
    let mut padded = binding("llama-prefill", "llama", "vllm", "prefill");
    padded["spec"]["poolRef"]["group"] = json!(" inference.networking.k8s.io");
    let mut unset = binding("llama-decode", "llama", "vllm", "decode");
    unset["spec"]["poolRef"]["group"] = json!("");
    let out = run(&[pool("llama", &[("app", "llama")]), padded, unset]);
    let failure = &failure(&out, "llama-prefill").failure;
    assert_eq!((failure.reason, failure.field), (Reason::InvalidPoolRef, Some("spec.poolRef.group")));
    // `""` is no group: the binding resolves as without one.
    assert_eq!(ready_reason(&out, "llama-decode"), "Reconciled");
}

/// Only the ClusterSPIFFEID API is missing: a conflict (check 8) still says what it is.
#[test]
fn a_conflict_is_reported_before_the_missing_cluster_spiffe_id_api() {
    let config = Config { api_versions: vec!["inference.networking.k8s.io/v1".into()], ..config() };
    let items = [
        pool("llama", &[("app", "llama")]),
        pool("mixtral", &[("app", "mixtral")]),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        binding("mixtral-prefill", "mixtral", "vllm", "prefill"),
        binding("llama-decode", "llama", "vllm", "decode"),
    ];
    let out = run_with(&items, &config).unwrap();
    assert_eq!(reason(&out, "llama-prefill"), Reason::VariantConflict);
    assert_eq!(reason(&out, "mixtral-prefill"), Reason::VariantConflict);
    assert_eq!(reason(&out, "llama-decode"), Reason::ClusterSPIFFEIDCRDMissing);
}

/// A name that is no label value fails check 10, after the API check 9.
#[test]
fn the_missing_cluster_spiffe_id_api_is_reported_before_an_unwritable_output() {
    let long = "l".repeat(64);
    let items = [pool("llama", &[("app", "llama")]), binding(&long, "llama", "vllm", "prefill")];
    assert_eq!(reason(&run(&items), &long), Reason::ManagedOutputApplyFailed);
    let config = Config { api_versions: vec!["inference.networking.k8s.io/v1".into()], ..config() };
    assert_eq!(reason(&run_with(&items, &config).unwrap(), &long), Reason::ClusterSPIFFEIDCRDMissing);
}
