//! `explain` on real manifests (from the corpus folder named by `RII_CORPUS`: GAIE's
//! conformance base, llm-d's prefill and decode Deployments) with a binding per variant:
//! before the pods carry the variant label no identity reaches them, and the findings say so
//! and what to add; with the label, each identity reaches its Deployment. Text and JSON.

use crate::common::*;
use serde_json::Value;
use std::process::Command;

/// Bindings for GAIE's primary pool and for llm-d's pool, one per variant.
const BINDINGS: &str = "\
apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata: {name: primary, namespace: inference-conformance-app-backend}
spec: {poolRef: {name: primary-inference-pool}, serviceAccountName: default, identityBoundary: {variant: prefill}}
---
apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata: {name: llama-prefill, namespace: llm-d}
spec: {poolRef: {name: llama}, serviceAccountName: default, identityBoundary: {variant: prefill}}
---
apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata: {name: llama-decode, namespace: llm-d}
spec: {poolRef: {name: llama}, serviceAccountName: default, identityBoundary: {variant: decode}}
";

/// An app folder of the corpus manifests; the llm-d ones in namespace llm-d (as `kubectl
/// apply -n` or kustomize's `namespace:` would put them), and, with `variants`, their pod
/// templates labelled with the variant each serves.
fn app(tmp: &TempDir, variants: bool) -> std::path::PathBuf {
    tmp.write("app/gaie.yaml", &corpus::file("gaie-conformance/base.yaml"));
    for name in ["inference-pools", "service-accounts"] {
        let text = corpus::file(&format!("llm-d-pd/inference-gateway_{name}.yaml"));
        tmp.write(&format!("app/llm-d/{name}.yaml"), &in_namespace(&text));
    }
    for (role, file) in
        [("prefill", "vllm-prefill_deployment.yaml"), ("decode", "vllm-decode_deployment.yaml")]
    {
        let mut text = in_namespace(&corpus::file(&format!("llm-d-pd/{file}")));
        if variants {
            let label = format!("        llm-d.ai/role: {role}\n");
            text = replace_once(
                &text,
                &label,
                &format!("{label}        identity.kleym.sonda.red/variant: {role}\n"),
            );
        }
        tmp.write(&format!("app/llm-d/{file}"), &text);
    }
    tmp.write("app/bindings.yaml", BINDINGS);
    tmp.join("app")
}

fn in_namespace(text: &str) -> String {
    text.replace("\nmetadata:\n", "\nmetadata:\n  namespace: llm-d\n")
}

fn explain(app: &std::path::Path, format: &str) -> std::process::Output {
    let mut cmd = Command::new(BIN);
    cmd.args(["explain", "--trust-domain", "example.org", "-o", format]).arg(app);
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    cmd.output().expect("the binary runs")
}

fn report(app: &std::path::Path) -> Value {
    let out = explain(app, "json");
    assert_success(&out);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON: {e}\n{}", describe(&out)))
}

fn binding<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .unwrap_or_else(|| panic!("{name}"))
}

fn findings<'a>(report: &'a Value, reason: &str) -> Vec<&'a Value> {
    report["findings"].as_array().unwrap().iter().filter(|f| f["reason"] == reason).collect()
}

fn about(finding: &Value) -> String {
    let r = &finding["refs"][0];
    format!(
        "{} {}/{}",
        r["kind"].as_str().unwrap(),
        r["namespace"].as_str().unwrap_or(""),
        r["name"].as_str().unwrap()
    )
}

#[test]
fn without_the_variant_label_no_identity_reaches_a_pod_and_the_findings_say_what_to_add() {
    let tmp = TempDir::new("explain-corpus-bare");
    let report = report(&app(&tmp, false));
    for name in ["primary", "llama-prefill", "llama-decode"] {
        let b = binding(&report, name);
        assert_eq!(b["ready"], true, "{b}");
        assert_eq!(b["workloads"], serde_json::json!([]), "{b}");
    }
    let unmatched: Vec<String> = findings(&report, "NoMatchingWorkload").into_iter().map(about).collect();
    assert_eq!(unmatched.len(), 3, "{unmatched:?}");
    let without: Vec<String> = findings(&report, "WorkloadWithoutVariant").into_iter().map(about).collect();
    for deployment in [
        "Deployment llm-d/vllm-p",
        "Deployment llm-d/vllm-d",
        "Deployment inference-conformance-app-backend/primary-inference-model-server-deployment",
    ] {
        assert!(without.contains(&deployment.to_string()), "{deployment} in {without:?}");
    }
    let message = findings(&report, "WorkloadWithoutVariant")[0]["message"].as_str().unwrap();
    assert!(message.contains("add identity.kleym.sonda.red/variant"), "{message}");
}

