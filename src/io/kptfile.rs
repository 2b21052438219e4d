//! The functionConfig a kpt package gives this function, for `render` and `explain` run
//! inside the package: a folder given (or `.`) whose `Kptfile` lists this function in its
//! pipeline (`mutators` or `validators`; `image:` naming render-inference-identity, or
//! `exec:` running it) configures the run as `kpt fn render` would, from the entry's
//! `configPath` (relative to the Kptfile's folder, inside the folders given) or its inline
//! `configMap` (the data of a ConfigMap). `--config` replaces it; flags still override.
//! And the mutators of every Kptfile under the folders ([`mutators`]): kpt runs them before
//! the package is applied, and the build does not run them. One that runs something else is
//! not judged; one that runs this function is a record of what runs, so that another image
//! or executable in its place is a change.

use super::files::{self, Budget, quote};
use crate::yaml;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The function's name in images and executables.
const FUNCTION: &str = "render-inference-identity";

/// A functionConfig taken from a Kptfile.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageConfig {
    pub value: Value,
    /// The config file (`configPath`), kept out of the manifests; `None` for `configMap`.
    pub file: Option<PathBuf>,
    /// Where it came from, for `explain`: `pkg/identity-config.yaml (from pkg/Kptfile)`.
    pub source: String,
}

/// The config the Kptfiles of the folders in `paths` give this function: `None` when no
/// folder has a Kptfile whose pipeline runs it. Two that differ are an error asking for
/// `--config`.
pub fn config(paths: &[PathBuf], budget: &mut Budget) -> Result<Option<PackageConfig>, String> {
    let mut found: Option<PackageConfig> = None;
    for folder in paths.iter().filter(|p| p.is_dir()) {
        let kptfile = under(folder, "Kptfile");
        let Ok(meta) = std::fs::symlink_metadata(&kptfile) else { continue };
        if meta.file_type().is_symlink() {
            return Err(format!(
                "{}: a symbolic link; a package's Kptfile is read only as a regular file, so that a \
                 link cannot lead the config elsewhere. Replace the link with a copy of the file it \
                 points to",
                quote(&kptfile)
            ));
        }
        let text = files::read_file(&kptfile, budget)?;
        let value = parse(&text, &kptfile)?;
        for entry in entries(&value) {
            let Some(config) = entry_config(folder, &kptfile, entry, budget)? else { continue };
            match &found {
                None => found = Some(config),
                Some(first) if first.value == config.value => {}
                Some(first) => {
                    return Err(format!(
                        "{} and {} give this function different configs; pass --config FILE to say \
                         which one to use",
                        first.source, config.source
                    ));
                }
            }
        }
    }
    Ok(found)
}

