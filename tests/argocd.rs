//! The commands of the shipped Argo CD config management plugin (fn-config/argocd/plugin.yaml)
//! run the way the CMP server runs them: in the application's source folder, no stdin,
//! the binary found on PATH, KUBE_API_VERSIONS and ARGOCD_* variables set.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const ALL_APIS: &str = "v1,apps/v1,inference.networking.k8s.io/v1,spire.spiffe.io/v1alpha1";

/// `spec.<pointer>` of the shipped plugin.yaml: a command as a list of strings.
fn plugin_command(pointer: &str) -> Vec<String> {
    let plugin = render_inference_identity::yaml::parse(&repo_file("fn-config/argocd/plugin.yaml"))
        .expect("plugin.yaml is YAML");
    assert_eq!(plugin["kind"], "ConfigManagementPlugin");
    let command = plugin.pointer(pointer).unwrap_or_else(|| panic!("plugin.yaml has no {pointer}"));
    let command: Vec<String> = command
        .as_array()
        .unwrap_or_else(|| panic!("{pointer} is not a list"))
        .iter()
        .map(|a| a.as_str().expect("command entries are strings").to_string())
        .collect();
    assert!(!command.is_empty(), "{pointer} is empty");
    command
}

/// Runs a plugin command in `app` as the CMP server would, with `env` on top of the
/// variables Argo CD always sets.
fn run_plugin(command: &[String], app: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(&command[0]);
    cmd.args(&command[1..]).current_dir(app).stdin(Stdio::null()).env("PATH", path_with_bin_dir());
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    for (key, _) in std::env::vars() {
        if key.starts_with("ARGOCD_") || key.starts_with("PARAM_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("ARGOCD_APP_NAME", "inference")
        .env("ARGOCD_APP_NAMESPACE", "argocd")
        .env("ARGOCD_APP_PROJECT_NAME", "default")
        .env("ARGOCD_APP_REVISION", "0123456789abcdef0123456789abcdef01234567")
        .env("ARGOCD_APP_REVISION_SHORT", "0123456")
        .env("ARGOCD_APP_SOURCE_PATH", "apps/inference")
        .env("ARGOCD_APP_SOURCE_REPO_URL", "https://git.example.org/platform.git")
        .env("ARGOCD_APP_SOURCE_TARGET_REVISION", "HEAD")
        .env("KUBE_VERSION", "1.33.1");
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.output().unwrap_or_else(|e| panic!("running {command:?}: {e}"))
}

fn generate(app: &Path, env: &[(&str, &str)]) -> Output {
    run_plugin(&plugin_command("/spec/generate/command"), app, env)
}

fn discover(app: &Path) -> Output {
    run_plugin(&plugin_command("/spec/discover/find/command"), app, &[])
}

const DEPLOYMENT_JSON: &str = r#"{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "llama", "namespace": "serving"},
  "spec": {
    "selector": {"matchLabels": {"app": "llama"}},
    "template": {
      "metadata": {"labels": {"app": "llama", "identity.kleym.sonda.red/variant": "prefill"}},
      "spec": {"serviceAccountName": "llama", "containers": [{"name": "server", "image": "vllm/vllm-openai:v0.6.0"}]}
    }
  }
}
"#;

const SERVICE_ACCOUNT: &str =
    "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: llama\n  namespace: serving\n";

/// An application folder: manifests in several files and a subfolder, .yaml, .yml and
/// .json, multi-document, with the bindings in `identity/bindings.yml`.
fn app(tmp: &TempDir, bindings: &[String]) -> std::path::PathBuf {
    tmp.write("app/pool.yaml", &format!("# the model pool\n---\n{}---\n{SERVICE_ACCOUNT}", pool("llama")));
    tmp.write("app/workload/deployment.json", DEPLOYMENT_JSON);
    if !bindings.is_empty() {
        tmp.write("app/identity/bindings.yml", &bindings.join("---\n"));
    }
    tmp.write("app/README.md", "kind: InferenceIdentityBinding is documented elsewhere\n");
    tmp.join("app")
}

fn prefill() -> String {
    binding("llama-prefill", "llama", "prefill")
}

fn kinds(docs: &[Value]) -> Vec<&str> {
    docs.iter().map(|d| d["kind"].as_str().unwrap_or_default()).collect()
}

#[test]
fn generate_prints_a_plain_yaml_stream_with_the_identity_and_the_status() {
    let tmp = TempDir::new("argocd-generate");
    let app = app(&tmp, &[prefill()]);
    // With a class, as SPIRE Helm chart's manager has one: no note that a classless object may be ignored.
    let env = [
        ("ARGOCD_ENV_TRUST_DOMAIN", "example.org"),
        ("ARGOCD_ENV_CLASS_NAME", "spire-system-spire"),
        ("KUBE_API_VERSIONS", ALL_APIS),
    ];
    let out = generate(&app, &env);
    assert_success(&out);
    let text = stdout(&out);
    assert!(!text.contains("ResourceList"), "a ResourceList wrapper would be one object to Argo CD:\n{text}");
    assert!(!text.contains("config.kubernetes.io/"), "bookkeeping annotations would be applied:\n{text}");

    let docs = documents(&text);
    assert_eq!(
        kinds(&docs),
        ["InferenceIdentityBinding", "InferencePool", "ServiceAccount", "Deployment", "ClusterSPIFFEID"],
        "every input document once, files in path order, then the output:\n{text}"
    );
    let deployment = of_kind(&docs, "Deployment")[0];
    assert_eq!(deployment["spec"]["template"]["spec"]["containers"][0]["image"], "vllm/vllm-openai:v0.6.0");
    assert!(
        text.contains(DEPLOYMENT_JSON),
        "a document the function does not own is printed as its text:\n{text}"
    );
    assert_eq!(stderr(&out), "", "the identity reaches the Deployment: nothing to report");

    let id = of_kind(&docs, "ClusterSPIFFEID")[0];
    assert_eq!(id["metadata"]["name"], LLAMA_PREFILL_OUTPUT, "{text}");
    assert_eq!(
        id["spec"]["spiffeIDTemplate"],
        "spiffe://example.org/ns/serving/sa/llama/inference/pool/llama/variant/prefill"
    );
    let binding = of_kind(&docs, "InferenceIdentityBinding")[0];
    assert_eq!(condition_reason(binding, "Ready"), Some("Reconciled"), "{text}");
    assert_eq!(binding["status"]["trustDomain"], "example.org", "{text}");
}

#[test]
fn discover_prints_something_only_for_apps_with_bindings() {
    let tmp = TempDir::new("argocd-discover");
    let with_bindings = app(&tmp, &[prefill()]);
    let out = discover(&with_bindings);
    assert_success(&out);
    assert!(stdout(&out).contains("bindings.yml"), "{}", describe(&out));
    assert!(!stdout(&out).contains("README.md"), "{}", describe(&out));

    let tmp = TempDir::new("argocd-discover-none");
    let without = app(&tmp, &[]);
    let out = discover(&without);
    assert_success(&out);
    assert_eq!(stdout(&out), "", "an app without bindings must not match the plugin");
}

#[test]
fn a_failing_binding_under_fail_exits_non_zero_naming_it_on_stderr() {
    let tmp = TempDir::new("argocd-fail");
    let app = app(&tmp, &[prefill(), binding("orphan", "missing-pool", "prefill")]);
    let env = [
        ("ARGOCD_ENV_TRUST_DOMAIN", "example.org"),
        ("ARGOCD_ENV_FAILURE_POLICY", "Fail"),
        ("KUBE_API_VERSIONS", ALL_APIS),
        ("ARGOCD_ENV_CLASS_NAME", "spire-system-spire"),
    ];
    let out = generate(&app, &env);
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(stdout(&out), "", "Argo CD must not get a partial stream");
    let err = stderr(&out);
    assert!(err.contains("serving/orphan"), "{err}");
    assert!(err.contains("InvalidRef/TargetPoolNotFound"), "{err}");
    assert!(!err.contains("llama-prefill"), "only the failing binding is named:\n{err}");
    assert!(err.lines().count() <= 3 && err.len() < 600, "stderr should be short for the Argo CD UI:\n{err}");

    // Under the default policy (Report) the same app renders.
    let out = generate(&app, &env[..1].iter().chain(&env[2..]).copied().collect::<Vec<_>>());
    assert_success(&out);
}

#[test]
fn kube_api_versions_without_spire_gives_cluster_spiffe_id_crd_missing() {
    let tmp = TempDir::new("argocd-no-spire");
    let app = app(&tmp, &[prefill()]);
    let out = generate(
        &app,
        &[
            ("ARGOCD_ENV_TRUST_DOMAIN", "example.org"),
            ("KUBE_API_VERSIONS", "v1,apps/v1,inference.networking.k8s.io/v1"),
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    let docs = documents(&text);
    assert!(of_kind(&docs, "ClusterSPIFFEID").is_empty(), "{text}");
    let binding = of_kind(&docs, "InferenceIdentityBinding")[0];
    assert_eq!(condition_reason(binding, "RenderFailure"), Some("ClusterSPIFFEIDCRDMissing"), "{text}");
    assert!(stderr(&out).contains("RenderFailure/ClusterSPIFFEIDCRDMissing"), "{}", describe(&out));
}

#[test]
fn a_missing_trust_domain_names_every_way_to_set_it_in_render() {
    let tmp = TempDir::new("argocd-no-trust-domain");
    let app = app(&tmp, &[prefill()]);
    let out = generate(&app, &[("KUBE_API_VERSIONS", ALL_APIS)]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(stdout(&out), "", "Argo CD must not get a partial stream");
    let err = stderr(&out);
    for way in ["--trust-domain", "ARGOCD_ENV_TRUST_DOMAIN", "trustDomain in the --config file"] {
        assert!(err.contains(way), "{way} is not named:\n{err}");
    }
    // The failing binding's line names the file and document it came from.
    assert!(
        err.contains(
            "serving/llama-prefill in ./identity/bindings.yml (document 1): RenderFailure/MissingTrustDomain"
        ),
        "{err}"
    );
    assert!(!err.contains("functionConfig"), "render has no functionConfig, only a --config file:\n{err}");
}

#[test]
fn a_kustomize_app_or_a_helm_chart_is_refused_saying_how_to_run_the_function_there() {
    let env = [("ARGOCD_ENV_TRUST_DOMAIN", "example.org"), ("KUBE_API_VERSIONS", ALL_APIS)];
    // A kustomization with apiVersion and kind, as the operator's reference environment has,
    // leaving out a cluster-wide policy; and one without, in a subfolder.
    let kustomizations = [
        (
            "kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- pool.yaml\n",
        ),
        ("overlays/prod/kustomization.yml", "resources:\n- ../../pool.yaml\n"),
        ("Kustomization", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"),
    ];
    for (file, text) in kustomizations {
        let tmp = TempDir::new("argocd-kustomize-app");
        let folder = app(&tmp, &[prefill()]);
        tmp.write(&format!("app/{file}"), text);
        tmp.write("app/policy.yaml", "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: variants\n");
        let out = generate(&folder, &env);
        assert_eq!(out.status.code(), Some(1), "{file}: {}", describe(&out));
        assert_eq!(stdout(&out), "", "{file}: nothing may reach Argo CD");
        let err = stderr(&out);
        assert!(err.contains(&format!("{file}: ")), "{file}: the file is not named:\n{err}");
        assert!(err.contains("is a kustomize app"), "{err}");
        assert!(err.contains("kubectl kustomize --enable-alpha-plugins"), "{err}");
        // The pipe it suggests runs as written with the tools kubectl users have, settings included.
        let dir = std::path::Path::new(file).parent().map(|p| p.display().to_string()).unwrap_or_default();
        let dir = if dir.is_empty() { ".".to_string() } else { format!("./{dir}") };
        let pipe = format!("kubectl kustomize {dir} | render-inference-identity render - --trust-domain");
        assert!(err.contains(&pipe), "{err}");
    }

    let tmp = TempDir::new("argocd-helm-chart");
    let folder = app(&tmp, &[prefill()]);
    tmp.write("app/charts/llm/Chart.yaml", "apiVersion: v2\nname: llm\nversion: 0.1.0\n");
    tmp.write(
        "app/charts/llm/templates/pool.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
    );
    let out = generate(&folder, &env);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let err = stderr(&out);
    assert!(err.contains("charts/llm/Chart.yaml: ") && err.contains("is a Helm chart"), "{err}");
    assert!(err.contains("| render-inference-identity render - --trust-domain DOMAIN"), "{err}");
    assert!(
        err.contains("helm template RELEASE ") && err.contains("| render-inference-identity render -"),
        "{err}"
    );

    // A file named after neither is read as before.
    let tmp = TempDir::new("argocd-plain-app");
    let folder = app(&tmp, &[prefill()]);
    tmp.write(
        "app/kustomization-notes.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  namespace: serving\n",
    );
    assert_success(&generate(&folder, &env));
}

/// The static parameters the shipped plugin.yaml announces to the Application's UI.
fn static_parameters() -> Vec<Value> {
    let plugin = render_inference_identity::yaml::parse(&repo_file("fn-config/argocd/plugin.yaml"))
        .expect("plugin.yaml is YAML");
    plugin["spec"]["parameters"]["static"].as_array().expect("spec.parameters.static is a list").clone()
}

/// The variables Argo CD sets for an Application's `spec.source.plugin.parameters` of
/// strings: `ARGOCD_APP_PARAMETERS` with all of them as JSON, and one `PARAM_<NAME>` each.
fn parameters(given: &[(&str, &str)]) -> Vec<(String, String)> {
    let json: Vec<Value> =
        given.iter().map(|(name, value)| serde_json::json!({"name": name, "string": value})).collect();
    let mut env = vec![("ARGOCD_APP_PARAMETERS".to_string(), serde_json::to_string(&json).unwrap())];
    for (name, value) in given {
        let escaped: String = name
            .to_ascii_uppercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        env.push((format!("PARAM_{escaped}"), value.to_string()));
    }
    env
}

fn generate_with(app: &Path, params: &[(&str, &str)], env: &[(&str, &str)]) -> Output {
    let params = parameters(params);
    let mut all: Vec<(&str, &str)> = params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    all.extend_from_slice(env);
    generate(app, &all)
}

#[test]
fn the_plugin_announces_the_four_settings_as_parameters_named_as_their_flags() {
    let names: Vec<String> =
        static_parameters().iter().map(|p| p["name"].as_str().unwrap_or_default().to_string()).collect();
    assert_eq!(names, ["trust-domain", "class-name", "failure-policy", "workload-policy"]);
    let flags: Vec<&str> =
        render_inference_identity::config::settings().iter().map(|s| s.flag.as_str()).collect();
    for name in &names {
        assert!(flags.contains(&name.as_str()), "parameter {name} is no setting's flag: {flags:?}");
    }
    let trust_domain = &static_parameters()[0];
    assert_eq!(trust_domain["required"], true, "the trust domain has no default");
    assert!(trust_domain.get("string").is_none(), "a default trust domain would be announced but never sent");
}

#[test]
fn plugin_parameters_set_the_settings_as_env_entries_do() {
    let tmp = TempDir::new("argocd-params");
    let app = app(&tmp, &[prefill()]);
    let by_params = generate_with(
        &app,
        &[("trust-domain", "prod.example.org"), ("class-name", "spire-system-spire")],
        &[("KUBE_API_VERSIONS", ALL_APIS)],
    );
    assert_success(&by_params);
    let by_env = generate(
        &app,
        &[
            ("ARGOCD_ENV_TRUST_DOMAIN", "prod.example.org"),
            ("ARGOCD_ENV_CLASS_NAME", "spire-system-spire"),
            ("KUBE_API_VERSIONS", ALL_APIS),
        ],
    );
    assert_success(&by_env);
    assert_eq!(stdout(&by_params), stdout(&by_env));
    let docs = documents(&stdout(&by_params));
    let id = of_kind(&docs, "ClusterSPIFFEID")[0];
    assert_eq!(id["spec"]["className"], "spire-system-spire");
    assert!(id["spec"]["spiffeIDTemplate"].as_str().unwrap().starts_with("spiffe://prod.example.org/"));

    // A failure policy given as a parameter gates the render.
    let orphan = app_with_orphan(&tmp);
    let out = generate_with(
        &orphan,
        &[("trust-domain", "example.org"), ("failure-policy", "Fail")],
        &[("KUBE_API_VERSIONS", ALL_APIS)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stderr(&out).contains("InvalidRef/TargetPoolNotFound"), "{}", describe(&out));
}

fn app_with_orphan(tmp: &TempDir) -> std::path::PathBuf {
    let app = app(tmp, &[prefill(), binding("orphan", "missing-pool", "prefill")]);
    let unlabelled = replace_once(
        DEPLOYMENT_JSON,
        "\"app\": \"llama\", \"identity.kleym.sonda.red/variant\": \"prefill\"",
        "\"app\": \"llama\"",
    );
    let unlabelled = replace_once(
        &unlabelled,
        "\"name\": \"llama\", \"namespace\"",
        "\"name\": \"llama-unlabelled\", \"namespace\"",
    );
    tmp.write("app/workload/no-variant.json", &unlabelled);
    app
}

#[test]
fn each_default_the_plugin_announces_is_the_function_s_own() {
    // Argo CD shows a parameter's default but sends nothing unless the Application sets it:
    // a default that differs from the function's would be shown and not applied. On an app
    // with a failing binding and a pod template without its variant label, setting each
    // announced default changes nothing, and setting another value does.
    let tmp = TempDir::new("argocd-defaults");
    let app = app_with_orphan(&tmp);
    let base = [("trust-domain", "example.org")];
    let env = [("KUBE_API_VERSIONS", ALL_APIS)];
    let unset = generate_with(&app, &base, &env);
    assert_success(&unset);
    assert!(stderr(&unset).contains("WorkloadWithoutVariant"), "{}", describe(&unset));
    for parameter in static_parameters() {
        let Some(default) = parameter.get("string").and_then(Value::as_str) else { continue };
        let name = parameter["name"].as_str().unwrap();
        let set = generate_with(&app, &[base[0], (name, default)], &env);
        assert_eq!(
            (set.status.code(), stdout(&set), stderr(&set)),
            (unset.status.code(), stdout(&unset), stderr(&unset)),
            "parameter {name} set to its announced default {default:?} changed the render"
        );
        let other = if name == "class-name" { "spire-system-spire" } else { "Fail" };
        let changed = generate_with(&app, &[base[0], (name, other)], &env);
        assert_ne!(
            (changed.status.code(), stdout(&changed)),
            (unset.status.code(), stdout(&unset)),
            "parameter {name} = {other:?} is not read"
        );
    }
}

#[test]
fn a_parameter_and_an_env_entry_that_disagree_fail_naming_both() {
    let tmp = TempDir::new("argocd-params-conflict");
    let app = app(&tmp, &[prefill()]);
    let out = generate_with(
        &app,
        &[("trust-domain", "prod.example.org")],
        &[("ARGOCD_ENV_TRUST_DOMAIN", "staging.example.org"), ("KUBE_API_VERSIONS", ALL_APIS)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(stdout(&out), "", "Argo CD must not get a partial stream");
    let err = stderr(&out);
    assert!(err.contains("ARGOCD_ENV_TRUST_DOMAIN is \"staging.example.org\""), "{err}");
    assert!(err.contains("PARAM_TRUST_DOMAIN is \"prod.example.org\""), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // The same value both ways is one setting.
    let out = generate_with(
        &app,
        &[("trust-domain", "prod.example.org")],
        &[("ARGOCD_ENV_TRUST_DOMAIN", "prod.example.org"), ("KUBE_API_VERSIONS", ALL_APIS)],
    );
    assert_success(&out);
}

#[test]
fn a_misspelt_or_invalid_parameter_fails_naming_it() {
    let tmp = TempDir::new("argocd-params-bad");
    let app = app(&tmp, &[prefill()]);
    let out = generate_with(
        &app,
        &[("trust-domain", "example.org"), ("failure-polcy", "Fail")],
        &[("KUBE_API_VERSIONS", ALL_APIS)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        stderr(&out).contains("Argo CD parameter \"failure-polcy\" is not a setting"),
        "{}",
        describe(&out)
    );

    let out = generate_with(&app, &[("trust-domain", "example.org"), ("failure-policy", "fail")], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let err = stderr(&out);
    assert!(err.contains("PARAM_FAILURE_POLICY (Argo CD parameter failure-policy)"), "{err}");
    assert!(err.contains("\"fail\" is not Report or Fail"), "{err}");
}
