//! The CI recipes of docs/review.md: the GitHub Actions workflow and the GitLab CI job parse
//! as YAML of the shape their runners read, and every shell script in them (each `run:` of
//! the workflow, each `script:` line of the job) is valid bash (`bash -n`).

use crate::common::*;
use serde_json::Value;
use std::process::Command;

/// The fenced ```yaml blocks of docs/review.md, in order.
fn yaml_blocks() -> Vec<Value> {
    let doc = repo_file("docs/review.md");
    let mut blocks = Vec::new();
    let mut rest = doc.as_str();
    while let Some(start) = rest.find("```yaml\n") {
        let body = &rest[start + 8..];
        let end = body.find("```").expect("a closed block");
        blocks.push(render_inference_identity::yaml::parse(&body[..end]).expect("the block parses as YAML"));
        rest = &body[end + 3..];
    }
    blocks
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
