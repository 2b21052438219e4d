//! The real kpt (1.0.0-beta) running the binary as an exec function, on packages built in
//! temp folders from the shipped configs under fn-config/.

use crate::common::*;
use std::path::Path;
use std::process::{Command, Output};

fn kpt(args: &[&str], envs: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut cmd = Command::new(require_tool("kpt"));
    cmd.args(args);
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    for (key, value) in envs {
        cmd.env(key, value);
    }
    cmd.output().expect("kpt starts")
}

fn render(package: &Path) -> Output {
    kpt(&["fn", "render", "--allow-exec", package.to_str().unwrap()], &[])
}

/// Everything kpt printed (it reports function results on stderr).
fn kpt_text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// The shipped typed functionConfig with its trust domain and failure policy set.
fn fn_config(trust_domain: &str, failure_policy: &str) -> String {
    let text = repo_file("fn-config/render-inference-identity.yaml");
    let text = replace_once(&text, "trustDomain: example.org", &format!("trustDomain: {trust_domain}"));
    replace_once(&text, "failurePolicy: Report", &format!("failurePolicy: {failure_policy}"))
}

/// The shipped Kptfile with the binary's absolute path in place of the PATH lookup.
fn kptfile() -> String {
    replace_once(
        &repo_file("fn-config/kpt/Kptfile"),
        "exec: render-inference-identity",
        &format!("exec: {BIN}"),
    )
}

/// A binding with comments and a non-alphabetical field order, as a user writes it.
const COMMENTED_BINDING: &str = "\
# Identities of the serving team.
apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata:
  namespace: serving # the namespace before the name
  name: llama-prefill
spec:
  serviceAccountName: llama # the model server's account
  poolRef:
    name: llama
  identityBoundary:
    variant: prefill
";

/// A pool with comments and `kind` before `apiVersion`.
const COMMENTED_POOL: &str = "\
# The pool of the model servers.
kind: InferencePool
apiVersion: inference.networking.k8s.io/v1
metadata:
  name: llama
  namespace: serving
spec:
  targetPorts:
  - number: 8000
  selector:
    matchLabels:
      app: llama # the model server pods
";

/// A package: the shipped Kptfile (absolute exec path), the shipped functionConfig as
/// identity-config.yaml, and `inference.yaml` holding the commented binding and pool.
fn package(tmp: &TempDir, failure_policy: &str) -> std::path::PathBuf {
    tmp.write("pkg/Kptfile", &kptfile());
    tmp.write("pkg/identity-config.yaml", &fn_config("example.org", failure_policy));
    tmp.write("pkg/inference.yaml", &format!("{COMMENTED_BINDING}---\n{COMMENTED_POOL}"));
    tmp.join("pkg")
}

fn output_file(package: &Path, name: &str) -> std::path::PathBuf {
    package.join("clusterspiffeids").join(format!("{name}.yaml"))
}

/// The package's llama-prefill binding rendered with trust domain example.org: its output in
/// the default file, and the binding in inference.yaml reconciled.
fn assert_llama_prefill_rendered(pkg: &Path) {
    let path = output_file(pkg, LLAMA_PREFILL_OUTPUT);
    assert_eq!(assert_cluster_spiffe_id_file(&path, "llama-prefill", "example.org"), LLAMA_PREFILL_OUTPUT);
    assert_binding_reconciled(&pkg.join("inference.yaml"));
}

/// Checks an output file written by kpt: one managed ClusterSPIFFEID for `binding` with
/// the SPIFFE ID of `trust_domain`, in a file named after it, and no kpt bookkeeping
/// annotations left in it. Returns its name.
fn assert_cluster_spiffe_id_file(path: &Path, binding: &str, trust_domain: &str) -> String {
    let text = read(path);
    let docs = documents(&text);
    assert_eq!(docs.len(), 1, "{}:\n{text}", path.display());
    let id = &docs[0];
    assert_eq!(id["apiVersion"], "spire.spiffe.io/v1alpha1", "{text}");
    assert_eq!(id["kind"], "ClusterSPIFFEID", "{text}");
    assert_eq!(id["metadata"]["labels"]["kleym.sonda.red/binding-name"], binding, "{text}");
    assert_eq!(id["metadata"]["annotations"]["kleym.sonda.red/rendered-by"], "render-inference-identity");
    let spiffe_id = id["spec"]["spiffeIDTemplate"].as_str().unwrap_or_default();
    assert!(spiffe_id.starts_with(&format!("spiffe://{trust_domain}/ns/serving/sa/")), "{text}");
    assert!(
        !text.contains("config.kubernetes.io/"),
        "kpt bookkeeping leaked into {}:\n{text}",
        path.display()
    );
    let name = id["metadata"]["name"].as_str().expect("a name").to_string();
    assert_eq!(path.file_name().and_then(|n| n.to_str()), Some(format!("{name}.yaml").as_str()));
    name
}

/// The one file under `clusterspiffeids/` (the name hashes the trust domain too).
fn only_output(package: &Path) -> std::path::PathBuf {
    let outputs: Vec<String> =
        file_list(package).into_iter().filter(|p| p.starts_with("clusterspiffeids/")).collect();
    assert_eq!(outputs.len(), 1, "{:?}", file_list(package));
    package.join(&outputs[0])
}

