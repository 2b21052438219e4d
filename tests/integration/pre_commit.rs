//! The pre-commit hooks of `.pre-commit-hooks.yaml`, run by the real `pre-commit` with
//! `pre-commit try-repo` on a scratch repository of manifests: the gate passes on good
//! manifests and fails the commit when a change makes a binding fail.

use crate::common::*;
use std::path::Path;
use std::process::{Command, Output};

fn try_repo(repo: &Path, home: &Path) -> Output {
    Command::new(require_tool("pre-commit"))
        .current_dir(repo)
        .args([
            "try-repo",
            env!("CARGO_MANIFEST_DIR"),
            "render-inference-identity-explain-system",
            "--all-files",
        ])
        .env("PATH", path_with_bin_dir())
        .env("PRE_COMMIT_HOME", home)
        .output()
        .expect("pre-commit runs")
}

#[test]
fn the_hooks_file_is_a_valid_manifest() {
    let out = Command::new(require_tool("pre-commit"))
        .args(["validate-manifest", concat!(env!("CARGO_MANIFEST_DIR"), "/.pre-commit-hooks.yaml")])
        .output()
        .expect("pre-commit runs");
    assert_success(&out);
    // The hook that builds the binary (pre-commit's `rust` language, a release build on
    // first use) differs from the one tried below only in where the binary comes from.
    let hooks = render_inference_identity::yaml::parse(&repo_file(".pre-commit-hooks.yaml")).unwrap();
    let hooks = hooks.as_array().unwrap();
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[0]["language"], "rust");
    assert_eq!(hooks[1]["language"], "system");
    for key in ["entry", "files", "pass_filenames"] {
        assert_eq!(hooks[0][key], hooks[1][key], "{key}");
    }
}

#[test]
fn the_explain_hook_gates_a_change_that_makes_a_binding_fail() {
    let scratch = TempDir::new("pre-commit");
    let repo = scratch.join("repo");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff-binding-failing");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    // A kpt package: its Kptfile gives the config, as the hook's default reads the repository.
    write(
        &repo.join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n  - exec: render-inference-identity\n    configPath: fn-config.yaml\n",
    );
    std::fs::copy(case.join("config.yaml"), repo.join("fn-config.yaml")).unwrap();
    for file in ["pools.yaml", "workloads.yaml", "bindings.yaml"] {
        std::fs::copy(case.join("base").join(file), repo.join(file)).unwrap();
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    let home = scratch.join("pre-commit-home");

    let good = try_repo(&repo, &home);
    assert_eq!(good.status.code(), Some(0), "{}", describe(&good));
    assert!(stdout(&good).contains("Passed"), "{}", describe(&good));

    std::fs::copy(case.join("head/bindings.yaml"), repo.join("bindings.yaml")).unwrap();
    git(&repo, &["add", "-A"]);
    let bad = try_repo(&repo, &home);
    assert_eq!(bad.status.code(), Some(1), "{}", describe(&bad));
    assert!(stdout(&bad).contains("Failed"), "{}", describe(&bad));
    assert!(stdout(&bad).contains("not ready: TargetPoolNotFound"), "{}", describe(&bad));
}

/// The `rust` hook as pre-commit builds it: `cargo install --path .` without `--locked`, so
/// with the newest versions its requirements allow, not the lock file's. The crates whose
/// text the writer copies are pinned with `=` in Cargo.toml (docs/review.md#pre-commit), so
/// that build must print what the locked build prints, byte for byte.
#[test]
fn the_rust_hook_built_by_pre_commit_prints_what_the_locked_build_prints() {
    let scratch = TempDir::new("pre-commit-rust");
    let repo = scratch.join("repo");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/prefill-decode");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    for (path, bytes) in snapshot(&example) {
        let to = repo.join(&path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "example"]);
    let out = Command::new(require_tool("pre-commit"))
        .current_dir(&repo)
        .args([
            "try-repo",
            env!("CARGO_MANIFEST_DIR"),
            "render-inference-identity-explain",
            "--all-files",
            "--verbose",
        ])
        .env("PRE_COMMIT_HOME", scratch.join("pre-commit-home"))
        .output()
        .expect("pre-commit runs");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let locked = Command::new(BIN)
        .current_dir(&repo)
        .args(["explain", "--failure-policy", "Fail"])
        .output()
        .expect("the binary runs");
    assert_success(&locked);
    let report = stdout(&locked);
    assert!(report.contains("kleym-serving-llama-prefill-pool-ec7eebba"), "{report}");
    assert!(
        stdout(&out).contains(report.trim_end()),
        "pre-commit's build printed otherwise:\n{}",
        describe(&out)
    );
}
