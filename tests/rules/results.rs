//! What a run reports (docs/reference.md#results-and-exit-codes): how much each failure and
//! finding weighs, what makes the run exit 1, the counts, unusable input, and that the
//! reconcile's sentences carry nothing of one mode.

use super::*;
use render_inference_identity::config::{Config, FailurePolicy, WorkloadPolicy};
use render_inference_identity::reconcile::Severity;
use render_inference_identity::reconcile::findings::Kind;

fn failing() -> [Value; 2] {
    [pool("llama", &[("app", "llama")]), binding("lost", "mixtral", "vllm", "prefill")]
}

#[test]
fn a_failing_binding_is_a_warning_under_report_and_an_error_under_fail() {
    let reported = run(&failing());
    assert_eq!(failure(&reported, "lost").severity, Severity::Warning);
    assert!(!reported.has_errors());
    let failed = run_with(&failing(), &Config { failure_policy: FailurePolicy::Fail, ..config() }).unwrap();
    assert_eq!(failure(&failed, "lost").severity, Severity::Error);
    assert!(failed.has_errors());
}

#[test]
fn a_missing_trust_domain_fails_the_run_whatever_the_failure_policy() {
    let items = [pool("llama", &[("app", "llama")]), binding("llama-prefill", "llama", "vllm", "prefill")];
    let out = run_with(&items, &Config::default()).unwrap();
    assert!(out.trust_domain_missing && out.has_errors());
    assert_eq!(reason(&out, "llama-prefill"), Reason::MissingTrustDomain);
    assert_eq!(failure(&out, "llama-prefill").severity, Severity::Warning);
}

#[test]
fn under_workload_policy_fail_warnings_are_errors_and_stale_outputs_stay_warnings() {
    let fail = Config { workload_policy: WorkloadPolicy::Fail, prune: true, ..config() };
    let mut orphan = json!({
        "apiVersion": "spire.spiffe.io/v1alpha1",
        "kind": "ClusterSPIFFEID",
        "metadata": {
            "name": "kleym-serving-gone-pool-00000000",
            "labels": {
                "kleym.sonda.red/managed-by": "kleym",
                "kleym.sonda.red/binding-name": "gone",
                "kleym.sonda.red/binding-namespace": NS,
            },
            "annotations": {"kleym.sonda.red/rendered-by": "render-inference-identity"},
        },
    });
    orphan["spec"] = json!({"spiffeIDTemplate": "spiffe://example.org/ns/serving/sa/vllm/inference/pool/gone/variant/prefill"});
    let items = [
        orphan,
        pool("llama", &[("app", "llama")]),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        deployment("llama", &[("app", "llama")], Some("vllm")),
    ];
    let out = run_with(&items, &fail).unwrap();
    let severity = |kind| out.severity(out.findings.iter().find(|f| f.kind == kind).expect("found"));
    assert_eq!(severity(Kind::WorkloadWithoutVariant), Severity::Error);
    assert_eq!(severity(Kind::StaleOutput), Severity::Warning);
    assert!(out.has_errors());
}

#[test]
fn the_counts_say_what_the_run_did() {
    let out = run(&[
        pool("llama", &[("app", "llama")]),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        binding("llama-decode", "llama", "vllm", "decode"),
        binding("lost", "mixtral", "vllm", "prefill"),
    ]);
    assert_eq!((out.counts.bindings, out.counts.rendered(), out.counts.failed), (3, 2, 1));
    assert_eq!(out.counts.outputs.added, 2);
}

/// Unusable input is the item at fault and, for an item that appears twice, where it first
/// appeared: each mode names both places as it knows them.
#[test]
fn unusable_input_names_the_item_and_where_it_first_appeared() {
    let twice = |item: Value| {
        let items = [pool("other", &[("app", "other")]), item.clone(), item];
        run_with(&items, &config()).expect_err("unusable")
    };
    for (what, item) in [
        ("a binding", binding("llama-prefill", "llama", "vllm", "prefill")),
        ("a pool", pool("llama", &[("app", "llama")])),
    ] {
        let e = twice(item);
        assert_eq!((e.item, e.first), (2, Some(1)), "{what}: {e:?}");
        assert!(e.message.contains("appears twice"), "{what}: {}", e.message);
    }
    let mut nameless = binding("x", "llama", "vllm", "prefill");
    nameless["metadata"].as_object_mut().unwrap().remove("name");
    let e = run_with(&[pool("llama", &[("app", "llama")]), nameless], &config()).expect_err("unusable");
    assert_eq!((e.item, e.first), (1, None));
}

/// Condition and finding messages are the reconcile's, the same in every mode: no flag, no
/// functionConfig path, no Argo CD variable; each mode says how to set things there.
#[test]
fn no_message_of_the_reconcile_names_how_one_mode_is_set() {
    let mut items = vec![
        pool("llama", &[("app", "llama")]),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        binding("lost", "mixtral", "vllm", "decode"),
        binding("bad-account", "llama", "Not_An_Account", "decode"),
        deployment("llama", &[("app", "llama")], Some("router")),
    ];
    items.push(binding("llama-twin", "llama", "vllm", "prefill"));
    let outcomes = [run_with(&items, &config()).unwrap(), run_with(&items, &Config::default()).unwrap()];
    for out in &outcomes {
        let messages =
            out.failures.iter().map(|f| &f.failure.message).chain(out.findings.iter().map(|f| &f.message));
        for message in messages {
            for mode_word in ["--", "ARGOCD_ENV", "functionConfig", "spec.trustDomain", "data.trustDomain"] {
                assert!(!message.contains(mode_word), "{mode_word:?} in {message:?}");
            }
        }
    }
}