/// Checks the binding in `file` has a Ready status naming `trust_domain` and `output`.
fn assert_binding_reconciled_as(file: &Path, trust_domain: &str, output: &str) {
    let text = read(file);
    let docs = documents(&text);
    let bindings = of_kind(&docs, "InferenceIdentityBinding");
    assert_eq!(bindings.len(), 1, "{text}");
    assert_eq!(condition_reason(bindings[0], "Ready"), Some("Reconciled"), "{text}");
    assert_eq!(bindings[0]["status"]["trustDomain"], trust_domain, "{text}");
    assert_eq!(bindings[0]["status"]["renderedClusterSPIFFEID"]["name"], output, "{text}");
}

/// Checks the binding in `file` is reconciled as the output of `serving/llama-prefill`
/// under trust domain `example.org`.
fn assert_binding_reconciled(file: &Path) {
    assert_binding_reconciled_as(file, "example.org", LLAMA_PREFILL_OUTPUT);
}

#[test]
fn eval_with_the_typed_fn_config_writes_the_output_file_and_the_status() {
    let tmp = TempDir::new("kpt-eval-typed");
    let config = tmp.write("config/identity.yaml", &fn_config("prod.example.net", "Report"));
    let pkg = tmp.join("pkg");
    write(
        &pkg.join("inference.yaml"),
        &format!("{}---\n{}", pool("llama"), binding("llama-prefill", "llama", "prefill")),
    );

    let out = kpt(
        &["fn", "eval", pkg.to_str().unwrap(), "--exec", BIN, "--fn-config", config.to_str().unwrap()],
        &[],
    );
    assert_success(&out);
    assert_eq!(file_list(&pkg).len(), 2, "{:?}\n{}", file_list(&pkg), kpt_text(&out));
    let name = assert_cluster_spiffe_id_file(&only_output(&pkg), "llama-prefill", "prod.example.net");
    assert_binding_reconciled_as(&pkg.join("inference.yaml"), "prod.example.net", &name);
}

#[test]
fn eval_with_the_shipped_configmap_fn_config_renders() {
    let tmp = TempDir::new("kpt-eval-configmap");
    let config = tmp.write("config/configmap.yaml", &repo_file("fn-config/configmap.yaml"));
    let pkg = tmp.join("pkg");
    write(
        &pkg.join("inference.yaml"),
        &format!("{}---\n{}", pool("llama"), binding("llama-prefill", "llama", "prefill")),
    );

    let out = kpt(
        &["fn", "eval", pkg.to_str().unwrap(), "--exec", BIN, "--fn-config", config.to_str().unwrap()],
        &[],
    );
    assert_success(&out);
    assert_llama_prefill_rendered(&pkg);
}

#[test]
fn eval_with_key_value_arguments_renders_from_the_function_input_configmap() {
    let tmp = TempDir::new("kpt-eval-args");
    let pkg = tmp.join("pkg");
    write(&pkg.join("pool.yaml"), &pool("llama"));
    write(&pkg.join("bindings/prefill.yaml"), &binding("llama-prefill", "llama", "prefill"));

    let out =
        kpt(&["fn", "eval", pkg.to_str().unwrap(), "--exec", BIN, "--", "trustDomain=kv.example.org"], &[]);
    assert_success(&out);
    assert_eq!(file_list(&pkg).len(), 3, "{:?}\n{}", file_list(&pkg), kpt_text(&out));
    let name = assert_cluster_spiffe_id_file(&only_output(&pkg), "llama-prefill", "kv.example.org");
    assert_binding_reconciled_as(&pkg.join("bindings/prefill.yaml"), "kv.example.org", &name);
    assert_eq!(read(&pkg.join("pool.yaml")), pool("llama"), "a pool is passed through untouched");
}

#[test]
fn render_writes_outputs_and_status_and_keeps_comments_and_field_order() {
    let tmp = TempDir::new("kpt-render");
    let pkg = package(&tmp, "Report");
    let before = snapshot(&pkg);

    let out = render(&pkg);
    assert_success(&out);
    assert_eq!(
        file_list(&pkg),
        [
            "Kptfile".to_string(),
            format!("clusterspiffeids/{LLAMA_PREFILL_OUTPUT}.yaml"),
            "identity-config.yaml".to_string(),
            "inference.yaml".to_string()
        ],
        "{}",
        kpt_text(&out)
    );
    assert_llama_prefill_rendered(&pkg);

    // The user's documents come back as written (comments, field order), the binding with
    // its status appended and nothing else changed.
    let text = read(&pkg.join("inference.yaml"));
    assert!(text.starts_with(COMMENTED_BINDING), "binding document changed:\n{text}");
    let pool_document = format!("---\n{COMMENTED_POOL}");
    assert!(text.ends_with(&pool_document), "pool document changed:\n{text}");
    let status = &text[COMMENTED_BINDING.len()..text.len() - pool_document.len()];
    assert!(status.starts_with("status:\n  conditions:\n"), "{text}");
    assert_eq!(before.len() + 1, snapshot(&pkg).len());
}

