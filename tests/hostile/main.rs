//! Hostile input against the real binary.
//!
//! Every case ends in exit 1 with a message naming the item and what is wrong or, where
//! the input is legal, in the right output; always within 1 GiB, and never in a panic, a
//! stack overflow, a crash signal or a hang. How fast is for the benchmarks to say
//! (docs/performance.md): a time limit here would fail on a busy machine, not on slow code.
//!
//! How a case runs: the binary is a child process in its own process group, fed stdin from
//! memory by a writer thread; a watchdog kills the group after 30 s so a hang fails the
//! case instead of blocking the suite. Peak memory comes from `/usr/bin/time -f %M`; where
//! that tool is missing the child runs under `ulimit -v` (1 GiB) instead. Cases run one at
//! a time (a lock), so their timings do not include each other.
//!
//! Sizes: the debug binary parses YAML about ten times slower than the release one. Cases
//! that are only slow in debug builds are sized down here and keep a full-size variant
//! marked `#[ignore]`: run those with
//! `cargo test --release --test hostile -- --ignored`. Cases that show a product bug are
//! marked `#[ignore = "BUG: ..."]` and fail until it is fixed.
//!
//! `cargo test --test hostile -- --nocapture` prints one measurement line per run.
//!
//! The cases, by what they attack: the YAML layer's limits ([`yaml_limits`]), identity
//! injection through every field, the stderr lines and YAML 1.1 readers downstream
//! ([`injection`]), and the shapes kubectl reads as another object than the function
//! ([`kubectl`]). This file holds how a case runs and the inputs they share.

use render_inference_identity::yaml;
use serde_json::Value;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_render-inference-identity");
const TIME_TOOL: &str = "/usr/bin/time";
const WATCHDOG: Duration = Duration::from_secs(30);
const MEMORY_LIMIT_KIB: u64 = 1 << 20;
const PREFIX: &str = "render-inference-identity: ";

/// Variables that change what the binary renders, removed from every child. Removing
/// `RUST_BACKTRACE` keeps the "run with `RUST_BACKTRACE=1`" hint of a panic detectable.
const AMBIENT_VARS: [&str; 16] = [
    "KUBE_API_VERSIONS",
    "SOURCE_DATE_EPOCH",
    "KUSTOMIZE_PLUGIN_CONFIG_STRING",
    "RUST_BACKTRACE",
    "ARGOCD_ENV_CONFIG",
    "ARGOCD_ENV_TRUST_DOMAIN",
    "ARGOCD_ENV_CLASS_NAME",
    "ARGOCD_ENV_FAILURE_POLICY",
    "ARGOCD_ENV_PRUNE",
    "ARGOCD_ENV_API_VERSIONS",
    "ARGOCD_ENV_TRANSITION_TIME",
    "ARGOCD_ENV_SELECTOR_SCOPE",
    "ARGOCD_ENV_SPIRE_CLASS_NAME",
    "ARGOCD_ENV_SPIRE_WATCH_CLASSLESS",
    "ARGOCD_ENV_SPIRE_IGNORE_NAMESPACES",
    "RUST_LIB_BACKTRACE",
];

/// One child at a time: timings and peak memory then belong to the case alone.
static SERIAL: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------

/// A scratch folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Scratch {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("rii-hostile-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("creating {}: {e}", path.display()));
        Scratch(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one run of the binary did.
struct Run {
    case: String,
    code: Option<i32>,
    signal: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    wall: Duration,
    peak_kib: Option<u64>,
    timed_out: bool,
}

fn run(case: &str, args: &[OsString], stdin: Vec<u8>) -> Run {
    run_env(case, args, stdin, &[])
}

fn run_env(case: &str, args: &[OsString], stdin: Vec<u8>, env: &[(&str, &str)]) -> Run {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = Scratch::new("time");
    let peak_file = scratch.path().join("peak");
    let measured = Path::new(TIME_TOOL).exists();
    let mut cmd = if measured {
        let mut c = Command::new(TIME_TOOL);
        c.arg("-f").arg("%M").arg("-o").arg(&peak_file).arg(BIN);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(format!("ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\" \"$@\"")).arg(BIN);
        c
    };
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }

    let start = Instant::now();
    let mut child = cmd.spawn().expect("the binary starts");
    let mut child_stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        // The child may stop reading early (an error); a broken pipe is not our failure.
        let _ = child_stdin.write_all(&stdin);
    });
    let mut child_stdout = child.stdout.take().expect("stdout is piped");
    let out_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = child_stdout.read_to_end(&mut bytes);
        bytes
    });
    let mut child_stderr = child.stderr.take().expect("stderr is piped");
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = child_stderr.read_to_end(&mut bytes);
        bytes
    });

    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the binary") {
            break status;
        }
        if start.elapsed() > WATCHDOG {
            timed_out = true;
            // The whole group: the binary itself runs below /usr/bin/time or sh.
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            break child.wait().expect("waiting for the killed binary");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let wall = start.elapsed();
    let _ = writer.join();
    let stdout = out_reader.join().expect("stdout reader");
    let stderr = String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned();

    let (mut code, mut signal) = (status.code(), status.signal());
    let mut peak_kib = None;
    if measured {
        let report = std::fs::read_to_string(&peak_file).unwrap_or_default();
        // GNU time reports a signal as "Command terminated by signal N" and exits 128+N.
        if let Some(n) = report.lines().find_map(|l| l.strip_prefix("Command terminated by signal ")) {
            signal = n.trim().parse().ok();
            code = None;
        }
        peak_kib = report.lines().last().and_then(|l| l.trim().parse().ok());
    }
    let run = Run { case: case.to_string(), code, signal, stdout, stderr, wall, peak_kib, timed_out };
    eprintln!("{}", run.summary());
    run
}

