//! The port of knative.dev/pkg's `kmeta.ChildName` that names everything KServe makes
//! (`core/src/reconcile/cluster/kserve/names.rs`) gives the names Go's function gives, run
//! through the Go program beside it (knative.dev/pkg at the version KServe pins, through the
//! Go module proxy): names that fit, names cut beside the parent's MD5, and long suffixes
//! hashed with the parent and trimmed to a letter or digit.

use crate::common::*;
use render_inference_identity::reconcile::cluster::kserve::child_name;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn child_names_are_the_ones_knatives_child_name_gives() {
    let go = require_tool("go");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("core/src/reconcile/cluster/kserve/childname");
    let suffixes = [
        "-inference-pool".to_string(),
        "-kserve".into(),
        "-kserve-mn-prefill".into(),
        "-epp-sa".into(),
        "-kserve-router-scheduler".into(),
        format!("-{}", "s".repeat(29)),
        format!("-abcde{}", "s".repeat(40)),
        format!("------{}", "s".repeat(40)),
        format!("-{}-", "x".repeat(60)),
    ];
    let mut cases = Vec::new();
    for suffix in &suffixes {
        for length in 0..=70 {
            let parent: String = "llama-3-1-70b-instruct-".chars().cycle().take(length).collect();
            cases.push((parent, suffix.clone()));
        }
    }
    let mut child = Command::new(go)
        .current_dir(&dir)
        .args(["run", "-mod=readonly", "."])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = cases.iter().map(|(p, s)| format!("{p}\t{s}\n")).collect();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "go run . in {}: {}", dir.display(), describe(&out));
    let go_names: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(go_names.len(), cases.len());
    for ((parent, suffix), want) in cases.iter().zip(&go_names) {
        assert_eq!(&child_name(parent, suffix), want, "ChildName({parent:?}, {suffix:?})");
    }
}
