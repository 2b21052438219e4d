//! Golden cases: every folder under `testdata/` holds `input.yaml` (a ResourceList), or a
//! `files/` folder rendered with `render` (and its `config.yaml`), or a `stream.yaml` run
//! through the exec plugin mode (with its `plugin-config.yaml`); an optional `env` file
//! (KEY=VALUE lines); and the expected `expected.yaml` (stdout), `expected-stderr.txt` and
//! `exit-code`. `UPDATE_GOLDEN=1 cargo test --test golden` rewrites the expectations;
//! review the diff before committing.
//!
//! Every case that exits 0 must also be a fixed point: run again on its own output, the
//! function writes the same bytes up to its `results`, which report what each run did
//! (the first run adds an output, the second replaces it with the same bytes).

mod common;

use common::BIN;
use common::golden::{self, StreamMode};
use std::fs;
use std::process::{Command, Stdio};

fn first_difference(want: &str, got: &str) -> String {
    for (n, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        if w != g {
            return format!("line {}:\n  want: {w}\n  got:  {g}", n + 1);
        }
    }
    format!("lengths differ: want {} lines, got {}", want.lines().count(), got.lines().count())
}

/// The output up to its top-level `results` key, which is written last.
fn without_results(stdout: &str) -> &str {
    stdout.split_once("\nresults:\n").map_or(stdout, |(items, _)| items)
}

#[test]
fn golden_cases() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let cases = golden::cases();
    assert!(cases.len() > 1, "no golden cases found under testdata/");
    let mut problems = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let input = fs::read_to_string(dir.join("input.yaml")).unwrap();
        let env = golden::env_of(dir);
        let out = common::krm(&input, &env);
        let exit = format!("{}\n", out.exit_code);
        let files = [
            ("expected.yaml", out.stdout.as_str()),
            ("expected-stderr.txt", out.stderr.as_str()),
            ("exit-code", exit.as_str()),
        ];
        for (file, got) in files {
            let path = dir.join(file);
            if update {
                fs::write(&path, got).unwrap();
                continue;
            }
            match fs::read_to_string(&path) {
                Ok(want) if want == got => {}
                Ok(want) => problems.push(format!("{name}/{file}: {}", first_difference(&want, got))),
                Err(_) => problems.push(format!("{name}/{file}: missing (run with UPDATE_GOLDEN=1)")),
            }
        }
        if out.exit_code == 0 {
            let again = common::krm(&out.stdout, &env);
            let (first, second) = (without_results(&out.stdout), without_results(&again.stdout));
            if first != second || again.exit_code != 0 {
                problems.push(format!("{name}: not a fixed point: {}", first_difference(first, second)));
            }
        }
    }
    assert!(problems.is_empty(), "{} golden problem(s):\n{}", problems.len(), problems.join("\n"));
}

/// The plain-stream cases, run through the binary in their folder as Argo CD and kustomize
/// run it; a render that succeeds is also a fixed point: its output, rendered again, is the
/// same stream.
#[test]
fn stream_golden_cases() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let cases = golden::stream_cases();
    assert!(!cases.is_empty(), "no render or plugin cases under testdata/");
    let mut problems = Vec::new();
    for (dir, mode) in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let out = run_stream(dir, mode, None);
        let mut files = vec![("expected-stderr.txt", out.1.clone()), ("exit-code", format!("{}\n", out.2))];
        match mode {
            StreamMode::Explain => {
                files.push(("expected.txt", out.0.clone()));
                files.push(("expected.json", run_stream(dir, mode, Some("json")).0));
                files.push(("expected.sarif", run_stream(dir, mode, Some("sarif")).0));
                files.push(("expected-github.txt", run_stream(dir, mode, Some("github")).0));
            }
            _ => files.push(("expected.yaml", out.0.clone())),
        }
        compare(dir, &name, &files, update, &mut problems);
        if out.2 == 0 && !matches!(mode, StreamMode::Explain) {
            let again = run_stream(dir, mode, Some(&out.0));
            if again.0 != out.0 || again.2 != 0 {
                problems.push(format!("{name}: not a fixed point: {}", first_difference(&out.0, &again.0)));
            }
        }
    }
    assert!(problems.is_empty(), "{} golden problem(s):\n{}", problems.len(), problems.join("\n"));
}

