//! The golden cases under testdata/: each folder with an `input.yaml` (a ResourceList, KRM
//! mode), or with a `files/` folder (the `render` mode) or a `stream.yaml` (the kustomize
//! exec plugin mode), and its optional `env` file.

use render_inference_identity::io::Env;
use std::fs;
use std::path::{Path, PathBuf};

/// The case folders, sorted.
pub fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .expect("testdata/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.join("input.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// How a plain-stream case runs.
pub enum StreamMode {
    /// `render files` (with `--config config.yaml` when there is one), in the case folder.
    Render,
    /// `explain files` and `explain -o json|sarif|github files` (a `files/` case named `explain-...`):
    /// `expected.txt`, `expected.json`, `expected.sarif` and `expected-github.txt`.
    Explain,
    /// The exec plugin: `plugin-config.yaml` as the argument, `stream.yaml` on stdin.
    Plugin,
}

/// The plain-stream case folders, sorted, with their mode.
pub fn stream_cases() -> Vec<(PathBuf, StreamMode)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<PathBuf> =
        fs::read_dir(&root).expect("testdata/ exists").map(|e| e.expect("readable entry").path()).collect();
    dirs.sort();
    dirs.into_iter()
        .filter_map(|dir| {
            let explain = dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with("explain-"));
            let mode = if dir.join("files").is_dir() && explain {
                StreamMode::Explain
            } else if dir.join("files").is_dir() {
                StreamMode::Render
            } else if dir.join("stream.yaml").is_file() {
                StreamMode::Plugin
            } else {
                return None;
            };
            Some((dir, mode))
        })
        .collect()
}

/// The case's environment, from its `env` file of KEY=VALUE lines.
pub fn env_of(dir: &Path) -> Env {
    let mut env = Env::default();
    let Ok(text) = fs::read_to_string(dir.join("env")) else {
        return env;
    };
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (key, value) = line.split_once('=').expect("env lines are KEY=VALUE");
        match key {
            "KUBE_API_VERSIONS" => env.kube_api_versions = Some(value.to_string()),
            "SOURCE_DATE_EPOCH" => env.source_date_epoch = Some(value.to_string()),
            other => panic!("{}: unknown env key {other}", dir.display()),
        }
    }
    env
}
