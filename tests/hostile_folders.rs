//! Hostile folders against the real binary: what a pull request can put in a folder that
//! `render`, `explain` and `discover` read (docs/security.md#reading-untrusted-folders states the rule).
//! Links out of the folder, links that loop, FIFOs and devices, input over the limit across
//! files and on standard input, paths too long to open, names that would forge a line, and
//! the Kptfile a package carries.
//!
//! Every run has a watchdog: a run still going after [`WATCHDOG`] is killed and fails its
//! test as a hang (a guard, not a timing).

mod common;

use common::{BIN, TempDir, repo_file};
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WATCHDOG: Duration = Duration::from_secs(20);
const PREFIX: &str = "render-inference-identity: ";
const LIMIT: usize = render_inference_identity::yaml::MAX_INPUT_BYTES;

/// What a run printed and how it ended.
struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

impl Run {
    fn describe(&self) -> String {
        format!("exit {:?}\n--- stdout\n{}\n--- stderr\n{}", self.code, self.stdout, self.stderr)
    }

    /// Failed with exit 1, printed nothing, and said one line on stderr holding `words`.
    fn refused(&self, words: &[&str]) {
        assert_eq!(self.code, Some(1), "{}", self.describe());
        assert!(self.stdout.is_empty(), "{}", self.describe());
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line of error: {}", self.describe());
        for w in words {
            assert!(lines[0].contains(w), "stderr lacks {w:?}: {}", self.describe());
        }
    }
}

/// What the child gets on standard input.
enum Stdin {
    None,
    /// Bytes without end, until the child stops reading.
    Endless,
}

/// Runs the binary in `dir` with a clean environment and a watchdog.
fn run_in(dir: &Path, args: &[&OsStr], stdin: Stdin, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir).env_clear().env("PATH", "/usr/bin:/bin").args(args);
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.stdin(match stdin {
        Stdin::None => Stdio::null(),
        Stdin::Endless => Stdio::piped(),
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary starts");
    if let Some(mut input) = child.stdin.take() {
        std::thread::spawn(move || {
            let chunk = vec![b'#'; 1 << 16];
            while input.write_all(&chunk).is_ok() {}
        });
    }
    let stdout = reader(&mut child, true);
    let stderr = reader(&mut child, false);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the binary") {
            break status;
        }
        if started.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the binary ran past the {WATCHDOG:?} watchdog (a hang): {args:?} in {}", dir.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run { stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap(), code: status.code() }
}

fn reader(child: &mut Child, out: bool) -> std::thread::JoinHandle<String> {
    let mut pipe: Box<dyn Read + Send> = if out {
        Box::new(child.stdout.take().expect("stdout is piped"))
    } else {
        Box::new(child.stderr.take().expect("stderr is piped"))
    };
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_in(dir, &args, Stdin::None, &[])
}

