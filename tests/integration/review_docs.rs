//! The CI recipes of docs/review.md: the GitHub Actions workflow and the GitLab CI job parse
//! as YAML of the shape their runners read, every shell script in them (each `run:` of the
//! workflow, each `script:` line of the job) is valid bash (`bash -n`), and actionlint finds
//! nothing in the workflow (deprecated actions, expressions, its scripts through shellcheck
//! where that is installed).

use crate::common::*;
use serde_json::Value;
use std::process::Command;

/// The fenced ```yaml blocks of docs/review.md, in order, as text.
fn yaml_texts() -> Vec<String> {
    let doc = repo_file("docs/review.md");
    let mut blocks = Vec::new();
    let mut rest = doc.as_str();
    while let Some(start) = rest.find("```yaml\n") {
        let body = &rest[start + 8..];
        let end = body.find("```").expect("a closed block");
        blocks.push(body[..end].to_string());
        rest = &body[end + 3..];
    }
    blocks
}

/// The same blocks, read.
fn yaml_blocks() -> Vec<Value> {
    let parse =
        |text: &String| render_inference_identity::yaml::parse(text).expect("the block parses as YAML");
    yaml_texts().iter().map(parse).collect()
}

#[test]
fn actionlint_finds_nothing_in_the_workflow() {
    let workflow =
        yaml_texts().into_iter().find(|t| t.contains("\njobs:\n")).expect("a GitHub Actions workflow");
    let repo = TempDir::new("actionlint");
    let file = repo.write(".github/workflows/identities.yml", &workflow);
    let out = Command::new(require_tool("actionlint"))
        .current_dir(repo.path())
        .arg(&file)
        .output()
        .expect("actionlint runs");
    assert_success(&out);
    // It does look: a deprecated action is found.
    let old = repo
        .write(".github/workflows/old.yml", &workflow.replace("actions/checkout@v5", "actions/checkout@v4"));
    let out = Command::new(require_tool("actionlint")).current_dir(repo.path()).arg(&old).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stdout(&out).contains("actions/checkout@v4"), "{}", describe(&out));
}

fn bash_n(script: &str, what: &str) {
    let out = Command::new("bash").args(["-n", "-c", script]).output().expect("bash runs");
    assert!(out.status.success(), "{what}: {}", describe(&out));
}

#[test]
fn the_ci_recipes_are_well_formed() {
    let blocks = yaml_blocks();
    let workflow = blocks.iter().find(|b| b.get("jobs").is_some()).expect("a GitHub Actions workflow");
    // `on` is a string to GitHub's parser; a YAML 1.1 reader takes it for `true`.
    let on = workflow.get("on").or_else(|| workflow.get("true")).expect("on");
    assert!(on["pull_request"].is_object(), "{workflow}");
    let steps = workflow["jobs"]["review"]["steps"].as_array().expect("steps");
    let mut scripts = 0;
    for step in steps {
        match (step.get("run"), step.get("uses")) {
            (Some(run), None) => {
                bash_n(run.as_str().expect("a script"), &format!("{step}"));
                scripts += 1;
            }
            (None, Some(uses)) => assert!(uses.as_str().is_some_and(|u| u.contains('@')), "pinned: {step}"),
            _ => panic!("a step runs a script or uses an action: {step}"),
        }
    }
    assert!(scripts >= 4, "{scripts} scripts");
    let uploads = steps
        .iter()
        .any(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@")));
    assert!(uploads, "the workflow uploads the SARIF log");

    let gitlab = blocks.iter().find(|b| b.get("identities").is_some()).expect("a GitLab CI job");
    let lines = gitlab["identities"]["script"].as_array().expect("script lines");
    for line in lines {
        bash_n(line.as_str().expect("a line"), &format!("{line}"));
    }
    assert!(blocks.iter().any(|b| b.get("repos").is_some()), "a pre-commit config");
}
