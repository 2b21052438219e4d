//! The kpt packages of examples/, in the kpt functions catalog's layout and run the way kpt's
//! own end-to-end runner (`pkg/test/runner` in kptdev/kpt) runs a catalog example: the package,
//! `.expected/` included, copied and committed to a fresh git repository; `kpt fn render` run
//! (twice, unless `.expected/config.yaml` says `notIdempotent`), and after each run the exit
//! code equal to its `exitCode` and `git diff` of the first commit against everything the
//! render left, trimmed, equal to `.expected/diff.patch`. The function runs from PATH, as the
//! Kptfile's `exec:` names it. `UPDATE_GOLDEN=1` rewrites `diff.patch`.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXPECTED: &str = ".expected";

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.join("Kptfile").is_file())
        .collect();
    found.sort();
    found
}

/// `.expected/config.yaml`, as the runner reads it: the test type (`eval` by default), the
/// exit code (0) and whether a second run is skipped.
struct Config {
    test_type: String,
    exit_code: i32,
    not_idempotent: bool,
}

fn config(example: &Path) -> Config {
    let path = example.join(EXPECTED).join("config.yaml");
    let value = render_inference_identity::yaml::parse(&read(&path))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Config {
        test_type: value["testType"].as_str().unwrap_or("eval").to_string(),
        exit_code: value["exitCode"].as_i64().unwrap_or(0) as i32,
        not_idempotent: value["notIdempotent"].as_bool().unwrap_or(false),
    }
}

fn git_as_the_runner(repo: &Path, args: &[&str]) -> String {
    let out = Command::new(require_tool("git"))
        .current_dir(repo)
        .args(["-c", "user.name=none", "-c", "user.email=none", "-c", "commit.gpgsign=false"])
        .args(args)
        .env("GIT_DIFF_OPTS", "")
        .output()
        .expect("git runs");
    assert_success(&out);
    stdout(&out)
}

/// `git diff` of `first` against all the package holds now, as the runner reads it.
fn actual_diff(package: &Path, first: &str) -> String {
    git_as_the_runner(package, &["add", "--all"]);
    git_as_the_runner(package, &["commit", "-q", "-m", "second", "--allow-empty"]);
    git_as_the_runner(package, &["diff", first, "HEAD"]).trim().to_string()
}

#[test]
fn every_example_renders_as_the_kpt_catalogs_runner_checks_it() {
    let examples = examples();
    assert!(!examples.is_empty(), "no kpt package under examples/");
    for example in examples {
        let name = example.file_name().unwrap().to_str().unwrap().to_string();
        let config = config(&example);
        assert_eq!(config.test_type, "render", "{name}: the examples are kpt fn render packages");
        let tmp = TempDir::new("examples");
        for (path, bytes) in snapshot(&example) {
            let text = String::from_utf8(bytes).expect("example files are text");
            tmp.write(&format!("{name}/{}", path.display()), &text);
        }
        let package = tmp.join(&name);
        git_as_the_runner(&package, &["init", "-q"]);
        git_as_the_runner(&package, &["add", "--all"]);
        git_as_the_runner(&package, &["commit", "-q", "-m", "first", "--allow-empty"]);
        let first = git_as_the_runner(&package, &["log", "-n", "1", "--pretty=format:%h"]);
        let expected_patch = example.join(EXPECTED).join("diff.patch");
        let runs = if config.not_idempotent { 1 } else { 2 };
        for run in 1..=runs {
            let mut cmd = Command::new(require_tool("kpt"));
            cmd.args(["fn", "render", "--allow-exec"]).arg(&package).env("PATH", path_with_bin_dir());
            for var in AMBIENT_VARS {
                cmd.env_remove(var);
            }
            let out = cmd.output().expect("kpt starts");
            assert_eq!(
                out.status.code(),
                Some(config.exit_code),
                "{name}, run {run}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let diff = actual_diff(&package, &first);
            if std::env::var_os("UPDATE_GOLDEN").is_some() && run == 1 {
                write(&expected_patch, &format!("{diff}\n"));
            }
            let expected = read(&expected_patch);
            assert_eq!(
                diff,
                expected.trim(),
                "{name}, run {run}: the render differs from {EXPECTED}/diff.patch (UPDATE_GOLDEN=1 rewrites it; \
                 review the diff)"
            );
        }
    }
}

#[test]
fn every_example_has_a_readme_that_names_its_command_and_expected_result() {
    for example in examples() {
        let readme = read(&example.join("README.md"));
        assert!(readme.contains("kpt fn render --allow-exec"), "{}:\n{readme}", example.display());
        assert!(readme.contains(".expected/diff.patch"), "{}: README does not name it", example.display());
        // Every file the render adds is named, so a reader knows what to look for.
        let patch = read(&example.join(EXPECTED).join("diff.patch"));
        for added in patch.lines().filter_map(|l| l.strip_prefix("+++ b/")) {
            let file = Path::new(added).file_name().unwrap().to_str().unwrap();
            assert!(readme.contains(file), "{}: README does not name {added}", example.display());
        }
    }
}