impl Run {
    fn summary(&self) -> String {
        let first_line = self.stderr.lines().next().unwrap_or("");
        let excerpt: String = first_line.chars().take(160).collect();
        format!(
            "hostile: {}: exit={:?} signal={:?} wall={:.2}s peak={} stdout={}B stderr: {}",
            self.case,
            self.code,
            self.signal,
            self.wall.as_secs_f64(),
            self.peak_kib.map_or("n/a".to_string(), |k| format!("{}MiB", k / 1024)),
            self.stdout.len(),
            excerpt
        )
    }

    fn describe(&self) -> String {
        let stdout = String::from_utf8_lossy(&self.stdout);
        let cut = |s: &str| s.chars().take(3000).collect::<String>();
        format!(
            "{}\n--- stdout (start) ---\n{}\n--- stderr ---\n{}",
            self.summary(),
            cut(&stdout),
            cut(&self.stderr)
        )
    }

    fn stdout_text(&self) -> &str {
        std::str::from_utf8(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not UTF-8: {e}\n{}", self.describe()))
    }

    /// The bounds every run must keep, whatever its input.
    fn assert_bounded(&self) {
        assert!(!self.timed_out, "hang: killed by the watchdog after {WATCHDOG:?}\n{}", self.describe());
        assert!(self.signal.is_none(), "crashed with signal {:?}\n{}", self.signal, self.describe());
        for marker in
            ["panicked", "stack overflow", "overflowed its stack", "RUST_BACKTRACE", "memory allocation of"]
        {
            assert!(!self.stderr.contains(marker), "stderr shows a crash ({marker:?})\n{}", self.describe());
        }
        if let Some(kib) = self.peak_kib {
            assert!(kib < MEMORY_LIMIT_KIB, "peak memory {kib} KiB, limit 1 GiB\n{}", self.describe());
        }
    }

    /// Exit 1 and a stderr that holds, for each group, at least one of its alternatives
    /// (case-insensitive).
    fn assert_refused(&self, needles: &[&[&str]]) {
        self.assert_bounded();
        assert_eq!(self.code, Some(1), "expected exit 1\n{}", self.describe());
        assert!(self.stderr.starts_with(PREFIX), "stderr must start with {PREFIX:?}\n{}", self.describe());
        let lower = self.stderr.to_lowercase();
        for group in needles {
            assert!(
                group.iter().any(|n| lower.contains(&n.to_lowercase())),
                "stderr names none of {group:?}\n{}",
                self.describe()
            );
        }
    }

    fn assert_success(&self) {
        self.assert_bounded();
        assert_eq!(self.code, Some(0), "expected exit 0\n{}", self.describe());
    }

    /// The output ResourceList (small outputs only: parsing in the test is debug-slow).
    fn resource_list(&self) -> Value {
        serde_saphyr::from_str::<Value>(self.stdout_text())
            .unwrap_or_else(|e| panic!("stdout is not one YAML document: {e}\n{}", self.describe()))
    }
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

// ---------------------------------------------------------------------------------------
// Inputs in the three stdin/file modes
// ---------------------------------------------------------------------------------------

const TYPED_CONFIG: &str = "\
apiVersion: fn.kleym.sonda.red/v1alpha1
kind: RenderInferenceIdentity
metadata:
  name: render-inference-identity
spec:
  trustDomain: example.org
  transitionTime: \"2026-01-01T00:00:00Z\"
";

/// How the binary gets its input.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// No arguments: one ResourceList on stdin.
    ResourceList,
    /// One file argument (the plugin config): a plain multi-document stream on stdin.
    Plugin,
    /// `render DIR --trust-domain ...`: the stream in a file, no stdin.
    Render,
}

const ALL_MODES: [Mode; 3] = [Mode::ResourceList, Mode::Plugin, Mode::Render];

/// Appends `item` as an entry of a block sequence: `- ` before its first line, two spaces
/// before the others.
fn push_item(out: &mut Vec<u8>, item: &[u8]) {
    let item = item.strip_suffix(b"\n").unwrap_or(item);
    for (i, line) in item.split(|&b| b == b'\n').enumerate() {
        out.extend_from_slice(if i == 0 { b"- " } else { b"  " });
        out.extend_from_slice(line);
        out.push(b'\n');
    }
}

/// A ResourceList with the typed functionConfig (indented under `functionConfig:`) and
/// `items` (each given as a document without indentation).
fn resource_list(function_config: &str, items: &[&[u8]]) -> Vec<u8> {
    let mut out = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n".to_vec();
    for line in function_config.lines() {
        out.extend_from_slice(format!("  {line}\n").as_bytes());
    }
    out.extend_from_slice(b"items:\n");
    for item in items {
        push_item(&mut out, item);
    }
    out
}

/// The items as a plain multi-document stream.
fn stream(items: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"---\n");
        }
        out.extend_from_slice(item);
        if !item.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out
}

