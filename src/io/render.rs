//! Directory render, for Argo CD config management plugins and plain CI: manifests from
//! files and folders in, a plain multi-document YAML stream out (never a ResourceList:
//! Argo CD would take the wrapper for one object). Standard input is read only when a path
//! is `-` (`kustomize build ... | render -`).

use crate::config::{self, Config, Override};
use crate::io::read::{self, Head, Stream};
use crate::io::write::{self, Form, Source};
use crate::io::{Env, RunError, RunOutput, error_output, reconcile_items, summary};
use crate::reconcile::Outcome;
use crate::reconcile::input::{Input, Passed};
use crate::yaml;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How to set the trust domain in this mode: every way there is.
const TRUST_DOMAIN_HINT: &str = "pass --trust-domain, set ARGOCD_ENV_TRUST_DOMAIN (a TRUST_DOMAIN entry \
                                 of the Argo CD application's plugin env), or set trustDomain in the --config file";

/// Extensions of the files read from folders.
const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// What to render and with which configuration.
#[derive(Debug, Default)]
pub struct Request {
    /// Files and folders; folders are read recursively, hidden entries skipped.
    pub paths: Vec<PathBuf>,
    /// A functionConfig file (either form); it is not read as a manifest.
    pub config_file: Option<PathBuf>,
    /// Settings from flags and `ARGOCD_ENV_*` variables, laid over the config file.
    pub overrides: Vec<Override>,
    pub env: Env,
    /// Standard input, read when `paths` holds `-`.
    pub stdin: Option<String>,
}

/// Renders the manifests of a request, the output held as text.
pub fn run(request: &Request) -> RunOutput {
    let mut stdout = Vec::new();
    let (stderr, exit_code) = run_to(request, &mut stdout);
    RunOutput { stdout: String::from_utf8(stdout).expect("YAML text is UTF-8"), stderr, exit_code }
}

/// Renders the manifests of a request onto `out`, which gets nothing unless the render
/// succeeds; returns what goes to stderr and the exit code.
pub fn run_to<W: Write>(request: &Request, out: W) -> (String, i32) {
    match render(request, out) {
        Ok(done) => done,
        Err(message) => {
            let failed = error_output(&message);
            (failed.stderr, failed.exit_code)
        }
    }
}

fn render<W: Write>(request: &Request, mut out: W) -> Result<(String, i32), String> {
    let mut loaded = load(request)?;
    let outcome = loaded.reconcile(request)?;
    let stderr =
        summary(&outcome, &loaded.config, TRUST_DOMAIN_HINT, &|item| loaded.origins.get(item).cloned());
    if outcome.has_errors() {
        return Ok((stderr, 1));
    }
    write::items(&mut out, &outcome.items, &loaded.sources(), Form::Stream)?;
    out.flush().map_err(|e| format!("writing the output: {e}"))?;
    Ok((stderr, 0))
}

/// The manifests of a request, read, with the configuration they run under.
pub(super) struct Loaded {
    pub config: Config,
    streams: Vec<Stream>,
    /// By item position, (stream, part) it came from.
    kept: Vec<(usize, usize)>,
    items: Vec<Input>,
    /// By item position, `file (document n)` for messages.
    origins: Vec<String>,
}

impl Loaded {
    /// Reconciles the items (once: they move into the outcome); an unusable input or
    /// configuration is the error.
    pub fn reconcile(&mut self, request: &Request) -> Result<Outcome, String> {
        let items = std::mem::take(&mut self.items);
        match reconcile_items(items, &self.config, &request.env, false, TRUST_DOMAIN_HINT) {
            Err((RunError::Config(e), _)) => Err(e.to_string()),
            Err((RunError::Input(e), _)) => {
                let first = e.first.map(|f| format!(" (first in {})", self.origins[f])).unwrap_or_default();
                Err(format!(
                    "{}: {}{first}",
                    self.origins[e.item],
                    crate::io::escape_controls(&e.message, false)
                ))
            }
            Ok(outcome) => Ok(outcome),
        }
    }

    /// Where each item's text is, by item position.
    pub fn sources(&self) -> Vec<Source<'_>> {
        self.kept
            .iter()
            .map(|&(f, i)| Source { text: &self.streams[f].text, item: &self.streams[f].parts[i].text })
            .collect()
    }
}

