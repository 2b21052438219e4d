//! Folders that `render` must not read file by file: a kustomize app, whose kustomization
//! decides which manifests there are and what they become, and a Helm chart, whose templates
//! are not manifests until Helm renders them. Either is refused with how to run the
//! function there instead.

use std::fs;
use std::path::{Path, PathBuf};

/// The file names kustomize takes for a kustomization.
const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The file that makes a folder a Helm chart.
const CHART_FILE: &str = "Chart.yaml";

/// Refuses `path` when it is, or holds in any folder below it (hidden entries skipped, as
/// `render` skips them), a kustomization or a Helm chart. Folders that cannot be listed are
/// left to the reader, which reports them.
pub fn refuse(path: &Path) -> Result<(), String> {
    match find(path) {
        None => Ok(()),
        Some(file) if is_chart(&file) => Err(chart(&file)),
        Some(file) => Err(kustomization(&file)),
    }
}

/// The first kustomization or chart file at or under `path`, in path order.
fn find(path: &Path) -> Option<PathBuf> {
    if !path.is_dir() {
        return is_marker(path).then(|| path.to_path_buf());
    }
    let mut entries: Vec<PathBuf> =
        fs::read_dir(path).ok()?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    let visible = entries.into_iter().filter(|e| !name_of(e).starts_with('.'));
    let (folders, files): (Vec<PathBuf>, Vec<PathBuf>) = visible.partition(|e| e.is_dir());
    files.into_iter().find(|f| is_marker(f)).or_else(|| folders.iter().find_map(|f| find(f)))
}

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or_default()
}

fn is_marker(path: &Path) -> bool {
    KUSTOMIZATION_FILES.contains(&name_of(path)) || is_chart(path)
}

fn is_chart(path: &Path) -> bool {
    name_of(path) == CHART_FILE
}

/// The folder a marker file stands for, as the user would type it.
fn folder_of(file: &Path) -> String {
    match file.parent().map(Path::as_os_str) {
        None => ".".to_string(),
        Some(p) if p.is_empty() => ".".to_string(),
        Some(p) => p.to_string_lossy().into_owned(),
    }
}

fn kustomization(file: &Path) -> String {
    let folder = folder_of(file);
    format!(
        "{}: {folder} is a kustomize app; render would read its files one by one, printing the \
         kustomization itself and files it leaves out. Run the function inside kustomize instead: \
         as an exec plugin (kubectl kustomize --enable-alpha-plugins {folder}, with the plugin \
         installed as fn-config/kustomize/exec-plugin shows), or pipe the build in with your \
         settings: kubectl kustomize {folder} | render-inference-identity render - --trust-domain \
         DOMAIN (or --config FILE; `kustomize build {folder}` with standalone kustomize)",
        file.display()
    )
}

fn chart(file: &Path) -> String {
    let folder = folder_of(file);
    format!(
        "{}: {folder} is a Helm chart; its templates are not manifests until Helm renders them. \
         Pipe them in with your settings: helm template RELEASE {folder} | \
         render-inference-identity render - --trust-domain DOMAIN (or --config FILE)",
        file.display()
    )
}
