//! Directory render, for Argo CD config management plugins and plain CI: manifests from
//! files and folders in, a plain multi-document YAML stream out (never a ResourceList:
//! Argo CD would take the wrapper for one object). Standard input is read only when a path
//! is `-` (`kustomize build ... | render -`). Files and folders are read by the one rule of
//! [`files`]; without `--config`, a folder's Kptfile may give the config ([`kptfile`]).

use crate::config::{self, Config, Override};
use crate::io::app_folder;
use crate::io::files::{self, Budget, Found, quote};
use crate::io::kptfile;
use crate::io::read::{self, Head, Options, Stream};
use crate::io::write::{self, Form, Source};
use crate::io::{Env, RunError, RunOutput, error_output, reconcile_items, summary};
use crate::reconcile::Outcome;
use crate::reconcile::input::{Input, Passed};
use crate::yaml;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How to set the trust domain in this mode: every way there is.
const TRUST_DOMAIN_HINT: &str = "pass --trust-domain, set ARGOCD_ENV_TRUST_DOMAIN (a TRUST_DOMAIN entry \
                                 of the Argo CD application's plugin env), or set trustDomain in the --config file";

/// What to render and with which configuration.
#[derive(Debug, Default)]
pub struct Request {
    /// Files and folders; folders are read recursively, hidden entries skipped, by the
    /// rule of [`files`].
    pub paths: Vec<PathBuf>,
    /// A functionConfig file (either form); it is not read as a manifest. Without it, the
    /// config a folder's Kptfile gives this function ([`kptfile`]) is used.
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
    let stderr = summary(&outcome, &|item| loaded.origins.get(item).cloned());
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
    /// The config file or Kptfile entry the config came from, as `explain` names it.
    pub config_source: Option<String>,
    streams: Vec<Stream>,
    /// By item position, (stream, part) it came from.
    kept: Vec<(usize, usize)>,
    items: Vec<Input>,
    /// By item position, `file (document n)` for messages.
    origins: Vec<String>,
    /// By stream, the file it was read from; `None` for standard input.
    files: Vec<Option<PathBuf>>,
}

impl Loaded {
    /// Reconciles the items (once: they move into the outcome); an unusable input or
    /// configuration is the error.
    pub fn reconcile(&mut self, request: &Request) -> Result<Outcome, String> {
        let items = std::mem::take(&mut self.items);
        match reconcile_items(items, &self.config, &request.env, false, TRUST_DOMAIN_HINT, |_, _| Ok(())) {
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

    /// The file the item at `item` came from (relative to the working folder when it is
    /// under it) and the line its content starts on, past comments and blank lines; the
    /// line alone for standard input.
    pub fn location(&self, item: usize) -> Option<(Option<PathBuf>, usize)> {
        let &(f, i) = self.kept.get(item)?;
        let stream = &self.streams[f];
        let line = read::text::start_line(&stream.text, stream.parts[i].text.chunk.clone());
        let file = self.files[f].as_ref().map(|path| relative(path));
        Some((file, line))
    }

    /// Where each item's text is, by item position.
    pub fn sources(&self) -> Vec<Source<'_>> {
        self.kept
            .iter()
            .map(|&(f, i)| Source { text: &self.streams[f].text, item: &self.streams[f].parts[i].text })
            .collect()
    }
}

/// Reads the configuration and the manifests of a request, by the rule of [`files`].
pub(super) fn load(request: &Request) -> Result<Loaded, String> {
    let paths = if request.paths.is_empty() { vec![PathBuf::from(".")] } else { request.paths.clone() };
    let mut budget = Budget::default();
    if let Some(stdin) = &request.stdin {
        budget.spend(stdin.len());
    }
    let folders: Vec<PathBuf> = paths.iter().filter(|p| p.as_os_str() != STDIN).cloned().collect();
    let (config_value, config_source, skip) = match &request.config_file {
        Some(path) => {
            let text = files::read_named(path, &mut budget)?;
            let value = yaml::parse(&text).map_err(|e| format!("{}: not readable YAML: {e}", quote(path)))?;
            (Some(value), Some(format!("{} (--config)", quote(path))), vec![path.clone()])
        }
        None => match kptfile::config(&folders, &mut budget)? {
            Some(found) => (Some(found.value), Some(found.source), found.file.into_iter().collect()),
            None => (None, None, Vec::new()),
        },
    };
    let config =
        config::with_overrides(config_value.as_ref(), &request.overrides).map_err(|e| e.to_string())?;

    let found = files::find(&folders, &skip, |p| files::is_manifest_name(p) || app_folder::is_marker(p))?;
    app_folder::refuse(&found)?;
    // Files first in the order given, standard input where `-` stands.
    let mut sources: Vec<Option<&Found>> = found.iter().map(Some).collect();
    if let Some(at) = paths.iter().position(|p| p.as_os_str() == STDIN) {
        // The paths before `-` are the first `at` given to `find`.
        let before = found.iter().position(|f| f.root >= at).unwrap_or(found.len());
        sources.insert(before, None);
    }
    let mut texts = Vec::with_capacity(sources.len());
    for source in &sources {
        let text = match source {
            None => request.stdin.clone().ok_or("`-` names standard input, and none was given")?,
            Some(found) => files::read(found, &mut budget)?,
        };
        texts.push(text);
    }
    let names: Vec<String> =
        sources.iter().map(|f| f.map_or_else(|| "<stdin>".to_string(), |f| quote(&f.path))).collect();
    let mut streams = Vec::with_capacity(sources.len());
    for ((name, source), stream) in names.iter().zip(&sources).zip(read::files(texts, Options::default())) {
        let stream = stream.map_err(|e| format!("{name}: {e}"))?;
        // A pipe whose first command failed still runs this one, on nothing: rendering or
        // explaining nothing would pass for a clean result.
        if source.is_none() && stream.parts.is_empty() {
            return Err(format!(
                "{name} holds no YAML document: did the command before the pipe fail? (a shell runs \
                 the rest of a pipe anyway; `set -o pipefail` makes it stop)"
            ));
        }
        streams.push(stream);
    }

    let mut items = Vec::new();
    let mut kept = Vec::new();
    let mut origins = Vec::new();
    for (f, (name, stream)) in names.iter().zip(&mut streams).enumerate() {
        for (index, part) in stream.parts.iter_mut().enumerate() {
            if is_local_config(&part.head) {
                continue;
            }
            if part.head.api_version.is_none() || part.head.kind.is_none() {
                return Err(format!(
                    "{name} (document {index}): not a Kubernetes object (no apiVersion and kind); \
                     keep only manifests in the folders given to render"
                ));
            }
            items.push(std::mem::replace(&mut part.input, Input::Passed(Passed::default())));
            kept.push((f, index));
            origins.push(format!("{name} (document {index})"));
        }
    }
    let files = sources.iter().map(|f| f.map(|f| f.path.clone())).collect();
    Ok(Loaded { config, config_source, streams, kept, items, origins, files })
}

/// `path` relative to the working folder when it is under it, else as it is.
fn relative(path: &Path) -> PathBuf {
    let under =
        std::env::current_dir().ok().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    under.unwrap_or_else(|| path.strip_prefix("./").unwrap_or(path).to_path_buf())
}

/// The path that names standard input.
const STDIN: &str = "-";

/// Argo CD discovery: the manifest files under `paths` (read by the rule of [`files`]) that
/// hold an InferenceIdentityBinding, by [`holds_binding`]. Empty when none does.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let mut budget = Budget::default();
    let mut found = Vec::new();
    for file in files::find(&paths, &[], files::is_manifest_name)? {
        let text = files::read(&file, &mut budget)?;
        if holds_binding(&file.path, &text) {
            found.push(file.path);
        }
    }
    Ok(found)
}

