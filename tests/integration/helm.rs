//! Helm 4 running the function as its post-renderer plugin (the repository's root plugin.yaml)
//! on `helm template` of a small chart: a pool and model-server Deployments, with bindings given
//! as `--post-renderer-args`. The plugin is installed both ways a user installs it: from the
//! repository's git URL at a release tag (here a `file://` repository holding what the
//! project's holds at its root), and from the packaged archive a release publishes
//! (`.ci/release helm-plugin`, which runs `helm plugin package`).

use crate::common::*;
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::os::unix::net::UnixStream;
use std::process::{Command, Output, Stdio};

/// The chart's pool and Deployments, in the release's namespace.
const POOL: &str = "\
apiVersion: inference.networking.k8s.io/v1
kind: InferencePool
metadata:
  name: llama
  namespace: {{ .Release.Namespace }}
spec:
  targetPorts:
  - number: 8000
  selector:
    matchLabels:
      app: llama
";

const DEPLOYMENTS: &str = "\
{{- range list \"prefill\" \"decode\" }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-{{ . }}
  namespace: {{ $.Release.Namespace }}
  labels:
    app.kubernetes.io/instance: {{ $.Release.Name }}
spec:
  replicas: {{ $.Values.replicas }}
  selector:
    matchLabels:
      app: llama
      identity.kleym.sonda.red/variant: {{ . }}
  template:
    metadata:
      labels:
        app: llama
        identity.kleym.sonda.red/variant: {{ . }}
    spec:
      serviceAccountName: llama
      containers:
      - name: server
        image: vllm/vllm-openai:v0.9.0
        args: [\"--model\", \"meta-llama/Llama-3.1-8B\"]
{{- end }}
";

/// How the plugin is installed.
#[derive(Clone, Copy, Debug)]
enum Install {
    /// `helm plugin install <git URL> --version v<version>`.
    Git,
    /// `helm plugin install <the release's .tgz>`.
    Package,
}

/// Cargo.toml's version, which the plugin's and the tag's are.
fn version() -> String {
    let manifest = repo_file("Cargo.toml");
    let line = manifest.lines().find(|l| l.starts_with("version = \"")).expect("Cargo.toml has a version");
    line.trim_start_matches("version = \"").trim_end_matches('"').to_string()
}

/// A temp folder with Helm's homes under `helm/`, the plugin installed as `how` says, the
/// chart in `chart/` and bindings for each variant in `bindings.yaml`.
fn setup_with(label: &str, how: Install) -> TempDir {
    let tmp = TempDir::new(label);
    tmp.write("chart/Chart.yaml", "apiVersion: v2\nname: llama\nversion: 0.1.0\n");
    tmp.write("chart/values.yaml", "replicas: 2\n");
    tmp.write("chart/templates/pool.yaml", POOL);
    tmp.write("chart/templates/deployments.yaml", DEPLOYMENTS);
    tmp.write(
        "bindings.yaml",
        &format!(
            "{}---\n{}",
            binding("llama-prefill", "llama", "prefill"),
            binding("llama-decode", "llama", "decode")
        ),
    );
    // Neither source can carry a signature Helm checks (a git repository has none; the
    // release's archive is attested, not PGP-signed): --verify=false, as docs/clients.md says.
    let out = match how {
        Install::Git => {
            let repo = tmp.write("repo/render-inference-identity/plugin.yaml", &repo_file("plugin.yaml"));
            let repo = repo.parent().unwrap();
            git(repo, &["init", "-q"]);
            git(repo, &["add", "plugin.yaml"]);
            git(repo, &["commit", "-q", "-m", "release"]);
            git(repo, &["tag", &format!("v{}", version())]);
            let url = format!("file://{}", repo.display());
            helm(
                &tmp,
                &["plugin", "install", &url, "--version", &format!("v{}", version()), "--verify=false"],
            )
        }
        Install::Package => {
            let archive = package(&tmp);
            helm(&tmp, &["plugin", "install", archive.to_str().unwrap(), "--verify=false"])
        }
    };
    assert_success(&out);
    let out = helm(&tmp, &["plugin", "list"]);
    assert_success(&out);
    assert!(stdout(&out).contains("render-inference-identity"), "{how:?}: {}", describe(&out));
    tmp
}

/// The plugin archive a release publishes, built by the release's own step into `tmp/dist/`.
fn package(tmp: &TempDir) -> std::path::PathBuf {
    let helm_dir = require_tool("helm").parent().unwrap().to_path_buf();
    let mut path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    path.insert(0, helm_dir);
    let out = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/release"))
        .args(["helm-plugin", tmp.join("dist").to_str().unwrap()])
        .env("PATH", std::env::join_paths(path).unwrap())
        .output()
        .expect("bash runs");
    assert_success(&out);
    let archive = std::path::PathBuf::from(stdout(&out).trim());
    assert_eq!(
        archive.file_name().unwrap().to_str().unwrap(),
        format!("render-inference-identity-{}.tgz", version())
    );
    archive
}

fn setup(label: &str) -> TempDir {
    setup_with(label, Install::Git)
}

/// `helm` with its homes in `tmp/helm/` and the binary under test first on PATH.
fn helm(tmp: &TempDir, args: &[&str]) -> Output {
    helm_command(tmp, args).output().expect("helm starts")
}

/// The command [`helm`] runs, for a test that gives it its own stderr.
fn helm_command(tmp: &TempDir, args: &[&str]) -> Command {
    let mut cmd = Command::new(require_tool("helm"));
    cmd.args(args)
        .env("PATH", path_with_bin_dir())
        .env("HELM_DATA_HOME", tmp.join("helm/data"))
        .env("HELM_CONFIG_HOME", tmp.join("helm/config"))
        .env("HELM_CACHE_HOME", tmp.join("helm/cache"))
        .env_remove("HELM_PLUGINS");
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    cmd
}

/// `helm template` of the chart in namespace serving, post-rendered by the plugin with
/// `args` as its --post-renderer-args (none: no post-renderer).
fn template(tmp: &TempDir, args: &[&str]) -> Output {
    helm(tmp, &template_args(tmp, args).iter().map(String::as_str).collect::<Vec<_>>())
}

/// The arguments of [`template`].
fn template_args(tmp: &TempDir, args: &[&str]) -> Vec<String> {
    let chart = tmp.join("chart");
    let mut all = vec!["template", "llama", chart.to_str().unwrap(), "--namespace", "serving"];
    if !args.is_empty() {
        all.extend(["--post-renderer", "render-inference-identity"]);
    }
    let mut all: Vec<String> = all.into_iter().map(str::to_string).collect();
    all.extend(args.iter().map(|a| format!("--post-renderer-args={a}")));
    all
}

/// `helm template` as [`template`] runs it, with `stderr` as Helm's standard error.
fn template_with_stderr(tmp: &TempDir, args: &[&str], stderr: Stdio) -> std::process::ExitStatus {
    let all = template_args(tmp, args);
    let mut cmd = helm_command(tmp, &all.iter().map(String::as_str).collect::<Vec<_>>());
    cmd.stdout(Stdio::null()).stderr(stderr).status().expect("helm starts")
}

fn identity(doc: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (text(&doc["kind"]), text(&doc["metadata"]["name"]))
}

#[test]
fn helm_template_through_the_plugin_adds_identities_and_passes_the_chart_through() {
    for how in [Install::Git, Install::Package] {
        renders_through_the_plugin(how);
    }
}

#[test]
fn the_plugin_names_its_source_and_runs_the_binary_on_linux_and_macos_without_a_linux_path() {
    let plugin =
        render_inference_identity::yaml::parse(&repo_file("plugin.yaml")).expect("plugin.yaml is YAML");
    let manifest = repo_file("Cargo.toml");
    let repository =
        manifest.lines().find_map(|l| l.strip_prefix("repository = \"")).unwrap().trim_end_matches('"');
    assert_eq!(plugin["sourceURL"], repository);
    assert_eq!(plugin["version"], version());
    let commands = plugin["runtimeConfig"]["platformCommand"].as_array().expect("platformCommand is a list");
    let systems: Vec<&str> = commands.iter().map(|c| c["os"].as_str().unwrap_or_default()).collect();
    assert_eq!(systems, ["linux", "darwin"]);
    for command in commands {
        assert_eq!(command["command"], "render-inference-identity", "{command}");
        assert_eq!(command["args"], serde_json::json!(["render", "-"]), "{command}");
    }
    assert!(!repo_file("plugin.yaml").contains("/proc"), "plugin.yaml names a Linux-only path");
}

fn renders_through_the_plugin(how: Install) {
    let tmp = setup_with("helm-render", how);
    let bindings = tmp.join("bindings.yaml");
    let out = template(&tmp, &[bindings.to_str().unwrap(), "--trust-domain=prod.example.org"]);
    assert_success(&out);
    let docs = documents(&stdout(&out));

    // The identities appear, one per binding, under the trust domain given as an argument.
    let ids = of_kind(&docs, "ClusterSPIFFEID");
    assert_eq!(ids.len(), 2, "{}", describe(&out));
    for id in &ids {
        let template = id["spec"]["spiffeIDTemplate"].as_str().unwrap_or_default();
        assert!(template.starts_with("spiffe://prod.example.org/ns/serving/sa/llama/"), "{template}");
    }
    for binding in of_kind(&docs, "InferenceIdentityBinding") {
        assert_eq!(condition_reason(binding, "Ready"), Some("Reconciled"), "{}", describe(&out));
    }

    // Every object of the chart comes through as the chart rendered it.
    let plain = template(&tmp, &[]);
    assert_success(&plain);
    let chart_docs = documents(&stdout(&plain));
    assert_eq!(chart_docs.len(), 3, "{}", describe(&plain));
    for chart_doc in &chart_docs {
        let found: Vec<&Value> = docs.iter().filter(|d| identity(d) == identity(chart_doc)).collect();
        assert_eq!(found, [chart_doc], "{:?} changed:\n{}", identity(chart_doc), describe(&out));
    }
    assert_eq!(docs.len(), chart_docs.len() + 4, "{}", describe(&out));
}

#[test]
fn a_failing_binding_under_fail_fails_helm_template_with_its_message() {
    let tmp = setup("helm-fail");
    let orphan = tmp.write("orphan.yaml", ORPHAN);
    let out =
        template(&tmp, &[orphan.to_str().unwrap(), "--trust-domain=example.org", "--failure-policy=Fail"]);
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(stdout(&out).is_empty(), "{}", describe(&out));
    let text = stderr(&out);
    assert!(text.contains("serving/orphan"), "{text}");
    assert!(text.contains("TargetPoolNotFound"), "{text}");
    assert!(text.contains("InferencePool \"missing-pool\" was not found"), "{text}");

    // Under Report the same render succeeds, the failure in the binding's status.
    let out = template(&tmp, &[orphan.to_str().unwrap(), "--trust-domain=example.org"]);
    assert_success(&out);
    let docs = documents(&stdout(&out));
    assert_eq!(
        condition_reason(of_kind(&docs, "InferenceIdentityBinding")[0], "Ready"),
        Some("TargetPoolNotFound")
    );
}

#[test]
fn a_chart_without_bindings_comes_through_whole() {
    // Helm 4 fails a post-render that prints nothing; a chart with no binding keeps its objects.
    let tmp = setup("helm-no-bindings");
    let out = template(&tmp, &["--trust-domain=example.org"]);
    assert_success(&out);
    let plain = template(&tmp, &[]);
    assert_success(&plain);
    let docs = documents(&stdout(&out));
    assert!(!docs.is_empty(), "{}", describe(&out));
    assert_eq!(docs, documents(&stdout(&plain)), "{}", describe(&out));
}

#[test]
fn helm_with_a_socket_as_stderr_renders_through_the_plugin() {
    // Systemd units and some CI runners give Helm a socket as stderr, which no process can
    // open again through /proc: the plugin must not fail the render over it.
    let tmp = setup("helm-socket");
    let bindings = tmp.join("bindings.yaml");
    let (ours, theirs) = UnixStream::pair().expect("a socket pair");
    let status = template_with_stderr(
        &tmp,
        &[bindings.to_str().unwrap(), "--trust-domain=example.org"],
        Stdio::from(std::os::fd::OwnedFd::from(theirs)),
    );
    drop(ours);
    assert!(status.success(), "helm template with a socket as stderr: {status}");
}

#[test]
fn a_failing_binding_s_message_reaches_a_file_helm_appends_to() {
    let tmp = setup("helm-append");
    let orphan = tmp.write("orphan.yaml", ORPHAN);
    let log = tmp.join("helm.log");
    let file = OpenOptions::new().create(true).append(true).open(&log).unwrap();
    let args = [orphan.to_str().unwrap(), "--trust-domain=example.org", "--failure-policy=Fail"];
    let status = template_with_stderr(&tmp, &args, Stdio::from(file));
    assert!(!status.success());
    let text = read(&log);
    assert!(text.contains("InferencePool \"missing-pool\" was not found"), "{text}");
    assert!(text.contains("exited with error"), "Helm's own error: {text}");
}

#[test]
fn helm_s_own_error_stays_whole_in_a_file_it_does_not_append_to() {
    // `2>file`: Helm writes from its own offset, over anything another process appended, so
    // the plugin leaves such a file to Helm rather than have both messages cut.
    let tmp = setup("helm-truncate");
    let orphan = tmp.write("orphan.yaml", ORPHAN);
    let log = tmp.join("helm.log");
    let args = [orphan.to_str().unwrap(), "--trust-domain=example.org", "--failure-policy=Fail"];
    let status = template_with_stderr(&tmp, &args, Stdio::from(File::create(&log).unwrap()));
    assert!(!status.success());
    let text = read(&log);
    assert!(text.starts_with("Error:"), "{text}");
    assert!(!text.contains("pools in serving"), "a cut message of the function: {text}");
}

#[test]
fn a_chart_that_renders_nothing_fails_saying_so() {
    // Helm fails any post-render that prints nothing; the function says why it printed nothing,
    // even with bindings given beside the chart.
    let tmp = setup("helm-empty");
    for template in ["pool.yaml", "deployments.yaml"] {
        std::fs::remove_file(tmp.join("chart/templates").join(template)).unwrap();
    }
    let bindings = tmp.join("bindings.yaml");
    let out = template(&tmp, &[bindings.to_str().unwrap(), "--trust-domain=example.org"]);
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    let text = stderr(&out);
    assert!(text.contains("<stdin> holds no YAML document"), "{text}");
    assert!(text.contains("chart or overlay that renders no object"), "{text}");
}
