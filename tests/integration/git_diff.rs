//! `diff` as a pull request runs it: a git repository with a base and a head commit for
//! each kind of change of `testdata/diff-*`, the base checked out beside the head with
//! `git worktree`, then `diff BASE HEAD`, and `diff` against the saved report of the base.

use crate::common::*;
use std::path::Path;
use std::process::Command;

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// `--config config.yaml` when the case has one; without, each side's own Kptfile.
fn config(repo: &Path) -> Vec<String> {
    let file = repo.join("config.yaml");
    if file.is_file() { vec!["--config".into(), file.to_str().unwrap().into()] } else { Vec::new() }
}

fn diff(repo: &Path, args: &[&str]) -> (String, i32) {
    let out = Command::new(BIN).current_dir(repo).arg("diff").args(args).args(config(repo)).output().unwrap();
    assert!(stderr(&out).is_empty(), "{}", describe(&out));
    (stdout(&out), out.status.code().unwrap())
}

#[test]
fn diff_compares_the_commits_of_a_pull_request() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let cases = [
        "label-grants",
        "binding-added",
        "binding-removed",
        "binding-failing",
        "selector-narrowed",
        "scope-widened",
        "may-grant",
        "may-lose",
        "formatting-only",
        "template-string-escape",
        "template-method",
        "federates-with-spiffe-form",
        "spiffe-id-refused",
    ];
    for case in cases {
        let dir = root.join(format!("diff-{case}"));
        let scratch = TempDir::new(&format!("git-diff-{case}"));
        let repo = scratch.join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        if dir.join("config.yaml").is_file() {
            std::fs::copy(dir.join("config.yaml"), repo.join("config.yaml")).unwrap();
        }
        copy_folder(&dir.join("base"), &repo.join("app"));
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        std::fs::remove_dir_all(repo.join("app")).unwrap();
        copy_folder(&dir.join("head"), &repo.join("app"));
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "head"]);
        let base = scratch.join("base");
        git(&repo, &["worktree", "add", "-q", "--detach", base.to_str().unwrap(), "HEAD~1"]);
        let base_app = base.join("app");

        let want = read(&dir.join("expected.txt"));
        let want_code: i32 = read(&dir.join("exit-code")).trim().parse().unwrap();
        let (got, code) = diff(&repo, &[base_app.to_str().unwrap(), "app"]);
        assert_eq!((got.as_str(), code), (want.as_str(), want_code), "{case}");

        // main's saved report as the base.
        let report = Command::new(BIN)
            .current_dir(&base)
            .args(["explain", "-o", "json", "app"])
            .args(config(&repo))
            .output()
            .unwrap();
        assert_eq!(report.status.code(), Some(0), "{}", describe(&report));
        let saved = scratch.write("base-report.json", &stdout(&report));
        let (got, code) = diff(&repo, &[saved.to_str().unwrap(), "app"]);
        assert_eq!((got.as_str(), code), (want.as_str(), want_code), "{case}, saved report");
        let grant: i32 = read(&dir.join("exit-code-grant")).trim().parse().unwrap();
        assert_eq!(diff(&repo, &[saved.to_str().unwrap(), "app", "--fail-on", "grant"]).1, grant, "{case}");
    }
}