#[test]
fn with_the_variant_label_each_identity_reaches_its_deployment() {
    let tmp = TempDir::new("explain-corpus-labelled");
    let app = app(&tmp, true);
    let report = report(&app);
    for (name, deployment) in [("llama-prefill", "vllm-p"), ("llama-decode", "vllm-d")] {
        let workloads = &binding(&report, name)["workloads"];
        assert_eq!(
            workloads,
            &serde_json::json!([{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "llm-d", "name": deployment, "path": "spec.template"}]),
            "{name}"
        );
    }
    let without: Vec<String> = findings(&report, "WorkloadWithoutVariant").into_iter().map(about).collect();
    assert!(!without.iter().any(|w| w.contains("llm-d/")), "{without:?}");
    // The GAIE pods were not labelled: that identity still reaches none.
    assert_eq!(
        findings(&report, "NoMatchingWorkload").into_iter().map(about).collect::<Vec<_>>(),
        ["InferenceIdentityBinding inference-conformance-app-backend/primary"]
    );

    let text = explain(&app, "text");
    assert_success(&text);
    let text = stdout(&text);
    assert!(text.contains("llm-d/llama-prefill  Ready\n"), "{text}");
    assert!(text.contains("  reaches          Deployment llm-d/vllm-p  spec.template\n"), "{text}");
    assert!(text.contains("\n  NoMatchingWorkload\n"), "{text}");
}

/// The SPIRE Helm chart's default identity, here as the cluster's fallback.
const CHART_DEFAULT: &str = "\
apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterSPIFFEID
metadata: {name: spire-default}
spec:
  spiffeIDTemplate: \"spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}\"
  podSelector: {}
  fallback: true
";

fn workload<'a>(report: &'a Value, namespace: &str, name: &str) -> &'a Value {
    report["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["namespace"] == namespace && w["name"] == name)
        .unwrap_or_else(|| panic!("{namespace}/{name} in {}", report["workloads"]))
}

/// What SPIRE will do (docs/reference.md#what-spire-will-do) on the real manifests, with the
/// chart's default identity as a fallback: under the operator's `Pool` scope prefill and
/// decode each get an entry for the other's pods that never attests, and GAIE's unlabelled
/// model server loses the fallback; `selectorScope: Binding` leaves neither.
#[test]
fn the_simulated_manager_on_real_manifests_under_both_scopes() {
    let tmp = TempDir::new("explain-corpus-spire");
    let app = app(&tmp, true);
    tmp.write("app/spire.yaml", CHART_DEFAULT);
    let report = report(&app);
    let prefill = workload(&report, "llm-d", "vllm-p");
    assert_eq!(
        prefill["svids"],
        serde_json::json!(["spiffe://example.org/ns/llm-d/sa/default/inference/pool/llama/variant/prefill"])
    );
    assert_eq!(prefill["fallbacksSkipped"], serde_json::json!(["spire-default"]));
    assert_eq!(prefill["entriesWithoutIdentity"].as_array().unwrap().len(), 1, "{prefill}");
    // Prefill and decode select each other's pods; GAIE's identity, which reaches no pod, says
    // so of its unlabelled server in its NoMatchingWorkload.
    assert_eq!(findings(&report, "EntriesWithoutIdentity").len(), 2, "{}", report["findings"]);
    let gaie = "primary-inference-model-server-deployment";
    let server = workload(&report, "inference-conformance-app-backend", gaie);
    assert_eq!(server["svids"], serde_json::json!([]), "{server}");
    let shadowed: Vec<String> = findings(&report, "FallbackShadowed").into_iter().map(about).collect();
    assert_eq!(shadowed, [format!("Deployment inference-conformance-app-backend/{gaie}")]);

    let mut cmd = Command::new(BIN);
    cmd.args(["explain", "--trust-domain", "example.org", "--selector-scope", "Binding", "-o", "json"])
        .arg(&app);
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("the binary runs");
    assert_success(&out);
    let scoped: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(findings(&scoped, "FallbackShadowed").is_empty(), "{}", scoped["findings"]);
    assert!(findings(&scoped, "EntriesWithoutIdentity").is_empty(), "{}", scoped["findings"]);
    let server = workload(&scoped, "inference-conformance-app-backend", gaie);
    assert_eq!(
        server["svids"],
        serde_json::json!(["spiffe://example.org/ns/inference-conformance-app-backend/sa/default"]),
        "the fallback gives it its identity again"
    );
    assert_eq!(workload(&scoped, "llm-d", "vllm-p")["entriesWithoutIdentity"], serde_json::json!([]));
}
