//! The tools and the corpus the integration tests need (tests/tools.txt, `RII_CORPUS`):
//! `.ci/check-tools` and the tests give the same message for a missing one, and a test that
//! needs it fails rather than skip.

use crate::common::*;
use std::ffi::OsString;
use std::process::Command;

/// The tools listed in tests/tools.txt.
fn listed() -> Vec<String> {
    repo_file("tests/tools.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once('\t').expect("tool<TAB>what to do").0.to_string())
        .collect()
}

#[test]
fn the_ci_check_and_the_tests_name_a_missing_tool_alike() {
    let tools = listed();
    assert_eq!(
        tools,
        [
            "kpt",
            "kubectl",
            "script",
            "sarif-multitool-linux",
            "git",
            "pre-commit",
            "podman",
            "runc",
            "helm",
            "kubectl-1.35",
            "actionlint",
            "cargo-cyclonedx",
            "go"
        ]
    );
    let empty = TempDir::new("tools-empty-path");
    let out = Command::new("/bin/bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/check-tools"))
        .env("PATH", empty.path())
        .env_remove("RII_CORPUS")
        .env_remove("RII_VAP_ORACLE")
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let mut want: Vec<String> = tools.iter().map(|t| missing_tool_message(t)).collect();
    want.push(corpus::MISSING.to_string());
    want.push(crate::admission::MISSING.to_string());
    assert_eq!(stderr(&out).lines().collect::<Vec<_>>(), want, "{}", describe(&out));
    for tool in &tools {
        let missing = find_tool(tool, Some(OsString::from(empty.path())));
        assert_eq!(missing, Err(missing_tool_message(tool)), "{tool}");
    }
}

#[test]
fn the_ci_check_passes_where_every_tool_is_installed() {
    // This machine runs the integration tests, so it has every tool.
    let out = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/check-tools"))
        .env("RII_CORPUS", corpus::dir())
        .env("RII_VAP_ORACLE", std::env::var_os("RII_VAP_ORACLE").unwrap_or_default())
        .output()
        .expect("it runs");
    assert_success(&out);
    for tool in listed() {
        assert!(find_tool(&tool, std::env::var_os("PATH")).is_ok(), "{tool}");
    }
}

#[test]
fn kubectl_has_an_embedded_kustomize_v5() {
    let out =
        Command::new(require_tool("kubectl")).args(["version", "--client"]).output().expect("kubectl runs");
    assert_success(&out);
    assert!(stdout(&out).contains("Kustomize Version: v5."), "{}", describe(&out));
}

#[test]
fn a_test_that_needs_a_missing_tool_fails_with_the_message() {
    // The test above, run with a PATH that lacks kubectl, fails with the message; it does
    // not pass, nor skip.
    let empty = TempDir::new("tools-missing");
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "tools::kubectl_has_an_embedded_kustomize_v5"])
        .env("PATH", empty.path())
        .output()
        .expect("the test binary runs");
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("1 failed"), "{text}");
    assert!(text.contains(&missing_tool_message("kubectl")), "{text}");
}

#[test]
fn a_test_that_needs_the_corpus_fails_without_it_with_the_message() {
    // A corpus test, run with RII_CORPUS unset and then naming a folder without SOURCES.md,
    // fails with the message; it does not pass, nor skip.
    let empty = TempDir::new("corpus-missing");
    for setting in [None, Some(empty.path())] {
        let mut cmd = Command::new(std::env::current_exe().expect("this test binary"));
        cmd.args(["--exact", "explain_corpus::with_the_variant_label_each_identity_reaches_its_deployment"]);
        match setting {
            Some(dir) => cmd.env("RII_CORPUS", dir),
            None => cmd.env_remove("RII_CORPUS"),
        };
        let out = cmd.output().expect("the test binary runs");
        assert_ne!(out.status.code(), Some(0), "{setting:?}: {}", describe(&out));
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(text.contains("1 failed"), "{setting:?}: {text}");
        assert!(text.contains(corpus::MISSING), "{setting:?}: {text}");
    }
}

#[test]
fn the_two_kubectls_embed_kustomize_v5_5_and_v5_7() {
    // tests/integration/kustomize.rs runs every kubectl test with each of them.
    for (tool, kustomize) in [("kubectl", "v5.5."), ("kubectl-1.35", "v5.7.")] {
        let out =
            Command::new(require_tool(tool)).args(["version", "--client"]).output().expect("kubectl runs");
        assert_success(&out);
        assert!(
            stdout(&out).contains(&format!("Kustomize Version: {kustomize}")),
            "{tool}: {}",
            describe(&out)
        );
    }
}
