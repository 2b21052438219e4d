//! The core's rungs (docs/architecture.md): each folder of `core/src/reconcile/` imports
//! only the rungs below it, and nothing in `core/` names the edges' crate. A file that
//! imports upwards fails here, naming the file, the line and the rung it reaches.

use std::path::{Path, PathBuf};

/// The rungs from the ground up; a rung may import its own and any lower one.
const RUNGS: [&[&str]; 9] = [
    &["cluster", "findings", "context"],
    &["items"],
    &["rules"],
    &["outputs"],
    &["guard"],
    &["spire"],
    &["coverage", "unjudged"],
    &["evaluate"],
    &["results", "mod"],
];

fn rung_of(module: &str) -> Option<usize> {
    RUNGS.iter().position(|r| r.contains(&module))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rung_of_the_reconcile_imports_only_those_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("core/src/reconcile");
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut wrong = Vec::new();
    for file in &all {
        let relative = file.strip_prefix(&root).unwrap();
        let first = relative.components().next().unwrap().as_os_str().to_string_lossy();
        let own = rung_of(first.trim_end_matches(".rs"))
            .unwrap_or_else(|| panic!("{} is in no rung", relative.display()));
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices("crate::reconcile::") {
                let module: String = line[at + "crate::reconcile::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if let Some(theirs) = rung_of(&module)
                    && theirs > own
                {
                    wrong.push(format!("{}:{}: imports {module}, a rung above", relative.display(), n + 1));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports up the rungs:\n{}", wrong.join("\n"));
    assert!(all.len() > 40, "the reconcile's files were found: {}", all.len());
}

#[test]
fn nothing_in_the_core_names_the_edges() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("core");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for edge in ["clap", "serde-saphyr", "render-inference-identity ="] {
        assert!(!manifest.contains(edge), "core/Cargo.toml depends on {edge}");
    }
    let mut all = Vec::new();
    files(&root.join("src"), &mut all);
    for file in all {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("render_inference_identity::"), "{} names the edges' crate", file.display());
        assert!(
            !text.contains("std::fs::") && !text.contains("std::process::"),
            "{} does I/O",
            file.display()
        );
    }
}