/// Every mutator of a Kptfile under `folders` (packages and subpackages alike, as `kpt fn
/// render` runs them; kpt `internal/util/render/executor.go`, `hydrate`, runs any `image` or
/// `exec` of any Kptfile's pipeline): one that does not run this function ([`runs_this`])
/// changes what is applied unjudged, labels among them, and is a record with the entry and
/// the file its `configPath` names as what tells BASE's from HEAD's. One that runs this
/// function is a record of its image or executable (and, in a Kptfile [`config`] does not
/// read, or in any when `--config` gives the config instead, `reads_config` false, of its
/// config too): the build judges the package as this function renders it, which holds only
/// while that is what runs. The record of another mutator also follows `reach`, what the
/// folders and the config hold: it may change any object, one added among them; so does that
/// of this function's entry where kpt passes it only some items (its `selectors` or
/// `exclude`, or a subpackage's own).
pub fn mutators(
    folders: &[PathBuf],
    skip: &[PathBuf],
    reads_config: bool,
    reach: &[u8],
    budget: &mut Budget,
) -> Result<Vec<super::render::FileUnjudged>, String> {
    // Only folders: a file given is a manifest file, never read as a Kptfile.
    let folders: Vec<PathBuf> = folders.iter().filter(|p| p.is_dir()).cloned().collect();
    // Hidden folders and those a `.krmignore` names too: kpt takes any folder holding a Kptfile
    // for a subpackage and renders it (kpt `pkg/lib/pkg/pkg.go`, `Subpackages`), while
    // `kubectl apply -R` applies what it wrote there.
    let is_kptfile_name = |p: &Path| p.file_name().is_some_and(|n| n == "Kptfile");
    let walked = files::walk(&folders, skip, is_kptfile_name)?;
    let passed =
        walked.passed_over.into_iter().filter(|p| is_kptfile_name(&p.path)).filter_map(|p| p.found.ok());
    let mut found = walked.files;
    found.extend(passed);
    let mut out = Vec::new();
    for kptfile in found {
        let text = files::read(&kptfile, budget)?;
        let value = parse(&text, &kptfile.path)?;
        let Some(entries) =
            value.pointer("/pipeline/mutators").and_then(Value::as_array).filter(|_| is_kptfile(&value))
        else {
            continue;
        };
        let folder = kptfile.path.parent().unwrap_or(Path::new("."));
        let relative = folders
            .iter()
            .find_map(|root| kptfile.path.strip_prefix(root).ok())
            .unwrap_or(&kptfile.path)
            .to_path_buf();
        // The Kptfiles `config` reads: the config of this function's entries there is judged.
        let configured = reads_config && folders.iter().any(|root| kptfile.path == under(root, "Kptfile"));
        for (i, entry) in entries.iter().enumerate() {
            let Some(map) = entry.as_object() else { continue };
            let what = ["image", "exec"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str).map(|v| format!("{k} {v}")))
                .unwrap_or_else(|| "a function".to_string());
            let this = runs_this(map);
            let mut digest_text = if this && configured {
                what.clone()
            } else {
                serde_json::to_string(entry).unwrap_or_default()
            };
            if let Some(config) =
                map.get("configPath").and_then(Value::as_str).filter(|_| !(this && configured))
            {
                let config = folder.join(config);
                digest_text.push('\0');
                digest_text.push_str(&files::read_named(&config, budget).unwrap_or_else(|e| e));
            }
            // This function's entry renders only the items its selectors and exclusions pick,
            // of its own package (kpt `pkg/lib/kptops/render_executor.go`, `runMutators`,
            // `fnruntime.SelectInput`; `hydrate`: a subpackage's pipeline sees its own items):
            // where it picks or sits in a subpackage, which bindings it renders hangs on every file.
            let picks = ["selectors", "exclude"]
                .iter()
                .any(|k| map.get(*k).and_then(Value::as_array).is_some_and(|a| !a.is_empty()));
            let scoped =
                this && (picks || !folders.iter().any(|root| kptfile.path == under(root, "Kptfile")));
            let mut digested = digest_text.into_bytes();
            if !this || scoped {
                digested.extend_from_slice(b"\0reach\0");
                digested.extend_from_slice(reach);
            }
            let needle = what.split_once(' ').map_or(what.as_str(), |(_, v)| v);
            let line = text.lines().position(|l| l.contains(needle)).map_or(1, |n| n + 1);
            let message = if scoped {
                format!(
                    "kpt runs {what}, taken for this function, on {} only, and the build judges every \
                     binding of the folders as rendered: which it renders hangs on every file, and is not judged",
                    if picks {
                        "the items its selectors and exclusions pick"
                    } else {
                        "its own subpackage's items"
                    }
                )
            } else if this {
                format!(
                    "kpt runs {what}, taken for this function, on the package before it is applied: the build \
                     judges the package as this function renders it{}, so another image or executable here \
                     changes what runs unjudged",
                    if configured { "" } else { " with this entry's config, which it does not read" }
                )
            } else {
                format!(
                    "kpt runs {what} on the package before it is applied, and the build does not: what it \
                     changes, labels among them, is not judged"
                )
            };
            out.push(super::render::FileUnjudged {
                path: kptfile.path.clone(),
                line,
                relative: relative.clone(),
                field: format!("pipeline.mutators[{i}]"),
                message,
                digested,
            });
        }
    }
    Ok(out)
}

/// Whether a value is a Kptfile.
fn is_kptfile(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("Kptfile")
        && value.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.starts_with("kpt.dev/"))
}

/// The pipeline entries of a Kptfile that run this function.
fn entries(kptfile: &Value) -> impl Iterator<Item = &Map<String, Value>> {
    let is_kptfile = is_kptfile(kptfile);
    ["/pipeline/mutators", "/pipeline/validators"]
        .into_iter()
        .filter(move |_| is_kptfile)
        .filter_map(|pointer| kptfile.pointer(pointer).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_object)
        .filter(|entry| runs_this(entry))
}

