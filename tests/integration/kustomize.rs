//! `kubectl kustomize --enable-alpha-plugins` (embedded kustomize v5, with kubectl v1.32
//! (kustomize v5.5.0) and v1.35 (kustomize v5.7.1) in turn) running the binary as
//! an exec plugin, installed under `$XDG_CONFIG_HOME/kustomize/plugin/...`, with copies of
//! the shipped fn-config/kustomize/exec-plugin/ files; overlays that rename; and the
//! krm-exec sample, which kubectl cannot run.

use crate::common::*;
use serde_json::Value;
use std::process::{Command, Output};

const PLUGIN_DIR: &str = "xdg/kustomize/plugin/fn.kleym.sonda.red/v1alpha1/renderinferenceidentity";
const SHIPPED: [&str; 4] =
    ["kustomization.yaml", "inference.yaml", "RenderInferenceIdentity.yaml", "name-references.yaml"];

thread_local! {
    /// The kubectl the test of this thread runs (set by `with_each_kubectl!`).
    static KUBECTL: std::cell::Cell<&'static str> = const { std::cell::Cell::new("kubectl") };
}

/// The kubectl builds the tests run with: the machine's (v1.32, kustomize v5.5.0) and
/// v1.35 (kustomize v5.7.1), as tests/tools.txt names them.
macro_rules! with_each_kubectl {
    ($($test:ident),* $(,)?) => {
        mod kubectl_1_32 {
            $(#[test] fn $test() { super::KUBECTL.set("kubectl"); super::$test() })*
        }
        mod kubectl_1_35 {
            $(#[test] fn $test() { super::KUBECTL.set("kubectl-1.35"); super::$test() })*
        }
    };
}

with_each_kubectl!(
    the_exec_plugin_adds_the_cluster_spiffe_id_and_the_binding_status,
    other_kustomize_features_still_apply_to_passed_through_items,
    a_failing_binding_under_fail_makes_kubectl_exit_non_zero_with_the_message,
    a_name_prefix_overlay_renders_with_the_final_names_and_fixes_the_binding,
    stacked_overlays_with_prefix_and_suffix_render_with_the_final_names,
    an_overlay_that_leaves_pods_on_the_old_account_fails_the_build_with_the_finding,
    the_krm_exec_sample_says_kubectl_skips_it_and_kubectl_does,
);

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
    build_folder(tmp, "app")
}

/// `kubectl kustomize --enable-alpha-plugins` on `tmp/folder`, with the plugin of `tmp`.
fn build_folder(tmp: &TempDir, folder: &str) -> Output {
    let mut cmd = Command::new(require_tool(KUBECTL.get()));
    cmd.args(["kustomize", "--enable-alpha-plugins"])
        .arg(tmp.join(folder))
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

fn other_kustomize_features_still_apply_to_passed_through_items() {
    let tmp = setup("kustomize-features");
    tmp.write(
        "app/workload.yaml",
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: llama\n  namespace: serving\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: llama\n  namespace: serving\n\
         spec:\n  selector:\n    matchLabels:\n      app: llama\n  template:\n    metadata:\n      \
         labels:\n        app: llama\n        identity.kleym.sonda.red/variant: prefill\n    spec:\n      \
         serviceAccountName: llama\n      containers:\n      \
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

/// A base as llm-d's kustomizations have them: a service account, a pool, the Deployment
/// whose pods run as that account with the pool's and the variant's labels, and a binding.
const BASE: &str = "\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: vllm
  namespace: serving
---
apiVersion: inference.networking.k8s.io/v1
kind: InferencePool
metadata:
  name: llama
  namespace: serving
spec:
  selector:
    matchLabels:
      app: llama
  targetPorts:
  - number: 8000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-prefill
  namespace: serving
spec:
  selector:
    matchLabels:
      app: llama
      identity.kleym.sonda.red/variant: prefill
  template:
    metadata:
      labels:
        app: llama
        identity.kleym.sonda.red/variant: prefill
    spec:
      serviceAccountName: vllm
      containers:
      - name: server
        image: vllm/vllm-openai
---
apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata:
  name: llama-prefill
  namespace: serving
spec:
  poolRef:
    name: llama
  serviceAccountName: vllm
  identityBoundary:
    variant: prefill
";

/// `base/` holds [`BASE`]; `overlay/` is the shipped exec-plugin folder with the base as its
/// resources and `renames` (namePrefix, nameSuffix lines) on top.
fn renaming_overlay(label: &str, renames: &str) -> TempDir {
    let tmp = setup(label);
    tmp.write("base/kustomization.yaml", "resources:\n- all.yaml\n");
    tmp.write("base/all.yaml", BASE);
    for file in SHIPPED.iter().filter(|f| **f != "inference.yaml") {
        tmp.write(&format!("overlay/{file}"), &read(&tmp.join(&format!("app/{file}"))));
    }
    let kustomization =
        replace_once(&read(&tmp.join("overlay/kustomization.yaml")), "- inference.yaml\n", "- ../base\n");
    tmp.write("overlay/kustomization.yaml", &format!("{renames}{kustomization}"));
    tmp
}

/// The identity, the binding and the pods of a renamed build agree: the identity selects
/// the pods' final service account and labels, and the binding names the final pool and
/// service account.
fn assert_identity_matches_the_pods(out: &Output, service_account: &str, pool: &str, binding_name: &str) {
    assert_success(out);
    let text = stdout(out);
    let docs = documents(&text);
    let deployment = of_kind(&docs, "Deployment")[0];
    let pod_spec = &deployment["spec"]["template"]["spec"];
    let pod_labels = deployment["spec"]["template"]["metadata"]["labels"].as_object().expect("pod labels");
    assert_eq!(
        pod_spec["serviceAccountName"], service_account,
        "kustomize renamed the pods' account:\n{text}"
    );
    assert_eq!(of_kind(&docs, "ServiceAccount")[0]["metadata"]["name"], service_account, "{text}");
    assert_eq!(of_kind(&docs, "InferencePool")[0]["metadata"]["name"], pool, "{text}");

    let binding = of_kind(&docs, "InferenceIdentityBinding")[0];
    assert_eq!(binding["metadata"]["name"], binding_name, "{text}");
    assert_eq!(condition_reason(binding, "Ready"), Some("Reconciled"), "{text}");
    assert_eq!(
        binding["spec"]["poolRef"]["name"], pool,
        "the binding's own spec has the final pool name:\n{text}"
    );
    assert_eq!(binding["spec"]["serviceAccountName"], service_account, "{text}");

    let ids = of_kind(&docs, "ClusterSPIFFEID");
    assert_eq!(ids.len(), 1, "{text}");
    let spec = &ids[0]["spec"];
    let spiffe_id =
        format!("spiffe://example.org/ns/serving/sa/{service_account}/inference/pool/{pool}/variant/prefill");
    assert_eq!(spec["spiffeIDTemplate"], spiffe_id.as_str(), "{text}");
    assert_eq!(binding["status"]["computedSpiffeIDs"][0]["spiffeID"], spiffe_id.as_str(), "{text}");
    for (key, value) in spec["podSelector"]["matchLabels"].as_object().expect("podSelector.matchLabels") {
        assert_eq!(pod_labels.get(key), Some(value), "podSelector {key} does not match the pods:\n{text}");
    }
    let selectors: Vec<&str> = spec["workloadSelectorTemplates"]
        .as_array()
        .expect("selectors")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for selector in &selectors {
        let matches = match selector.split_once(':').map(|(_, rest)| rest.split_once(':')) {
            Some(Some(("ns", ns))) => ns == "serving",
            Some(Some(("sa", sa))) => sa == service_account,
            Some(Some(("pod-label", label))) => {
                let (key, value) = label.rsplit_once(':').expect("pod-label selector is key:value");
                pod_labels.get(key).and_then(Value::as_str) == Some(value)
            }
            _ => false,
        };
        assert!(matches, "selector {selector} does not match the pods:\n{text}");
    }
    assert!(selectors.contains(&format!("k8s:sa:{service_account}").as_str()), "{selectors:?}");
}

fn a_name_prefix_overlay_renders_with_the_final_names_and_fixes_the_binding() {
    let tmp = renaming_overlay("kustomize-prefix", "namePrefix: pd-\n");
    let out = build_folder(&tmp, "overlay");
    assert_identity_matches_the_pods(&out, "pd-vllm", "pd-llama", "pd-llama-prefill");
}

fn stacked_overlays_with_prefix_and_suffix_render_with_the_final_names() {
    // base -> mid (namePrefix) -> overlay (nameSuffix and the transformer): two renames each.
    let tmp = renaming_overlay("kustomize-stacked", "nameSuffix: -v2\n");
    tmp.write("mid/kustomization.yaml", "namePrefix: a-\nresources:\n- ../base\n");
    let kustomization =
        replace_once(&read(&tmp.join("overlay/kustomization.yaml")), "- ../base\n", "- ../mid\n");
    tmp.write("overlay/kustomization.yaml", &kustomization);
    let out = build_folder(&tmp, "overlay");
    assert_identity_matches_the_pods(&out, "a-vllm-v2", "a-llama-v2", "a-llama-prefill-v2");
}

fn an_overlay_that_leaves_pods_on_the_old_account_fails_the_build_with_the_finding() {
    // A LeaderWorkerSet is a kind kustomize does not know: its namePrefix renames the
    // ServiceAccount (and, through the function, the binding's account), while the pods keep
    // the old serviceAccountName. The shipped sample's workloadPolicy: Fail stops the build
    // and kubectl shows why; under Report it exits 0 and shows nothing.
    let tmp = renaming_overlay("kustomize-lws-account", "namePrefix: pd-\n");
    let deployment =
        &BASE[BASE.find("apiVersion: apps/v1").unwrap()..BASE.find("---\napiVersion: kleym").unwrap()];
    let lws = "\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llama-prefill
  namespace: serving
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata:
        labels:
          app: llama
          identity.kleym.sonda.red/variant: prefill
      spec:
        serviceAccountName: vllm
        containers:
        - name: server
          image: vllm/vllm-openai
";
    tmp.write("base/all.yaml", &BASE.replace(deployment, lws));
    let out = build_folder(&tmp, "overlay");
    assert!(!out.status.success(), "the build passed:\n{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("error: ServiceAccountMismatch: LeaderWorkerSet serving/pd-llama-prefill")
            && err.contains(r#"runs as service account "vllm", not "pd-vllm""#),
        "{err}"
    );

    let report = replace_once(
        &read(&tmp.join("overlay/RenderInferenceIdentity.yaml")),
        "workloadPolicy: Fail",
        "workloadPolicy: Report",
    );
    tmp.write("overlay/RenderInferenceIdentity.yaml", &report);
    let out = build_folder(&tmp, "overlay");
    assert_success(&out);
    assert!(
        stdout(&out).contains("k8s:sa:pd-vllm") && stdout(&out).contains("serviceAccountName: vllm"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn both_kustomize_samples_ship_the_same_name_references() {
    let exec_plugin = repo_file("fn-config/kustomize/exec-plugin/name-references.yaml");
    assert_eq!(exec_plugin, repo_file("fn-config/kustomize/krm-exec/name-references.yaml"));
    for sample in ["exec-plugin", "krm-exec"] {
        let kustomization = repo_file(&format!("fn-config/kustomize/{sample}/kustomization.yaml"));
        assert!(
            kustomization.contains("configurations:\n- name-references.yaml\n"),
            "{sample}:\n{kustomization}"
        );
    }
}

fn the_krm_exec_sample_says_kubectl_skips_it_and_kubectl_does() {
    // What the sample and the README warn of: kubectl's kustomize cannot run exec KRM
    // functions, and says nothing about it.
    let tmp = TempDir::new("kustomize-krm-exec");
    for file in
        ["kustomization.yaml", "inference.yaml", "render-inference-identity.yaml", "name-references.yaml"]
    {
        tmp.write(&format!("app/{file}"), &repo_file(&format!("fn-config/kustomize/krm-exec/{file}")));
    }
    let out = build(&tmp);
    assert_success(&out);
    let docs = documents(&stdout(&out));
    assert!(of_kind(&docs, "ClusterSPIFFEID").is_empty(), "{}", describe(&out));
    assert!(of_kind(&docs, "InferenceIdentityBinding")[0].get("status").is_none(), "{}", describe(&out));

    for file in ["kustomization.yaml", "render-inference-identity.yaml"] {
        let text = repo_file(&format!("fn-config/kustomize/krm-exec/{file}"));
        assert!(text.contains("`kubectl kustomize` has no --enable-exec"), "{file} does not warn:\n{text}");
        assert!(text.contains("../exec-plugin/"), "{file} does not point to the exec plugin:\n{text}");
    }
    let readme = repo_file("README.md");
    assert!(readme.contains("`kubectl kustomize` has no `--enable-exec`"), "the README does not warn");
    let function = repo_file("fn-config/kustomize/krm-exec/render-inference-identity.yaml");
    assert!(function.contains("        path: render-inference-identity\n"), "{function}");
    assert!(!function.contains("/usr/local/bin"), "cargo install does not put the binary there:\n{function}");
}
