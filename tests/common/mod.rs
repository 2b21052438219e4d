//! Helpers shared by the test crates of tests/ and the integration suite of
//! tests/integration/ (which drives real tools: kpt, kubectl kustomize, script), all run
//! against the built binary, and the golden cases.

#![allow(dead_code)] // each test crate uses its own subset

pub mod corpus;
pub mod golden;

use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};
use render_inference_identity::io::read::Reader;
use render_inference_identity::io::render::Request;
use render_inference_identity::io::{self, Env, RunOutput};
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary under test, built by cargo for the integration tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_render-inference-identity");

/// Variables of the test runner's environment that change what the binary renders; every
/// tool process gets them removed so a developer's shell cannot change the outcome.
pub const AMBIENT_VARS: [&str; 3] = ["KUBE_API_VERSIONS", "SOURCE_DATE_EPOCH", "KUSTOMIZE_PLUGIN_HOME"];

/// The name the example binding `serving/llama-prefill` on pool `llama` renders to.
pub const LLAMA_PREFILL_OUTPUT: &str = "kleym-serving-llama-prefill-pool-ec7eebba";

/// The KRM mode on the text of a ResourceList, in process, its output as text.
pub fn krm(input: &str, env: &Env) -> RunOutput {
    krm_with(input, env, Reader::Fast)
}

/// [`krm`] with the reader asked for.
pub fn krm_with(input: &str, env: &Env, reader: Reader) -> RunOutput {
    io::krm::run(input.to_string(), env, reader).into()
}

/// The exec plugin mode on its config text and a stream, in process, its output as text.
pub fn plugin(config: &str, input: &str, env: &Env) -> RunOutput {
    io::plugin::run(config, input.to_string(), env).into()
}

/// `render` of a request, in process, its output as text.
pub fn render(request: &Request) -> RunOutput {
    io::render::run(request).into()
}

/// The folder holding the binary under test.
pub fn bin_dir() -> PathBuf {
    Path::new(BIN).parent().expect("the binary has a parent folder").to_path_buf()
}

/// `PATH` with the binary's folder first.
pub fn path_with_bin_dir() -> OsString {
    let mut dirs = vec![bin_dir()];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).expect("PATH entries join")
}

/// A file of the repository, as text.
pub fn repo_file(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// `[package]`'s `key = "value"` of Cargo.toml.
pub fn package_field(key: &str) -> String {
    let manifest = repo_file("Cargo.toml");
    let prefix = format!("{key} = \"");
    let line = manifest
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("Cargo.toml's [package] has no {key}"));
    line[prefix.len()..].strip_suffix('"').expect("a one-line string").to_string()
}

/// A folder under the system temp dir with a unique name, removed (with its content) on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let name =
            format!("rii-{label}-{}-{}-{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("creating {}: {e}", path.display()));
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `self.path()/relative`.
    pub fn join(&self, relative: &str) -> PathBuf {
        self.path.join(relative)
    }

    /// Writes `text` to `relative`, creating parent folders.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        write(&self.join(relative), text)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Writes `text` to `path`, creating parent folders.
pub fn write(path: &Path, text: &str) -> PathBuf {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("creating {}: {e}", parent.display()));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    path.to_path_buf()
}

/// A file as text.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Every file under `dir` (recursively), by path relative to `dir`, with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("listing {}: {e}", dir.display())) {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let bytes =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                files.insert(path.strip_prefix(root).expect("under the root").to_path_buf(), bytes);
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files);
    files
}

/// The sorted relative paths of the files under `dir`, for messages and file-set checks.
pub fn file_list(dir: &Path) -> Vec<String> {
    snapshot(dir).keys().map(|p| p.display().to_string()).collect()
}

/// The tools the integration tests drive and what to do when one is missing, as `.ci/run`
/// reads them too.
const TOOLS: &str = include_str!("../tools.txt");

