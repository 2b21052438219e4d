//! The real binary: stdin/stdout exchange, exit codes, environment, subcommands.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_render-inference-identity");

fn run(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("KUBE_API_VERSIONS")
        .env_remove("SOURCE_DATE_EPOCH");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the binary starts");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn example_input() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example/input.yaml")).unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn example_renders_through_stdin_and_stdout() {
    let out = run(&[], &example_input(), &[]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let want =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example/expected.yaml"))
            .unwrap();
    assert_eq!(text(&out.stdout), want);
    assert!(text(&out.stdout).contains("name: kleym-kleym-reference-inference-binding-pool-18b7ab03"));
}

#[test]
fn broken_yaml_exits_1_with_an_error_result() {
    let out = run(&[], b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [\n", &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("input is not a readable YAML document"), "{stderr}");
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"), "{stdout}");
    assert!(stdout.contains("severity: error"), "{stdout}");
}

#[test]
fn a_manifest_where_a_resource_list_belongs_exits_1_naming_its_kind() {
    // A manifest piped to the KRM mode by mistake (`render` reads manifests).
    let out = run(&[], b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", &[]);
    assert_eq!(out.status.code(), Some(1));
    let want = "input kind is \"ConfigMap\": expected a config.kubernetes.io/v1 ResourceList on stdin";
    assert!(text(&out.stderr).contains(want), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("severity: error"), "{}", text(&out.stdout));
}

#[test]
fn a_resource_list_where_manifests_belong_exits_1_pointing_to_the_krm_mode() {
    // The reverse: a KRM function's input given to a mode that reads manifests.
    for mode in ["render", "explain"] {
        let out = run(&[mode, "-", "--trust-domain", "example.org"], &example_input(), &[]);
        assert_eq!(out.status.code(), Some(1), "{mode}");
        let stderr = text(&out.stderr);
        let want =
            "<stdin> (document 1): a config.kubernetes.io/v1 ResourceList, what kpt hands a KRM function";
        assert!(stderr.contains(want) && stderr.contains("(no subcommand)"), "{mode}: {stderr}");
        assert!(out.stdout.is_empty(), "{mode}");
    }
    // Of another apiVersion it is a List like any other, refused as one.
    let input = text(&example_input()).replacen("config.kubernetes.io/v1", "v1", 1);
    let out = run(&["render", "-", "--trust-domain", "example.org"], input.as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("ResourceList holds "), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("split the List"), "{}", text(&out.stderr));
    // One that holds nothing the function reads is a List like any other: passed through.
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n";
    let out = run(&["render", "-", "--trust-domain", "example.org"], list.as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), list);
}

#[test]
fn a_local_config_object_kubectl_would_apply_that_changes_identities_is_refused_by_name() {
    // kpt and kustomize leave a local-config object out; `kubectl apply` applies it. One that
    // gives pods identities, or holds pods, must not go unseen.
    let sneaky = "apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata:\n  name: sneaky\n  \
                  annotations: {config.kubernetes.io/local-config: \"true\"}\nspec:\n  spiffeIDTemplate: spiffe://example.org/x\n";
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: a\n  \
               annotations: {config.kubernetes.io/local-config: \"true\"}\nspec:\n  containers: [{name: c, image: i}]\n";
    for (input, kind) in [(sneaky, "ClusterSPIFFEID"), (pod, "Pod")] {
        for mode in ["render", "explain"] {
            let out = run(&[mode, "-", "--trust-domain", "example.org"], input.as_bytes(), &[]);
            assert_eq!(out.status.code(), Some(1), "{mode} {kind}");
            let want = format!("<stdin> (document 1): a {kind} marked config.kubernetes.io/local-config");
            assert!(text(&out.stderr).contains(&want), "{mode}: {}", text(&out.stderr));
        }
    }
    // A local-config object the function does not read (a functionConfig, a setter) is left out.
    let setters = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\n  \
                   annotations: {config.kubernetes.io/local-config: \"true\"}\ndata: {a: b}\n";
    let out = run(&["render", "-", "--trust-domain", "example.org"], setters.as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    // Any other object still reaches every rule (kubectl applies it), and leaves the stream.
    let identity = "apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata:\n  name: admin\nspec:\n  \
                    spiffeIDTemplate: spiffe://example.org/admin\n  podSelector: {matchLabels: {role: admin}}\n";
    let policy = "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\n  \
                  annotations: {config.kubernetes.io/local-config: \"true\"}\nspec: {}\n";
    let input = format!("{identity}---\n{policy}");
    let out = run(&["render", "-", "--trust-domain", "example.org"], input.as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), identity);
    let out = run(&["explain", "-", "--trust-domain", "example.org", "-o", "json"], input.as_bytes(), &[]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> =
        report["unjudged"].as_array().unwrap().iter().filter_map(|u| u["object"]["kind"].as_str()).collect();
    assert_eq!(kinds, ["ClusterPolicy"], "{report}");
}

#[test]
fn invalid_utf8_is_refused() {
    let out = run(&[], b"kind: ResourceList\nitems: []\nx: \xff\xfe\n", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not valid UTF-8"), "{}", text(&out.stderr));
}

#[test]
fn environment_reaches_the_reconcile() {
    // Without transitionTime, SOURCE_DATE_EPOCH gives the transition time.
    let input = text(&example_input()).replace("    transitionTime: \"2026-01-01T00:00:00Z\"\n", "");
    let out = run(&[], input.as_bytes(), &[("SOURCE_DATE_EPOCH", "1700000000")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("lastTransitionTime: \"2023-11-14T22:13:20Z\""));

    // KUBE_API_VERSIONS without the SPIRE API: the binding cannot render.
    let out =
        run(&[], &example_input(), &[("KUBE_API_VERSIONS", "v1,apps/v1,inference.networking.k8s.io/v1")]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("reason: ClusterSPIFFEIDCRDMissing"), "{stdout}");
    assert!(!stdout.contains("kind: ClusterSPIFFEID\n"), "{stdout}");
    assert!(text(&out.stderr).contains("RenderFailure/ClusterSPIFFEIDCRDMissing"));

    let out = run(&[], &example_input(), &[("SOURCE_DATE_EPOCH", "yesterday")]);
    let input = text(&example_input()).replace("    transitionTime: \"2026-01-01T00:00:00Z\"\n", "");
    let out2 = run(&[], input.as_bytes(), &[("SOURCE_DATE_EPOCH", "yesterday")]);
    assert_eq!(out.status.code(), Some(0), "transitionTime wins over SOURCE_DATE_EPOCH");
    assert_eq!(out2.status.code(), Some(1));
    assert!(text(&out2.stderr).contains("SOURCE_DATE_EPOCH"), "{}", text(&out2.stderr));
}

#[test]
fn schema_subcommand_prints_the_function_config_schema() {
    let out = run(&["schema"], b"", &[]);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let spec = schema.pointer("/$defs/ConfigSpec/properties").expect("spec properties");
    for field in
        ["trustDomain", "className", "failurePolicy", "prune", "apiVersions", "transitionTime", "outputPath"]
            .into_iter()
            .chain(["selectorScope", "spireControllerManager"])
    {
        assert!(spec.get(field).is_some(), "schema lacks {field}");
    }
}

#[test]
fn crd_subcommand_prints_the_binding_crd() {
    let out = run(&["crd"], b"", &[]);
    assert_eq!(out.status.code(), Some(0));
    let crd = render_inference_identity::yaml::parse(&text(&out.stdout)).unwrap();
    assert_eq!(crd["kind"], "CustomResourceDefinition");
    assert_eq!(crd["metadata"]["name"], "inferenceidentitybindings.kleym.sonda.red");
    assert!(crd["spec"]["versions"][0]["subresources"]["status"].is_object());
}

#[test]
fn help_and_version() {
    let out = run(&["--help"], b"", &[]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    assert!(help.contains("schema") && help.contains("crd"), "{help}");
    let out = run(&["--version"], b"", &[]);
    assert_eq!(text(&out.stdout).trim(), format!("render-inference-identity {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn render_refuses_documents_that_are_not_objects() {
    let dir = std::env::temp_dir().join(format!("rii-cli-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("values.yaml"), "replicaCount: 2\n").unwrap();
    let out = run(&["render", "--trust-domain", "example.org", dir.to_str().unwrap()], b"", &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("values.yaml (document 1): not a Kubernetes object"), "{stderr}");
}

#[test]
fn render_names_both_files_of_an_item_that_appears_twice() {
    let dir = std::env::temp_dir().join(format!("rii-cli-render-twice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let binding = PLUGIN_STREAM.split("---\n").nth(1).unwrap();
    let pool = PLUGIN_STREAM.split("---\n").next().unwrap();
    std::fs::write(dir.join("a-binding.yaml"), binding).unwrap();
    std::fs::write(dir.join("b-binding-copy.yaml"), format!("{pool}---\n{binding}")).unwrap();
    std::fs::write(dir.join("c-pool-copy.yaml"), pool).unwrap();
    let out = run(&["render", "--trust-domain", "example.org", dir.to_str().unwrap()], b"", &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("b-binding-copy.yaml (document 2): InferenceIdentityBinding serving/llama-prefill appears twice in the input (first in "), "{stderr}");
    assert!(stderr.contains("a-binding.yaml (document 1))"), "{stderr}");
    // A pool twice, the binding once: the pool's two files.
    std::fs::remove_file(dir.join("a-binding.yaml")).unwrap();
    let out = run(&["render", "--trust-domain", "example.org", dir.to_str().unwrap()], b"", &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    let stderr = text(&out.stderr);
    assert!(stderr.contains("c-pool-copy.yaml (document 1): InferencePool"), "{stderr}");
    assert!(
        stderr.contains("appears twice in the input (first in ")
            && stderr.contains("b-binding-copy.yaml (document 1))"),
        "{stderr}"
    );
}

/// The exec plugin names an item that appears twice as render does: both places, here the
/// documents of its stream, numbered from 1.
#[test]
fn the_plugin_names_both_places_of_an_item_that_appears_twice() {
    let dir = std::env::temp_dir().join(format!("rii-cli-plugin-twice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.yaml");
    std::fs::write(&config, PLUGIN_CONFIG).unwrap();
    let binding = PLUGIN_STREAM.split("---\n").nth(1).unwrap();
    let stream = format!("{PLUGIN_STREAM}---\n{binding}");
    let out = run(&[config.to_str().unwrap()], stream.as_bytes(), &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "error: <stdin> (document 3): InferenceIdentityBinding serving/llama-prefill appears twice in the \
             input (first in <stdin> (document 2))"
        ),
        "{stderr}"
    );
}

/// The plugin config the exec plugin tests pass, rendering the example under `Report`.
const PLUGIN_CONFIG: &str = "apiVersion: fn.kleym.sonda.red/v1alpha1\nkind: RenderInferenceIdentity\n\
                             metadata:\n  name: render-inference-identity\nspec:\n  trustDomain: example.org\n";

/// The example's pool and binding as the plain stream kustomize pipes to an exec plugin.
const PLUGIN_STREAM: &str = "apiVersion: inference.networking.k8s.io/v1\nkind: InferencePool\n\
                             metadata:\n  name: llama\n  namespace: serving\n\
                             spec:\n  selector:\n    matchLabels:\n      app: llama\n---\n\
                             apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\n\
                             metadata:\n  name: llama-prefill\n  namespace: serving\n\
                             spec:\n  poolRef:\n    name: llama\n  serviceAccountName: llama\n  \
                             identityBoundary:\n    variant: prefill\n";

#[test]
fn an_unreadable_plugin_config_file_is_reported_with_its_own_error() {
    let dir = std::env::temp_dir().join(format!("rii-cli-plugin-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.yaml");
    let not_utf8 = dir.join("latin1.yaml");
    std::fs::write(&not_utf8, b"apiVersion: v1\nkind: ConfigMap\ndata:\n  className: caf\xe9\n").unwrap();
    let good = dir.join("config.yaml");
    std::fs::write(&good, PLUGIN_CONFIG).unwrap();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let unset = || {
        let mut cmd = Command::new(BIN);
        cmd.env_remove("KUSTOMIZE_PLUGIN_CONFIG_STRING").env_remove("KUBE_API_VERSIONS");
        cmd
    };
    let stream = PLUGIN_STREAM.as_bytes();

    // No file and no variable: the file's error, not the variable's.
    let out = run_with(unset().arg(path(&missing)), stream);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("reading the plugin config {}: No such file", path(&missing))),
        "{stderr}"
    );
    assert!(!stderr.contains("environment variable"), "{stderr}");

    // A file that exists but cannot be read is reported even when the variable is set.
    for unreadable in [&not_utf8, &dir] {
        let out = run_with(
            unset().arg(path(unreadable)).env("KUSTOMIZE_PLUGIN_CONFIG_STRING", PLUGIN_CONFIG),
            stream,
        );
        assert_eq!(out.status.code(), Some(1), "{}: {}", unreadable.display(), text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&format!("reading the plugin config {}: ", path(unreadable))), "{stderr}");
        assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    }

    // A readable file wins over the variable.
    let out =
        run_with(unset().arg(path(&good)).env("KUSTOMIZE_PLUGIN_CONFIG_STRING", "kind: [broken"), stream);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("kind: ClusterSPIFFEID"), "{}", text(&out.stdout));

    // No file at that path: the variable kustomize sets stands in for it.
    let out =
        run_with(unset().arg(path(&missing)).env("KUSTOMIZE_PLUGIN_CONFIG_STRING", PLUGIN_CONFIG), stream);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("kind: ClusterSPIFFEID"), "{}", text(&out.stdout));
}

/// Runs a prepared command with `stdin` piped in.
fn run_with(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// `render -` reads a multi-document stream on stdin (`kustomize build DIR | render -`):
/// the documents it does not own come out as their text; errors name `<stdin>`.
#[test]
fn render_of_stdin_reads_a_piped_stream() {
    let stream = format!(
        "# piped\n{PLUGIN_STREAM}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {{a: 0o10}}\n"
    );
    let out = run(&["render", "--trust-domain", "example.org", "-"], stream.as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: 0o10}\n"),
        "{stdout}"
    );
    assert!(stdout.contains("kind: ClusterSPIFFEID"), "{stdout}");
    let out = run(&["render", "--trust-domain", "example.org", "-"], b"a: [\n", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("<stdin>"), "{}", text(&out.stderr));
}

/// The counterpart of tests/integration/terminal.rs: not a terminal, the empty stdin of a
/// pipe is read, and refused as input.
#[test]
fn piped_input_is_still_read_as_before() {
    let out = Command::new(BIN).stdin(Stdio::null()).output().expect("the binary runs");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("stdin is a terminal"), "{}", text(&out.stderr));
}

/// `explain -o github` and `-o sarif` point at the line where the item at fault starts,
/// below the file's comment header and the comment above the item; the fingerprints do not
/// hang on the line.
#[test]
fn annotations_point_at_the_item_below_its_comments() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/explain-lines");
    let explain = |format: &str| {
        let out = Command::new(BIN)
            .current_dir(&dir)
            .args(["explain", "files", "--config", "config.yaml", "-o", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let github = explain("github");
    assert!(github.contains("::warning file=files/app.yaml,line=38,title=TargetPoolNotFound::"), "{github}");
    assert!(github.contains("file=files/app.yaml,line=22,title=WorkloadWithoutVariant::"), "{github}");
    let sarif: serde_json::Value = serde_json::from_str(&explain("sarif")).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let lines: Vec<_> = results
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_i64().unwrap())
        .collect();
    // The failing binding, the Deployment, then the findings about the binding of line 43
    // (NoMatchingWorkload, which also says what its entries do, and the model's class note).
    assert_eq!(lines, [38, 22, 43, 43]);
    assert_eq!(results[0]["ruleId"], "binding/TargetPoolNotFound");

    // The same items moved down by a blank line and a comment keep their fingerprints.
    let moved = tempdir("annotations-moved");
    std::fs::create_dir_all(moved.join("files")).unwrap();
    std::fs::copy(dir.join("config.yaml"), moved.join("config.yaml")).unwrap();
    let app = std::fs::read_to_string(dir.join("files/app.yaml")).unwrap();
    std::fs::write(moved.join("files/app.yaml"), format!("# moved\n\n{app}")).unwrap();
    let out = Command::new(BIN)
        .current_dir(&moved)
        .args(["explain", "files", "--config", "config.yaml", "-o", "sarif"])
        .output()
        .unwrap();
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fingerprints = |log: &serde_json::Value| -> Vec<serde_json::Value> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(fingerprints(&again), fingerprints(&sarif));
    assert_eq!(again["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 40);
    std::fs::remove_dir_all(&moved).unwrap();
}

fn tempdir(label: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rii-cli-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `diff` keeps exit status 2 for "differs": bad flags, missing sides, two sides on
/// standard input and a report that cannot serve as a base all exit 1.
#[test]
fn diff_exits_1_on_everything_but_a_difference() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff-label-grants");
    let diff = |args: &[&str], stdin: &[u8]| {
        let mut cmd = Command::new(BIN);
        cmd.current_dir(&case)
            .arg("diff")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    };
    let config = ["--config", "config.yaml"];
    for (args, says) in [
        (vec!["base", "head", "--no-such-flag"], "--no-such-flag"),
        (vec!["base", "head", "-o", "yaml"], "yaml"),
        (vec!["base"], "<HEAD>"),
        (vec!["base", "no-such-folder", "--config", "config.yaml"], "no-such-folder"),
        (vec!["-", "-", "--config", "config.yaml"], "at most one side"),
    ] {
        let out = diff(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(says), "{args:?}: {}", text(&out.stderr));
    }
    let stale = diff(&["-", "head", "--config", "config.yaml"], br#"{"bindings": [], "findings": []}"#);
    assert_eq!(stale.status.code(), Some(1));
    assert!(
        text(&stale.stderr).contains(
            "-: a saved explain report, but missing field `config`: save it again with `explain -o json`"
        ),
        "{}",
        text(&stale.stderr)
    );
    // A report that is not one is refused naming the field, never read as nothing there.
    for (report, field) in [
        (&br#"{"bindings":[{"foo":1}],"reach":[{"bar":2}],"findings":[{"x":1}]}"#[..], "bindings[0].foo"),
        (br#"{"config":null,"bindings":[],"workloads":[],"findings":[],"reach":[{"apiVersion":"v1","kind":"Pod","namespace":null,"name":"p","spiffeIDs":"zz"}]}"#, "reach[0].spiffeIDs"),
    ] {
        let out = diff(&["-", "head", "--config", "config.yaml"], report);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(field), "{field}: {}", text(&out.stderr));
    }
    // Without a trust domain a side cannot render, as render says: an error, not a change.
    let untrusted = diff(&["base", "head"], b"");
    assert_eq!(untrusted.status.code(), Some(1), "{}", text(&untrusted.stderr));
    assert!(
        text(&untrusted.stderr).contains("error: base: trustDomain is required"),
        "{}",
        text(&untrusted.stderr)
    );
    // A file side's own error names it once; a file past the input limit is never read.
    let scratch = tempdir("diff-file-side");
    std::fs::write(scratch.join("base.yaml"), "kind: [\n").unwrap();
    let broken = diff(&[scratch.join("base.yaml").to_str().unwrap(), "head", "--config", "config.yaml"], b"");
    assert_eq!(broken.status.code(), Some(1));
    let first_line = text(&broken.stderr).lines().next().unwrap_or_default().to_string();
    assert_eq!(first_line.matches("base.yaml").count(), 1, "{}", text(&broken.stderr));
    let huge = std::fs::File::create(scratch.join("huge.yaml")).unwrap();
    huge.set_len(render_inference_identity::yaml::MAX_INPUT_BYTES as u64 + 1).unwrap();
    let over = diff(&[scratch.join("huge.yaml").to_str().unwrap(), "head", "--config", "config.yaml"], b"");
    assert_eq!(over.status.code(), Some(1));
    assert!(text(&over.stderr).contains("over the limit of"), "{}", text(&over.stderr));
    // A side on standard input is read as a stream, and the same version is no change.
    let mut all = Vec::new();
    for file in ["pools.yaml", "workloads.yaml", "bindings.yaml"] {
        all.extend(std::fs::read(case.join("base").join(file)).unwrap());
        all.extend(b"---\n");
    }
    let same = diff(&[&["base", "-"][..], &config[..]].concat(), &all);
    assert_eq!(same.status.code(), Some(0), "{}{}", text(&same.stdout), text(&same.stderr));
    let grants = diff(&[&["-", "head", "--fail-on", "grant"][..], &config[..]].concat(), &all);
    assert_eq!(grants.status.code(), Some(2), "{}", text(&grants.stderr));
    // Annotations point at lines of HEAD's manifests, which a saved report does not have.
    let report = Command::new(BIN)
        .current_dir(&case)
        .args(["explain", "-o", "json", "head"])
        .args(config)
        .output()
        .unwrap();
    let saved_head = diff(&[&["base", "-", "-o", "github"][..], &config[..]].concat(), &report.stdout);
    assert_eq!(saved_head.status.code(), Some(1));
    assert!(text(&saved_head.stderr).contains("a saved report has none"), "{}", text(&saved_head.stderr));
    let help = diff(&["--help"], b"");
    assert_eq!(help.status.code(), Some(0));
}

/// docs/reference.md#diff: a report saved before reports said what pods may hold
/// (`workloads[].mayHold`) is read as holding none as BASE, which makes a possible grant
/// show, and is refused as HEAD, whose possible grants it cannot say; as saved now, either
/// side sees them.
#[test]
fn a_report_saved_before_may_hold_serves_as_base_but_not_as_head() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff-may-grant");
    let run = |args: &[&str], stdin: &[u8]| {
        let mut child = Command::new(BIN)
            .current_dir(&case)
            .args(args)
            .args(["--config", "config.yaml"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    };
    let saved = |side: &str| {
        let report = run(&["explain", "-o", "json", side], b"");
        assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
        let now = report.stdout;
        let mut old: serde_json::Value = serde_json::from_slice(&now).unwrap();
        for w in old["workloads"].as_array_mut().unwrap() {
            assert!(w.as_object_mut().unwrap().remove("mayHold").is_some());
        }
        (now, old.to_string().into_bytes())
    };
    let ((base_now, base_old), (head_now, head_old)) = (saved("base"), saved("head"));
    let grant =
        |base: &str, head: &str, stdin: &[u8]| run(&["diff", base, head, "--fail-on", "grant"], stdin);
    for base in [&base_now, &base_old] {
        let out = grant("-", "head", base);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("may gain  spiffe://example.org/staging/llama"),
            "{}",
            text(&out.stdout)
        );
    }
    let out = grant("base", "-", &head_now);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // HEAD against its own report: no change as saved now; saved before, what HEAD may hold
    // shows as a possible grant, never as nothing.
    assert_eq!(grant("-", "head", &head_now).status.code(), Some(0));
    assert_eq!(grant("-", "head", &head_old).status.code(), Some(2));
    let out = grant("base", "-", &head_old);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("-: a saved explain report without workloads[].mayHold"),
        "{}",
        text(&out.stderr)
    );
}

/// docs/review.md: a baseline report committed at the repository root under a hidden name is
/// out of the way of `explain .`, and serves as the base; inside the manifests folder it
/// stops the run, as the page says.
#[test]
fn a_baseline_report_beside_the_manifests_folder_is_left_alone() {
    let repo = tempdir("baseline-report");
    let manifests = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff-label-grants/base");
    std::fs::create_dir_all(repo.join("deploy")).unwrap();
    for file in ["pools.yaml", "workloads.yaml", "bindings.yaml"] {
        std::fs::copy(manifests.join(file), repo.join("deploy").join(file)).unwrap();
    }
    let in_repo = |args: &[&str]| {
        Command::new(BIN)
            .current_dir(&repo)
            .args(args)
            .args(["--trust-domain", "example.org"])
            .output()
            .unwrap()
    };
    let report = in_repo(&["explain", "deploy", "-o", "json"]);
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    std::fs::write(repo.join(".identities.json"), &report.stdout).unwrap();
    let whole = in_repo(&["explain", "."]);
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
    let same = in_repo(&["diff", ".identities.json", "deploy"]);
    assert_eq!(same.status.code(), Some(0), "{}{}", text(&same.stdout), text(&same.stderr));
    std::fs::write(repo.join("deploy/identities.json"), &report.stdout).unwrap();
    let inside = in_repo(&["explain", "deploy"]);
    assert_eq!(inside.status.code(), Some(1));
    assert!(
        text(&inside.stderr).contains("identities.json (document 1): not a Kubernetes object"),
        "{}",
        text(&inside.stderr)
    );
}

/// `explain` exits as `render` would: without a trust domain, 1 with the error.
#[test]
fn explain_without_a_trust_domain_is_an_error_as_render_is() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff-label-grants/base");
    for mode in ["render", "explain"] {
        let out = run(&[mode, base.to_str().unwrap()], b"", &[]);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("error: trustDomain is required"),
            "{mode}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{mode}");
    }
}

#[test]
fn an_empty_pipe_is_an_error_not_a_clean_result() {
    // `kubectl kustomize broken | render-inference-identity explain -` without pipefail: the
    // first command fails, this one reads nothing, and must not report "Findings: none".
    for mode in ["render", "explain"] {
        for stdin in [&b""[..], b"# only a comment\n---\n"] {
            let out = run(&[mode, "-", "--trust-domain", "example.org"], stdin, &[]);
            assert_eq!(out.status.code(), Some(1), "{mode}: {}", text(&out.stdout));
            assert_eq!(text(&out.stdout), "", "{mode}");
            let err = text(&out.stderr);
            assert!(err.contains("<stdin> holds no YAML document") && err.contains("pipefail"), "{err}");
        }
    }
}

#[test]
fn explain_fails_on_a_stale_output_under_failure_policy_fail() {
    let files = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/explain-stale-overlay/files");
    let files = files.to_str().unwrap();
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/explain-stale-overlay/config.yaml");
    let config = config.to_str().unwrap();
    let report = run(&["explain", "--config", config, files], b"", &[]);
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    assert!(text(&report.stdout).contains("; 2 stale output(s) in the input (StaleOutput below)"));
    let gate = run(&["explain", "--config", config, "--failure-policy", "Fail", files], b"", &[]);
    assert_eq!(gate.status.code(), Some(1), "{}", text(&gate.stdout));
}

#[test]
fn explain_under_failure_policy_fail_fails_on_a_failing_binding_only() {
    let case = |name: &str| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name);
        let (config, files) = (dir.join("config.yaml"), dir.join("files"));
        let args = ["explain", "--failure-policy", "Fail", "--config", config.to_str().unwrap()];
        let out = run(&[&args[..], &[files.to_str().unwrap()]].concat(), b"", &[]);
        (out.status.code(), text(&out.stdout))
    };
    // Every binding ready, nothing stale, no error finding: the gate passes.
    let (code, report) = case("explain-spire-prefill-decode");
    assert!(report.contains("Bindings: 2, 2 ready, 0 failing"), "{report}");
    assert!(!report.contains("stale") && !report.contains("error"), "{report}");
    assert_eq!(code, Some(0), "{report}");
    // One binding of two fails: the gate fails.
    let (code, report) = case("explain-failing-binding");
    assert!(report.contains("1 failing"), "{report}");
    assert_eq!(code, Some(1), "{report}");
}

/// The staging-copy case's manifests as one stream.
fn staging_copy() -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/explain-spire-staging-copy/files");
    ["prod.yaml", "staging.yaml", "spire.yaml"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect::<Vec<_>>()
        .join("---\n")
        .into_bytes()
}

#[test]
fn selector_scope_and_the_spire_manager_come_from_flags_and_argocd_variables() {
    let render = |args: &[&str], env: &[(&str, &str)]| {
        let mut all = vec!["render", "-", "--trust-domain", "example.org"];
        all.extend_from_slice(args);
        run(&all, &staging_copy(), env)
    };
    let pool = render(&[], &[]);
    assert_eq!(pool.status.code(), Some(0), "{}", text(&pool.stderr));
    assert!(!text(&pool.stdout).contains("namespaceSelector"), "Pool is the operator's object");
    assert!(
        text(&pool.stderr).contains("FallbackShadowed: Deployment staging/prefill"),
        "{}",
        text(&pool.stderr)
    );

    let binding = render(&[], &[("ARGOCD_ENV_SELECTOR_SCOPE", "Binding")]);
    assert_eq!(binding.status.code(), Some(0), "{}", text(&binding.stderr));
    assert!(text(&binding.stdout).contains("kubernetes.io/metadata.name: prod"), "{}", text(&binding.stdout));
    assert!(!text(&binding.stderr).contains("FallbackShadowed"), "{}", text(&binding.stderr));

    // The output has no class; a manager of a class that does not watch classless objects ignores it.
    let ignored = render(
        &["--spire-class-name", "spire-system-spire"],
        &[("ARGOCD_ENV_SPIRE_WATCH_CLASSLESS", "false")],
    );
    assert!(
        text(&ignored.stderr).contains("warning: IgnoredBySpire: ClusterSPIFFEID"),
        "{}",
        text(&ignored.stderr)
    );
    let watched =
        render(&["--spire-class-name", "spire-system-spire", "--spire-watch-classless", "true"], &[]);
    assert!(!text(&watched.stderr).contains("IgnoredBySpire"), "{}", text(&watched.stderr));

    let prod_ignored =
        render(&["--spire-class-name", "x"], &[("ARGOCD_ENV_SPIRE_IGNORE_NAMESPACES", "^prod$")]);
    assert!(
        text(&prod_ignored.stderr).contains("which SPIRE Controller Manager ignores"),
        "{}",
        text(&prod_ignored.stderr)
    );

    let bad = render(&["--spire-ignore-namespaces", "kube-system,(x"], &[]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("--spire-ignore-namespaces (ARGOCD_ENV_SPIRE_IGNORE_NAMESPACES)[1]"),
        "{}",
        text(&bad.stderr)
    );
    let scope = render(&["--selector-scope", "Namespace"], &[]);
    assert_eq!(scope.status.code(), Some(1));
    assert!(text(&scope.stderr).contains("\"Namespace\" is not Pool or Binding"), "{}", text(&scope.stderr));
}

/// A binding inside a `kind: List` is refused by every mode that reads files, naming the file,
/// the List's item and what to do; `discover` lists the file, so Argo CD routes it to the
/// plugin, which then says so. A List holding none of the kinds read is no binding's file.
#[test]
fn a_list_holding_a_binding_is_refused_by_every_files_mode_and_discovered() {
    let dir = tempdir("list");
    let binding = PLUGIN_STREAM.split("---\n").nth(1).unwrap();
    let pool = PLUGIN_STREAM.split("---\n").next().unwrap();
    let indented: String = binding.lines().map(|line| format!("    {line}\n")).collect();
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n  -\n{indented}"
    );
    std::fs::write(dir.join("pool.yaml"), pool).unwrap();
    std::fs::write(
        dir.join("settings.yaml"),
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n",
    )
    .unwrap();
    std::fs::write(dir.join("wrapped.yaml"), list).unwrap();
    let path = dir.to_str().unwrap();
    let want = "wrapped.yaml (document 1): List holds kleym.sonda.red/v1alpha1 InferenceIdentityBinding as its own \
                items[1]: ";
    let advice = "split the List: write each of its items as its own document";
    for args in [vec!["render", path], vec!["explain", path], vec!["diff", path, path]] {
        let out = run(&[&args[..], &["--trust-domain", "example.org"]].concat(), b"", &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        assert!(stderr.contains(want) && stderr.contains(advice), "{args:?}: {stderr}");
    }
    let found = run(&["discover", path], b"", &[]);
    assert_eq!(found.status.code(), Some(0), "{}", text(&found.stderr));
    let listed: Vec<String> = text(&found.stdout).lines().map(str::to_string).collect();
    assert_eq!(
        listed,
        [dir.join("wrapped.yaml").to_str().unwrap()],
        "the List of ConfigMaps holds no binding"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `render a.yaml - b.yaml` writes the documents in the order given: the first file's,
/// standard input's where `-` stands, then the next file's.
#[test]
fn render_writes_standard_input_where_the_dash_stands() {
    let dir = tempdir("dash-order");
    let map = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n");
    std::fs::write(dir.join("a.yaml"), map("a")).unwrap();
    std::fs::write(dir.join("b.yaml"), map("b")).unwrap();
    let order = |args: &[&str]| {
        let mut cmd = Command::new(BIN);
        cmd.args(["render", "--trust-domain", "example.org"]).args(args).current_dir(&dir);
        let out = run_with(&mut cmd, map("piped").as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let names: Vec<String> = stdout
            .lines()
            .filter_map(|l| l.strip_prefix("metadata: {name: ")?.strip_suffix('}'))
            .map(String::from)
            .collect();
        names
    };
    assert_eq!(order(&["a.yaml", "-", "b.yaml"]), ["a", "piped", "b"]);
    assert_eq!(order(&["-", "a.yaml", "b.yaml"]), ["piped", "a", "b"]);
    assert_eq!(order(&["b.yaml", "a.yaml", "-"]), ["b", "a", "piped"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A Kptfile in the stream (`kpt fn source | render -`) configures the package and is left
/// out of what render writes; an object of another API that is only named Kptfile, and
/// another kind of kpt's API, are objects like any other and come out as they came.
#[test]
fn render_leaves_out_kpts_own_kptfile_only() {
    let stream = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: package}\n---\n\
                  apiVersion: example.com/v1\nkind: Kptfile\nmetadata: {name: other-api}\n---\n\
                  apiVersion: kpt.dev/v1\nkind: Other\nmetadata: {name: other-kind}\n";
    let out = run(&["render", "--trust-domain", "example.org", "-"], stream.as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("name: package"), "{stdout}");
    assert!(
        stdout.contains("apiVersion: example.com/v1\nkind: Kptfile\nmetadata: {name: other-api}\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("apiVersion: kpt.dev/v1\nkind: Other\nmetadata: {name: other-kind}\n"),
        "{stdout}"
    );
}

#[test]
fn the_readmes_first_commands_run_on_the_shipped_example() {
    // The README's first lines: explain and render on examples/prefill-decode, whose
    // .expected/ outputs kpt passes over (hidden), as the folder walk does; and diff of the
    // example against itself, which changes nothing.
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/prefill-decode");
    for mode in ["explain", "render"] {
        let out = run(&[mode, example, "--trust-domain", "example.org"], b"", &[]);
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("kleym-serving-llama-prefill-pool-ec7eebba"), "{mode}");
    }
    let out =
        run(&["diff", example, example, "--trust-domain", "example.org", "--fail-on", "grant"], b"", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn the_kserve_example_binds_the_pods_kserve_will_make() {
    // examples/kserve-prefill-decode holds a KServe LLMInferenceService and no pool or pod: each
    // binding resolves to the pool KServe will create and reaches its own derived model server.
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/kserve-prefill-decode");
    let out = run(&["explain", example, "--trust-domain", "example.org"], b"", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("Bindings: 2, 2 ready, 0 failing, 2 reaching pod templates of the input"),
        "{report}"
    );
    for (variant, account) in [("decode", "qwen-pd-kserve"), ("prefill", "qwen-pd-prefill")] {
        let id = format!(
            "spiffe://example.org/ns/serving/sa/{account}/inference/pool/qwen-pd-inference-pool/variant/{variant}"
        );
        let held = format!("LLMInferenceService serving/qwen-pd ({variant})\n  SVIDs            {id}\n");
        assert!(report.contains(&held), "{variant}: {report}");
    }
    let rendered = run(&["render", example, "--trust-domain", "example.org"], b"", &[]);
    assert_eq!(rendered.status.code(), Some(0), "{}", text(&rendered.stderr));
    let stream = text(&rendered.stdout);
    assert_eq!(stream.matches("kind: ClusterSPIFFEID").count(), 2, "{stream}");
    assert!(
        stream.contains("the one KServe creates at run time for LLMInferenceService serving/qwen-pd"),
        "{stream}"
    );
    assert!(!stream.contains("kind: InferencePool"), "a derived pool is never written out");
}

/// A workload that names no namespace lands where the Argo CD application's destination
/// (`ARGOCD_APP_NAMESPACE`) puts it: away from the binding's namespace it grants nothing,
/// and a name that is no namespace is refused naming the variable.
#[test]
fn argo_cds_destination_namespace_places_namespaceless_workloads() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff-namespace-unset-may-grant");
    let config = case.join("config.yaml");
    let diff = |namespace: &str| {
        let (base, head) = (case.join("base"), case.join("head"));
        let args = ["diff", base.to_str().unwrap(), head.to_str().unwrap(), "--fail-on", "grant", "--config"];
        let args: Vec<&str> = args.into_iter().chain([config.to_str().unwrap()]).collect();
        run(&args, b"", &[("ARGOCD_APP_NAMESPACE", namespace)])
    };
    let elsewhere = diff("batch");
    assert_eq!(elsewhere.status.code(), Some(0), "{}{}", text(&elsewhere.stdout), text(&elsewhere.stderr));
    let beside = diff("serving");
    assert_eq!(beside.status.code(), Some(2), "{}", text(&beside.stderr));
    assert!(text(&beside.stdout).contains("gains  spiffe://"), "{}", text(&beside.stdout));
    let wrong = diff("Serving");
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        text(&wrong.stderr)
            .contains("--namespace (ARGOCD_APP_NAMESPACE) \"Serving\" is not a namespace name"),
        "{}",
        text(&wrong.stderr)
    );
}

/// `--admission-guard` alone turns the guard on to deny, and leaves the path after it a path;
/// a value goes after `=`, and Argo CD's parameter gives the same setting.
#[test]
fn the_admission_guard_flag_stands_alone_or_takes_its_action_after_an_equals_sign() {
    let files = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/guard-render/files");
    let actions = |args: &[&str], env: &[(&str, &str)]| {
        let mut all = vec!["render", "--trust-domain", "example.org"];
        all.extend_from_slice(args);
        let out = run(&all, b"", env);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        stdout
            .split("validationActions:\n  - ")
            .skip(1)
            .map(|rest| rest.lines().next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(actions(&["--admission-guard", files], &[]), ["Deny", "Deny"]);
    assert_eq!(actions(&["--admission-guard=Warn", files], &[]), ["Warn", "Warn"]);
    assert_eq!(actions(&[files], &[("PARAM_ADMISSION_GUARD", "Warn")]), ["Warn", "Warn"]);
    assert!(actions(&[files], &[]).is_empty(), "off unless asked for");
    let out = run(&["render", "--trust-domain", "example.org", "--admission-guard=deny", files], b"", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("\"deny\" is not Deny or Warn"), "{}", text(&out.stderr));
}

/// A namespace whose guard parameters pass `SHARD_BYTES` is cut into several ConfigMaps, by
/// identity. A pull request that only removes workloads can move an identity's entry from one
/// to another; an applier that prunes first (Argo CD) then leaves a moment when neither holds
/// it, and the guard admits any pod with its labels. The gate says so; a removal that moves no
/// entry passes.
#[test]
fn an_identity_entry_moved_between_guard_parameters_weakens_the_guard() {
    let side = |dir: &Path, big: usize| {
        std::fs::create_dir_all(dir).unwrap();
        let deployment = |name: &str, app: &str, account: &str, variant: &str| {
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: serving}}\nspec:\n  \
                 selector: {{matchLabels: {{app: {app}, identity.kleym.sonda.red/variant: {variant}}}}}\n  template:\n    \
                 metadata: {{labels: {{app: {app}, identity.kleym.sonda.red/variant: {variant}}}}}\n    spec:\n      \
                 serviceAccountName: {account}\n      containers: [{{name: vllm, image: vllm}}]\n"
            )
        };
        let mut docs = vec!["apiVersion: v1\nkind: Namespace\nmetadata: {name: serving}\n".to_string()];
        for (pool, account, variant) in [("big", "aaa", "a"), ("llama", "llama", "x")] {
            docs.push(format!(
                "apiVersion: inference.networking.k8s.io/v1\nkind: InferencePool\nmetadata: {{name: {pool}, \
                 namespace: serving}}\nspec:\n  selector: {{matchLabels: {{app: {pool}}}}}\n  targetPorts: [{{number: \
                 8000}}]\n  endpointPickerRef: {{name: epp, port: {{number: 9002}}}}\n"
            ));
            docs.push(format!(
                "apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: {account}, namespace: serving}}\n"
            ));
            docs.push(format!(
                "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata: {{name: {pool}-{variant}, \
                 namespace: serving}}\nspec: {{poolRef: {{name: {pool}}}, serviceAccountName: {account}, \
                 identityBoundary: {{variant: {variant}}}}}\n"
            ));
        }
        docs.push(deployment("xdep", "llama", "llama", "x"));
        let pad = "p".repeat(180);
        docs.extend((0..big).map(|i| deployment(&format!("big-{i:05}-{pad}"), "big", "aaa", "a")));
        std::fs::write(dir.join("app.yaml"), docs.join("---\n")).unwrap();
    };
    let dir = tempdir("guard-shards");
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        "apiVersion: fn.kleym.sonda.red/v1alpha1\nkind: RenderInferenceIdentity\nmetadata: {name: c}\n\
         spec: {trustDomain: example.org, admissionGuard: {}}\n",
    )
    .unwrap();
    let gate = |base: usize, head: usize| {
        let (b, h) = (dir.join(format!("base-{base}")), dir.join(format!("head-{head}")));
        side(&b, base);
        side(&h, head);
        let (b, h, c) = (b.to_str().unwrap(), h.to_str().unwrap(), config.to_str().unwrap());
        run(&["diff", b, h, "--config", c, "--fail-on", "grant"], b"", &[])
    };
    let moved = gate(1950, 1948);
    assert_eq!(moved.status.code(), Some(2), "{}{}", text(&moved.stdout), text(&moved.stderr));
    assert!(
        text(&moved.stdout).contains(
            "serving/llama-x: its identity's entry moves from the guard's parameters kleym-admission-guard-serving.2 \
             to kleym-admission-guard-serving"
        ),
        "{}",
        text(&moved.stdout)
    );
    let kept = gate(1948, 1946);
    assert_eq!(kept.status.code(), Some(0), "{}{}", text(&kept.stdout), text(&kept.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