/// The `diff` cases, `testdata/diff-*/`: `base/` and `head/` folders (with `config.yaml`, or
/// each with its own Kptfile config, and more flags in `args`, one per line),
/// compared as text (`expected.txt`), markdown (`expected.md`) and JSON (`expected.json`),
/// the new findings as GitHub annotations (`expected-github.txt`),
/// with the exit status (`exit-code`) and that under `--fail-on grant`
/// (`exit-code-grant`), and what it says on stderr where it refuses the input
/// (`expected-stderr.txt`). Where a case holds `base.json`, that saved `explain -o json`
/// report of `base/` is the base, and it must be the report `base/` gives today.
#[test]
fn diff_golden_cases() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut cases: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("diff-"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 7, "diff cases under testdata/: {}", cases.len());
    let mut problems = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        // Without a config.yaml, each side runs under its own Kptfile's config.
        let mut config: Vec<String> = if dir.join("config.yaml").is_file() {
            vec!["--config".into(), "config.yaml".into()]
        } else {
            Vec::new()
        };
        // More arguments, one per line, where the case holds an `args` file.
        if let Ok(args) = fs::read_to_string(dir.join("args")) {
            config.extend(args.lines().map(str::to_string));
        }
        let run = |args: &[&str]| {
            let out = Command::new(BIN)
                .current_dir(dir)
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .args(args)
                .args(&config)
                .output()
                .unwrap();
            let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
            (text(&out.stdout), text(&out.stderr), out.status.code().unwrap_or(-1))
        };
        let mut files = Vec::new();
        let base = if dir.join("base.json").is_file() {
            files.push(("base.json", run(&["explain", "-o", "json", "base"]).0));
            "base.json"
        } else {
            "base"
        };
        let text = run(&["diff", base, "head"]);
        // A case that holds `expected-stderr.txt` is one the run refuses; any other says
        // nothing on stderr.
        if dir.join("expected-stderr.txt").is_file() {
            files.push(("expected-stderr.txt", text.1.clone()));
        } else if !text.1.is_empty() {
            problems.push(format!("{name}: stderr: {}", text.1));
        }
        files.push(("expected.txt", text.0));
        files.push(("exit-code", format!("{}\n", text.2)));
        files.push(("expected.md", run(&["diff", base, "head", "-o", "markdown"]).0));
        files.push(("expected.json", run(&["diff", base, "head", "-o", "json"]).0));
        files.push(("expected-github.txt", run(&["diff", base, "head", "-o", "github"]).0));
        files
            .push(("exit-code-grant", format!("{}\n", run(&["diff", base, "head", "--fail-on", "grant"]).2)));
        compare(dir, &name, &files, update, &mut problems);
    }
    assert!(problems.is_empty(), "{} golden problem(s):\n{}", problems.len(), problems.join("\n"));
    // The saved report of a base is as good a base as the base itself.
    for file in [
        "expected.txt",
        "expected.md",
        "expected.json",
        "expected-github.txt",
        "exit-code",
        "exit-code-grant",
    ] {
        let read = |case: &str| fs::read_to_string(root.join(case).join(file)).unwrap();
        assert_eq!(read("diff-saved-report"), read("diff-label-grants"), "{file}");
    }
}

/// Runs a plain-stream case: (stdout, stderr, exit code). With `again`, that stream takes
/// the place of the case's input (for explain, `again` is the output format).
fn run_stream(dir: &std::path::Path, mode: &StreamMode, again: Option<&str>) -> (String, String, i32) {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir).env_clear().env("PATH", "/usr/bin:/bin");
    for line in
        fs::read_to_string(dir.join("env")).unwrap_or_default().lines().filter(|l| !l.trim().is_empty())
    {
        let (key, value) = line.split_once('=').expect("env lines are KEY=VALUE");
        cmd.env(key, value);
    }
    let stdin = match (mode, again) {
        (StreamMode::Render, None) => {
            cmd.args(["render", "files"]);
            None
        }
        (StreamMode::Render, Some(text)) => {
            cmd.args(["render", "-"]);
            Some(text.to_string())
        }
        (StreamMode::Explain, format) => {
            cmd.args(["explain", "files"]);
            if let Some(format) = format {
                cmd.args(["-o", format]);
            }
            None
        }
        (StreamMode::Plugin, input) => {
            cmd.arg("plugin-config.yaml");
            Some(input.map_or_else(|| fs::read_to_string(dir.join("stream.yaml")).unwrap(), str::to_string))
        }
    };
    if matches!(mode, StreamMode::Render | StreamMode::Explain) && dir.join("config.yaml").is_file() {
        cmd.args(["--config", "config.yaml"]);
    }
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary starts");
    if let Some(text) = stdin {
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (text(&out.stdout), text(&out.stderr), out.status.code().unwrap_or(-1))
}

/// Each expected file of a case against what the run gave, or rewritten under
/// `UPDATE_GOLDEN=1`; what differs goes to `problems`.
fn compare(
    dir: &std::path::Path,
    name: &str,
    files: &[(&str, String)],
    update: bool,
    problems: &mut Vec<String>,
) {
    for (file, got) in files {
        let path = dir.join(file);
        if update {
            fs::write(&path, got).unwrap();
            continue;
        }
        match fs::read_to_string(&path) {
            Ok(want) if &want == got => {}
            Ok(want) => problems.push(format!("{name}/{file}: {}", first_difference(&want, got))),
            Err(_) => problems.push(format!("{name}/{file}: missing (run with UPDATE_GOLDEN=1)")),
        }
    }
}