/// The message for a missing tool: the same as `.ci/run` prints.
pub fn missing_tool_message(name: &str) -> String {
    let hint = TOOLS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix(name)?.strip_prefix('\t'))
        .unwrap_or_else(|| panic!("{name} is not listed in tests/tools.txt"));
    format!("{name} not found on PATH: {hint}")
}

/// The path of `name` on `PATH`. Panics, saying what to install, when the tool is missing:
/// these tests exist to prove the function works with the real tool, so a missing tool is
/// a failure, never a silent skip.
pub fn require_tool(name: &str) -> PathBuf {
    find_tool(name, std::env::var_os("PATH")).unwrap_or_else(|message| panic!("{message}"))
}

/// `name` in the folders of `path` (a `PATH` value), or the message for a missing tool.
pub fn find_tool(name: &str, path: Option<OsString>) -> Result<PathBuf, String> {
    let message = missing_tool_message(name);
    let found = path.and_then(|paths| {
        std::env::split_paths(&paths).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
    });
    found.ok_or(message)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Stdout and stderr of a finished process, as text, for assertion messages.
pub fn describe(output: &Output) -> String {
    format!(
        "exit: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// Asserts the process exited 0.
pub fn assert_success(output: &Output) {
    assert_eq!(output.status.code(), Some(0), "expected success\n{}", describe(output));
}

/// Parses a plain multi-document YAML stream.
pub fn documents(text: &str) -> Vec<Value> {
    render_inference_identity::yaml::parse_stream(text)
        .unwrap_or_else(|e| panic!("not a readable YAML stream: {e}\n{text}"))
}

/// The documents of `kind`.
pub fn of_kind<'a>(documents: &'a [Value], kind: &str) -> Vec<&'a Value> {
    documents.iter().filter(|d| d["kind"] == kind).collect()
}

/// The reason of the condition of `type` in a binding's status.
pub fn condition_reason<'a>(binding: &'a Value, condition_type: &str) -> Option<&'a str> {
    binding
        .pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == condition_type)?
        .get("reason")?
        .as_str()
}

/// An InferencePool (GA) in `serving` selecting `app: <name>`.
pub fn pool(name: &str) -> String {
    format!(
        "apiVersion: inference.networking.k8s.io/v1\n\
         kind: InferencePool\n\
         metadata:\n  name: {name}\n  namespace: serving\n\
         spec:\n  selector:\n    matchLabels:\n      app: {name}\n  targetPorts:\n  - number: 8000\n"
    )
}

/// A binding in `serving` on `pool`, service account `llama`.
pub fn binding(name: &str, pool: &str, variant: &str) -> String {
    format!(
        "apiVersion: kleym.sonda.red/v1alpha1\n\
         kind: InferenceIdentityBinding\n\
         metadata:\n  name: {name}\n  namespace: serving\n\
         spec:\n  poolRef:\n    name: {pool}\n  serviceAccountName: llama\n  identityBoundary:\n    variant: {variant}\n"
    )
}

/// `text` with the one occurrence of `from` replaced by `to`; panics when `from` is not
/// there exactly once (a shipped config changed under the test).
pub fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "expected {from:?} exactly once in:\n{text}");
    text.replacen(from, to, 1)
}

/// A binding in namespace serving whose pool does not exist: it fails with TargetPoolNotFound.
pub const ORPHAN: &str = "\
apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata:
  name: orphan
  namespace: serving
spec:
  poolRef:
    name: missing-pool
  serviceAccountName: llama
  identityBoundary:
    variant: prefill
";

/// Proptest's configuration for a test file: `default_cases` cases per property (what keeps
/// the file at a few seconds in debug builds), `PROPTEST_CASES` overriding it for a longer
/// hunt, and no failure files written into the tree.
pub fn proptest_config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(default_cases);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    }
}

/// Runs git in `repo` as a test user who signs nothing, and returns what it printed; a
/// failing git fails the test.
pub fn git(repo: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new(require_tool("git"))
        .current_dir(repo)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert_success(&out);
    stdout(&out)
}