/// Whether a pipeline entry runs this function: an image whose repository's last path
/// segment is its name (`ghcr.io/sonda-red/render-inference-identity:v0.1.0`, any registry,
/// tag or digest; not `.../render-inference-identity-deps/set-labels`), or an executable
/// named by its name alone, which kpt runs from `PATH` (kpt `internal/fnruntime/exec.go`,
/// `ExecFn.Run`: Go's `exec.CommandContext` looks a bare name up in `PATH`, and runs a path
/// with a `/`, which may name a file of the repository, as it is). Any other entry is a
/// mutator the build does not judge; one of these is still a record of what runs.
fn runs_this(entry: &Map<String, Value>) -> bool {
    let image = entry.get("image").and_then(Value::as_str).is_some_and(|image| image_name(image) == FUNCTION);
    let exec = entry
        .get("exec")
        .and_then(Value::as_str)
        .is_some_and(|exec| exec.split_whitespace().next() == Some(FUNCTION));
    image || exec
}

/// The last path segment of an image reference's repository: without its digest
/// (`@sha256:...`) and its tag (`:v1`, after the last `/`, where a registry's port cannot be).
fn image_name(image: &str) -> &str {
    let repository = image.split_once('@').map_or(image, |(repository, _)| repository);
    let last = repository.rsplit('/').next().unwrap_or_default();
    last.split_once(':').map_or(last, |(name, _)| name)
}

/// The config of one pipeline entry: its `configPath` file, or its `configMap`.
fn entry_config(
    folder: &Path,
    kptfile: &Path,
    entry: &Map<String, Value>,
    budget: &mut Budget,
) -> Result<Option<PackageConfig>, String> {
    if let Some(data) = entry.get("configMap").and_then(Value::as_object) {
        let value = json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "function-input"},
            "data": data,
        });
        return Ok(Some(PackageConfig {
            value,
            file: None,
            source: format!("configMap of {}", quote(kptfile)),
        }));
    }
    let Some(relative) = entry.get("configPath").and_then(Value::as_str) else { return Ok(None) };
    let path = under(folder, relative);
    let outside = || {
        format!(
            "{}: configPath {:?} is not a file inside {}; kpt reads a function's config only from its \
             package",
            quote(kptfile),
            relative,
            quote(folder)
        )
    };
    let root = std::fs::canonicalize(folder).map_err(|e| format!("reading {}: {e}", quote(folder)))?;
    let target = std::fs::canonicalize(&path)
        .map_err(|e| format!("{}: configPath {relative:?}: {e}", quote(kptfile)))?;
    let inside = target.strip_prefix(&root).map_err(|_| outside())?;
    if Path::new(relative).is_absolute() {
        return Err(outside());
    }
    if files::is_hidden(inside) {
        return Err(format!(
            "{}: configPath {relative:?} is a hidden entry (a name starting with \".\") of {}, or a \
             link to one; hidden entries are never read. Keep the config in a file of the package",
            quote(kptfile),
            quote(folder)
        ));
    }
    let text = files::read_file(&path, budget)?;
    let value = parse(&text, &path)?;
    let source = format!("{} (from {})", quote(&path), quote(kptfile));
    Ok(Some(PackageConfig { value, file: Some(path), source }))
}

/// The one YAML document of a package file, or an error naming it.
fn parse(text: &str, path: &Path) -> Result<Value, String> {
    let name = quote(path);
    yaml::parse(text).map_err(|e| format!("{name}: not readable YAML: {}", yaml::in_file(&e, &name)))
}

/// `name` in `folder`, as the user would type it: without a leading `./`.
fn under(folder: &Path, name: &str) -> PathBuf {
    if folder == Path::new(".") { PathBuf::from(name) } else { folder.join(name) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_image_or_executable_named_as_this_function_runs_it() {
        let entry = |key: &str, value: &str| json!({ key: value }).as_object().cloned().unwrap();
        for image in [
            "ghcr.io/sonda-red/render-inference-identity:v0.1.0",
            "render-inference-identity",
            "registry.example:5000/mirror/render-inference-identity@sha256:ab",
        ] {
            assert!(runs_this(&entry("image", image)), "{image}");
        }
        for image in [
            "registry.acme.dev/mirror/render-inference-identity-deps/set-labels:v0.2.4",
            "ghcr.io/x/render-inference-identity-fork:v1",
            "render-inference-identity/set-labels",
        ] {
            assert!(!runs_this(&entry("image", image)), "{image}");
        }
        assert!(runs_this(&entry("exec", "render-inference-identity --flag")));
        for exec in
            ["./render-inference-identity", "bin/render-inference-identity", "render-inference-identity.sh"]
        {
            assert!(!runs_this(&entry("exec", exec)), "{exec}: a file of the repository may be anything");
        }
    }
}
