//! The kpt packages of examples/ rendered by the real kpt as their READMEs say: each file of a
//! package's `.expected/` is what the render leaves at that path, every other file stays as
//! shipped, and a second render changes nothing. `UPDATE_GOLDEN=1` rewrites `.expected/`.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXPECTED: &str = ".expected";

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.join("Kptfile").is_file())
        .collect();
    found.sort();
    found
}

fn render(package: &Path) -> Output {
    let mut cmd = Command::new(require_tool("kpt"));
    cmd.args(["fn", "render", "--allow-exec"]).arg(package);
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    cmd.output().expect("kpt starts")
}

/// A copy of `example` (without `.expected/`) in `tmp`, its Kptfile running the binary
/// under test.
fn copy(example: &Path, tmp: &TempDir) -> PathBuf {
    let name = example.file_name().unwrap().to_str().unwrap();
    for (path, bytes) in snapshot(example) {
        if path.starts_with(EXPECTED) {
            continue;
        }
        let mut text = String::from_utf8(bytes).expect("example files are text");
        if path == Path::new("Kptfile") {
            text = replace_once(&text, "exec: render-inference-identity", &format!("exec: {BIN}"));
        }
        tmp.write(&format!("{name}/{}", path.display()), &text);
    }
    tmp.join(name)
}

#[test]
fn every_example_renders_to_its_expected_result_and_a_second_render_changes_nothing() {
    let examples = examples();
    assert!(!examples.is_empty(), "no kpt package under examples/");
    for example in examples {
        let tmp = TempDir::new("examples");
        let package = copy(&example, &tmp);
        let shipped = snapshot(&package);
        let out = render(&package);
        assert_success(&out);
        let mut rendered = snapshot(&package);
        rendered.remove(Path::new("Kptfile"));

        let changed: Vec<(PathBuf, Vec<u8>)> = rendered
            .iter()
            .filter(|(path, bytes)| shipped.get(*path) != Some(bytes))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect();
        let expected_dir = example.join(EXPECTED);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let _ = std::fs::remove_dir_all(&expected_dir);
            for (path, bytes) in &changed {
                write(&expected_dir.join(path), std::str::from_utf8(bytes).expect("text"));
            }
        }
        let expected = snapshot(&expected_dir);
        assert!(!expected.is_empty(), "{}: no {EXPECTED}/ (UPDATE_GOLDEN=1 writes it)", example.display());
        assert_eq!(
            changed.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
            expected,
            "{}: the render differs from {EXPECTED}/ (UPDATE_GOLDEN=1 rewrites it; review the diff)",
            example.display()
        );
        for (path, bytes) in &shipped {
            if path != Path::new("Kptfile") && !expected.contains_key(path) {
                assert_eq!(
                    rendered.get(path),
                    Some(bytes),
                    "{}: {} changed",
                    example.display(),
                    path.display()
                );
            }
        }

        let before = snapshot(&package);
        let out = render(&package);
        assert_success(&out);
        assert_eq!(
            snapshot(&package),
            before,
            "{}: the second render changed the package",
            example.display()
        );
    }
}

#[test]
fn every_example_has_a_readme_that_names_its_command_and_expected_result() {
    for example in examples() {
        let readme = read(&example.join("README.md"));
        assert!(readme.contains("kpt fn render --allow-exec"), "{}:\n{readme}", example.display());
        for path in snapshot(&example.join(EXPECTED)).keys() {
            let name = path.display().to_string();
            assert!(readme.contains(&name), "{}: README does not name {name}", example.display());
        }
    }
}
