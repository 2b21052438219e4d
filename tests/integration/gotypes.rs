//! The Go type table the SPIRE model's templates run over
//! (`core/src/reconcile/spire/template/gotypes/types.txt`) is what the Go program beside it
//! writes today from the real types (k8s.io/api and k8s.io/apimachinery v0.36.2, through the
//! Go module proxy): a table edited by hand, or left behind a change of the program, fails.

use crate::common::*;
use std::path::Path;
use std::process::Command;

#[test]
fn the_committed_type_table_is_what_the_go_program_writes() {
    let go = require_tool("go");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("core/src/reconcile/spire/template/gotypes");
    let out = Command::new(go).current_dir(&dir).args(["run", "-mod=readonly", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "go run . in {}: {}", dir.display(), describe(&out));
    let committed = read(&dir.join("types.txt"));
    assert!(
        stdout(&out) == committed,
        "types.txt differs from what `go run .` writes in {}: regenerate it with `go run . > types.txt` \
         there and review the diff",
        dir.display()
    );
}