/// Runs `items` in `mode` with the typed config (trust domain `example.org`).
fn run_items(case: &str, mode: Mode, items: &[&[u8]]) -> Run {
    let case = format!("{case} [{mode:?}]");
    match mode {
        Mode::ResourceList => run(&case, &[], resource_list(TYPED_CONFIG, items)),
        Mode::Plugin => {
            let scratch = Scratch::new("plugin");
            let config = scratch.write("config.yaml", TYPED_CONFIG.as_bytes());
            run(&case, &[config.into_os_string()], stream(items))
        }
        Mode::Render => {
            let scratch = Scratch::new("render");
            scratch.write("manifests/input.yaml", &stream(items));
            let mut args = os(&["render"]);
            args.push(scratch.path().join("manifests").into_os_string());
            args.extend(os(&["--trust-domain", "example.org", "--transition-time", "2026-01-01T00:00:00Z"]));
            run(&case, &args, Vec::new())
        }
    }
}

/// A ConfigMap item whose `data` is the given block (lines indented by four spaces).
fn config_map(name: &str, data_block: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\ndata:\n{data_block}"
    )
}

/// A ConfigMap whose `data.value` is the given flow value (on the same line).
fn config_map_with_value(name: &str, flow_value: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\ndata:\n  value: {flow_value}\n"
    )
}

/// A JSON string: also a valid YAML double-quoted scalar, escapes included.
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The raw values of one binding and its pool. Strings are written double-quoted (JSON
/// escaping), so any character reaches the function as given.
#[derive(Clone)]
struct Params {
    namespace: String,
    binding: String,
    service_account: String,
    pool_ref: String,
    pool_name: String,
    variant: String,
    /// `key: value` lines (raw YAML) of the pool's matchLabels.
    labels: Vec<String>,
    failure_policy: &'static str,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            namespace: "team-a".into(),
            binding: "b".into(),
            service_account: "sa-a".into(),
            pool_ref: "pool-a".into(),
            pool_name: "pool-a".into(),
            variant: "v1".into(),
            labels: vec!["app: \"model\"".into()],
            failure_policy: "Report",
        }
    }
}

fn pool_and_binding(p: &Params) -> (String, String) {
    let labels: String = p.labels.iter().map(|l| format!("        {l}\n")).collect();
    let pool = format!(
        "apiVersion: inference.networking.k8s.io/v1\nkind: InferencePool\nmetadata:\n  name: {}\n  namespace: {}\nspec:\n  selector:\n    matchLabels:\n{labels}",
        q(&p.pool_name),
        q(&p.namespace)
    );
    let binding = format!(
        "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata:\n  name: {}\n  namespace: {}\nspec:\n  poolRef:\n    name: {}\n  serviceAccountName: {}\n  identityBoundary:\n    variant: {}\n",
        q(&p.binding),
        q(&p.namespace),
        q(&p.pool_ref),
        q(&p.service_account),
        q(&p.variant)
    );
    (pool, binding)
}

/// The condition of `kind` in an output binding.
fn condition<'v>(item: &'v Value, kind: &str) -> &'v Value {
    item["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == kind))
        .unwrap_or_else(|| panic!("no {kind} condition in {item}"))
}

mod injection;
mod kubectl;
mod yaml_limits;
