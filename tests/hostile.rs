//! Hostile input against the real binary.
//!
//! Every case ends in exit 1 with a message naming the item and what is wrong or, where
//! the input is legal, in the right output; always within 5 s and 1 GiB, and never in a
//! panic, a stack overflow, a crash signal or a hang.
//!
//! How a case runs: the binary is a child process in its own process group, fed stdin from
//! memory by a writer thread; a watchdog kills the group after 10 s so a hang fails the
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
const TIME_LIMIT: Duration = Duration::from_secs(5);
const WATCHDOG: Duration = Duration::from_secs(10);
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
        assert!(self.wall < TIME_LIMIT, "took {:?}, limit {TIME_LIMIT:?}\n{}", self.wall, self.describe());
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

// ---------------------------------------------------------------------------------------
// YAML layer: alias bombs
// ---------------------------------------------------------------------------------------

/// `levels` levels of `width` aliases of the level below, as flow sequences (or flow
/// mappings), under `data` of a ConfigMap; `leaf` is the YAML of level 0.
fn alias_bomb(levels: usize, width: usize, leaf: &str, mappings: bool) -> String {
    let mut data = format!("  a0: &a0 {leaf}\n");
    for level in 1..=levels {
        let entries: Vec<String> = (0..width)
            .map(|i| if mappings { format!("k{i}: *a{}", level - 1) } else { format!("*a{}", level - 1) })
            .collect();
        let (open, close) = if mappings { ("{", "}") } else { ("[", "]") };
        data.push_str(&format!("  a{level}: &a{level} {open}{}{close}\n", entries.join(", ")));
    }
    config_map("bomb", &data)
}

const ALIAS_NEEDLES: &[&[&str]] = &[&["alias", "anchor"]];

#[test]
fn alias_bomb_with_a_fat_leaf_is_refused_in_every_mode() {
    // 9 levels of 9 aliases; the leaf is a 100 KB double-quoted (so owned) string, which
    // trips the budget after a few hundred copies: the debug-sized billion laughs.
    let leaf = format!("\"{}\\n\"", "x".repeat(100_000));
    let item = alias_bomb(9, 9, &leaf, false);
    for mode in ALL_MODES {
        run_items("alias bomb 9x9, 100 KB leaf", mode, &[item.as_bytes()]).assert_refused(ALIAS_NEEDLES);
    }
}

#[test]
#[ignore = "full size, ~5 s in debug builds (0.9 s in release): run with --release --ignored"]
fn alias_bomb_billion_laughs_sequences_is_refused() {
    let item = alias_bomb(9, 9, "\"lol\"", false);
    for mode in ALL_MODES {
        run_items("billion laughs 9x9 sequences", mode, &[item.as_bytes()]).assert_refused(ALIAS_NEEDLES);
    }
}