/// A folder holding one pool and one binding (`inference.yaml`), as the samples have them.
fn package(label: &str) -> TempDir {
    let dir = TempDir::new(label);
    dir.write("inference.yaml", &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"));
    dir
}

const BINDING: &str = "kind: InferenceIdentityBinding";

/// The three modes on the folder `.`.
const MODES: [&[&str]; 3] = [
    &["render", "--trust-domain", "example.org"],
    &["explain", "--trust-domain", "example.org"],
    &["discover"],
];

// ---------------------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------------------

#[test]
fn a_link_to_a_file_outside_is_refused_and_its_content_never_printed() {
    let outside = TempDir::new("outside");
    let secret = outside.write(
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: x\nstringData:\n  token: OUTSIDE-SECRET\n",
    );
    let dir = package("outside-link");
    symlink(&secret, dir.join("s.yaml")).unwrap();
    for mode in MODES {
        let out = run(dir.path(), mode);
        out.refused(&["s.yaml", "points outside"]);
        assert!(
            !out.stderr.contains("OUTSIDE-SECRET")
                && !out.stderr.contains(&*outside.path().to_string_lossy())
        );
    }
}

#[test]
fn a_link_to_proc_self_environ_is_refused_without_quoting_it() {
    let dir = package("environ");
    symlink("/proc/self/environ", dir.join("e.yaml")).unwrap();
    for mode in MODES {
        let args: Vec<&OsStr> = mode.iter().map(OsStr::new).collect();
        let out = run_in(dir.path(), &args, Stdin::None, &[("RII_MARKER", "ENVIRON-MARKER")]);
        out.refused(&["e.yaml", "points outside"]);
        assert!(!out.stderr.contains("ENVIRON-MARKER"), "{}", out.describe());
    }
}

#[test]
fn links_to_system_folders_are_refused() {
    for (name, target) in [("p", "/proc"), ("root", "/")] {
        let dir = package("system-link");
        symlink(target, dir.join(name)).unwrap();
        for mode in MODES {
            run(dir.path(), mode).refused(&[&format!("./{name}:"), "points outside"]);
        }
    }
}

#[test]
fn a_device_linked_as_a_manifest_is_never_read() {
    let dir = package("dev-zero");
    symlink("/dev/zero", dir.join("z.yaml")).unwrap();
    for mode in MODES {
        run(dir.path(), mode).refused(&["z.yaml", "points outside"]);
    }
    // Named as a path of its own, it is no regular file.
    for mode in [["render", "/dev/zero"], ["discover", "/dev/zero"]] {
        run(dir.path(), &mode).refused(&["/dev/zero", "a device"]);
    }
}

#[test]
fn one_link_back_into_the_folder_reads_each_file_once() {
    let dir = package("one-loop");
    symlink(".", dir.join("d")).unwrap();
    let found = run(dir.path(), &["discover"]);
    assert_eq!((found.code, found.stdout.as_str()), (Some(0), "./inference.yaml\n"), "{}", found.describe());
    let out = run(dir.path(), MODES[0]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert_eq!(out.stdout.matches(BINDING).count(), 1, "{}", out.describe());
}

#[test]
fn two_links_that_loop_end_and_read_each_file_once() {
    let dir = package("two-loops");
    symlink(".", dir.join("d1")).unwrap();
    symlink(".", dir.join("d2")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    symlink("..", dir.join("sub/up")).unwrap();
    for mode in MODES {
        let out = run(dir.path(), mode);
        assert_eq!(out.code, Some(0), "{}", out.describe());
    }
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.stdout, "./inference.yaml\n", "{}", found.describe());
    let out = run(dir.path(), MODES[0]);
    assert_eq!(out.stdout.matches(BINDING).count(), 1, "{}", out.describe());
}

#[test]
fn a_link_to_a_file_inside_reads_it_once_under_its_own_name() {
    let dir = package("inner-link");
    symlink("inference.yaml", dir.join("a-link.yaml")).unwrap();
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.stdout, "./inference.yaml\n", "{}", found.describe());
    let out = run(dir.path(), MODES[0]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert_eq!(out.stdout.matches(BINDING).count(), 1, "{}", out.describe());
}

#[test]
fn a_link_to_a_folder_inside_is_followed() {
    let dir = TempDir::new("inner-folder-link");
    dir.write("real/inference.yaml", &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"));
    let app = dir.join("app");
    std::fs::create_dir(&app).unwrap();
    symlink("../real", app.join("manifests")).unwrap();
    // Given `app` alone, the link points outside it.
    run(dir.path(), &["discover", "app"]).refused(&["app/manifests", "points outside"]);
    // Given the whole tree, it stays inside: the file is read once, under its own name.
    let found = run(dir.path(), &["discover", "."]);
    assert_eq!(found.stdout, "./real/inference.yaml\n", "{}", found.describe());
}

// ---------------------------------------------------------------------------------------
// Special files
// ---------------------------------------------------------------------------------------

#[test]
fn a_fifo_named_as_a_manifest_is_refused_without_blocking() {
    let dir = package("fifo");
    let fifo = dir.join("x.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    for mode in MODES {
        run(dir.path(), mode).refused(&["x.yaml", "FIFO"]);
    }
    run(dir.path(), &["render", "x.yaml"]).refused(&["x.yaml", "FIFO"]);
}

// ---------------------------------------------------------------------------------------
// The input limit
// ---------------------------------------------------------------------------------------

#[test]
fn the_limit_holds_across_files() {
    let dir = TempDir::new("limit-files");
    for name in ["a.yaml", "b.yaml"] {
        let file = std::fs::File::create(dir.join(name)).unwrap();
        file.set_len((70 << 20) as u64).unwrap();
    }
    for mode in MODES {
        run(dir.path(), mode).refused(&["b.yaml", "limit", &LIMIT.to_string()]);
    }
}

#[test]
fn standard_input_is_read_to_the_limit_and_no_further() {
    let dir = TempDir::new("limit-stdin");
    for args in [&["render", "--trust-domain", "example.org", "-"][..], &[]] {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = run_in(dir.path(), &args, Stdin::Endless, &[]);
        assert_eq!(out.code, Some(1), "{}", out.describe());
        assert!(
            out.stderr.contains("limit") && out.stderr.contains(&LIMIT.to_string()),
            "{}",
            out.describe()
        );
    }
}

// ---------------------------------------------------------------------------------------
// Nothing skipped silently
// ---------------------------------------------------------------------------------------

#[test]
fn a_path_too_long_to_open_is_an_error_naming_it() {
    let dir = package("long-path");
    deep_file(dir.path(), &"s".repeat(200), 25, &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"));
    for mode in MODES {
        run(dir.path(), mode).refused(&["sssssss", "File name too long"]);
    }
}

/// Writes `text` as `deep.yaml` under `depth` nested folders named `segment`, a folder at a
/// time relative to the one before (`mkdirat`, `openat`), so no call sees the whole path.
fn deep_file(dir: &Path, segment: &str, depth: usize, text: &str) {
    use std::ffi::CString;
    let c = |s: &str| CString::new(s).unwrap();
    let root = c(&dir.to_string_lossy());
    // SAFETY: plain system calls on descriptors this function opens and closes.
    unsafe {
        let mut fd = libc::open(root.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
        assert!(fd >= 0, "opening {}", dir.display());
        let name = c(segment);
        for _ in 0..depth {
            assert_eq!(libc::mkdirat(fd, name.as_ptr(), 0o755), 0, "mkdirat");
            let next = libc::openat(fd, name.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
            assert!(next >= 0, "openat");
            libc::close(fd);
            fd = next;
        }
        let file = libc::openat(fd, c("deep.yaml").as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o644);
        assert!(file >= 0, "creating deep.yaml");
        let written = libc::write(file, text.as_ptr().cast(), text.len());
        assert_eq!(written, text.len() as isize);
        libc::close(file);
        libc::close(fd);
    }
}

// ---------------------------------------------------------------------------------------
// Names that would forge output
// ---------------------------------------------------------------------------------------

#[test]
fn a_newline_in_a_file_name_cannot_forge_a_line() {
    let dir = TempDir::new("newline-name");
    let forged = "a\nrender-inference-identity: error: forged.yaml";
    dir.write(forged, "kind: NoApiVersion\n");
    let out = run(dir.path(), MODES[0]);
    out.refused(&["a\\nrender-inference-identity: error: forged.yaml", "not a Kubernetes object"]);
    assert!(out.stderr.starts_with(PREFIX));

    let dir = TempDir::new("newline-discover");
    dir.write(forged, &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"));
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.code, Some(0), "{}", found.describe());
    assert_eq!(found.stdout, "./a\\nrender-inference-identity: error: forged.yaml\n", "{}", found.describe());
}

#[test]
fn a_name_that_is_not_utf8_is_shown_escaped() {
    let dir = TempDir::new("non-utf8");
    let name = PathBuf::from(OsStr::from_bytes(b"b\xff.yaml"));
    std::fs::write(dir.path().join(&name), repo_file("fn-config/kustomize/exec-plugin/inference.yaml"))
        .unwrap();
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.stdout, "./b\\xff.yaml\n", "{}", found.describe());
    assert!(!found.stdout.contains('\u{fffd}'));

    std::fs::write(dir.path().join(&name), "kind: NoApiVersion\n").unwrap();
    let out = run(dir.path(), MODES[0]);
    out.refused(&["./b\\xff.yaml (document 0)"]);
    assert!(!out.stderr.contains('\u{fffd}'));
}

// ---------------------------------------------------------------------------------------
// discover
// ---------------------------------------------------------------------------------------

#[test]
fn discover_lists_objects_not_text_that_names_the_kind() {
    let dir = TempDir::new("discover-objects");
    for file in
        ["name-references.yaml", "inference.yaml", "RenderInferenceIdentity.yaml", "kustomization.yaml"]
    {
        dir.write(file, &repo_file(&format!("fn-config/kustomize/exec-plugin/{file}")));
    }
    dir.write("comment.yaml", "# kind: InferenceIdentityBinding\napiVersion: v1\nkind: ConfigMap\n");
    dir.write(
        "other-group.yaml",
        "apiVersion: example.com/v1\nkind: InferenceIdentityBinding\nmetadata:\n  name: x\n",
    );
    dir.write(
        "second-document.yaml",
        "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: \"kleym.sonda.red/v1alpha1\"\nkind: InferenceIdentityBinding # x\n",
    );
    dir.write(
        "binding.json",
        r#"{"apiVersion": "kleym.sonda.red/v1alpha1", "kind": "InferenceIdentityBinding"}"#,
    );
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.code, Some(0), "{}", found.describe());
    assert_eq!(
        found.stdout,
        "./binding.json\n./inference.yaml\n./second-document.yaml\n",
        "{}",
        found.describe()
    );
}

#[test]
fn discover_lists_every_binding_render_reads_however_its_yaml_is_spelled() {
    let dir = TempDir::new("discover-shapes");
    let rest = "metadata:\n  name: b\n  namespace: serving\nspec:\n  poolRef:\n    name: llama\n  \
                serviceAccountName: llama\n  identityBoundary:\n    variant: prefill\n";
    let shapes = [
        ("bom.yaml", format!("\u{feff}apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\n{rest}")),
        ("quoted.yaml", format!("\"apiVersion\": \"kleym.sonda.red/v1alpha1\"\n\"kind\": \"InferenceIdentityBinding\"\n{rest}")),
        ("tag.yaml", format!("apiVersion: kleym.sonda.red/v1alpha1\nkind: !!str InferenceIdentityBinding\n{rest}")),
        ("anchor.yaml", format!("apiVersion: kleym.sonda.red/v1alpha1\nkind: &k InferenceIdentityBinding\n{rest}")),
        ("next-line.yaml", format!("apiVersion:\n  kleym.sonda.red/v1alpha1\nkind:\n  InferenceIdentityBinding\n{rest}")),
        ("flow.yaml", "{apiVersion: kleym.sonda.red/v1alpha1, kind: InferenceIdentityBinding, metadata: {name: b, namespace: serving}}\n".to_string()),
    ];
    for (file, text) in &shapes {
        dir.write(file, text);
        // What render reads as a binding, on its own: one binding.
        let report = run(dir.path(), &["explain", file, "--trust-domain", "example.org", "-o", "json"]);
        assert!(report.stdout.contains("\"name\": \"b\""), "{file}: {}", report.describe());
    }
    // Neither a binding render leaves out (kpt's local config) nor a file that is no YAML
    // (a Helm template naming the kind) is one.
    dir.write(
        "local.yaml",
        "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata:\n  name: l\n  \
         annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
    );
    dir.write(
        "template.yaml",
        "{{- if .Values.identity }}\napiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\n{{- end }}\n",
    );
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.code, Some(0), "{}", found.describe());
    let mut want: Vec<String> = shapes.iter().map(|(file, _)| format!("./{file}")).collect();
    want.sort();
    assert_eq!(found.stdout, format!("{}\n", want.join("\n")), "{}", found.describe());
}

// ---------------------------------------------------------------------------------------
// A kpt package's Kptfile
// ---------------------------------------------------------------------------------------

/// `pkg/` holding the manifests and the shipped kpt package as a user copies it, whole:
/// Kptfile, identity-config.yaml, schema.json and .krmignore.
fn kpt_package(label: &str) -> TempDir {
    let dir = TempDir::new(label);
    dir.write("pkg/inference.yaml", &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"));
    for file in ["Kptfile", "identity-config.yaml", "schema.json", ".krmignore"] {
        dir.write(&format!("pkg/{file}"), &repo_file(&format!("fn-config/kpt/{file}")));
    }
    dir
}

#[test]
fn a_krmignore_leaves_out_what_kpt_leaves_out() {
    // The shipped package's schema.json is no Kubernetes object: render refuses such a file,
    // kpt never reads it (.krmignore), and neither does render.
    let dir = kpt_package("krmignore");
    let out = run(dir.path(), &["render", "pkg"]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    std::fs::remove_file(dir.join("pkg/.krmignore")).unwrap();
    let out = run(dir.path(), &["render", "pkg"]);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(out.stderr.contains("schema.json"), "{}", out.describe());
    // gitignore patterns, as kpt reads them: a folder, and a name at any depth.
    dir.write("pkg/.krmignore", "# kpt's ignore file\nschema.json\nscratch/\n");
    dir.write("pkg/scratch/values.yaml", "replicas: 2\n");
    dir.write("pkg/sub/schema.json", "{\"type\": \"object\"}\n");
    let out = run(dir.path(), &["render", "pkg"]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert!(out.stdout.contains("kind: ClusterSPIFFEID"), "{}", out.describe());
}

#[test]
fn explain_in_a_kpt_package_takes_the_config_its_kptfile_names() {
    let dir = kpt_package("kptfile-config");
    let out = run(dir.path(), &["explain", "pkg"]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert!(
        out.stdout.starts_with("Config: pkg/identity-config.yaml (from pkg/Kptfile)\n"),
        "{}",
        out.describe()
    );
    assert!(
        !out.stdout.contains("MissingTrustDomain") && !out.stderr.contains("trustDomain"),
        "{}",
        out.describe()
    );
    assert!(out.stdout.contains("spiffe://example.org/"), "{}", out.describe());
    let json = run(dir.path(), &["explain", "-o", "json", "pkg"]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("explain -o json is JSON");
    assert_eq!(report["config"], "pkg/identity-config.yaml (from pkg/Kptfile)");

    // Inside the package, as `.`.
    let out = run(&dir.join("pkg"), &["explain"]);
    assert!(out.stdout.starts_with("Config: identity-config.yaml (from Kptfile)\n"), "{}", out.describe());

    // render: the same config, nothing said of it on success.
    let out = run(dir.path(), &["render", "pkg"]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert!(out.stdout.contains("spiffeIDTemplate: spiffe://example.org/"), "{}", out.describe());
    assert!(!out.stdout.contains("RenderInferenceIdentity"), "the config is no manifest: {}", out.describe());

    // Flags still override; --config replaces the Kptfile's.
    let out = run(dir.path(), &["render", "pkg", "--trust-domain", "flag.example"]);
    assert!(out.stdout.contains("spiffe://flag.example/"), "{}", out.describe());
    dir.write(
        "other.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  trustDomain: other.example\n",
    );
    let out = run(dir.path(), &["explain", "pkg", "--config", "other.yaml"]);
    assert!(out.stdout.starts_with("Config: other.yaml (--config)\n"), "{}", out.describe());
    assert!(out.stdout.contains("spiffe://other.example/"), "{}", out.describe());
}

#[test]
fn a_kptfile_config_map_is_the_config() {
    let dir = kpt_package("kptfile-configmap");
    let kptfile = repo_file("fn-config/kpt/Kptfile")
        .replace("configPath: identity-config.yaml", "configMap:\n      trustDomain: inline.example");
    dir.write("pkg/Kptfile", &kptfile);
    let out = run(dir.path(), &["explain", "pkg"]);
    assert!(out.stdout.starts_with("Config: configMap of pkg/Kptfile\n"), "{}", out.describe());
    assert!(out.stdout.contains("spiffe://inline.example/"), "{}", out.describe());
}

#[test]
fn two_packages_with_different_configs_ask_for_one() {
    let dir = kpt_package("kptfile-two");
    dir.write("pkg2/Kptfile", &repo_file("fn-config/kpt/Kptfile"));
    dir.write(
        "pkg2/identity-config.yaml",
        &repo_file("fn-config/render-inference-identity.yaml")
            .replace("trustDomain: example.org", "trustDomain: two.example"),
    );
    run(dir.path(), &["render", "pkg", "pkg2"]).refused(&["pkg/Kptfile", "pkg2/Kptfile", "--config"]);
}

#[test]
fn a_kptfile_config_path_outside_the_package_is_refused() {
    let dir = kpt_package("kptfile-outside");
    dir.write("secret.yaml", "apiVersion: v1\nkind: ConfigMap\ndata:\n  trustDomain: OUTSIDE-SECRET\n");
    let kptfile = repo_file("fn-config/kpt/Kptfile")
        .replace("configPath: identity-config.yaml", "configPath: ../secret.yaml");
    dir.write("pkg/Kptfile", &kptfile);
    let out = run(dir.path(), &["explain", "pkg"]);
    out.refused(&["pkg/Kptfile", "configPath", "inside"]);
    assert!(!out.stderr.contains("OUTSIDE-SECRET"));
}

#[test]
fn only_the_pipeline_entry_that_runs_this_function_counts() {
    let dir = kpt_package("kptfile-image");
    let kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n  \
                   - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4\n    configMap:\n      \
                   trustDomain: not-this.example\n  validators:\n  \
                   - image: registry.example.com/render-inference-identity:0.1.0\n    configPath: identity-config.yaml\n";
    dir.write("pkg/Kptfile", kptfile);
    let out = run(dir.path(), &["explain", "pkg"]);
    assert!(
        out.stdout.starts_with("Config: pkg/identity-config.yaml (from pkg/Kptfile)\n"),
        "{}",
        out.describe()
    );
    assert!(out.stdout.contains("spiffe://example.org/"), "{}", out.describe());
    // Without an entry that runs it, the Kptfile gives nothing (not even a trust domain).
    dir.write("pkg/Kptfile", &kptfile.replace("render-inference-identity", "other-function"));
    let out = run(dir.path(), &["explain", "pkg"]);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(out.stderr.contains("trustDomain is required"), "{}", out.describe());
    let out = run(dir.path(), &["explain", "pkg", "--trust-domain", "example.org"]);
    assert!(out.stdout.starts_with("Config: none"), "{}", out.describe());
}