/// `text` without the top-level `status:` entries of its documents (kpt writes documents at
/// column 0): what a render may change in a binding's file.
fn without_status(text: &str) -> String {
    let mut out = String::new();
    let mut in_status = false;
    for line in text.split_inclusive('\n') {
        let top = line.bytes().next().is_some_and(|b| b != b' ' && b != b'\n');
        if top {
            in_status = line.starts_with("status:");
        }
        if !in_status {
            out.push_str(line);
        }
    }
    out
}

/// Renders a package of `files` twice: through the function (the shipped Kptfile and
/// config) and through `exec: cat`, kpt's no-op; returns both packages after the render.
fn rendered_beside_cat(label: &str, files: &[(String, String)]) -> (TempDir, Snapshot, Snapshot) {
    let tmp = TempDir::new(label);
    let ours = package(&tmp, "Report");
    let cat = tmp.join("cat");
    for (name, text) in files {
        write(&ours.join(name), text);
    }
    for (name, bytes) in snapshot(&ours) {
        write(&cat.join(&name), &String::from_utf8(bytes).expect("UTF-8 files"));
    }
    write(&cat.join("Kptfile"), &replace_once(&kptfile(), &format!("exec: {BIN}"), "exec: cat"));
    assert_success(&render(&ours));
    assert_success(&render(&cat));
    let (ours_files, cat_files) = (snapshot(&ours), snapshot(&cat));
    (tmp, ours_files, cat_files)
}

type Snapshot = std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>;

/// Every file the no-op render left is byte for byte the file the function's render left,
/// bindings' status entries aside (and the Kptfile's function line); the function adds only
/// its outputs.
fn assert_as_cat_leaves_it(ours: &Snapshot, cat: &Snapshot) {
    let text = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).expect("UTF-8 files");
    for (path, cat_bytes) in cat {
        let mine = ours.get(path).unwrap_or_else(|| panic!("{} is gone", path.display()));
        let (mine, theirs) = (text(mine), text(cat_bytes));
        let theirs = if path == Path::new("Kptfile") {
            theirs.replace("exec: cat", &format!("exec: {BIN}"))
        } else {
            theirs
        };
        let (mine, theirs) = (without_status(&mine), without_status(&theirs));
        if mine != theirs {
            let line = mine.lines().zip(theirs.lines()).position(|(a, b)| a != b).map_or(0, |n| n + 1);
            panic!(
                "{} differs from the no-op render outside status (first at line {line}):\n--- function ---\n{mine}\n--- exec: cat ---\n{theirs}",
                path.display()
            );
        }
    }
    let added: Vec<_> = ours.keys().filter(|p| !cat.contains_key(*p)).collect();
    assert!(added.iter().all(|p| p.starts_with("clusterspiffeids")), "{added:?}");
}

