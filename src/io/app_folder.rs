//! Folders that `render` must not read file by file: a kustomize app, whose kustomization
//! decides which manifests there are and what they become, and a Helm chart, whose templates
//! are not manifests until Helm renders them. Either is refused with how to run the
//! function there instead, wherever its marker file stands: among the files read, or among
//! those kpt passes over (hidden, or named in a `.krmignore`), which kustomize, Helm and Argo
//! CD's detection of an application's type read all the same.

use super::files::quote;
use std::path::Path;

/// The file names kustomize takes for a kustomization.
const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The file that makes a folder a Helm chart.
const CHART_FILE: &str = "Chart.yaml";

/// Refuses the run when a file found (by [`super::files::walk`], which lists the names of
/// [`is_marker`] as well as manifests, read or passed over) is a kustomization or a Helm
/// chart's `Chart.yaml`: the first of them, in the order given. Argo CD makes an application
/// of detected type a kustomize or Helm one whatever a `.krmignore` says, and looks in hidden
/// folders too (argo-cd `util/app/discovery/discovery.go`, `Discover`).
pub fn refuse<'a>(files: impl IntoIterator<Item = &'a Path>) -> Result<(), String> {
    match files.into_iter().find(|p| is_marker(p)) {
        None => Ok(()),
        Some(file) if is_chart(file) => Err(chart(file)),
        Some(file) => Err(kustomization(file)),
    }
}

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or_default()
}

/// Whether a file makes its folder a kustomize app or a Helm chart.
pub fn is_marker(path: &Path) -> bool {
    KUSTOMIZATION_FILES.contains(&name_of(path)) || is_chart(path)
}

fn is_chart(path: &Path) -> bool {
    name_of(path) == CHART_FILE
}

/// The folder a marker file stands for, as the user would type it.
fn folder_of(file: &Path) -> String {
    match file.parent() {
        None => ".".to_string(),
        Some(p) if p.as_os_str().is_empty() => ".".to_string(),
        Some(p) => quote(p),
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
         DOMAIN (or --config FILE; `kustomize build {folder}` with standalone kustomize; \
         `explain -` reads a piped build the same way)",
        quote(file)
    )
}

fn chart(file: &Path) -> String {
    let folder = folder_of(file);
    format!(
        "{}: {folder} is a Helm chart; its templates are not manifests until Helm renders them. \
         Pipe them in with your settings: helm template RELEASE {folder} | \
         render-inference-identity render - --trust-domain DOMAIN (or --config FILE; `explain -` \
         reads it the same way)",
        quote(file)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_named_as_the_user_would_type_it() {
        // `render Chart.yaml` names a file of the working folder: its folder is `.`.
        assert_eq!(folder_of(Path::new("Chart.yaml")), ".");
        assert_eq!(folder_of(Path::new("./kustomization.yaml")), ".");
        assert_eq!(folder_of(Path::new("apps/web/Kustomization")), "apps/web");
        assert_eq!(folder_of(Path::new("")), ".");
    }
}
