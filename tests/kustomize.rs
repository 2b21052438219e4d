//! `kubectl kustomize --enable-alpha-plugins` (embedded kustomize v5) running the binary as
//! an exec plugin, installed under `$XDG_CONFIG_HOME/kustomize/plugin/...`, with copies of
//! the shipped fn-config/kustomize/exec-plugin/ files.

mod common;

use common::*;
use serde_json::Value;
use std::process::{Command, Output};

const PLUGIN_DIR: &str = "xdg/kustomize/plugin/fn.kleym.sonda.red/v1alpha1/renderinferenceidentity";
const SHIPPED: [&str; 3] = ["kustomization.yaml", "inference.yaml", "RenderInferenceIdentity.yaml"];

/// A temp folder with the plugin installed under `xdg/` and the shipped example in `app/`.
fn setup(label: &str) -> TempDir {
    let tmp = TempDir::new(label);
    let plugin_dir = tmp.join(PLUGIN_DIR);
    std::fs::create_dir_all(&plugin_dir).unwrap();
    std::os::unix::fs::symlink(BIN, plugin_dir.join("RenderInferenceIdentity")).unwrap();
    for file in SHIPPED {
        tmp.write(&format!("app/{file}"), &repo_file(&format!("fn-config/kustomize/exec-plugin/{file}")));
    }
    tmp
}

fn build(tmp: &TempDir) -> Output {
    let mut cmd = Command::new(require_tool("kubectl"));
    cmd.args(["kustomize", "--enable-alpha-plugins"])
        .arg(tmp.join("app"))
        .env("XDG_CONFIG_HOME", tmp.join("xdg"));
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    cmd.output().expect("kubectl starts")
}

fn append(tmp: &TempDir, file: &str, text: &str) {
    let path = tmp.join(file);
    let old = read(&path);
    write(&path, &format!("{old}{text}"));
}

fn labels(item: &Value) -> &Value {
    &item["metadata"]["labels"]
}

#[test]
fn the_exec_plugin_adds_the_cluster_spiffe_id_and_the_binding_status() {
    let tmp = setup("kustomize-render");
    let out = build(&tmp);
    assert_success(&out);
    let text = stdout(&out);
    let docs = documents(&text);
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap_or_default()).collect();
    assert_eq!(kinds, ["InferencePool", "InferenceIdentityBinding", "ClusterSPIFFEID"], "{text}");

    let id = of_kind(&docs, "ClusterSPIFFEID")[0];
    assert_eq!(id["metadata"]["name"], LLAMA_PREFILL_OUTPUT, "{text}");
    assert_eq!(
        id["spec"]["spiffeIDTemplate"],
        "spiffe://example.org/ns/serving/sa/llama/inference/pool/llama/variant/prefill",
        "{text}"
    );
    let binding = of_kind(&docs, "InferenceIdentityBinding")[0];
    assert_eq!(condition_reason(binding, "Ready"), Some("Reconciled"), "{text}");
    assert_eq!(binding["status"]["renderedClusterSPIFFEID"]["name"], LLAMA_PREFILL_OUTPUT, "{text}");

    // kustomize's and kpt's bookkeeping annotations stay out of the output.
    for leak in ["kustomize.config.k8s.io/", "config.kubernetes.io/path", "config.kubernetes.io/index"] {
        assert!(!text.contains(leak), "{leak} leaked into the output:\n{text}");
    }
}

#[test]
fn other_kustomize_features_still_apply_to_passed_through_items() {
    let tmp = setup("kustomize-features");
    tmp.write(
        "app/workload.yaml",
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: llama\n  namespace: serving\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: llama\n  namespace: serving\n\
         spec:\n  selector:\n    matchLabels:\n      app: llama\n  template:\n    metadata:\n      \
         labels:\n        app: llama\n    spec:\n      serviceAccountName: llama\n      containers:\n      \
         - name: server\n        image: vllm/vllm-openai\n",
    );
    let kustomization = replace_once(
        &read(&tmp.join("app/kustomization.yaml")),
        "- inference.yaml\n",
        "- inference.yaml\n- workload.yaml\n",
    );
    tmp.write(
        "app/kustomization.yaml",
        &format!(
            "{kustomization}labels:\n- pairs:\n    team: serving\n\
             images:\n- name: vllm/vllm-openai\n  newTag: v0.6.0\n\
             configMapGenerator:\n- name: llama-settings\n  namespace: serving\n  literals:\n  - MAX_TOKENS=4096\n"
        ),
    );

    let out = build(&tmp);
    assert_success(&out);
    let text = stdout(&out);
    let docs = documents(&text);
    for kind in ["InferencePool", "InferenceIdentityBinding", "ServiceAccount", "Deployment", "ConfigMap"] {
        let items = of_kind(&docs, kind);
        assert_eq!(items.len(), 1, "{kind} in:\n{text}");
        assert_eq!(labels(items[0])["team"], "serving", "{kind} lost the kustomize label:\n{text}");
    }
    let deployment = of_kind(&docs, "Deployment")[0];
    assert_eq!(deployment["spec"]["template"]["spec"]["containers"][0]["image"], "vllm/vllm-openai:v0.6.0");
    let config_map = of_kind(&docs, "ConfigMap")[0];
    let name = config_map["metadata"]["name"].as_str().unwrap_or_default();
    assert!(name.starts_with("llama-settings-") && name.len() > "llama-settings-".len(), "{text}");
    assert_eq!(config_map["data"]["MAX_TOKENS"], "4096", "{text}");

    // The identity is still rendered, with the labels the operator sets (the plugin runs
    // after the built-in transformers, so `team` is not among them).
    let id = of_kind(&docs, "ClusterSPIFFEID");
    assert_eq!(id.len(), 1, "{text}");
    assert_eq!(labels(id[0])["kleym.sonda.red/binding-name"], "llama-prefill", "{text}");
    let binding = of_kind(&docs, "InferenceIdentityBinding")[0];
    assert_eq!(condition_reason(binding, "Ready"), Some("Reconciled"), "{text}");
    assert!(!text.contains("kustomize.config.k8s.io/"), "{text}");
}

#[test]
fn a_failing_binding_under_fail_makes_kubectl_exit_non_zero_with_the_message() {
    // The shipped plugin config sets failurePolicy: Fail.
    let tmp = setup("kustomize-fail");
    assert!(read(&tmp.join("app/RenderInferenceIdentity.yaml")).contains("failurePolicy: Fail"));
    append(&tmp, "app/inference.yaml", &format!("---\n{ORPHAN}"));
    let out = build(&tmp);
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    let err = stderr(&out);
    assert!(err.contains("serving/orphan: InvalidRef/TargetPoolNotFound"), "{err}");
    assert!(err.contains("InferencePool \"missing-pool\" was not found in namespace serving"), "{err}");
    assert!(stdout(&out).is_empty(), "{}", describe(&out));

    // Under Report the same input builds, and the binding carries the failure.
    let config = replace_once(
        &read(&tmp.join("app/RenderInferenceIdentity.yaml")),
        "failurePolicy: Fail",
        "failurePolicy: Report",
    );
    tmp.write("app/RenderInferenceIdentity.yaml", &config);
    let out = build(&tmp);
    assert_success(&out);
    let docs = documents(&stdout(&out));
    let orphan = docs.iter().find(|d| d["metadata"]["name"] == "orphan").expect("the orphan binding");
    assert_eq!(condition_reason(orphan, "InvalidRef"), Some("TargetPoolNotFound"), "{orphan}");
    assert_eq!(of_kind(&docs, "ClusterSPIFFEID").len(), 1, "only llama-prefill renders");
}