/// Whether a manifest holds an object of kind InferenceIdentityBinding in API group
/// kleym.sonda.red, by a cheap scan: in a YAML document, the top-level keys `kind:` and
/// `apiVersion:` (lines at column 0); in a `.json` file, the members of the top-level
/// object. Text elsewhere (a kustomize fieldSpec naming the kind) does not count.
pub fn holds_binding(path: &Path, text: &str) -> bool {
    let is_binding = |api_version: &str, kind: &str| {
        kind == BINDING_KIND
            && api_version.starts_with(BINDING_GROUP)
            && api_version[BINDING_GROUP.len()..].starts_with('/')
    };
    if path.extension().is_some_and(|e| e == "json")
        && let Ok(value) = serde_json::from_str::<serde_json::Value>(text)
    {
        let field = |key: &str| value.get(key).and_then(serde_json::Value::as_str).unwrap_or_default();
        return is_binding(field("apiVersion"), field("kind"));
    }
    let (mut api_version, mut kind) = (String::new(), String::new());
    for line in text.lines().chain(std::iter::once("---")) {
        if line.starts_with("---") || line.starts_with("...") {
            if is_binding(&api_version, &kind) {
                return true;
            }
            api_version.clear();
            kind.clear();
        } else if let Some(value) = line.strip_prefix("kind:") {
            kind = scalar(value);
        } else if let Some(value) = line.strip_prefix("apiVersion:") {
            api_version = scalar(value);
        }
    }
    false
}

const BINDING_KIND: &str = "InferenceIdentityBinding";
const BINDING_GROUP: &str = "kleym.sonda.red";

/// A plain or quoted one-line scalar after a key, without a trailing comment.
fn scalar(text: &str) -> String {
    let text = text.split(" #").next().unwrap_or_default().trim();
    let unquoted = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')));
    unquoted.unwrap_or(text).to_string()
}

/// Objects that configure the render and never go to a cluster: kpt's local-config
/// annotation, and the Kptfile.
fn is_local_config(head: &Head) -> bool {
    let kptfile = head.kind.as_deref() == Some("Kptfile")
        && head.api_version.as_deref().is_some_and(|v| v.starts_with("kpt.dev/"));
    head.local_config || kptfile
}