#[test]
#[ignore = "full size, ~8 s in debug builds (1 s in release): run with --release --ignored"]
fn alias_bomb_billion_laughs_mappings_is_refused() {
    let item = alias_bomb(9, 9, "{k: lol}", true);
    run_items("billion laughs 9x9 mappings", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(ALIAS_NEEDLES);
}

#[test]
fn alias_bomb_in_the_function_config_is_refused() {
    let leaf = format!("\"{}\\n\"", "x".repeat(100_000));
    let bomb = alias_bomb(9, 9, &leaf, false);
    // The ConfigMap body (minus its header) as extra, unknown functionConfig fields.
    let data = bomb.split("\ndata:\n").nth(1).unwrap();
    let config = format!("{TYPED_CONFIG}bomb:\n{data}");
    let out = run("alias bomb in functionConfig", &[], resource_list(&config, &[]));
    out.assert_refused(ALIAS_NEEDLES);
}

#[test]
fn small_alias_expansion_is_legal_and_expanded() {
    // 5 levels of 7: 16,807 leaves, below every budget; Kubernetes expands aliases too.
    let item = alias_bomb(5, 7, "lol", false);
    let out = run_items("alias expansion 5x7", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_success();
    // The item leaves as its text, aliases and all; read back, they expand as before.
    let text = out.stdout_text();
    for line in item.lines() {
        assert!(text.contains(line), "the item's line {line:?} was not kept\n{}", out.summary());
    }
    let expanded = yaml::write(&yaml::parse(text).expect("the output reads")).expect("writes");
    assert_eq!(expanded.matches("lol").count(), 1 + 7 + 49 + 343 + 2_401 + 16_807, "{}", out.summary());
}

// ---------------------------------------------------------------------------------------
// YAML layer: nesting
// ---------------------------------------------------------------------------------------

const DEPTH_NEEDLES: &[&[&str]] = &[&["depth", "nesting", "recursion"]];
const DEEP: usize = 20_000;

#[test]
fn deep_flow_sequences_are_refused_in_every_mode() {
    let item = config_map_with_value("deep", &format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)));
    for mode in ALL_MODES {
        run_items("20,000 nested [", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

#[test]
fn deep_flow_mappings_are_refused_in_every_mode() {
    let item = config_map_with_value("deep", &format!("{}b{}", "{a: ".repeat(DEEP), "}".repeat(DEEP)));
    for mode in ALL_MODES {
        run_items("20,000 nested {a:", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

#[test]
fn deep_block_sequences_are_refused_in_every_mode() {
    // Compact block sequences: `- - - ... x`, one level per two columns.
    let item = config_map_with_value("deep", &format!("\n    {}x", "- ".repeat(DEEP)));
    for mode in ALL_MODES {
        run_items("20,000 nested block sequences", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

/// Block mappings nested `levels` deep, one more space of indentation per level.
fn deep_block_mappings(levels: usize) -> String {
    let mut data = String::with_capacity(levels * (levels / 2 + 4));
    for level in 0..levels {
        data.push_str(&" ".repeat(level + 2));
        data.push_str("a:\n");
    }
    data.push_str(&" ".repeat(levels + 2));
    data.push_str("b\n");
    config_map("deep", &data)
}

#[test]
fn deep_block_mappings_are_refused_in_every_mode() {
    // 2,000 levels (2 MB of indentation), eight times the limit of 256.
    let item = deep_block_mappings(2_000);
    for mode in ALL_MODES {
        run_items("2,000 nested block mappings", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

#[test]
#[ignore = "full size (200 MB of indentation), slow to generate and pipe in debug builds: run with --release --ignored"]
fn deep_block_mappings_full_size_are_refused() {
    // 200 MB is past the input limit: refused for its size before any nesting is read.
    let item = deep_block_mappings(DEEP);
    run_items("20,000 nested block mappings", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(&[&["larger than the limit"]]);
}

#[test]
fn deep_nesting_in_the_function_config_is_refused() {
    let config = format!("{TYPED_CONFIG}deep: {}{}\n", "[".repeat(DEEP), "]".repeat(DEEP));
    run("deep functionConfig", &[], resource_list(&config, &[])).assert_refused(DEPTH_NEEDLES);
    let scratch = Scratch::new("plugin-deep");
    let file = scratch.write("config.yaml", config.as_bytes());
    run("deep plugin config", &[file.into_os_string()], Vec::new()).assert_refused(DEPTH_NEEDLES);
}

#[test]
fn nesting_well_within_the_limit_is_kept() {
    // 200 levels below `data.value`: legal, passed through unchanged.
    let value = format!("{}x{}", "[".repeat(200), "]".repeat(200));
    let item = config_map_with_value("nested", &value);
    for mode in ALL_MODES {
        let out = run_items("200 nested [", mode, &[item.as_bytes()]);
        out.assert_success();
        let text = out.stdout_text();
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        assert!(
            compact.contains(&value) || text.matches("- ").count() >= 200,
            "the nested value must be kept\n{}",
            out.describe()
        );
    }
}

// ---------------------------------------------------------------------------------------
// YAML layer: bytes
// ---------------------------------------------------------------------------------------

#[test]
fn invalid_utf8_is_refused_in_every_mode() {
    let cases: [(&str, &[u8]); 4] = [
        ("lone continuation byte", b"\x80"),
        ("invalid 2-byte sequence", b"\xc3\x28"),
        ("UTF-16 surrogate encoded in UTF-8", b"\xed\xa0\x80"),
        ("overlong '/'", b"\xc0\xaf"),
    ];
    for (what, bytes) in cases {
        let mut item =
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  value: \"a".to_vec();
        item.extend_from_slice(bytes);
        item.extend_from_slice(b"b\"\n");
        for mode in ALL_MODES {
            run_items(&format!("invalid UTF-8: {what}"), mode, &[&item]).assert_refused(&[&["UTF-8"]]);
        }
    }
    // Truncated at the very end of the input.
    let mut input = resource_list(TYPED_CONFIG, &[]);
    input.extend_from_slice(b"# \xe2\x82");
    run("invalid UTF-8: truncated at the end", &[], input).assert_refused(&[&["UTF-8"]]);
}

#[test]
fn raw_nul_bytes_are_refused_in_every_mode() {
    let inside_value = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  value: \"a\0b\"\n";
    let inside_name = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\0\n";
    let at_start = b"\0apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n";
    for (what, item) in
        [("in a value", &inside_value[..]), ("in a name", &inside_name[..]), ("first", &at_start[..])]
    {
        for mode in ALL_MODES {
            run_items(&format!("NUL byte {what}"), mode, &[item]).assert_refused(&[&[
                "\\u{0}",
                "NUL",
                "null byte",
                "\\0",
                "U+0000",
            ]]);
        }
    }
}

#[test]
fn escaped_control_characters_are_legal_and_stay_escaped() {
    // NUL, BEL, ESC, LINE SEPARATOR and a BOM inside a value, written as escapes.
    let item = config_map_with_value("ctrl", r#""a\0b\x07c\e[31md\u2028e\uFEFFf""#);
    let want = "a\u{0}b\u{7}c\u{1b}[31md\u{2028}e\u{feff}f";
    for mode in [Mode::ResourceList, Mode::Plugin] {
        let out = run_items("escaped control characters", mode, &[item.as_bytes()]);
        out.assert_success();
        assert!(
            !out.stdout.iter().any(|&b| b == 0 || b == 0x07 || b == 0x1b),
            "raw control bytes in the output\n{}",
            out.describe()
        );
        let text = out.stdout_text();
        let doc = match mode {
            Mode::ResourceList => out.resource_list()["items"][0].clone(),
            _ => serde_saphyr::from_str::<Value>(text).unwrap(),
        };
        assert_eq!(doc["data"]["value"], want, "{}", out.describe());
    }
}

#[test]
fn a_byte_order_mark_at_the_start_is_accepted() {
    let mut input = "\u{feff}".as_bytes().to_vec();
    input.extend_from_slice(&resource_list(TYPED_CONFIG, &[config_map("cm", "  k: v\n").as_bytes()]));
    run("BOM before the ResourceList", &[], input).assert_success();
}

// ---------------------------------------------------------------------------------------
// YAML layer: duplicate keys, tabs, shapes
// ---------------------------------------------------------------------------------------

#[test]
fn duplicate_key_inside_an_item_is_refused_in_every_mode() {
    let item =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  dupkey: first\n  dupkey: second\n";
    for mode in ALL_MODES {
        run_items("duplicate data key", mode, &[item.as_bytes()])
            .assert_refused(&[&["duplicate"], &["dupkey"]]);
    }
    // In a flow mapping, and with the two spellings `a` and `'a'` of one string key.
    for (what, data) in [("flow", "  m: {a: 1, a: 2}\n"), ("quoted", "  m:\n    a: x\n    'a': y\n")] {
        let item = config_map("cm", data);
        run_items(&format!("duplicate key, {what}"), Mode::ResourceList, &[item.as_bytes()])
            .assert_refused(&[&["duplicate"]]);
    }
}

#[test]
fn duplicate_identity_fields_of_a_binding_are_refused() {
    // Taking either value silently would choose the identity: refuse, as strict decoding does.
    let (pool, binding) = pool_and_binding(&Params::default());
    for (field, from, to) in [
        (
            "serviceAccountName",
            "  serviceAccountName: \"sa-a\"\n",
            "  serviceAccountName: \"sa-a\"\n  serviceAccountName: kube-admin\n",
        ),
        ("variant", "    variant: \"v1\"\n", "    variant: \"v1\"\n    variant: v2\n"),
        ("namespace", "  namespace: \"team-a\"\n", "  namespace: \"team-a\"\n  namespace: kube-system\n"),
    ] {
        let twice = binding.replacen(from, to, 1);
        assert_ne!(twice, binding, "the fixture must hold {from:?}");
        for mode in ALL_MODES {
            run_items(&format!("duplicate binding {field}"), mode, &[pool.as_bytes(), twice.as_bytes()])
                .assert_refused(&[&["duplicate"], &[field]]);
        }
    }
    let two_values = pool.replace("        app: \"model\"\n", "        app: \"model\"\n        app: other\n");
    assert_ne!(two_values, pool);
    run_items("duplicate pool label", Mode::ResourceList, &[two_values.as_bytes(), binding.as_bytes()])
        .assert_refused(&[&["duplicate"], &["app"]]);
}

#[test]
fn duplicate_key_inside_the_function_config_is_refused() {
    let config = TYPED_CONFIG
        .replace("  trustDomain: example.org\n", "  trustDomain: example.org\n  trustDomain: evil.org\n");
    let out = run("duplicate trustDomain in functionConfig", &[], resource_list(&config, &[]));
    out.assert_refused(&[&["duplicate"], &["trustDomain"]]);
    assert!(!out.stdout_text().contains("evil.org/"), "{}", out.describe());

    let scratch = Scratch::new("dup-config");
    let file = scratch.write("config.yaml", config.as_bytes());
    run("duplicate trustDomain in plugin config", &[file.clone().into_os_string()], Vec::new())
        .assert_refused(&[&["duplicate"], &["trustDomain"]]);
    let manifests = scratch.write("m/cm.yaml", config_map("cm", "  k: v\n").as_bytes());
    let mut args = os(&["render", "--config"]);
    args.push(file.into_os_string());
    args.push(manifests.into_os_string());
    run("duplicate trustDomain in render --config", &args, Vec::new())
        .assert_refused(&[&["duplicate"], &["trustDomain"]]);

    let config_map_form = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn\ndata:\n  trustDomain: example.org\n  trustDomain: evil.org\n";
    run("duplicate trustDomain in ConfigMap functionConfig", &[], resource_list(config_map_form, &[]))
        .assert_refused(&[&["duplicate"], &["trustDomain"]]);
}

#[test]
fn duplicate_key_at_the_resource_list_top_level_is_refused() {
    let cm = config_map("cm", "  k: v\n");
    let mut input = resource_list(TYPED_CONFIG, &[cm.as_bytes()]);
    input.extend_from_slice(b"items: []\n");
    run("duplicate items key", &[], input).assert_refused(&[&["duplicate"], &["items"]]);

    let mut input = resource_list(TYPED_CONFIG, &[]);
    input.extend_from_slice(
        b"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data: {trustDomain: evil.org}\n",
    );
    run("duplicate functionConfig key", &[], input).assert_refused(&[&["duplicate"], &["functionConfig"]]);

    let input = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nkind: List\nitems: []\n".to_vec();
    run("duplicate kind key", &[], input).assert_refused(&[&["duplicate"], &["kind"]]);
}

#[test]
fn duplicate_keys_that_differ_only_in_yaml_type_are_refused() {
    let item = config_map("cm", "  1: first\n  \"1\": second\n");
    run_items("duplicate keys 1 and \"1\"", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(&[&["duplicate"]]);
    let (pool, binding) = pool_and_binding(&Params::default());
    let pool =
        pool.replace("        app: \"model\"\n", "        app: \"model\"\n        1: a\n        \"1\": b\n");
    run_items("pool selector keys 1 and \"1\"", Mode::ResourceList, &[pool.as_bytes(), binding.as_bytes()])
        .assert_refused(&[&["duplicate"]]);
}

#[test]
fn tabs_as_indentation_are_refused_in_every_mode() {
    let items: [(&str, &str); 3] = [
        ("tab-indented mapping", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: cm\n"),
        ("tab then spaces", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n\t  k: v\n"),
        ("tab-indented top level", "apiVersion: v1\n\tkind: ConfigMap\n"),
    ];
    for (what, item) in items {
        for mode in ALL_MODES {
            run_items(what, mode, &[item.as_bytes()]).assert_refused(&[&["tab"]]);
        }
    }
}

#[test]
fn tabs_as_separators_are_legal() {
    let item =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a:\tb\n  c: \"x\ty\"\t# comment\n";
    let out = run_items("tabs as separators", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_success();
    let doc = out.resource_list();
    assert_eq!(doc["items"][0]["data"]["a"], "b");
    assert_eq!(doc["items"][0]["data"]["c"], "x\ty");
}

#[test]
fn items_that_are_not_mappings_are_refused() {
    let cm = config_map("cm", "  k: v\n");
    for (what, entry, type_name) in [
        ("string", "just a string", "string"),
        ("number", "42", "number"),
        ("sequence", "[a, b]", "sequence"),
        ("null", "~", "null"),
        ("boolean", "yes", "boolean"),
    ] {
        let out = run(
            &format!("items[1] is a {what}"),
            &[],
            resource_list(TYPED_CONFIG, &[cm.as_bytes(), entry.as_bytes()]),
        );
        out.assert_refused(&[&["items[1]"], &["mapping"], &[type_name]]);
        for mode in [Mode::Plugin, Mode::Render] {
            let out = run_items(&format!("document 1 is a {what}"), mode, &[cm.as_bytes(), entry.as_bytes()]);
            if what == "null" {
                // An empty document in a stream is skipped (it holds no object).
                out.assert_success();
            } else {
                out.assert_refused(&[&["document 1"], &["mapping"], &[type_name]]);
            }
        }
    }
    let input = format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  a: {cm:?}\n");
    run("items is a mapping", &[], input.into_bytes()).assert_refused(&[&["items"], &["sequence"]]);
    run("ResourceList is a sequence", &[], b"- apiVersion: v1\n- kind: ResourceList\n".to_vec())
        .assert_refused(&[&["ResourceList"], &["sequence"]]);
    run("empty stdin", &[], Vec::new()).assert_refused(&[&["ResourceList", "mapping", "empty"]]);
}

#[test]
fn a_function_config_that_is_not_a_mapping_is_refused() {
    for (what, fc, type_name) in [
        ("sequence", "[a, b]", "sequence"),
        ("string", "trustDomain=example.org", "string"),
        ("number", "1", "number"),
    ] {
        let input = format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {fc}\nitems: []\n"
        );
        run(&format!("functionConfig is a {what}"), &[], input.into_bytes()).assert_refused(&[
            &["functionConfig"],
            &["mapping"],
            &[type_name],
        ]);
        let scratch = Scratch::new("plugin-config");
        let file = scratch.write("config.yaml", format!("{fc}\n").as_bytes());
        run(&format!("plugin config is a {what}"), &[file.into_os_string()], Vec::new())
            .assert_refused(&[&["mapping"], &[type_name]]);
    }
}

#[test]
fn several_documents_where_one_resource_list_is_expected_are_refused() {
    let one = resource_list(TYPED_CONFIG, &[config_map("cm", "  k: v\n").as_bytes()]);
    let mut two = one.clone();
    two.extend_from_slice(b"---\n");
    two.extend_from_slice(&one);
    run("two ResourceLists", &[], two)
        .assert_refused(&[&["multiple", "several", "more than one"], &["document"]]);

    let mut list_and_item = one.clone();
    list_and_item.extend_from_slice(b"---\n");
    list_and_item.extend_from_slice(config_map("extra", "  k: v\n").as_bytes());
    run("ResourceList then an item", &[], list_and_item)
        .assert_refused(&[&["multiple", "several", "more than one"], &["document"]]);

    // A plain stream of items on stdin without the ResourceList wrapper.
    let items = stream(&[config_map("a", "  k: v\n").as_bytes(), config_map("b", "  k: v\n").as_bytes()]);
    run("plain stream in ResourceList mode", &[], items).assert_refused(&[&["document", "ResourceList"]]);

    // A leading `---` and a trailing `...` mark one document: legal.
    let mut framed = b"---\n".to_vec();
    framed.extend_from_slice(&one);
    framed.extend_from_slice(b"...\n");
    run("one framed ResourceList", &[], framed).assert_success();
}

// ---------------------------------------------------------------------------------------
// Size
// ---------------------------------------------------------------------------------------

fn assert_big_value_kept(out: &Run, len: usize) {
    out.assert_success();
    let text = out.stdout_text();
    let longest = text.split(['\n', '"']).map(str::len).max().unwrap_or(0);
    assert!(longest >= len, "the {len}-byte value must come back whole (longest line {longest})");
}

fn big_scalar_cases(len: usize) {
    let plain = config_map_with_value("big", &"x".repeat(len));
    let quoted = config_map_with_value("big", &format!("\"{}\"", "y".repeat(len)));
    for (what, item) in [("plain", &plain), ("double-quoted", &quoted)] {
        for mode in [Mode::ResourceList, Mode::Plugin] {
            let out = run_items(&format!("{} MB {what} scalar", len / 1_000_000), mode, &[item.as_bytes()]);
            assert_big_value_kept(&out, len);
        }
    }
}

#[test]
fn large_scalars_are_kept() {
    // Debug-sized: the debug binary scans a 50 MB scalar in ~3.5 s, too close to the limit.
    big_scalar_cases(10_000_000);
}

#[test]
#[ignore = "full size (50 MB), ~3.5 s per run in debug builds: run with --release --ignored"]
fn large_scalars_full_size_are_kept() {
    big_scalar_cases(50_000_000);
    let mut block = String::from("  value: |\n");
    let line = format!("    {}\n", "z".repeat(99));
    for _ in 0..500_000 {
        block.push_str(&line);
    }
    let item = config_map("block", &block);
    let out = run_items("50 MB block scalar", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_success();
}

#[test]
fn an_overlong_key_is_refused() {
    // YAML limits implicit keys to 1024 characters; Kubernetes keys are far shorter.
    let item = config_map("cm", &format!("  {}: v\n", "k".repeat(1_000_000)));
    run_items("1 MB key", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(&[&["line 18"], &["column"]]);
}

fn many_config_maps(count: usize) -> Vec<u8> {
    let mut out = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n".to_vec();
    for line in TYPED_CONFIG.lines() {
        out.extend_from_slice(format!("  {line}\n").as_bytes());
    }
    out.extend_from_slice(b"items:\n");
    for i in 0..count {
        out.extend_from_slice(
            format!(
                "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n    namespace: default\n  data:\n    key: value-{i}\n"
            )
            .as_bytes(),
        );
    }
    out
}

fn assert_many_config_maps(count: usize) {
    let out = run(&format!("{count} ConfigMaps"), &[], many_config_maps(count));
    out.assert_success();
    let text = out.stdout_text();
    assert_eq!(text.matches("  kind: ConfigMap\n").count(), count, "every item comes back");
    let first = text.find("name: cm-0\n").expect("the first item");
    let last = text.find(&format!("name: cm-{}\n", count - 1)).expect("the last item");
    assert!(first < last, "items keep their order");
    assert!(text.contains("0 binding(s)"), "the summary result is written\n{}", out.describe());
}

#[test]
fn many_config_maps_succeed() {
    // Debug-sized: the debug binary needs ~0.3-0.6 ms per ConfigMap.
    assert_many_config_maps(2_000);
}

#[test]
#[ignore = "full size (100,000 ConfigMaps, 12 MB), slow in debug builds: run with --release --ignored"]
fn many_config_maps_full_size_succeed() {
    // The YAML layer reads about 5 MB/s of small objects: 200,000 ConfigMaps (24 MB) take
    // 5 s in a bare parse-and-write alone, so 100,000 is the size that fits the 5 s bound.
    assert_many_config_maps(100_000);
}

#[test]
#[ignore = "full size (20,000,000 scalars, 40 MB), slow to generate in debug builds: run with --release --ignored"]
fn many_nodes_within_the_node_budget_stay_bounded() {
    let value = format!("[{}0]", "0,".repeat(20_000_000));
    let item = config_map_with_value("nodes", &value);
    let out = run_items("20,000,000 scalars", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_bounded();
    assert!(out.code == Some(0) || out.code == Some(1), "{}", out.describe());
}

#[test]
fn many_empty_documents_in_a_stream_are_skipped() {
    let input = "---\n".repeat(50_000);
    let scratch = Scratch::new("empty-docs");
    let config = scratch.write("config.yaml", TYPED_CONFIG.as_bytes());
    let out = run("50,000 empty documents [Plugin]", &[config.into_os_string()], input.into_bytes());
    out.assert_success();
    assert!(out.stdout.is_empty(), "{}", out.describe());
}

fn conflicting_bindings(count: usize) -> Vec<u8> {
    let pool = "apiVersion: inference.networking.k8s.io/v1\nkind: InferencePool\nmetadata: {name: p, namespace: ns}\nspec: {selector: {matchLabels: {app: m}}}\n";
    let bindings: Vec<String> = (0..count)
        .map(|i| {
            format!(
                "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata: {{name: b{i}, namespace: ns}}\nspec: {{poolRef: {{name: p}}, serviceAccountName: sa, identityBoundary: {{variant: v}}}}\n"
            )
        })
        .collect();
    let mut items: Vec<&[u8]> = vec![pool.as_bytes()];
    items.extend(bindings.iter().map(|b| b.as_bytes()));
    resource_list(TYPED_CONFIG, &items)
}

#[test]
fn many_bindings_claiming_one_identity_are_bounded() {
    // Debug-sized. Every binding conflicts with every other: the status lists at most 32
    // peers and the message gives the total.
    let count = 300;
    let out = run(&format!("{count} conflicting bindings"), &[], conflicting_bindings(count));
    out.assert_success();
    let doc = out.resource_list();
    assert!(!out.stdout_text().contains("kind: ClusterSPIFFEID"), "a conflict member has no output");
    for item in doc["items"].as_array().unwrap().iter().skip(1) {
        let conflicts = item["status"]["conflicts"].as_array().expect("status.conflicts");
        assert_eq!(conflicts.len(), 32, "{item}");
        let condition = condition(item, "Conflict");
        assert_eq!(condition["status"], "True");
        assert_eq!(condition["reason"], "DuplicateSPIFFEID");
        assert!(condition["message"].as_str().unwrap().contains(&(count - 1).to_string()), "{condition}");
    }
}

#[test]
#[ignore = "full size (10,000 bindings in one conflict), slow in debug builds: run with --release --ignored"]
fn many_bindings_claiming_one_identity_full_size_are_bounded() {
    // Each member lists 32 peers (docs/reference.md#conflicts), so the output grows
    // 33-fold: 10,000 members write 67 MB. 25,000 (167 MB) take about 7 s and 1 GiB: a
    // documented limit.
    let out = run("10,000 conflicting bindings", &[], conflicting_bindings(10_000));
    out.assert_success();
}

// ---------------------------------------------------------------------------------------
// Injection: trust domain
// ---------------------------------------------------------------------------------------

const BAD_TRUST_DOMAINS: [(&str, &[&str]); 10] = [
    ("evil.org/ns/kube-system", &["path"]),
    ("spiffe://example.org", &["scheme"]),
    ("example.org:8443", &["':'"]),
    ("EXAMPLE.org", &["'E'"]),
    ("example .org", &["' '"]),
    ("example.org\nns/kube-system", &["path", "'\\n'"]),
    ("example.org\nevil", &["'\\n'"]),
    ("example%2Forg", &["'%'"]),
    ("ex\u{430}mple.org", &["'\u{430}'"]),
    ("example.org/", &["path"]),
];

/// Surrounding whitespace: docs/reference.md#function-configuration allows none in a trust
/// domain.
const PADDED_TRUST_DOMAINS: [&str; 4] = ["example.org ", " example.org", "example.org\n", "\texample.org"];

/// A JSON string: also a valid YAML double-quoted scalar, escapes included.
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn typed_config_with_trust_domain(td: &str) -> String {
    TYPED_CONFIG.replace("trustDomain: example.org", &format!("trustDomain: {}", q(td)))
}

fn config_map_config_with_trust_domain(td: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn\ndata:\n  trustDomain: {}\n", q(td))
}

/// Runs a pool and a binding under `config` (a functionConfig document).
fn run_with_config(case: &str, config: &str) -> Run {
    let (pool, binding) = pool_and_binding(&Params::default());
    run(case, &[], resource_list(config, &[pool.as_bytes(), binding.as_bytes()]))
}

/// Runs `render` on a pool and a binding, with the trust domain from the flag or from
/// `ARGOCD_ENV_TRUST_DOMAIN`.
fn run_render_with_trust_domain(case: &str, td: &str, from_env: bool) -> Run {
    let (pool, binding) = pool_and_binding(&Params::default());
    let scratch = Scratch::new("td");
    scratch.write("m/input.yaml", &stream(&[pool.as_bytes(), binding.as_bytes()]));
    let mut args = os(&["render"]);
    args.push(scratch.path().join("m").into_os_string());
    if from_env {
        run_env(
            &format!("{case} (ARGOCD_ENV_TRUST_DOMAIN)"),
            &args,
            Vec::new(),
            &[("ARGOCD_ENV_TRUST_DOMAIN", td)],
        )
    } else {
        args.extend(os(&["--trust-domain", td]));
        run(&format!("{case} (render flag)"), &args, Vec::new())
    }
}

#[test]
fn a_trust_domain_with_a_path_scheme_port_or_odd_characters_is_refused() {
    for (td, why) in BAD_TRUST_DOMAINS {
        let case = format!("trustDomain {td:?}");
        let out = run_with_config(&case, &typed_config_with_trust_domain(td));
        out.assert_refused(&[&["spec.trustDomain"], why]);
        assert_no_cluster_spiffe_id(&out);

        let out =
            run_with_config(&format!("{case} (ConfigMap form)"), &config_map_config_with_trust_domain(td));
        out.assert_refused(&[&["data.trustDomain"], why]);
        assert_no_cluster_spiffe_id(&out);

        for from_env in [false, true] {
            let out = run_render_with_trust_domain(&case, td, from_env);
            out.assert_refused(&[&["--trust-domain"], why]);
            assert!(out.stdout.is_empty(), "{}", out.describe());
        }
    }
    for td in PADDED_TRUST_DOMAINS {
        let out = run_with_config(&format!("trustDomain {td:?}"), &typed_config_with_trust_domain(td));
        out.assert_refused(&[&["spec.trustDomain"], &["' '", "'\\n'", "'\\t'", "whitespace"]]);
        assert_no_cluster_spiffe_id(&out);
    }
}

#[test]
fn a_padded_trust_domain_is_refused_in_the_string_forms_too() {
    for td in PADDED_TRUST_DOMAINS {
        let case = format!("trustDomain {td:?}");
        let out =
            run_with_config(&format!("{case} (ConfigMap form)"), &config_map_config_with_trust_domain(td));
        out.assert_refused(&[&["data.trustDomain"], &["whitespace", "' '", "'\\n'", "'\\t'"]]);
        for from_env in [false, true] {
            let out = run_render_with_trust_domain(&case, td, from_env);
            out.assert_refused(&[&["--trust-domain"], &["whitespace", "' '", "'\\n'", "'\\t'"]]);
        }
    }
}

#[test]
fn an_empty_trust_domain_fails_the_run() {
    for (what, config) in [
        ("typed", typed_config_with_trust_domain("")),
        ("ConfigMap", config_map_config_with_trust_domain("")),
    ] {
        let out = run_with_config(&format!("empty trustDomain ({what})"), &config);
        out.assert_refused(&[&["trustDomain"], &["required", "missing"]]);
        assert_no_cluster_spiffe_id(&out);
        assert!(out.stderr.contains("RenderFailure/MissingTrustDomain"), "{}", out.describe());
    }
}

// ---------------------------------------------------------------------------------------
// Injection: binding and pool values
// ---------------------------------------------------------------------------------------

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

fn run_binding(case: &str, p: &Params) -> Run {
    let (pool, binding) = pool_and_binding(p);
    let config = format!("{TYPED_CONFIG}  failurePolicy: {}\n", p.failure_policy);
    run(case, &[], resource_list(&config, &[pool.as_bytes(), binding.as_bytes()]))
}

fn condition<'v>(item: &'v Value, kind: &str) -> &'v Value {
    item["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == kind))
        .unwrap_or_else(|| panic!("no {kind} condition in {item}"))
}

fn cluster_spiffe_ids(doc: &Value) -> Vec<&Value> {
    doc["items"]
        .as_array()
        .map(|items| items.iter().filter(|i| i["kind"] == "ClusterSPIFFEID").collect())
        .unwrap_or_default()
}

fn assert_no_cluster_spiffe_id(out: &Run) {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("kind: ClusterSPIFFEID"),
        "no ClusterSPIFFEID may be rendered\n{}",
        out.describe()
    );
    assert!(!text.contains("spiffeIDTemplate"), "no ClusterSPIFFEID may be rendered\n{}", out.describe());
}

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns_label)
}

fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

fn is_qualified_key(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => is_dns_subdomain(prefix) && is_label_value(name),
        None => is_label_value(s),
    }
}

/// Every ClusterSPIFFEID in the output is built from validated parts only: a bare trust
/// domain and exactly the ten path segments of the layout, and selectors of the three
/// allowed shapes with exactly one namespace and one service-account selector.
fn assert_identities_well_formed(out: &Run, doc: &Value) {
    for csid in cluster_spiffe_ids(doc) {
        let id = csid["spec"]["spiffeIDTemplate"].as_str().expect("spiffeIDTemplate");
        let rest = id.strip_prefix("spiffe://").unwrap_or_else(|| panic!("{id:?}\n{}", out.describe()));
        let segments: Vec<&str> = rest.split('/').collect();
        assert_eq!(segments.len(), 10, "{id:?} must have the layout's segments\n{}", out.describe());
        let td = segments[0];
        assert!(
            !td.is_empty()
                && td.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b)),
            "trust domain of {id:?}"
        );
        for (i, word) in [(1, "ns"), (3, "sa"), (5, "inference"), (6, "pool"), (8, "variant")] {
            assert_eq!(segments[i], word, "{id:?}");
        }
        assert!(is_dns_label(segments[2]), "namespace of {id:?}");
        assert!(is_dns_subdomain(segments[4]), "service account of {id:?}");
        assert!(is_dns_subdomain(segments[7]), "pool of {id:?}");
        assert!(is_label_value(segments[9]), "variant of {id:?}");

        let selectors: Vec<&str> = csid["spec"]["workloadSelectorTemplates"]
            .as_array()
            .expect("workloadSelectorTemplates")
            .iter()
            .map(|s| s.as_str().expect("a selector string"))
            .collect();
        let (mut ns, mut sa) = (0, 0);
        for s in &selectors {
            if let Some(v) = s.strip_prefix("k8s:ns:") {
                assert_eq!(v, segments[2], "{s:?}");
                ns += 1;
            } else if let Some(v) = s.strip_prefix("k8s:sa:") {
                assert_eq!(v, segments[4], "{s:?}");
                sa += 1;
            } else if let Some(v) = s.strip_prefix("k8s:pod-label:") {
                let (key, value) = v.rsplit_once(':').unwrap_or_else(|| panic!("{s:?}"));
                assert!(is_qualified_key(key) && is_label_value(value), "selector {s:?}\n{}", out.describe());
            } else {
                panic!("selector {s:?} has no allowed shape\n{}", out.describe());
            }
        }
        assert_eq!((ns, sa), (1, 1), "exactly one namespace and one service-account selector: {selectors:?}");
        assert!(
            selectors.contains(
                &format!("k8s:pod-label:identity.kleym.sonda.red/variant:{}", segments[9]).as_str()
            ),
            "the variant selector names the variant: {selectors:?}"
        );
    }
}

/// The binding fails with `kind`/`reason` (and `field`, when given): no output, the
/// condition, the result and the stderr summary say so; `Fail` turns it into exit 1.
fn assert_binding_fails(case: &str, p: &Params, kind: &str, reason: &str, field: Option<&str>) {
    for policy in ["Report", "Fail"] {
        let p = Params { failure_policy: policy, ..p.clone() };
        let out = run_binding(&format!("{case} ({policy})"), &p);
        out.assert_bounded();
        assert_eq!(out.code, Some(i32::from(policy == "Fail")), "{}", out.describe());
        assert_no_cluster_spiffe_id(&out);
        let doc = out.resource_list();
        assert_identities_well_formed(&out, &doc);
        let binding = &doc["items"][1];
        assert_eq!(binding["kind"], "InferenceIdentityBinding");
        let failed = condition(binding, kind);
        assert!(
            failed["status"] == "True" && failed["reason"] == reason,
            "{kind}: {failed}\n{}",
            out.describe()
        );
        let ready = condition(binding, "Ready");
        assert!(
            ready["status"] == "False" && ready["reason"] == reason,
            "Ready: {ready}\n{}",
            out.describe()
        );
        assert!(binding["status"].get("computedSpiffeIDs").is_none(), "{}", out.describe());
        let results = doc["results"].as_array().expect("results");
        let result = results
            .iter()
            .find(|r| r["message"].as_str().is_some_and(|m| m.starts_with(&format!("{kind}/{reason}: "))))
            .unwrap_or_else(|| panic!("no {kind}/{reason} result\n{}", out.describe()));
        assert_eq!(result["severity"], if policy == "Fail" { "error" } else { "warning" });
        if let Some(field) = field {
            assert_eq!(result["field"]["path"], field, "{}", out.describe());
        }
        assert!(out.stderr.contains(&format!("{kind}/{reason}")), "{}", out.describe());
    }
}

#[test]
fn service_account_names_that_would_add_segments_or_selectors_are_refused() {
    for sa in [
        "a/ns/kube-system",
        "a:b",
        "k8s:ns:kube-system",
        "a%2Fb",
        "s\u{430}-a",
        "sa-a\n",
        " sa-a",
        "..",
        "a..b",
        ".",
        "SA",
        "sa\u{0}",
        &"a".repeat(254),
    ] {
        let p = Params { service_account: sa.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("serviceAccountName {sa:?}"),
            &p,
            "RenderFailure",
            "InvalidServiceAccountName",
            Some("spec.serviceAccountName"),
        );
    }
}

#[test]
fn variants_that_would_add_segments_or_selectors_are_refused() {
    for variant in [
        "x:y",
        "x/y",
        "x/../y",
        "x%2Fy",
        "v1\n",
        " v1",
        "..",
        ".",
        "v\u{430}riant",
        "a b",
        "",
        &"v".repeat(64),
    ] {
        let p = Params { variant: variant.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("variant {variant:?}"),
            &p,
            "UnsafeSelector",
            "InvalidIdentityBoundary",
            Some("spec.identityBoundary.variant"),
        );
    }
}

#[test]
fn pool_names_that_would_add_segments_are_refused() {
    for pool in ["p/../q", "p:q", "pool-a\n", "P", "p%2Fq", "\u{440}ool", "..", "p/q"] {
        // The pool exists under that very name in the input, yet no pool a cluster admits
        // can have it (and "pool-a\n" is trimmed to a name no pool has): nothing renders.
        let p = Params { pool_ref: pool.to_string(), pool_name: pool.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("poolRef.name {pool:?}"),
            &p,
            "InvalidRef",
            "TargetPoolNotFound",
            Some("spec.poolRef.name"),
        );
    }
}

#[test]
fn namespaces_that_would_add_segments_or_selectors_are_refused() {
    for ns in ["a:b", "a/b", "a/ns/kube-system", "a%2Fb", "team-a\n", "t\u{435}am-a", "Team", "a.b", "..", ""]
    {
        let p = Params { namespace: ns.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("namespace {ns:?}"),
            &p,
            "UnsafeSelector",
            "UnsafeSelector",
            Some("metadata.namespace"),
        );
    }
}

#[test]
fn pool_labels_that_would_add_selectors_are_refused() {
    let cases: [(&str, &str, &str); 8] = [
        ("value with ':'", "app: \"x:y\"", "InvalidPoolSelector"),
        ("value with '/'", "app: \"x/y\"", "InvalidPoolSelector"),
        ("value with a newline", "app: \"model\\n\"", "InvalidPoolSelector"),
        ("key with ':'", "\"a:b\": x", "InvalidPoolSelector"),
        ("key k8s:ns:kube-system", "\"k8s:ns:kube-system\": x", "InvalidPoolSelector"),
        ("key k8s:sa:admin", "\"k8s:sa:admin\": x", "InvalidPoolSelector"),
        ("unquoted YAML 1.1 boolean", "app: on", "InvalidPoolSelector"),
        ("another variant", "identity.kleym.sonda.red/variant: \"other\"", "UnsafeSelector"),
    ];
    for (what, label, reason) in cases {
        let p = Params { labels: vec!["app2: \"model\"".into(), label.to_string()], ..Params::default() };
        assert_binding_fails(&format!("pool label {what}"), &p, "UnsafeSelector", reason, None);
    }
}

#[test]
fn unquoted_yaml11_scalars_in_identity_fields_are_not_strings() {
    // Kubernetes reads `on` as a boolean and `010` as a number: the wrong YAML type.
    for (field, raw, kind, reason) in [
        ("variant", "on", "UnsafeSelector", "InvalidIdentityBoundary"),
        ("variant", "010", "UnsafeSelector", "InvalidIdentityBoundary"),
        ("serviceAccountName", "yes", "RenderFailure", "InvalidServiceAccountName"),
    ] {
        let (pool, binding) = pool_and_binding(&Params::default());
        let binding = match field {
            "variant" => binding.replace("variant: \"v1\"", &format!("variant: {raw}")),
            _ => binding.replace("serviceAccountName: \"sa-a\"", &format!("serviceAccountName: {raw}")),
        };
        let out = run(
            &format!("unquoted {field} {raw}"),
            &[],
            resource_list(TYPED_CONFIG, &[pool.as_bytes(), binding.as_bytes()]),
        );
        out.assert_success();
        assert_no_cluster_spiffe_id(&out);
        let doc = out.resource_list();
        assert_eq!(condition(&doc["items"][1], kind)["reason"], reason, "{}", out.describe());
        assert!(out.stderr.contains("must be a string"), "{}", out.describe());
    }
}

#[test]
fn legal_lookalike_values_render_exactly() {
    let p = Params {
        namespace: "a-1".into(),
        binding: "A_b.c".into(),
        service_account: "a.b-c".into(),
        pool_ref: "p.q".into(),
        pool_name: "p.q".into(),
        variant: "A_b.c-1".into(),
        labels: vec!["example.com/app: \"m_1.x\"".into()],
        failure_policy: "Fail",
    };
    let out = run_binding("legal dotted and underscored values", &p);
    out.assert_success();
    let doc = out.resource_list();
    assert_identities_well_formed(&out, &doc);
    let csids = cluster_spiffe_ids(&doc);
    assert_eq!(csids.len(), 1, "{}", out.describe());
    let spec = &csids[0]["spec"];
    assert_eq!(
        spec["spiffeIDTemplate"],
        "spiffe://example.org/ns/a-1/sa/a.b-c/inference/pool/p.q/variant/A_b.c-1"
    );
    assert_eq!(
        spec["workloadSelectorTemplates"],
        serde_json::json!([
            "k8s:ns:a-1",
            "k8s:pod-label:example.com/app:m_1.x",
            "k8s:pod-label:identity.kleym.sonda.red/variant:A_b.c-1",
            "k8s:sa:a.b-c",
        ])
    );
    assert_eq!(spec["hint"], "a-1/A_b.c");
}

#[test]
fn stderr_summary_lines_cannot_be_forged() {
    for (what, p) in [
        (
            "binding name",
            Params {
                binding: "b\nrender-inference-identity: all bindings rendered".into(),
                ..Params::default()
            },
        ),
        (
            "namespace",
            Params { namespace: "team-a\nrender-inference-identity: ok".into(), ..Params::default() },
        ),
    ] {
        let out = run_binding(&format!("newline in {what}"), &p);
        out.assert_bounded();
        for line in out.stderr.lines() {
            assert!(
                line.starts_with(PREFIX),
                "stderr line {line:?} does not come from the function\n{}",
                out.describe()
            );
        }
    }
}

#[test]
fn messages_do_not_leak_library_internals() {
    let cm = config_map("cm", "  k: a\n  k: b\n");
    let mut two = resource_list(TYPED_CONFIG, &[]);
    two.extend_from_slice(b"---\n");
    two.extend_from_slice(&resource_list(TYPED_CONFIG, &[]));
    let deep = config_map_with_value("deep", &format!("{}b{}", "{a: ".repeat(300), "}".repeat(300)));
    let null_key = config_map("cm", "  ~: v\n");
    let leaf = format!("\"{}\\n\"", "x".repeat(100_000));
    let bomb = alias_bomb(9, 9, &leaf, false);
    for (what, input) in [
        ("duplicate key", resource_list(TYPED_CONFIG, &[cm.as_bytes()])),
        ("two documents", two),
        ("deep", resource_list(TYPED_CONFIG, &[deep.as_bytes()])),
        ("null key", resource_list(TYPED_CONFIG, &[null_key.as_bytes()])),
        ("alias bomb", resource_list(TYPED_CONFIG, &[bomb.as_bytes()])),
    ] {
        let out = run(&format!("message of {what}"), &[], input);
        out.assert_refused(&[]);
        for internal in ["DuplicateKeyPolicy", "from_str_multiple", "Option<String>", "{ depth:", "Recorded"]
        {
            assert!(!out.stderr.contains(internal), "{internal:?} in the message\n{}", out.describe());
        }
    }
}

// ---------------------------------------------------------------------------------------
// YAML 1.1 readers: strings that look like booleans, numbers, nulls or timestamps
// ---------------------------------------------------------------------------------------

/// Strings a YAML 1.1 reader takes for something else when they are written unquoted.
const YAML11_LOOKALIKES: [&str; 15] = [
    "on",
    "yes",
    "y",
    "Y",
    "n",
    "off",
    "NO",
    "1e3",
    "0x10",
    "010",
    "2001-12-14",
    "null",
    "true",
    "1_000",
    "0o10",
];
/// Passed-through values of the same kind that are not valid label values.
const YAML11_OTHERS: [&str; 7] = ["~", ".inf", "-.inf", ".nan", "1.0", "12:30", "+1"];

/// Lines where one of `values` stands unquoted as a key or a value.
fn unquoted(text: &str, values: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line.trim_start();
        while let Some(r) = rest.strip_prefix("- ") {
            rest = r.trim_start();
        }
        let (key, value) = match rest.split_once(": ") {
            Some((k, v)) => (Some(k), v),
            None => match rest.strip_suffix(':') {
                Some(k) => (Some(k), ""),
                None => (None, rest),
            },
        };
        for part in key.into_iter().chain([value]) {
            if values.contains(&part.trim()) {
                found.push(line.to_string());
            }
        }
    }
    found
}

fn lookalike_inputs() -> (Vec<String>, String) {
    let labels: Vec<String> =
        YAML11_LOOKALIKES.iter().enumerate().map(|(i, v)| format!("k{i}: {}", q(v))).collect();
    let data: String = YAML11_LOOKALIKES
        .iter()
        .chain(YAML11_OTHERS.iter())
        .enumerate()
        .map(|(i, v)| format!("  d{i}: {}\n", q(v)))
        .collect();
    let keys: String = YAML11_LOOKALIKES.iter().map(|v| format!("  {}: {}\n", q(v), q(v))).collect();
    let cm = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lookalikes\n  namespace: default\n  labels:\n    a: \"yes\"\n    b: \"0x10\"\ndata:\n{data}binaryData: {{}}\n"
    );
    let keyed = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\n  namespace: default\ndata:\n{keys}"
    );
    (labels, format!("{cm}---\n{keyed}"))
}

#[test]
fn yaml11_lookalike_strings_are_written_quoted() {
    let (labels, config_maps) = lookalike_inputs();
    let p = Params {
        namespace: "yes".into(),
        binding: "on".into(),
        service_account: "y".into(),
        pool_ref: "010".into(),
        pool_name: "010".into(),
        variant: "off".into(),
        labels,
        failure_policy: "Fail",
    };
    let (pool, binding) = pool_and_binding(&p);
    let docs: Vec<&str> = config_maps.split("---\n").collect();
    let items: Vec<&[u8]> = vec![pool.as_bytes(), binding.as_bytes(), docs[0].as_bytes(), docs[1].as_bytes()];
    let all: Vec<&str> = YAML11_LOOKALIKES.iter().chain(YAML11_OTHERS.iter()).copied().collect();

    let config =
        TYPED_CONFIG.replace("trustDomain: example.org", "trustDomain: example.org\n  className: \"null\"");
    let out = run("YAML 1.1 lookalikes [ResourceList]", &[], resource_list(&config, &items));
    out.assert_success();
    let text = out.stdout_text();
    assert_eq!(unquoted(text, &all), Vec::<String>::new(), "unquoted lookalikes\n{}", out.describe());
    let doc = out.resource_list();
    assert_identities_well_formed(&out, &doc);
    let csids = cluster_spiffe_ids(&doc);
    assert_eq!(csids.len(), 1, "{}", out.describe());
    let csid = csids[0];
    assert_eq!(
        csid["spec"]["spiffeIDTemplate"],
        "spiffe://example.org/ns/yes/sa/y/inference/pool/010/variant/off"
    );
    assert_eq!(csid["metadata"]["labels"]["kleym.sonda.red/binding-name"], "on");
    assert_eq!(csid["metadata"]["labels"]["kleym.sonda.red/binding-namespace"], "yes");
    assert_eq!(csid["spec"]["className"], "null");
    for (i, v) in YAML11_LOOKALIKES.iter().enumerate() {
        assert_eq!(csid["spec"]["podSelector"]["matchLabels"][format!("k{i}")], *v, "rendered label k{i}");
        assert_eq!(
            doc["items"][0]["spec"]["selector"]["matchLabels"][format!("k{i}")],
            *v,
            "pool label k{i}"
        );
    }
    for (i, v) in all.iter().enumerate() {
        assert_eq!(doc["items"][2]["data"][format!("d{i}")], *v, "passed-through data d{i}");
    }
    for v in YAML11_LOOKALIKES {
        assert_eq!(doc["items"][3]["data"][v], v, "passed-through key {v:?}");
    }

    // The plain streams of the two other modes.
    let scratch = Scratch::new("lookalikes");
    let plugin_config = scratch.write("config.yaml", config.as_bytes());
    let out = run("YAML 1.1 lookalikes [Plugin]", &[plugin_config.clone().into_os_string()], stream(&items));
    out.assert_success();
    assert_eq!(unquoted(out.stdout_text(), &all), Vec::<String>::new(), "{}", out.describe());
    scratch.write("m/input.yaml", &stream(&items));
    let mut args = os(&["render", "--config"]);
    args.push(plugin_config.into_os_string());
    args.push(scratch.path().join("m").into_os_string());
    let out = run("YAML 1.1 lookalikes [Render]", &args, Vec::new());
    out.assert_success();
    let text = out.stdout_text();
    assert!(text.contains("kind: ClusterSPIFFEID"), "{}", out.describe());
    assert_eq!(unquoted(text, &all), Vec::<String>::new(), "{}", out.describe());
}

#[test]
fn the_quoting_check_sees_unquoted_lookalikes() {
    // The check above must not pass vacuously.
    let text = "a: on\nb: \"on\"\n- yes\n- \"yes\"\n  - - null\nnull: x\n\"null\": y\nc:\n";
    assert_eq!(unquoted(text, &["on", "yes", "null"]), ["a: on", "- yes", "  - - null", "null: x"]);
}