/// Manifests with comments of every kind, flow and block collections, every quoting style,
/// block scalars holding `---` and `- ` lines, several documents with comments between
/// them, non-ASCII text; a binding with a stale status and one with flow style inside.
const STYLED: &str = "\
# head of the file
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: reader  # trailing
  namespace: serving
  labels: {team: \"serving\", tier: 'gpu'}
rules:
- apiGroups: [\"\"]
  resources: [\"pods\", configmaps]   # two
  verbs: [\"get\", \"list\"]
# between the documents
---
# head of the second
apiVersion: v1
kind: ConfigMap
metadata:
  name: notes
  namespace: serving
data:
  on: \"yes\"
  octal: 010
  date: \"2001-12-14\"
  note: |
    - not an entry
    ---
    not a marker
  folded: >-
    folded
    text
  unicode: \"ünïcode ✓\"
---
apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata:
  name: llama-decode
  namespace: serving
spec:
  poolRef: {name: llama}  # flow style
  serviceAccountName: \"llama\"
  identityBoundary:
    variant: decode   # the decode pods
status:
  conditions: []
  trustDomain: stale.example.org
# foot of the file
";

#[test]
fn a_render_leaves_every_file_as_a_no_op_render_does() {
    let files = [("styled.yaml".to_string(), STYLED.to_string())];
    let (_tmp, ours, cat) = rendered_beside_cat("kpt-as-cat", &files);
    assert_as_cat_leaves_it(&ours, &cat);
    let styled = String::from_utf8(ours[Path::new("styled.yaml")].clone()).unwrap();
    assert!(styled.contains("status:\n  conditions:\n  - lastTransitionTime:"), "{styled}");
    assert!(!styled.contains("stale.example.org"), "{styled}");
}

#[test]
fn a_render_of_the_real_manifests_leaves_them_as_a_no_op_render_does_and_a_second_changes_nothing() {
    let mut files = corpus::manifests();
    // Bindings for pools of each source.
    files.push(("bindings.yaml".to_string(), format!(
        "{}---\n{}",
        "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata:\n  name: primary\n  namespace: inference-conformance-app-backend\nspec:\n  poolRef:\n    name: primary-inference-pool\n  serviceAccountName: default\n  identityBoundary:\n    variant: prefill\n",
        "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata:\n  name: llama-decode\n  namespace: default\nspec:\n  poolRef: {name: llama}\n  serviceAccountName: llama-epp\n  identityBoundary: {variant: decode}\n",
    )));
    let (tmp, ours, cat) = rendered_beside_cat("kpt-corpus-as-cat", &files);
    assert_as_cat_leaves_it(&ours, &cat);
    assert!(ours.keys().any(|p| p.starts_with("clusterspiffeids")), "{:?}", ours.keys());
    let pkg = tmp.join("pkg");
    assert_success(&render(&pkg));
    assert_eq!(snapshot(&pkg), ours, "a second render changed a file");
}

/// The shipped kpt package, every file of fn-config/kpt/ (the .krmignore too), copied into
/// `pkg` as a user copies the folder whole.
fn copy_shipped_package(tmp: &TempDir) -> std::path::PathBuf {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("fn-config/kpt");
    let mut names: Vec<String> = std::fs::read_dir(&shipped)
        .expect("fn-config/kpt is a folder")
        .map(|e| e.expect("a folder entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [".krmignore", "Kptfile", "identity-config.yaml", "schema.json"],
        "the package changed"
    );
    for name in &names {
        tmp.write(&format!("pkg/{name}"), &read(&shipped.join(name)));
    }
    tmp.join("pkg")
}

#[test]
fn the_shipped_package_copied_whole_renders_twice_and_stays_as_it_was() {
    let tmp = TempDir::new("kpt-shipped-package");
    let pkg = copy_shipped_package(&tmp);
    tmp.write("pkg/inference.yaml", &format!("{COMMENTED_BINDING}---\n{COMMENTED_POOL}"));
    let shipped = snapshot(&pkg);

    // As the README says: the binary found on PATH, `kpt fn render --allow-exec`. kpt reads
    // .json files as resources: without the .krmignore, schema.json fails the render.
    let path = path_with_bin_dir();
    let out = kpt(&["fn", "render", "--allow-exec", pkg.to_str().unwrap()], &[("PATH", &path)]);
    assert_success(&out);
    assert_llama_prefill_rendered(&pkg);
    let first = snapshot(&pkg);
    // The package's own files are as shipped: kpt writes a comment after a Kptfile's last
    // list twice, so the Kptfile keeps its comments above; the config and schema are local.
    for name in [".krmignore", "Kptfile", "identity-config.yaml", "schema.json"] {
        let at = std::path::PathBuf::from(name);
        assert!(first[&at] == shipped[&at], "kpt rewrote the shipped {name}");
    }
    let out = kpt(&["fn", "render", "--allow-exec", pkg.to_str().unwrap()], &[("PATH", &path)]);
    assert_success(&out);
    assert_eq!(snapshot(&pkg), first, "a second render changed a file");

    // The same copy without the .krmignore: kpt refuses the schema, as it did before the
    // package shipped one.
    std::fs::remove_file(pkg.join(".krmignore")).unwrap();
    let out = kpt(&["fn", "render", "--allow-exec", pkg.to_str().unwrap()], &[("PATH", &path)]);
    assert!(!out.status.success(), "kpt read schema.json and succeeded:\n{}", kpt_text(&out));
    assert!(kpt_text(&out).contains("schema.json"), "{}", kpt_text(&out));
}

#[test]
fn render_honours_a_custom_output_path() {
    let tmp = TempDir::new("kpt-render-output-path");
    let pkg = package(&tmp, "Report");
    let config = replace_once(
        &read(&pkg.join("identity-config.yaml")),
        "outputPath: clusterspiffeids/{name}.yaml",
        "outputPath: spire/identities/{name}.yaml",
    );
    tmp.write("pkg/identity-config.yaml", &config);

    let out = render(&pkg);
    assert_success(&out);
    assert!(!pkg.join("clusterspiffeids").exists(), "{:?}", file_list(&pkg));
    let path = pkg.join(format!("spire/identities/{LLAMA_PREFILL_OUTPUT}.yaml"));
    assert_eq!(assert_cluster_spiffe_id_file(&path, "llama-prefill", "example.org"), LLAMA_PREFILL_OUTPUT);
}

#[test]
fn a_second_render_changes_no_file() {
    let tmp = TempDir::new("kpt-render-twice");
    let pkg = package(&tmp, "Report");
    tmp.write("pkg/more/decode.yaml", &binding("llama-decode", "llama", "decode"));

    assert_success(&render(&pkg));
    let first = snapshot(&pkg);
    assert_eq!(first.len(), 6, "{:?}", first.keys()); // Kptfile, config, 2 inputs, 2 outputs

    assert_success(&render(&pkg));
    let second = snapshot(&pkg);
    assert_eq!(first.keys().collect::<Vec<_>>(), second.keys().collect::<Vec<_>>());
    for (path, bytes) in &first {
        assert!(
            second[path] == *bytes,
            "{} changed on the second render:\n--- first ---\n{}\n--- second ---\n{}",
            path.display(),
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&second[path])
        );
    }
}

#[test]
fn removing_a_binding_from_its_file_removes_its_output_file() {
    let tmp = TempDir::new("kpt-render-prune");
    let pkg = package(&tmp, "Report");
    let decode = binding("llama-decode", "llama", "decode");
    tmp.write("pkg/inference.yaml", &format!("{COMMENTED_BINDING}---\n{decode}---\n{COMMENTED_POOL}"));

    assert_success(&render(&pkg));
    let outputs: Vec<String> =
        file_list(&pkg).into_iter().filter(|p| p.starts_with("clusterspiffeids/")).collect();
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    let (decode_output, prefill_output): (Vec<&String>, Vec<&String>) = outputs
        .iter()
        .partition(|p| read(&pkg.join(p)).contains("kleym.sonda.red/binding-name: llama-decode"));
    assert_eq!((decode_output.len(), prefill_output.len()), (1, 1), "{outputs:?}");
    let prefill_bytes = read(&pkg.join(prefill_output[0]));

    // Drop the decode binding (and its status) from the file.
    let text = read(&pkg.join("inference.yaml"));
    let documents: Vec<&str> = text.split("---\n").collect();
    assert_eq!(documents.len(), 3, "{text}");
    assert!(documents[1].contains("name: llama-decode"), "{text}");
    tmp.write("pkg/inference.yaml", &format!("{}---\n{}", documents[0], documents[2]));

    let out = render(&pkg);
    assert_success(&out);
    assert!(!pkg.join(decode_output[0]).exists(), "{} still there: {:?}", decode_output[0], file_list(&pkg));
    assert_eq!(read(&pkg.join(prefill_output[0])), prefill_bytes, "the other output is untouched");
    assert!(kpt_text(&out).contains("1 pruned"), "{}", kpt_text(&out));
}

#[test]
fn a_failing_binding_reports_under_report_and_fails_the_render_under_fail() {
    // Report: the render passes and the binding carries the failure in its status.
    let tmp = TempDir::new("kpt-render-report");
    let pkg = package(&tmp, "Report");
    tmp.write("pkg/orphan.yaml", ORPHAN);
    let out = render(&pkg);
    assert_success(&out);
    let docs = documents(&read(&pkg.join("orphan.yaml")));
    assert_eq!(condition_reason(&docs[0], "InvalidRef"), Some("TargetPoolNotFound"), "{docs:?}");

    // Fail: kpt fails, shows our result message, and writes nothing.
    let tmp = TempDir::new("kpt-render-fail");
    let pkg = package(&tmp, "Fail");
    tmp.write("pkg/orphan.yaml", ORPHAN);
    let before = snapshot(&pkg);
    let out = render(&pkg);
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    let text = kpt_text(&out);
    assert!(text.contains("InvalidRef/TargetPoolNotFound"), "{text}");
    assert!(text.contains("InferencePool \"missing-pool\" was not found in namespace serving"), "{text}");
    assert!(text.contains("serving/orphan"), "{text}");
    assert_eq!(snapshot(&pkg), before, "a failed render must not change the package");
}

/// The package's config, with `outputPath` set to `output`.
fn with_output_path(tmp: &TempDir, output: &str) {
    let config = replace_once(
        &fn_config("example.org", "Report"),
        "outputPath: clusterspiffeids/{name}.yaml",
        &format!("outputPath: {output:?}"),
    );
    tmp.write("pkg/identity-config.yaml", &config);
}

#[test]
fn output_path_names_files_as_kpt_writes_them_in_subpackages() {
    // kpt's render gives a subpackage's items their path in that package (`x.yaml`) and the
    // package's folder apart; new outputs go to the root package.
    let tmp = TempDir::new("kpt-subpackage-output-path");
    let pkg = package(&tmp, "Report");
    tmp.write("pkg/sub/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n");
    let settings = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: serving\n";
    tmp.write("pkg/sub/x.yaml", settings);

    // `sub/x.yaml` is the subpackage's file: refused, nothing written.
    with_output_path(&tmp, "sub/x.yaml");
    let before = snapshot(&pkg);
    let out = render(&pkg);
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(kpt_text(&out).contains("in sub/x.yaml, which holds input item"), "{}", kpt_text(&out));
    assert_eq!(snapshot(&pkg), before, "a refused outputPath must not change the package");

    // `x.yaml` is a new file of the root package, whatever the subpackage holds.
    with_output_path(&tmp, "x.yaml");
    assert_success(&render(&pkg));
    assert_eq!(read(&pkg.join("sub/x.yaml")), settings, "the subpackage's file is untouched");
    let docs = documents(&read(&pkg.join("x.yaml")));
    assert_eq!(of_kind(&docs, "ClusterSPIFFEID").len(), 1, "{docs:?}");
    assert_eq!(docs.len(), 1, "{docs:?}");
}

#[test]
fn output_paths_kpt_would_write_over_package_files_or_fail_on_are_refused_first() {
    // Each of these kpt takes (exit 0, the file overwritten) or fails on after the function
    // has run (`mkdir .../Kptfile: not a directory`); the function refuses them, and the
    // package stays as it was.
    for output in [
        "README.md",
        "schema.json",
        ".krmignore",
        "Kptfile/{name}.yaml",
        "kptfile/{name}.yaml",
        "inference.yaml/{name}.yaml",
        "INFERENCE.yaml",
    ] {
        let tmp = TempDir::new("kpt-output-path-refused");
        let pkg = package(&tmp, "Report");
        tmp.write("pkg/README.md", "# The package\n");
        with_output_path(&tmp, output);
        let before = snapshot(&pkg);
        let out = render(&pkg);
        assert_ne!(out.status.code(), Some(0), "{output}: {}", describe(&out));
        assert!(kpt_text(&out).contains("spec.outputPath"), "{output}: {}", kpt_text(&out));
        assert_eq!(snapshot(&pkg), before, "{output}: the package changed");
    }
}

/// KServe's own `LLMInferenceService` samples (and the two presets they name) from the corpus,
/// each rendered by kpt in a package of its own with a binding for each of its roles, then
/// read back by `explain`: the pool each binding resolves, the pods KServe makes of the
/// service, the account each runs as and the SVIDs each holds, as KServe's controller makes
/// them at kserve/kserve aaac4e294dae (`pkg/controller/v1alpha2/llmisvc/`):
/// `workload_single_node.go` (`expectedSingleNodeMainDeployment`, `expectedPrefillMainDeployment`,
/// `expectedSingleNodeMainServiceAccount`: the decode pods of a prefill/decode service run as
/// `<name>-kserve`, created for the routing sidecar of `config-llm-decode-template.yaml`),
/// `workload_multi_node.go` (`expectedMainMultiNodeLWS`, `expectedPrefillMultiNodeLWS`: the
/// leader is selected, the workers beside it are not; `expectedMultiNodeMainServiceAccount`:
/// the template's account), `scheduler.go` (`expectedSchedulerDeployment`, `SchedulerLabels`;
/// `config_merge.go` names its account `<name>-epp-sa`) and `config_merge.go`
/// (`combineBaseRefsConfig`: a service without `router.scheduler` gets no pool).
///
/// The samples name no namespace (kubectl -n gives one) and carry no variant label: each is
/// copied with `metadata.namespace: kserve-llm` and `identity.kleym.sonda.red/variant` in
/// `spec.labels` and `spec.prefill.labels`, as a team adopting them writes. A probe
/// ClusterSPIFFEID selecting every pod KServe makes shows each one's account and component.
#[test]
fn kserve_samples_render_with_the_pool_pods_accounts_and_svids_kserve_makes() {
    const NS: &str = "kserve-llm";
    const PROBE: &str = "\
apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterSPIFFEID
metadata:
  name: probe
spec:
  spiffeIDTemplate: 'spiffe://example.org/probe/{{ .PodSpec.ServiceAccountName }}/{{ index .PodMeta.Labels \"app.kubernetes.io/component\" }}'
  podSelector:
    matchLabels:
      app.kubernetes.io/part-of: llminferenceservice
";
    let decode_id = |sa: &str, pool: &str, variant: &str| {
        format!("spiffe://example.org/ns/{NS}/sa/{sa}/inference/pool/{pool}/variant/{variant}")
    };
    let probe = |sa: &str, component: &str| format!("spiffe://example.org/probe/{sa}/{component}");
    /// A sample: its file, the preset files it needs, its name, and each pod template KServe
    /// makes of it: role, account, component, and the variant whose identity it holds.
    type Role = (&'static str, &'static str, &'static str, Option<&'static str>);
    let samples: [(&str, &[&str], &str, Vec<Role>); 11] = [
        (
            "agentic-tool-calling_llmisvc-single-gpu.yaml",
            &[],
            "qwen3-coder-tool-calling",
            vec![
                ("(decode)", "default", "llminferenceservice-workload", Some("decode")),
                (
                    "(scheduler)",
                    "qwen3-coder-tool-calling-epp-sa",
                    "llminferenceservice-router-scheduler",
                    None,
                ),
            ],
        ),
        (
            "agentic-tool-calling_nemotron-3-ultra-pd.yaml",
            &[],
            "nemotron-ultra-pd",
            vec![
                ("(decode)", "nemotron-ultra-pd-kserve", "llminferenceservice-workload", Some("decode")),
                ("(prefill)", "default", "llminferenceservice-workload-prefill", Some("prefill")),
                ("(scheduler)", "nemotron-ultra-pd-epp-sa", "llminferenceservice-router-scheduler", None),
            ],
        ),
        // data 32 over dataLocal 8: groups of four, a leader and three workers.
        (
            "dp-ep_deepseek-r1-gpu-rdma-roce_llm-inference-service-dp-ep-deepseek-r1-gpu-deepep-ht.yaml",
            &[],
            "deepseek-r1-0528",
            vec![
                ("(decode leader)", "hfsa", "llminferenceservice-workload-leader", Some("decode")),
                ("(decode worker)", "hfsa", "llminferenceservice-workload-worker", None),
                ("(scheduler)", "deepseek-r1-0528-epp-sa", "llminferenceservice-router-scheduler", None),
            ],
        ),
        (
            "dp-ep_deepseek-r1-gpu-rdma-roce_llm-inference-service-dp-ep-deepseek-r1-pd-gpu-p-deepep-ht-d-deepep-ht.yaml",
            &[],
            "deepseek-r1-0528-pd",
            vec![
                ("(decode leader)", "hfsa", "llminferenceservice-workload-leader", Some("decode")),
                ("(decode worker)", "hfsa", "llminferenceservice-workload-worker", None),
                ("(prefill leader)", "hfsa", "llminferenceservice-workload-leader-prefill", Some("prefill")),
                ("(prefill worker)", "hfsa", "llminferenceservice-workload-worker-prefill", None),
                ("(scheduler)", "deepseek-r1-0528-pd-epp-sa", "llminferenceservice-router-scheduler", None),
            ],
        ),
        (
            "e2e-gpt-oss_inference_default.yaml",
            &["e2e-gpt-oss_llmisvc_config_default.yaml"],
            "gpt-oss-20b",
            vec![
                ("(decode)", "default", "llminferenceservice-workload", Some("decode")),
                ("(scheduler)", "gpt-oss-20b-epp-sa", "llminferenceservice-router-scheduler", None),
            ],
        ),
        // The preset sets the scheduler and prefill: the decode preset's routing sidecar makes
        // the decode pods run as the account KServe creates.
        (
            "e2e-gpt-oss_inference_pd_disaggregation.yaml",
            &["e2e-gpt-oss_llmisvc_config_pd_disagg.yaml"],
            "gpt-oss-20b",
            vec![
                ("(decode)", "gpt-oss-20b-kserve", "llminferenceservice-workload", Some("decode")),
                ("(prefill)", "default", "llminferenceservice-workload-prefill", Some("prefill")),
                ("(scheduler)", "gpt-oss-20b-epp-sa", "llminferenceservice-router-scheduler", None),
            ],
        ),
        (
            "opt-125m-cpu_llm-inference-service-facebook-opt-125m-cpu.yaml",
            &[],
            "facebook-opt-125m-single",
            vec![
                ("(decode)", "default", "llminferenceservice-workload", Some("decode")),
                (
                    "(scheduler)",
                    "facebook-opt-125m-single-epp-sa",
                    "llminferenceservice-router-scheduler",
                    None,
                ),
            ],
        ),
        (
            "opt-125m-cpu_llm-inference-service-pd-facebook-opt-125m-cpu.yaml",
            &[],
            "facebook-opt-125m-pd",
            vec![
                ("(decode)", "facebook-opt-125m-pd-kserve", "llminferenceservice-workload", Some("decode")),
                ("(prefill)", "default", "llminferenceservice-workload-prefill", Some("prefill")),
                ("(scheduler)", "facebook-opt-125m-pd-epp-sa", "llminferenceservice-router-scheduler", None),
            ],
        ),
        (
            "single-node-gpu_llm-inference-service-pd-qwen2-7b-gpu.yaml",
            &[],
            "qwen2-7b-instruct-pd",
            vec![
                ("(decode)", "qwen2-7b-instruct-pd-kserve", "llminferenceservice-workload", Some("decode")),
                ("(prefill)", "default", "llminferenceservice-workload-prefill", Some("prefill")),
                ("(scheduler)", "qwen2-7b-instruct-pd-epp-sa", "llminferenceservice-router-scheduler", None),
            ],
        ),
        // No scheduler: no pool, so the binding is not Ready and the pods hold only the probe's.
        (
            "single-node-gpu_llm-inference-service-qwen2-7b-gpu-no-scheduler.yaml",
            &[],
            "qwen2-7b-instruct-single-no-scheduler",
            vec![("(decode)", "default", "llminferenceservice-workload", None)],
        ),
        (
            "single-node-gpu_llm-inference-service-qwen2-7b-gpu.yaml",
            &[],
            "qwen2-7b-instruct-single",
            vec![
                ("(decode)", "default", "llminferenceservice-workload", Some("decode")),
                (
                    "(scheduler)",
                    "qwen2-7b-instruct-single-epp-sa",
                    "llminferenceservice-router-scheduler",
                    None,
                ),
            ],
        ),
    ];
    for (file, presets, name, roles) in samples {
        let tmp = TempDir::new("kpt-kserve-sample");
        tmp.write("pkg/Kptfile", &kptfile());
        tmp.write("pkg/identity-config.yaml", &fn_config("example.org", "Report"));
        tmp.write("pkg/probe.yaml", PROBE);
        let placed = |text: String| {
            let text = replace_once(&text, "\nmetadata:\n", &format!("\nmetadata:\n  namespace: {NS}\n"));
            text.replacen(
                "\nspec:\n",
                "\nspec:\n  labels:\n    identity.kleym.sonda.red/variant: decode\n",
                1,
            )
        };
        let mut service = placed(corpus::file(&format!("kserve-llmisvc/{file}")));
        if service.contains("\n  prefill:\n") {
            service = service.replacen(
                "\n  prefill:\n",
                "\n  prefill:\n    labels:\n      identity.kleym.sonda.red/variant: prefill\n",
                1,
            );
        }
        tmp.write("pkg/service.yaml", &service);
        for preset in presets {
            let text = corpus::file(&format!("kserve-llmisvc/{preset}"));
            tmp.write(
                &format!("pkg/{preset}"),
                &replace_once(&text, "\nmetadata:\n", &format!("\nmetadata:\n  namespace: {NS}\n")),
            );
        }
        let pool = format!("{name}-inference-pool");
        let mut bindings = String::new();
        for (role, account, _, variant) in &roles {
            if let (Some(variant), false) = (variant, role.ends_with("worker)")) {
                bindings.push_str(&format!(
                    "---\napiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata:\n  name: {name}-{variant}\n  namespace: {NS}\nspec:\n  poolRef: {{name: {pool}}}\n  serviceAccountName: {account}\n  identityBoundary: {{variant: {variant}}}\n"
                ));
            }
        }
        if bindings.is_empty() {
            bindings = format!(
                "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata:\n  name: {name}-decode\n  namespace: {NS}\nspec:\n  poolRef: {{name: {pool}}}\n  serviceAccountName: default\n  identityBoundary: {{variant: decode}}\n"
            );
        }
        tmp.write("pkg/bindings.yaml", &bindings);
        let pkg = tmp.join("pkg");
        let out = render(&pkg);
        assert!(out.status.success(), "{file}: {}", kpt_text(&out));
        // Each binding: Ready when a role holds its identity, else TargetPoolNotFound.
        let rendered = documents(&read(&pkg.join("bindings.yaml")));
        for binding in of_kind(&rendered, "InferenceIdentityBinding") {
            let reason = condition_reason(binding, "Ready");
            let ready = roles.iter().any(|r| r.3.is_some());
            let want = if ready { Some("Reconciled") } else { Some("TargetPoolNotFound") };
            assert_eq!(reason, want, "{file}: {binding}");
        }
        let report = Command::new(BIN)
            .args(["explain", "-o", "json", "--trust-domain", "example.org"])
            .arg(&pkg)
            .output()
            .expect("explain runs");
        let json: serde_json::Value = serde_json::from_slice(&report.stdout)
            .unwrap_or_else(|e| panic!("{file}: explain JSON: {e}: {}", describe(&report)));
        let workloads: Vec<(String, Vec<String>)> = json["workloads"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["kind"] == "LLMInferenceService")
            .map(|w| {
                let mut svids: Vec<String> =
                    w["svids"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
                svids.sort();
                (w["path"].as_str().unwrap().to_string(), svids)
            })
            .collect();
        let want: Vec<(String, Vec<String>)> = roles
            .iter()
            .map(|(role, account, component, variant)| {
                let mut svids = vec![probe(account, component)];
                svids.extend(variant.map(|v| decode_id(account, &pool, v)));
                svids.sort();
                (role.to_string(), svids)
            })
            .collect();
        assert_eq!(workloads, want, "{file}");
    }
}

/// A Deployment in `serving` whose pods hold the llama-prefill identity.
const PREFILL_DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prefill
  namespace: serving
spec:
  selector:
    matchLabels:
      app: llama
  template:
    metadata:
      labels:
        app: llama
        identity.kleym.sonda.red/variant: prefill
    spec:
      serviceAccountName: llama
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
";

#[test]
fn render_writes_the_admission_guard_beside_the_outputs_and_prunes_it_when_turned_off() {
    let tmp = TempDir::new("kpt-guard");
    let pkg = package(&tmp, "Report");
    write(&pkg.join("deployment.yaml"), PREFILL_DEPLOYMENT);
    let config = read(&pkg.join("identity-config.yaml"));
    write(
        &pkg.join("identity-config.yaml"),
        &replace_once(&config, "  # admissionGuard:\n", "  admissionGuard: {}\n"),
    );

    let out = render(&pkg);
    assert_success(&out);
    let files = file_list(&pkg);
    for file in
        ["admission-guard/kleym-admission-guard.yaml", "admission-guard/kleym-admission-guard-serving.yaml"]
    {
        assert!(files.contains(&file.to_string()), "{file} missing: {files:?}\n{}", kpt_text(&out));
    }
    // A namespace's binding and its parameters share a file; the parameters list the
    // package's Deployment of the identity.
    let serving = read(&pkg.join("admission-guard/kleym-admission-guard-serving.yaml"));
    let docs = documents(&serving);
    assert_eq!(
        docs.iter().map(|d| d["kind"].as_str().unwrap()).collect::<Vec<_>>(),
        ["ValidatingAdmissionPolicyBinding", "ConfigMap"]
    );
    let listed = docs[1]["data"]["Deployment.prefill"].as_str().unwrap();
    assert!(listed.ends_with("/inference/pool/llama/variant/prefill"), "{listed}");
    assert!(!serving.contains("config.kubernetes.io/"), "kpt's bookkeeping is left out:\n{serving}");

    // A second render changes nothing.
    let after_first = snapshot(&pkg);
    assert_success(&render(&pkg));
    assert_eq!(snapshot(&pkg), after_first, "a second render is a no-op");

    // Off again, the guard's files go (prune); the ClusterSPIFFEID stays.
    write(&pkg.join("identity-config.yaml"), &config);
    assert_success(&render(&pkg));
    let files = file_list(&pkg);
    assert!(!files.iter().any(|f| f.starts_with("admission-guard/")), "{files:?}");
    assert!(files.contains(&format!("clusterspiffeids/{LLAMA_PREFILL_OUTPUT}.yaml")), "{files:?}");
}
