//! `explain -o sarif` checked by Microsoft's SARIF validator (`Sarif.Multitool validate`,
//! from the npm package @microsoft/sarif-multitool-linux): every explain golden case, and a
//! report read from standard input, whose results carry no file.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// The validator's findings on `log` other than the one the project accepts: it has no
/// web page to give as the tool's `informationUri` (SARIF2005).
fn problems(log: &str, scratch: &TempDir) -> Vec<String> {
    let input = scratch.write("input.sarif", log);
    let output = scratch.join("validation.sarif");
    let out = Command::new(require_tool("sarif-multitool-linux"))
        .arg("validate")
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .args(["--log", "ForceOverwrite"])
        .output()
        .expect("the validator runs");
    assert_success(&out);
    let validation: Value = serde_json::from_str(&read(&output)).expect("the validator writes SARIF");
    let results = validation["runs"][0]["results"].as_array().cloned().unwrap_or_default();
    results
        .iter()
        .filter(|r| r["ruleId"] != "SARIF2005")
        .map(|r| format!("{} {}: {}", r["level"], r["ruleId"], r["message"]))
        .collect()
}

fn explain_sarif(dir: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let mut child = Command::new(BIN)
        .current_dir(dir)
        .args(["explain", "-o", "sarif"])
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(text) = stdin {
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1), "{}", describe(&out));
    stdout(&out)
}

#[test]
fn every_explain_report_is_valid_sarif() {
    let scratch = TempDir::new("sarif-validate");
    let cases: Vec<_> = golden::stream_cases()
        .into_iter()
        .filter(|(dir, _)| dir.file_name().unwrap().to_string_lossy().starts_with("explain-"))
        .collect();
    assert!(cases.len() >= 4, "{} explain cases", cases.len());
    let mut results = 0;
    for (dir, _) in cases {
        let mut args = vec!["files"];
        if dir.join("config.yaml").is_file() {
            args.extend(["--config", "config.yaml"]);
        }
        let log = explain_sarif(&dir, &args, None);
        let log_value: Value = serde_json::from_str(&log).unwrap();
        results += log_value["runs"][0]["results"].as_array().unwrap().len();
        assert_eq!(problems(&log, &scratch), Vec::<String>::new(), "{dir:?}");
    }
    assert!(results > 10, "the cases hold findings and failing bindings: {results} results");
    let stream = repo_file("testdata/explain-lines/files/app.yaml");
    let log = explain_sarif(Path::new("."), &["-", "--trust-domain", "example.org"], Some(&stream));
    assert!(!log.contains("\"locations\""), "standard input has no file to point at:\n{log}");
    assert_eq!(problems(&log, &scratch), Vec::<String>::new());
}

#[test]
fn the_new_findings_of_a_diff_are_valid_sarif() {
    let scratch = TempDir::new("sarif-diff");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff-binding-added");
    let out = Command::new(BIN)
        .current_dir(&case)
        .args(["diff", "base", "head", "--config", "config.yaml", "-o", "sarif"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let log: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    // The new binding's NoMatchingWorkload, which also says what its entries do.
    assert_eq!(results.len(), 1, "{log}");
    assert_eq!(results[0]["ruleId"], "finding/NoMatchingWorkload");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "head/bindings.yaml"
    );
    assert_eq!(problems(&stdout(&out), &scratch), Vec::<String>::new());
}

#[test]
fn files_outside_the_working_folder_and_names_that_are_not_utf8_are_valid_uris() {
    use std::os::unix::ffi::OsStrExt as _;
    let scratch = TempDir::new("sarif-uris");
    let app = scratch.join("elsewhere/deploy");
    std::fs::create_dir_all(&app).unwrap();
    let stream = repo_file("testdata/explain-lines/files/app.yaml");
    std::fs::write(app.join(std::ffi::OsStr::from_bytes(b"b\xff.yaml")), &stream).unwrap();
    let work = scratch.join("work");
    std::fs::create_dir_all(&work).unwrap();
    // An absolute path and a relative one that climbs out, with a dot segment.
    let absolute = app.to_str().unwrap().to_string();
    for given in [absolute.as_str(), "../elsewhere/deploy/../deploy"] {
        let log = explain_sarif(&work, &[given, "--trust-domain", "example.org"], None);
        let value: Value = serde_json::from_str(&log).unwrap();
        let uri =
            value["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap_or_else(|| panic!("{log}"))
                .to_string();
        assert_eq!(uri, format!("file://{}/b%FF.yaml", app.to_str().unwrap()), "{given}");
        assert_eq!(problems(&log, &scratch), Vec::<String>::new(), "{given}");
    }
    // Under the working folder, relative, the dot segments gone.
    let log = explain_sarif(
        &scratch.join("elsewhere"),
        &["deploy/../deploy", "--trust-domain", "example.org"],
        None,
    );
    assert!(log.contains("\"uri\": \"deploy/b%FF.yaml\""), "{log}");
    assert_eq!(problems(&log, &scratch), Vec::<String>::new());
}
