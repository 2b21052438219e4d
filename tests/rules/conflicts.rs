//! Conflicts between bindings (docs/reference.md#conflicts): who conflicts, with which
//! reason, and what each binding's `status.conflicts` says of its peers.

use super::*;

#[test]
fn bindings_apart_by_namespace_service_account_or_variant_never_conflict() {
    let out = run(&[
        pool("llama", &[("app", "llama")]),
        in_namespace(pool("llama", &[("app", "llama")]), Some("staging")),
        binding("base", "llama", "vllm", "prefill"),
        binding("other-variant", "llama", "vllm", "decode"),
        binding("other-account", "llama", "router", "prefill"),
        in_namespace(binding("other-namespace", "llama", "vllm", "prefill"), Some("staging")),
    ]);
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(rendered(&out).len(), 4);
}

#[test]
fn each_binding_in_conflict_lists_every_peer_with_the_peers_values_sorted() {
    let out = run(&[
        pool("a", &[("app", "a")]),
        pool("b", &[("app", "b")]),
        pool("c", &[("app", "c")]),
        binding("on-c", "c", "vllm", "prefill"),
        binding("on-a", "a", "vllm", "prefill"),
        binding("on-b", "b", "vllm", "prefill"),
    ]);
    assert!(rendered(&out).is_empty(), "a binding in conflict renders nothing");
    let id =
        |pool: &str| format!("spiffe://example.org/ns/serving/sa/vllm/inference/pool/{pool}/variant/prefill");
    let entry = |peer: &str, pool: &str| json!({"bindingName": peer, "cause": "VariantReuse", "spiffeID": id(pool), "variant": "prefill"});
    assert_eq!(status(&out, "on-a")["conflicts"], json!([entry("on-b", "b"), entry("on-c", "c")]));
    assert_eq!(status(&out, "on-c")["conflicts"], json!([entry("on-a", "a"), entry("on-b", "b")]));
    assert_eq!(reason(&out, "on-b"), Reason::VariantConflict);
}

/// A binding whose peers include one with its SPIFFE ID is `DuplicateSPIFFEID`, even when
/// others only reuse its variant; those others are `VariantConflict`.
#[test]
fn duplicate_spiffe_id_is_the_reason_when_any_peer_renders_the_same_id() {
    let out = run(&[
        pool("llama", &[("app", "llama")]),
        pool("mixtral", &[("app", "mixtral")]),
        binding("llama-1", "llama", "vllm", "prefill"),
        binding("llama-2", "llama", "vllm", "prefill"),
        binding("mixtral", "mixtral", "vllm", "prefill"),
    ]);
    assert_eq!(reason(&out, "llama-1"), Reason::DuplicateSPIFFEID);
    assert_eq!(reason(&out, "llama-2"), Reason::DuplicateSPIFFEID);
    assert_eq!(reason(&out, "mixtral"), Reason::VariantConflict);
    let causes: Vec<Value> =
        status(&out, "llama-1")["conflicts"].as_array().unwrap().iter().map(|e| e["cause"].clone()).collect();
    assert_eq!(causes, [json!("DuplicateSPIFFEID"), json!("VariantReuse")]);
}
