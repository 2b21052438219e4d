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
    /// These bytes, then the end.
    Bytes(Vec<u8>),
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
        Stdin::Endless | Stdin::Bytes(_) => Stdio::piped(),
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary starts");
    if let Some(mut input) = child.stdin.take() {
        std::thread::spawn(move || match stdin {
            Stdin::Bytes(bytes) => {
                let _ = input.write_all(&bytes);
            }
            _ => {
                let chunk = vec![b'#'; 1 << 16];
                while input.write_all(&chunk).is_ok() {}
            }
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

#[test]
fn a_link_to_an_outside_dotfile_is_refused_without_quoting_it() {
    let outside = TempDir::new("outside-dotfile");
    let netrc = outside.write(".netrc", "machine example.com login me password NETRC-SECRET\n");
    let dir = package("outside-dotfile-link");
    symlink(&netrc, dir.join("n.yaml")).unwrap();
    for mode in MODES {
        let out = run(dir.path(), mode);
        out.refused(&["n.yaml", "points outside"]);
        assert!(!out.stderr.contains("NETRC-SECRET"), "{}", out.describe());
    }
    let out = run(dir.path(), &["render", "n.yaml"]);
    out.refused(&["n.yaml", "leads out of it"]);
    assert!(!out.stderr.contains("NETRC-SECRET"), "{}", out.describe());
}

#[test]
fn a_link_to_a_hidden_entry_is_never_followed() {
    let dir = package("hidden-link");
    dir.write(".git/config", GIT_CONFIG);
    symlink(".git/config", dir.join("leak.yaml")).unwrap();
    let leaks = |out: &Run| out.stderr.contains("GIT-SECRET") || out.stdout.contains("GIT-SECRET");
    for mode in MODES {
        let out = run(dir.path(), mode);
        out.refused(&["./leak.yaml", "hidden entry"]);
        assert!(!leaks(&out), "{}", out.describe());
    }
    // Named as a path of its own, the link leads to a hidden entry just the same.
    let out = run(dir.path(), &["render", "leak.yaml"]);
    out.refused(&["leak.yaml", "symbolic link in the working folder that leads to a hidden entry"]);
    assert!(!leaks(&out), "{}", out.describe());
    // A link to a hidden folder, or into one.
    std::fs::remove_file(dir.join("leak.yaml")).unwrap();
    dir.write(".cache/old/binding.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hidden\n");
    for (link, target) in [("git", ".git"), ("old", ".cache/old")] {
        symlink(target, dir.join(link)).unwrap();
        for mode in MODES {
            run(dir.path(), mode).refused(&[&format!("./{link}:"), "hidden entry"]);
        }
        std::fs::remove_file(dir.join(link)).unwrap();
    }
    // A hidden folder given by its own path is read.
    let out = run(dir.path(), &["render", "--trust-domain", "example.org", ".cache/old"]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert!(out.stdout.contains("name: hidden"), "{}", out.describe());
}

/// A git config holding a credential, as a CI checkout leaves one.
const GIT_CONFIG: &str = "[core]\n\trepositoryformatversion = 0\n[http \"https://github.com/\"]\n\t\
                          extraheader = AUTHORIZATION: basic GIT-SECRET\n";

#[test]
fn a_path_given_through_a_link_out_of_the_working_folder_is_refused() {
    let outside = TempDir::new("given-outside");
    outside.write(
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: x\nstringData:\n  token: OUTSIDE-SECRET\n",
    );
    let dir = package("given-link");
    symlink(outside.path(), dir.join("deploy")).unwrap();
    symlink("/proc/self/environ", dir.join("e.yaml")).unwrap();
    symlink(outside.join("secret.yaml"), dir.join("c.yaml")).unwrap();
    let out_of_it = "a symbolic link in the working folder that leads out of it";
    for args in [
        &["render", "deploy"][..],
        &["explain", "deploy"],
        &["discover", "deploy"],
        &["render", "e.yaml"],
        &["explain", "e.yaml"],
        &["discover", "e.yaml"],
        &["render", "--config", "c.yaml", "inference.yaml"],
        &["explain", "--config", "c.yaml", "inference.yaml"],
        &["diff", "e.yaml", "inference.yaml"],
        &["diff", "--trust-domain", "example.org", "inference.yaml", "deploy"],
    ] {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = run_in(dir.path(), &args, Stdin::None, &[("RII_MARKER", "ENVIRON-MARKER")]);
        out.refused(&[out_of_it, "real path"]);
        for secret in ["OUTSIDE-SECRET", "ENVIRON-MARKER", &*outside.path().to_string_lossy()] {
            assert!(!out.stderr.contains(secret), "{args:?}: {}", out.describe());
        }
    }
    // A path under the link names the link.
    run(dir.path(), &["render", "deploy/secret.yaml"])
        .refused(&["deploy/secret.yaml: reached through deploy,", out_of_it]);
    // By its real path, the place is read: that is the caller's choice, not the folder's.
    let real = outside.path().to_str().unwrap();
    let out = run(dir.path(), &["render", "--trust-domain", "example.org", real]);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert!(out.stdout.contains("OUTSIDE-SECRET"), "{}", out.describe());
    // A link met outside the working folder is the caller's choice too.
    symlink(outside.path(), outside.join("alias")).unwrap();
    let through = outside.join("alias").join("secret.yaml");
    let found = run(dir.path(), &["discover", through.to_str().unwrap()]);
    assert_eq!(found.code, Some(0), "{}", found.describe());
    // Through two links of the working folder, the message names the first.
    std::fs::create_dir(dir.join("real")).unwrap();
    symlink(outside.path(), dir.join("real").join("out")).unwrap();
    symlink("real", dir.join("hop")).unwrap();
    run(dir.path(), &["render", "hop/out/secret.yaml"])
        .refused(&["hop/out/secret.yaml: reached through hop,", out_of_it]);
    // A path that climbs out without a link (`../other`), and a link that stays inside.
    std::fs::create_dir(dir.join("sub")).unwrap();
    let found = run(&dir.join("sub"), &["discover", "../inference.yaml"]);
    assert_eq!((found.code, found.stdout.as_str()), (Some(0), "../inference.yaml\n"), "{}", found.describe());
    symlink("inference.yaml", dir.join("in.yaml")).unwrap();
    let found = run(dir.path(), &["discover", "in.yaml"]);
    assert_eq!((found.code, found.stdout.as_str()), (Some(0), "in.yaml\n"), "{}", found.describe());
}

#[test]
fn a_link_whose_target_is_missing_is_an_error_saying_what_it_leaves_out() {
    let dir = package("dangling");
    symlink("missing.yaml", dir.join("x.yaml")).unwrap();
    for mode in MODES {
        run(dir.path(), mode).refused(&[
            "./x.yaml",
            "target does not exist",
            "the manifest it names",
            ".krmignore",
        ]);
    }
    std::fs::remove_file(dir.join("x.yaml")).unwrap();
    // A folder link without a manifest name: its bindings would vanish with exit 0.
    symlink("gone", dir.join("deploy")).unwrap();
    for mode in MODES {
        run(dir.path(), mode).refused(&[
            "./deploy",
            "target does not exist",
            "if it named a folder",
            ".krmignore",
        ]);
    }
    run(dir.path(), &["render", "deploy"]).refused(&["deploy", "target does not exist", "fix the link"]);
    // Left out by a .krmignore, it is no longer read.
    dir.write(".krmignore", "deploy\n");
    for mode in MODES {
        let out = run(dir.path(), mode);
        assert_eq!(out.code, Some(0), "{}", out.describe());
    }
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

/// A file of `len` bytes of YAML comment lines.
fn comments(path: &Path, len: usize) {
    let line = format!("#{}\n", "x".repeat(1022));
    let mut text = line.repeat(len / line.len());
    text.push_str(&"#".repeat(len - text.len()));
    std::fs::write(path, text).unwrap();
}

/// A file of `len` bytes that reads as NUL bytes (sparse): refused as no YAML text when
/// read, and over the limit without being read when it does not fit.
fn sparse(path: &Path, len: usize) {
    std::fs::File::create(path).unwrap().set_len(len as u64).unwrap();
}

/// The refusal of a file over what is left of the limit.
const OVER: [&str; 2] = ["limit", "134217728"];

#[test]
fn the_limit_holds_across_files() {
    let dir = TempDir::new("limit-files");
    comments(&dir.join("a.yaml"), 70 << 20);
    sparse(&dir.join("b.yaml"), 70 << 20);
    for mode in MODES {
        run(dir.path(), mode).refused(&["b.yaml", OVER[0], OVER[1]]);
    }
}

#[test]
fn standard_input_and_files_share_the_limit() {
    let dir = TempDir::new("limit-stdin-files");
    let stdin = "# piped\n".repeat(1000).into_bytes();
    // What is left after standard input, and one byte more.
    sparse(&dir.join("fits.yaml"), LIMIT - stdin.len());
    sparse(&dir.join("over.yaml"), LIMIT - stdin.len() + 1);
    fn args(file: &str) -> Vec<&OsStr> {
        ["render", "--trust-domain", "example.org", "-", file].into_iter().map(OsStr::new).collect()
    }
    run_in(dir.path(), &args("over.yaml"), Stdin::Bytes(stdin.clone()), &[]).refused(&["over.yaml", OVER[0]]);
    // At the limit exactly, the file is read (and found to be no YAML text).
    run_in(dir.path(), &args("fits.yaml"), Stdin::Bytes(stdin), &[]).refused(&["fits.yaml", "not YAML text"]);
}

#[test]
fn the_config_and_the_kptfile_count_against_the_limit() {
    // --config: what is left after it, and one byte more.
    let dir = package("limit-config");
    let config = dir.write("config.yaml", &repo_file("fn-config/render-inference-identity.yaml"));
    let config_len = std::fs::metadata(&config).unwrap().len() as usize;
    sparse(&dir.join("big.yaml"), LIMIT - config_len + 1);
    run(dir.path(), &["render", "--config", "config.yaml", "big.yaml"]).refused(&["big.yaml", OVER[0]]);
    sparse(&dir.join("big.yaml"), LIMIT - config_len);
    run(dir.path(), &["render", "--config", "config.yaml", "big.yaml"])
        .refused(&["big.yaml", "not YAML text"]);

    // A package: its Kptfile and the config it names both count.
    let dir = kpt_package("limit-kptfile");
    std::fs::remove_file(dir.join("pkg/inference.yaml")).unwrap();
    let len = |name: &str| std::fs::metadata(dir.join(name)).unwrap().len() as usize;
    let package = len("pkg/Kptfile") + len("pkg/identity-config.yaml");
    sparse(&dir.join("pkg/big.yaml"), LIMIT - package + 1);
    for mode in [&["render", "pkg"][..], &["explain", "pkg"]] {
        run(dir.path(), mode).refused(&["pkg/big.yaml", OVER[0]]);
    }
    sparse(&dir.join("pkg/big.yaml"), LIMIT - package);
    run(dir.path(), &["render", "pkg"]).refused(&["pkg/big.yaml", "not YAML text"]);
}

#[test]
fn a_hard_link_and_a_file_two_paths_name_are_read_once() {
    let dir = package("hard-link");
    std::fs::hard_link(dir.join("inference.yaml"), dir.join("hard.yaml")).unwrap();
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.stdout, "./hard.yaml\n", "{}", found.describe());
    for args in [
        &["render", "--trust-domain", "example.org"][..],
        &["render", "--trust-domain", "example.org", ".", "inference.yaml"],
        &["render", "--trust-domain", "example.org", "inference.yaml", "./inference.yaml", "hard.yaml"],
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.describe());
        assert_eq!(out.stdout.matches(BINDING).count(), 1, "{args:?}: {}", out.describe());
        assert_eq!(out.stdout.matches("kind: ClusterSPIFFEID").count(), 1, "{args:?}: {}", out.describe());
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
        run(dir.path(), mode).refused(&["sssssss", "File name too long", "shorten the folder names"]);
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
    out.refused(&["./b\\xff.yaml (document 1)"]);
    assert!(!out.stderr.contains('\u{fffd}'));
}

#[test]
fn escapes_and_bidi_controls_in_names_are_shown_escaped() {
    let dir = TempDir::new("escape-names");
    dir.write("esc\u{1b}[31mred.yaml", "kind: NoApiVersion\n");
    let out = run(dir.path(), MODES[0]);
    out.refused(&["./esc\\u{1b}[31mred.yaml (document 1)"]);
    assert!(!out.stderr.contains('\u{1b}'), "{}", out.describe());

    let dir = TempDir::new("bidi-names");
    dir.write("rtl\u{202e}lmay.yaml", &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"));
    dir.write("iso\u{2066}x\u{2069}.yaml", "kind: NoApiVersion\n");
    let found = run(dir.path(), &["discover"]);
    assert_eq!(found.stdout, "./rtl\\u{202e}lmay.yaml\n", "{}", found.describe());
    let out = run(dir.path(), MODES[0]);
    out.refused(&["./iso\\u{2066}x\\u{2069}.yaml (document 1)"]);
    for c in ['\u{202e}', '\u{2066}', '\u{2069}'] {
        assert!(!out.stderr.contains(c) && !found.stdout.contains(c), "{}", out.describe());
    }
}

// ---------------------------------------------------------------------------------------
// What is quoted of a file
// ---------------------------------------------------------------------------------------

#[test]
fn text_yaml_never_holds_is_refused_without_quoting_it() {
    let dir = package("not-yaml-text");
    for (content, character) in [
        ("HOME=/root\0TOKEN=ENV-SECRET\0", "U+0000 (line 1, column 11)"),
        ("a: b\nc: \u{1b}]0;ENV-SECRET\u{7}\n", "U+001B (line 2, column 4)"),
        ("a: \u{85}ok\nb: \u{9b}ENV-SECRET\n", "U+009B (line 2, column 4)"),
    ] {
        dir.write("env.yaml", content);
        for mode in MODES {
            let out = run(dir.path(), mode);
            out.refused(&["./env.yaml: not YAML text", character, "content is not shown"]);
            assert!(!out.stderr.contains("ENV-SECRET"), "{}", out.describe());
        }
    }
}

#[test]
fn a_yaml_excerpt_names_its_file() {
    let dir = package("excerpt-name");
    dir.write("sub/bad.yaml", "a: b\n  c: d\n");
    let out = run(dir.path(), MODES[0]);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(
        out.stderr.contains(" --> ./sub/bad.yaml:2:") && !out.stderr.contains("<input>"),
        "{}",
        out.describe()
    );
    let config = dir.write("config.yaml", "trustDomain: x\n  y: z\n");
    let out = run(dir.path(), &["render", "--config", config.to_str().unwrap(), "inference.yaml"]);
    assert!(out.stderr.contains(&format!(" --> {}:2:", config.display())), "{}", out.describe());

    let dir = kpt_package("excerpt-kptfile");
    dir.write("pkg/Kptfile", "apiVersion: kpt.dev/v1\n  kind: Kptfile\n");
    let out = run(dir.path(), &["explain", "pkg"]);
    assert!(out.stderr.contains(" --> pkg/Kptfile:2:"), "{}", out.describe());
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

/// A file kubectl reads otherwise than the function (here a binding's `kind` that only a YAML
/// 1.1 reader sees, after a NEL in a comment) holds what the function cannot know: every
/// mode fails naming its line and column, `discover` too, and so does a hidden one, which
/// `kubectl apply -R` reads and kpt passes over (docs/yaml.md#held-to-kubectls-reader).
#[test]
fn a_file_kubectl_reads_otherwise_fails_every_mode_discover_and_a_hidden_one() {
    let hiding = "apiVersion: kleym.sonda.red/v1alpha1\nkind: ConfigMap # note\u{85}kind: InferenceIdentityBinding\n\
                  metadata: {name: b, namespace: serving}\n";
    let refused = |out: Run, file: &str| {
        assert_eq!(out.code, Some(1), "{}", out.describe());
        let place = format!("{file}: line 2 column 23: a NEL character");
        assert!(out.stderr.contains(&place), "stderr lacks {place:?}: {}", out.describe());
    };
    let dir = package("kubectl-reads-otherwise");
    dir.write("hidden.yaml", hiding);
    for mode in MODES {
        refused(run(dir.path(), mode), "./hidden.yaml");
    }
    let dir = package("kubectl-reads-otherwise-hidden");
    dir.write(".hidden.yaml", hiding);
    for mode in &MODES[..2] {
        refused(run(dir.path(), mode), "./.hidden.yaml");
    }
}

#[test]
fn discover_lists_every_binding_render_reads_however_its_yaml_is_spelled() {
    let dir = TempDir::new("discover-shapes");
    let rest = "metadata:\n  name: b\n  namespace: serving\nspec:\n  poolRef:\n    name: llama\n  \
                serviceAccountName: llama\n  identityBoundary:\n    variant: prefill\n";
    let shapes = [
        ("bom.yaml", format!("\u{feff}apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\n{rest}")),
        ("quoted.yaml", format!("\"apiVersion\": \"kleym.sonda.red/v1alpha1\"\n\"kind\": \"InferenceIdentityBinding\"\n{rest}")),
        ("escaped.yaml", format!("apiVersion: kleym.sonda.red/v1alpha1\nkind: \"Inference\\u0049dentityBinding\"\n{rest}")),
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
    // Two that give the same config agree: the first is named.
    dir.write("pkg2/identity-config.yaml", &repo_file("fn-config/kpt/identity-config.yaml"));
    let out = run(dir.path(), &["explain", "pkg", "pkg2"]);
    assert!(
        out.stdout.starts_with("Config: pkg/identity-config.yaml (from pkg/Kptfile)\n"),
        "{}",
        out.describe()
    );
}

#[test]
fn a_file_named_kptfile_of_another_api_is_no_package() {
    let dir = kpt_package("kptfile-other-api");
    let kptfile = repo_file("fn-config/kpt/Kptfile");
    assert!(kptfile.contains("apiVersion: kpt.dev/v1\n"), "the shipped Kptfile changed: {kptfile}");
    dir.write("pkg/Kptfile", &kptfile.replace("apiVersion: kpt.dev/v1\n", "apiVersion: example.com/v1\n"));
    let out = run(dir.path(), &["explain", "pkg"]);
    assert!(!out.stdout.contains("(from pkg/Kptfile)"), "{}", out.describe());
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
fn a_kptfile_config_path_to_a_hidden_entry_is_refused() {
    let dir = kpt_package("kptfile-hidden");
    dir.write("pkg/.git/config", GIT_CONFIG);
    symlink(".git/config", dir.join("pkg/linked.yaml")).unwrap();
    for config_path in [".git/config", "linked.yaml"] {
        let kptfile = repo_file("fn-config/kpt/Kptfile")
            .replace("configPath: identity-config.yaml", &format!("configPath: {config_path}"));
        dir.write("pkg/Kptfile", &kptfile);
        let out = run(dir.path(), &["explain", "pkg"]);
        out.refused(&["pkg/Kptfile", "configPath", "hidden entry"]);
        assert!(!out.stderr.contains("GIT-SECRET"), "{}", out.describe());
    }
}

#[test]
fn a_kptfile_that_is_a_link_is_refused_saying_so() {
    let dir = kpt_package("kptfile-link");
    std::fs::rename(dir.join("pkg/Kptfile"), dir.join("pkg/kptfile.txt")).unwrap();
    symlink("kptfile.txt", dir.join("pkg/Kptfile")).unwrap();
    for mode in [&["explain", "pkg"][..], &["render", "pkg"]] {
        run(dir.path(), mode).refused(&["pkg/Kptfile: a symbolic link", "Replace the link with a copy"]);
    }
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

// ---------------------------------------------------------------------------------------
// What kpt passes over and kubectl applies
// ---------------------------------------------------------------------------------------

const SNEAKY: &str = "apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata: {name: sneaky}\n\
                      spec: {spiffeIDTemplate: \"spiffe://example.org/x\"}\n";

#[test]
fn an_identity_a_pull_request_hides_where_kpt_does_not_look_is_a_possible_grant() {
    // kpt skips hidden entries and what a .krmignore names; `kubectl apply -R -f .` reads
    // every manifest file. render and explain read as kpt does; diff counts such a file that
    // HEAD adds or changes as a possible grant, naming it.
    for (file, krmignore) in
        [(".sneaky.yaml", None), (".config/spire.yaml", None), ("spire.yaml", Some("spire.yaml\n"))]
    {
        let root = TempDir::new("passed-over");
        let (base, head) = (root.path().join("base"), root.path().join("head"));
        for side in [&base, &head] {
            common::write(
                &side.join("inference.yaml"),
                &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"),
            );
            if let Some(patterns) = krmignore {
                common::write(&side.join(".krmignore"), patterns);
            }
        }
        common::write(&head.join(file), SNEAKY);
        let diff = ["diff", "base", "head", "--trust-domain", "example.org", "--fail-on", "grant"];
        let out = run(root.path(), &diff);
        assert_eq!(out.code, Some(2), "{file}: {}", out.describe());
        let named = file.rsplit('/').next().unwrap_or(file);
        for words in [named, "a ClusterSPIFFEID in", "a file kpt passes over", "May gain"] {
            assert!(out.stdout.contains(words), "{file}: lacks {words:?}: {}", out.describe());
        }
        // The same file on both sides is no change of HEAD's.
        common::write(&base.join(file), SNEAKY);
        let out = run(root.path(), &diff);
        assert_eq!(out.code, Some(0), "{file}: {}", out.describe());
        // render and explain read the folder as kpt does.
        for mode in &MODES[..2] {
            let out = run(&head, mode);
            assert_eq!(out.code, Some(0), "{file}: {}", out.describe());
        }
    }
    // What kubectl applies nothing of is no such file: a CI workflow or settings file, whose
    // documents hold no kind, anything under .git. Any object kubectl may apply is one.
    let (root, head) = passed_over_sides("passed-over-harmless");
    common::write(&head.join(".github/workflows/ci.yml"), "on: push\njobs: {}\n");
    common::write(&head.join(".settings.json"), "{\"tabSize\": 2}\n");
    common::write(&head.join(".git/objects/x.yaml"), SNEAKY);
    let diff = ["diff", "base", "head", "--trust-domain", "example.org", "--fail-on", "grant"];
    let out = run(root.path(), &diff);
    assert_eq!(out.code, Some(0), "{}", out.describe());
    common::write(&head.join(".hidden.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    let out = run(root.path(), &diff);
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(out.stdout.contains("a ConfigMap in head/.hidden.yaml"), "{}", out.describe());
}

/// A `base` and a `head` folder under a folder of their own, each holding the samples'
/// pool and binding; the `head` folder.
fn passed_over_sides(label: &str) -> (TempDir, PathBuf) {
    let root = TempDir::new(label);
    for side in ["base", "head"] {
        root.write(
            &format!("{side}/inference.yaml"),
            &repo_file("fn-config/kustomize/exec-plugin/inference.yaml"),
        );
    }
    let head = root.path().join("head");
    (root, head)
}

/// A link kpt passes over is followed as `kubectl apply -R` and Argo CD follow it, to its
/// target's content whatever the target's name; a link that leads nowhere inside the folders
/// given is a possible grant itself, its target never read or quoted. Argo CD's parameter
/// file is one whatever its encoding, or behind a link.
#[test]
fn a_link_kpt_passes_over_is_followed_as_kubectl_follows_it() {
    let outside = TempDir::new("passed-over-outside");
    let secret =
        outside.write("secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: outside-secret}\n");
    let utf16: Vec<u8> =
        "\u{feff}directory: {include: '*.txt'}\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let cases: [PassedOverCase; 6] = [
        (
            ".x/w.yaml",
            &|head| link_to_notes(head, "../notes.txt", ".x/w.yaml"),
            &["a ClusterSPIFFEID in head/.x/w.yaml", "a symbolic link (to ../notes.txt)"],
        ),
        (
            "w.yaml",
            &|head| {
                common::write(&head.join(".krmignore"), "w.yaml\n");
                link_to_notes(head, "notes.txt", "w.yaml");
            },
            &["a ClusterSPIFFEID in head/w.yaml", "a symbolic link (to notes.txt)"],
        ),
        (
            ".gone.yaml",
            &|head| symlink("missing.yaml", head.join(".gone.yaml")).unwrap(),
            &["a symbolic link whose target does not exist"],
        ),
        (
            ".leak.yaml",
            &|head| {
                common::write(&head.join(".git/config"), "kind: Secret\n");
                symlink(".git/config", head.join(".leak.yaml")).unwrap();
            },
            &["a symbolic link into .git, which is never read"],
        ),
        (
            ".argocd-source.yaml",
            &|head| {
                common::write(&head.join("params.txt"), "directory: {include: '*.txt'}\n");
                symlink("params.txt", head.join(".argocd-source.yaml")).unwrap();
            },
            &["Argo CD's parameter file"],
        ),
        (
            ".argocd-source.yaml",
            &|head| std::fs::write(head.join(".argocd-source.yaml"), &utf16).unwrap(),
            &["Argo CD's parameter file"],
        ),
    ];
    let diff = ["diff", "base", "head", "--trust-domain", "example.org", "--fail-on", "grant"];
    for (entry, make, words) in cases {
        let (root, head) = passed_over_sides("passed-over-link");
        make(&head);
        let out = run(root.path(), &diff);
        assert_eq!(out.code, Some(2), "{entry}: {}", out.describe());
        for w in words.iter().chain(&[entry, "May gain"]) {
            assert!(out.stdout.contains(w), "{entry}: lacks {w:?}: {}", out.describe());
        }
        assert!(!out.stdout.contains("outside-secret"), "{entry}: {}", out.describe());
        // The same entry on both sides is no change of HEAD's.
        let base = root.path().join("base");
        std::fs::remove_dir_all(&base).unwrap();
        std::fs::rename(&head, &base).unwrap();
        passed_over_copy(&base, &head);
        let out = run(root.path(), &diff);
        assert_eq!(out.code, Some(0), "{entry}, unchanged: {}", out.describe());
    }
    // A link out of the folders given may apply what changes outside them, unseen: refused,
    // naming the link, on either side.
    let (root, head) = passed_over_sides("passed-over-link");
    symlink(&secret, head.join(".out.yaml")).unwrap();
    let out = run(root.path(), &diff);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(
        out.stderr.contains(".out.yaml") && out.stderr.contains("outside the folders given"),
        "{}",
        out.describe()
    );
    assert!(!out.stderr.contains("outside-secret"), "{}", out.describe());
}

/// An entry HEAD adds, how to make it in HEAD's folder, and what the record says of it.
type PassedOverCase<'a> = (&'a str, &'a dyn Fn(&Path), &'a [&'a str]);

/// `notes.txt`, holding an identity, and a link named `link` to it (as `target`).
fn link_to_notes(head: &Path, target: &str, link: &str) {
    common::write(&head.join("notes.txt"), SNEAKY);
    let link = head.join(link);
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    symlink(target, link).unwrap();
}

/// Copies folder `from` to `to`, links as links.
fn passed_over_copy(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(from).arg(to).status().expect("cp runs");
    assert!(status.success());
}

/// A kustomization or a chart kpt passes over still makes the folder one to kustomize, Helm
/// and Argo CD: the run is refused, naming it.
#[test]
fn a_kustomization_or_chart_kpt_passes_over_refuses_the_folder() {
    for (marker, krmignore) in [
        ("Kustomization", "Kustomization\n"),
        ("kustomization.yaml", "kustomization.yaml\n"),
        ("Chart.yaml", "Chart.yaml\ntemplates/\n"),
        (".k/kustomization.yml", ""),
    ] {
        let dir = package("passed-over-marker");
        dir.write(".krmignore", krmignore);
        dir.write(marker, "resources: [inference.yaml]\n");
        let words = if marker.ends_with("Chart.yaml") { "is a Helm chart" } else { "is a kustomize app" };
        for mode in &MODES[..2] {
            run(dir.path(), mode).refused(&[marker, words]);
        }
    }
}

/// A file kpt passes over counts against the input limit as a file read does: over it, the
/// run fails naming it.
#[test]
fn a_file_kpt_passes_over_counts_against_the_limit() {
    let dir = package("limit-passed-over");
    sparse(&dir.join(".big.yaml"), LIMIT);
    for mode in &MODES[..2] {
        run(dir.path(), mode).refused(&[".big.yaml", OVER[0]]);
    }
}