/// Reads the configuration and the manifests of a request.
pub(super) fn load(request: &Request) -> Result<Loaded, String> {
    let config_value = match &request.config_file {
        None => None,
        Some(path) => {
            let text = fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            Some(yaml::parse(&text).map_err(|e| format!("{}: not readable YAML: {e}", path.display()))?)
        }
    };
    let config =
        config::with_overrides(config_value.as_ref(), &request.overrides).map_err(|e| e.to_string())?;

    let skip = request.config_file.as_ref().and_then(|p| p.canonicalize().ok());
    let paths = if request.paths.is_empty() { vec![PathBuf::from(".")] } else { request.paths.clone() };
    let mut files = Vec::new();
    for path in &paths {
        if path.as_os_str() == STDIN {
            files.push(path.clone());
            continue;
        }
        super::app_folder::refuse(path)?;
        collect(path, &mut files).map_err(|e| format!("reading {}: {e}", path.display()))?;
    }
    files.retain(|f| skip.is_none() || f.canonicalize().ok() != skip);

    let mut texts = Vec::with_capacity(files.len());
    for file in &files {
        let text = if file.as_os_str() == STDIN {
            request.stdin.clone().ok_or("`-` names standard input, and none was given")?
        } else {
            fs::read_to_string(file).map_err(|e| format!("reading {}: {e}", file.display()))?
        };
        texts.push(text);
    }
    let mut streams = Vec::with_capacity(files.len());
    for (file, stream) in files.iter().zip(read::streams(texts)) {
        streams.push(stream.map_err(|e| format!("{}: {e}", name(file)))?);
    }

    let mut items = Vec::new();
    let mut kept = Vec::new();
    let mut origins = Vec::new();
    for (f, (file, stream)) in files.iter().zip(&mut streams).enumerate() {
        for (index, part) in stream.parts.iter_mut().enumerate() {
            if is_local_config(&part.head) {
                continue;
            }
            if part.head.api_version.is_none() || part.head.kind.is_none() {
                return Err(format!(
                    "{} (document {index}): not a Kubernetes object (no apiVersion and kind); \
                     keep only manifests in the folders given to render",
                    name(file)
                ));
            }
            items.push(std::mem::replace(&mut part.input, Input::Passed(Passed::default())));
            kept.push((f, index));
            origins.push(format!("{} (document {index})", name(file)));
        }
    }
    Ok(Loaded { config, streams, kept, items, origins })
}

/// The path that names standard input.
const STDIN: &str = "-";

/// A file as messages name it.
fn name(file: &Path) -> String {
    if file.as_os_str() == STDIN { "<stdin>".to_string() } else { file.display().to_string() }
}

/// Argo CD discovery: the manifest files under `paths` that hold an
/// InferenceIdentityBinding, by a plain text search (no parsing). Empty when none does.
pub fn discover(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let mut files = Vec::new();
    for path in &paths {
        collect(path, &mut files)?;
    }
    let mut found = Vec::new();
    for file in files {
        let text = fs::read(&file)?;
        let text = String::from_utf8_lossy(&text);
        if text
            .lines()
            .any(|l| l.trim_start_matches(['-', ' ']).starts_with("kind: InferenceIdentityBinding"))
            || text.contains("\"kind\":\"InferenceIdentityBinding\"")
            || text.contains("\"kind\": \"InferenceIdentityBinding\"")
        {
            found.push(file);
        }
    }
    Ok(found)
}

/// Files under `path` with a manifest extension, in a stable order.
fn collect(path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        fs::metadata(path)?;
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> =
        fs::read_dir(path)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with('.') {
            continue;
        }
        if entry.is_dir() {
            collect(&entry, files)?;
        } else if entry.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e)) {
            files.push(entry);
        }
    }
    Ok(())
}

/// Objects that configure the render and never go to a cluster: kpt's local-config
/// annotation, and the Kptfile.
fn is_local_config(head: &Head) -> bool {
    let kptfile = head.kind.as_deref() == Some("Kptfile")
        && head.api_version.as_deref().is_some_and(|v| v.starts_with("kpt.dev/"));
    head.local_config || kptfile
}
