//! Golden cases: every folder under `testdata/` holds `input.yaml` (a ResourceList), an
//! optional `env` file (KEY=VALUE lines), and the expected `expected.yaml` (stdout),
//! `expected-stderr.txt` and `exit-code`. `UPDATE_GOLDEN=1 cargo test --test golden`
//! rewrites the expectations; review the diff before committing.
//!
//! Every case that exits 0 must also be a fixed point: run again on its own output, the
//! function writes the same bytes up to its `results`, which report what each run did
//! (the first run adds an output, the second replaces it with the same bytes).

mod common;

use common::golden;
use render_inference_identity::io as krm;
use std::fs;

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
        let out = krm::run(&input, &env);
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
            let again = krm::run(&out.stdout, &env);
            let (first, second) = (without_results(&out.stdout), without_results(&again.stdout));
            if first != second || again.exit_code != 0 {
                problems.push(format!("{name}: not a fixed point: {}", first_difference(first, second)));
            }
        }
    }
    assert!(problems.is_empty(), "{} golden problem(s):\n{}", problems.len(), problems.join("\n"));
}
