//! Directory render, for Argo CD config management plugins and plain CI: manifests from
//! files and folders in, a plain multi-document YAML stream out (never a ResourceList:
//! Argo CD would take the wrapper for one object). Standard input is read only when a path
//! is `-` (`kustomize build ... | render -`). Files and folders are read by the one rule of
//! [`files`]; without `--config`, a folder's Kptfile may give the config ([`kptfile`]).

use crate::config::{self, Config, Override};
use crate::io::app_folder;
use crate::io::applier;
use crate::io::files::{self, Budget, Found, quote};
use crate::io::kptfile;
use crate::io::passed_over;
use crate::io::pipeline::{self, Finished, Mode, Stdout, Stop};
use crate::io::process::Env;
use crate::io::read::parsed::Parsed;
use crate::io::read::{self, Head, Options, RESOURCE_LIST_API_VERSION, RESOURCE_LIST_KIND, Stream};
use crate::io::wording::{self, ItemOrigin};
use crate::io::write::Documents;
use crate::reconcile::Outcome;
use crate::reconcile::input::{Input, Passed};
use crate::reconcile::item::Item;
use crate::reconcile::lists::Listed;
use crate::reconcile::unjudged::{self, Differ, Lingers, Mix, Take};
use crate::yaml;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How to set the trust domain in this mode: every way there is.
const TRUST_DOMAIN_HINT: &str = "pass --trust-domain, set the Argo CD application's plugin parameter \
                                 trust-domain (PARAM_TRUST_DOMAIN) or plugin env entry TRUST_DOMAIN \
                                 (ARGOCD_ENV_TRUST_DOMAIN), or set trustDomain in the --config file";

/// What to render and with which configuration.
#[derive(Debug, Default)]
pub struct Request {
    /// Files and folders; folders are read recursively, hidden entries skipped, by the
    /// rule of [`files`].
    pub paths: Vec<PathBuf>,
    /// A functionConfig file (either form); it is not read as a manifest. Without it, the
    /// config a folder's Kptfile gives this function ([`kptfile`]) is used.
    pub config_file: Option<PathBuf>,
    /// Settings from flags, `ARGOCD_ENV_*` and `PARAM_*` variables, laid over the config file.
    pub overrides: Vec<Override>,
    pub env: Env,
    /// Standard input, read when `paths` holds `-`.
    pub stdin: Option<String>,
    /// The SPIRE to judge by, over what the config says: `diff` judges HEAD by BASE's, so
    /// that a pull request cannot redefine the manager or the trust domain its grants meet.
    pub judge: Option<Judge>,
    /// Where workloads that name no namespace land (`--namespace`, `ARGOCD_APP_NAMESPACE`).
    pub namespace: Option<String>,
    /// Another folder or file applied with these, and what of it to read with them
    /// ([`Files::lingering`]): `diff` reads BASE with HEAD, and HEAD with BASE, by each mix.
    pub lingering: Option<(PathBuf, Mix)>,
    /// What was parsed before, by text: `diff` parses each file once for all its reads.
    pub parsed: Option<std::sync::Arc<Parsed>>,
}

/// Renders the manifests of a request. The output is written only when asked
/// ([`Finished::write_to`]), and only when the render succeeds.
pub fn run(request: &Request) -> Finished {
    pipeline::run(Files::new(request), &request.env)
}

/// The files mode (`render`, and `explain` and `diff`, which read as it does): the request,
/// and what was read of it.
pub(super) struct Files<'r> {
    request: &'r Request,
    /// The config file or Kptfile entry the config came from, as `explain` names it.
    pub config_source: Option<String>,
    streams: Vec<Stream>,
    /// By stream, how messages name it: its file, quoted, or `<stdin>`.
    names: Vec<String>,
    /// By stream, the file it was read from; `None` for standard input.
    files: Vec<Option<PathBuf>>,
    /// By item position, (stream, part) it came from.
    kept: Vec<(usize, usize)>,
    /// The files the build cannot judge (docs/review.md, "What the gate cannot judge").
    pub unjudged: Vec<FileUnjudged>,
    /// By position, the items an Argo CD directory application may leave unapplied
    /// ([`applier`]), which kubectl applies.
    unapplied: BTreeSet<usize>,
    /// What of [`Request::lingering`] was read with these.
    pub lingering: Vec<Lingered>,
    /// What these and [`Request::lingering`] differ in, read with [`Mix::FIRST`].
    pub differ: Differ,
    /// By position, the items marked `config.kubernetes.io/local-config` (any value but
    /// `"false"`): judged by every rule, as `kubectl apply` and Argo CD apply them, as items an
    /// applier may leave unapplied, and left out of the stream written, as kpt and kustomize
    /// leave them out.
    local: BTreeSet<usize>,
}

/// An object of [`Request::lingering`] read with the request's manifests: at `item`, with its
/// API version, kind and name, and namespace, and why it may still run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lingered {
    pub item: usize,
    pub object: [String; 3],
    pub namespace: Option<String>,
    pub how: Lingers,
}

/// The cluster's SPIRE as a side's config describes it: its Controller Manager and its trust
/// domain. `diff` judges HEAD by BASE's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judge {
    pub spire: crate::config::SpireManager,
    pub trust_domain: Option<String>,
}

/// A file the build cannot judge and that could change who holds an identity: a manifest
/// file or link kpt passes over (hidden, or named in a `.krmignore`) that `kubectl apply -R`
/// reads and may apply ([`passed_over`]), Argo CD's parameter file, a Jsonnet file Argo CD
/// evaluates, or a Kptfile whose pipeline runs a mutator other than this function. `render`
/// and `explain` read folders as kpt does; `diff` counts one HEAD adds or changes as a
/// possible grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUnjudged {
    /// The file as found, and the line its record points at.
    pub path: PathBuf,
    pub line: usize,
    /// The file relative to the path given it was found under.
    pub relative: PathBuf,
    /// Where in it (`pipeline.mutators[1]`); empty for the whole file.
    pub field: String,
    pub message: String,
    /// What tells BASE's from HEAD's: the file's bytes (a link's target as written, then its
    /// target's bytes), or the entry's and its config's.
    pub digested: Vec<u8>,
}

impl<'r> Files<'r> {
    pub fn new(request: &'r Request) -> Files<'r> {
        Files {
            request,
            config_source: None,
            streams: Vec::new(),
            names: Vec::new(),
            files: Vec::new(),
            kept: Vec::new(),
            unjudged: Vec::new(),
            unapplied: BTreeSet::new(),
            local: BTreeSet::new(),
            lingering: Vec::new(),
            differ: Differ::default(),
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

    /// The text the item at `item` came from, as written.
    pub fn item_text(&self, item: usize) -> Option<&str> {
        let &(f, i) = self.kept.get(item)?;
        let stream = &self.streams[f];
        stream.text.get(stream.parts[i].text.chunk.clone())
    }
}

impl Mode for Files<'_> {
    const TRUST_DOMAIN_HINT: &'static str = TRUST_DOMAIN_HINT;

    fn item_text(&self, item: usize) -> Option<&str> {
        Files::item_text(self, item)
    }

    fn load(&mut self) -> Result<(Vec<Input>, Config), Stop> {
        self.read().map_err(Stop::new)
    }

    fn origin(&self, position: usize) -> ItemOrigin {
        let (f, i) = self.kept[position];
        ItemOrigin::document(&self.names[f], i)
    }

    /// Bindings come from many files: each stderr line names its own.
    fn names_origin(&self) -> bool {
        true
    }

    /// Those an Argo CD directory application may leave unapplied, and those marked
    /// local-config, which kpt and kustomize leave out: kubectl applies both.
    fn unapplied(&self) -> BTreeSet<usize> {
        self.unapplied.union(&self.local).copied().collect()
    }

    /// The stream, unless the render stops or fails: nothing half-rendered is applied.
    fn written(self, run: Result<Outcome, Stop>) -> Stdout {
        let outcome = run.ok().filter(|o| !o.has_errors())?;
        let local = self.local;
        let items = outcome
            .items
            .into_iter()
            .filter(|item| !matches!(item, Item::Input(position, _) if local.contains(position)))
            .collect();
        Some(Box::new(Documents { items, streams: self.streams, kept: self.kept }))
    }
}

impl Files<'_> {
    /// The streams of `texts`, parsed once in a run that parses them again.
    fn parse(&self, texts: Vec<String>) -> Vec<Result<Stream, String>> {
        match &self.request.parsed {
            Some(parsed) => parsed.files(texts),
            None => read::files(texts, Options::default()),
        }
    }

    /// Reads the configuration and the manifests of the request, by the rule of [`files`].
    fn read(&mut self) -> Result<(Vec<Input>, Config), String> {
        let request = self.request;
        let paths = if request.paths.is_empty() { vec![PathBuf::from(".")] } else { request.paths.clone() };
        let mut budget = Budget::default();
        if let Some(stdin) = &request.stdin {
            budget.spend(stdin.len());
        }
        let folders: Vec<PathBuf> = paths.iter().filter(|p| p.as_os_str() != STDIN).cloned().collect();
        let (config_value, config_source, skip) = match &request.config_file {
            Some(path) => {
                let text = files::read_named(path, &mut budget)?;
                let value = yaml::parse(&text).map_err(|e| {
                    format!("{}: not readable YAML: {}", quote(path), yaml::in_file(&e, &quote(path)))
                })?;
                (Some(value), Some(format!("{} (--config)", quote(path))), vec![path.clone()])
            }
            None => match kptfile::config(&folders, &mut budget)? {
                Some(found) => (Some(found.value), Some(found.source), found.file.into_iter().collect()),
                None => (None, None, Vec::new()),
            },
        };
        // A config from a file is named by it, as a manifest's error is.
        let mut config = config::with_overrides(config_value.as_ref(), &request.overrides).map_err(|e| {
            match &config_source {
                Some(source) => format!("{source}: {e}"),
                None => e.to_string(),
            }
        })?;
        self.config_source = config_source;
        if let Some(judge) = &request.judge {
            config.spire = judge.spire.clone();
            if judge.trust_domain.is_some() {
                config.trust_domain.clone_from(&judge.trust_domain);
            }
        }
        if let Some(namespace) = &request.namespace {
            crate::api::names::dns1123_label(namespace).map_err(|e| {
                format!("--namespace (ARGOCD_APP_NAMESPACE) {namespace:?} is not a namespace name: {e}")
            })?;
            config.namespace = Some(namespace.clone());
        }

        let walked =
            files::walk(&folders, &skip, |p| files::is_manifest_name(p) || app_folder::is_marker(p))?;
        let found = walked.files;
        let passed = walked.passed_over.iter().map(|p| p.path.as_path());
        app_folder::refuse(found.iter().map(|f| f.path.as_path()).chain(passed))?;
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
        self.names = sources
            .iter()
            .map(|f| f.map_or_else(|| wording::STDIN.to_string(), |f| quote(&f.path)))
            .collect();
        for ((name, source), stream) in self.names.iter().zip(&sources).zip(self.parse(texts)) {
            let stream = stream.map_err(|e| format!("{name}: {}", yaml::in_file(&e, name)))?;
            // A pipe whose first command failed still runs this one, on nothing: rendering or
            // explaining nothing would pass for a clean result.
            if source.is_none() && stream.parts.is_empty() {
                return Err(format!(
                    "{name} holds no YAML document: what feeds it gave nothing, so there is nothing to \
                     render. A chart or overlay that renders no object (Helm's post-renderer), or a \
                     command before a pipe that failed (a shell runs the rest of a pipe anyway; `set -o \
                     pipefail` makes it stop)?"
                ));
            }
            self.streams.push(stream);
        }

        let mut items = Vec::new();
        for (f, (name, stream)) in self.names.iter().zip(&mut self.streams).enumerate() {
            let file_skipped = sources[f].is_some() && applier::skips_file(&stream.text);
            for (index, part) in stream.parts.iter_mut().enumerate() {
                // A Kptfile is kpt's, never applied; one holding `items` is a List to Argo CD,
                // which applies each item whatever the List's kind (argo-cd
                // `reposerver/repository/repository.go`, `findManifests`, `EachListItem`), so it
                // goes on to the rules of Lists.
                let listed = match &part.input {
                    Input::Whole(value) => crate::reconcile::lists::is_list(value),
                    Input::Passed(passed) => passed.list.is_some(),
                };
                if is_kptfile(&part.head) && !listed {
                    continue;
                }
                if part.head.local_config {
                    if changes_identities(&part.head, &part.input) {
                        return Err(format!(
                            "{}: a {} marked config.kubernetes.io/local-config (any value but \"false\"), which kpt \
                             and kustomize leave out and `kubectl apply` applies all the same, so the identities it \
                             changes would go unseen: remove the annotation, or the object",
                            ItemOrigin::document(name, index),
                            part.head.kind.as_deref().unwrap_or_default(),
                        ));
                    }
                    // Any other object goes to every rule, as `kubectl apply` and Argo CD apply
                    // it; it leaves the stream as kpt and kustomize leave it, out.
                    self.local.insert(items.len());
                }
                if is_resource_list(&part.head) && part.input.list().is_some_and(|list| !list.read.is_empty())
                {
                    return Err(format!(
                        "{}: a {RESOURCE_LIST_API_VERSION} {RESOURCE_LIST_KIND}, what kpt hands a KRM function, \
                         not manifests: render, explain and diff read manifests, so the bindings, pools \
                         and pod templates among its items would go unseen. Render it as kpt does with \
                         `render-inference-identity < FILE` (no subcommand), or give render, explain or \
                         diff the package folder it was made from",
                        ItemOrigin::document(name, index)
                    ));
                }
                if part.head.api_version.is_none() || part.head.kind.is_none() {
                    return Err(format!(
                        "{}: not a Kubernetes object (no apiVersion and kind); keep only manifests in the \
                         folders given to render",
                        ItemOrigin::document(name, index)
                    ));
                }
                if let Some(refusal) = part.head.refusal() {
                    return Err(format!("{}: {refusal}", ItemOrigin::document(name, index)));
                }
                let hook =
                    part.head.hooks.as_deref().is_some_and(|[argo, helm, argo_delete, helm_delete]| {
                        applier::skips_object(argo.as_deref(), helm.as_deref())
                            || applier::deletes_hook(
                                argo.as_deref(),
                                helm.as_deref(),
                                argo_delete.as_deref(),
                                helm_delete.as_deref(),
                            )
                    });
                if file_skipped || hook {
                    self.unapplied.insert(items.len());
                }
                items.push(std::mem::replace(&mut part.input, Input::Passed(Passed::default())));
                self.kept.push((f, index));
            }
        }
        let own_streams = self.streams.len();
        let mut files: Vec<Option<PathBuf>> = sources.iter().map(|f| f.map(|f| f.path.clone())).collect();
        if let Some((other, mix)) = &request.lingering {
            files.extend(self.lingering(other, *mix, &mut items, &mut budget)?);
        }
        // What a file passed over holds is not read, and what a mutator kpt runs changes is
        // not judged, so what either may reach is anything the folders and the config hold:
        // its record follows all of it, the manifests as read and the settings the run
        // resolved (docs/review.md, "Files kpt passes over").
        // Each file by its path under its folder too: a file moved into a subpackage changes
        // what that package's pipeline sees.
        let mut hash = Sha256::new().chain_update(format!("{config:?}"));
        for (stream, path) in self.streams[..own_streams].iter().zip(&files) {
            let relative =
                path.as_deref().map(|p| folders.iter().find_map(|r| p.strip_prefix(r).ok()).unwrap_or(p));
            hash.update(b"\0file\0");
            hash.update(format!("{relative:?}\0").as_bytes());
            hash.update(stream.text.as_bytes());
        }
        let reach = hash.finalize().to_vec();
        self.unjudged = passed_over::judge(&walked.passed_over, &found, &folders, &reach, &mut budget)?;
        let reads_config = request.config_file.is_none();
        self.unjudged.extend(kptfile::mutators(&folders, &skip, reads_config, &reach, &mut budget)?);
        self.files = files;
        Ok((items, config))
    }

    /// Reads the manifests at `other` (the request's [`Request::lingering`]) and takes into
    /// `items` what of them may run beside `items` by `mix`. Returns the files read, by
    /// stream. Their errors name them, as those of any file read.
    fn lingering(
        &mut self,
        other: &Path,
        mix: Mix,
        items: &mut Vec<Input>,
        budget: &mut Budget,
    ) -> Result<Vec<Option<PathBuf>>, String> {
        let folders = [other.to_path_buf()];
        let mut skip: Vec<PathBuf> = self.request.config_file.iter().cloned().collect();
        skip.extend(kptfile::config(&folders, budget)?.and_then(|found| found.file));
        // kubectl applies the files kpt passes over (hidden, or named in a `.krmignore`) too.
        // Those it passes over need not be manifests: one that does not read is left out.
        let walked = files::walk(&folders, &skip, files::is_manifest_name)?;
        let own = walked.files.len();
        let passed = walked.passed_over.into_iter().filter_map(|p| p.found.ok());
        let mut found = Vec::new();
        let mut texts = Vec::new();
        for (n, file) in walked.files.into_iter().chain(passed).enumerate() {
            match files::read(&file, budget) {
                Ok(text) => texts.push(text),
                Err(_) if n >= own => continue,
                Err(e) => return Err(e),
            }
            found.push(file);
        }
        let first = self.streams.len();
        let mut read_files = Vec::new();
        for (n, (file, stream)) in found.iter().zip(self.parse(texts)).enumerate() {
            let name = quote(&file.path);
            let stream = match stream {
                Ok(stream) => stream,
                Err(_) if n >= own => continue,
                Err(e) => return Err(format!("{name}: {}", yaml::in_file(&e, &name))),
            };
            self.streams.push(stream);
            self.names.push(name);
            read_files.push(Some(file.path.clone()));
        }
        let mut declared = Vec::new();
        let mut found_at = Vec::new();
        for (f, stream) in self.streams.iter_mut().enumerate().skip(first) {
            for (index, part) in stream.parts.iter_mut().enumerate() {
                if is_kptfile(&part.head) || part.head.api_version.is_none() || part.head.kind.is_none() {
                    continue;
                }
                declared.push(std::mem::replace(&mut part.input, Input::Passed(Passed::default())));
                found_at.push((f, index));
            }
        }
        // What the sides differ in decides which mixes `diff` reads: the first read tells.
        if mix == Mix::FIRST {
            self.differ = unjudged::differ(items, &declared);
        }
        let mut taken = BTreeSet::new();
        for (take, how) in unjudged::mix(items, &declared, mix) {
            let (position, instead) = match take {
                Take::In { from, at } => (from, at),
                Take::Narrowed { from, at } => {
                    // Narrowed in place: its record where it stands.
                    let Some(narrowed) = unjudged::narrowed(&items[at], &declared[from]) else { continue };
                    let Some((object, namespace)) = object_of(&items[at]) else { continue };
                    self.lingering.push(Lingered { item: at, object, namespace, how });
                    items[at] = narrowed;
                    continue;
                }
                Take::Out { at } => {
                    // Taken out: nothing in its place, its record where it stood.
                    let Some((object, namespace)) = object_of(&items[at]) else { continue };
                    self.lingering.push(Lingered { item: at, object, namespace, how });
                    items[at] = Input::Passed(Passed::default());
                    continue;
                }
            };
            let item = declared[position].clone();
            let Some((object, namespace)) = object_of(&item) else { continue };
            // In place of its version here; after these where another of the folder's objects
            // took that place already (two in namespaces one without a namespace here lands in).
            let at = instead.filter(|at| taken.insert(*at));
            self.lingering.push(Lingered { item: at.unwrap_or(items.len()), object, namespace, how });
            match at {
                Some(at) => {
                    items[at] = item;
                    self.kept[at] = found_at[position];
                }
                None => {
                    items.push(item);
                    self.kept.push(found_at[position]);
                }
            }
        }
        Ok(read_files)
    }
}

/// `path` relative to the working folder when it is under it, else as it is.
fn relative(path: &Path) -> PathBuf {
    let under =
        std::env::current_dir().ok().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    under.unwrap_or_else(|| path.strip_prefix("./").unwrap_or(path).to_path_buf())
}

/// The path that names standard input.
const STDIN: &str = "-";

/// Argo CD discovery: the manifest files under `paths` (found and read by the rule of
/// [`files`]) that hold an object `render` reads as a binding, or a List holding one. Each
/// file's documents are read by the reader every mode reads through, so a binding is found
/// however its YAML is spelled (a byte-order mark, quoted keys, escapes, anchors, a value on
/// the next line) and text that only names the kind (a kustomize fieldSpec, a comment) is
/// not one. A file that does not
/// read as YAML (a Helm template, say) holds no binding here; `render` names its error. A file
/// kubectl reads otherwise than this function (docs/yaml.md#held-to-kubectls-reader) fails
/// the discovery with the place: what it holds is not known. Empty when no file holds one.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let mut budget = Budget::default();
    let found = files::find(&paths, &[], files::is_manifest_name)?;
    let mut texts = Vec::with_capacity(found.len());
    for file in &found {
        texts.push(files::read(file, &mut budget)?);
    }
    // A List that holds a binding is listed too: `render` refuses it and says how to split it.
    let holds_binding = |stream: &Stream| {
        stream.parts.iter().any(|part| {
            let listed = || part.input.list().is_some_and(|list| list.read.iter().any(Listed::is_binding));
            !is_local_config(&part.head)
                && (part.input.value().is_some_and(crate::api::binding::is_binding) || listed())
        })
    };
    let mut listed = Vec::new();
    for ((file, text), stream) in
        found.into_iter().zip(&texts).zip(read::files(texts.clone(), Options::default()))
    {
        match stream {
            Ok(stream) if holds_binding(&stream) => listed.push(file.path),
            Ok(_) => {}
            // kubectl reads it, otherwise: what it holds is not known here.
            Err(_) => {
                if let Some(message) = read::divergence(text) {
                    let name = quote(&file.path);
                    return Err(format!("{name}: {}", yaml::in_file(&message, &name)));
                }
            }
        }
    }
    Ok(listed)
}

/// The KRM function's input, which a render of manifests refuses when it holds items the
/// reconcile reads: the error says to run the KRM mode instead, not to split a List.
fn is_resource_list(head: &Head) -> bool {
    head.api_version.as_deref() == Some(RESOURCE_LIST_API_VERSION)
        && head.kind.as_deref() == Some(RESOURCE_LIST_KIND)
}

/// Whether an object changes who holds which identity once applied: a kind the reconcile
/// reads (a binding, a pool, a ClusterSPIFFEID, a static entry, a namespace...) or one with
/// pod templates. Marked local-config, such an object is refused, not skipped.
fn changes_identities(head: &Head, input: &Input) -> bool {
    let kind = head.kind.as_deref().unwrap_or_default();
    (crate::reconcile::kinds::reads_whole(kind) && kind != "CustomResourceDefinition")
        || input.workload().is_some()
}

/// Objects that configure the render and never go to a cluster: kpt's local-config
/// annotation, and the Kptfile.
fn is_local_config(head: &Head) -> bool {
    head.local_config || is_kptfile(head)
}

/// Whether an object is a Kptfile, which no applier sends to a cluster (the API server
/// serves no `kpt.dev` kind) and [`kptfile`] reads.
fn is_kptfile(head: &Head) -> bool {
    head.kind.as_deref() == Some("Kptfile")
        && head.api_version.as_deref().is_some_and(|v| v.starts_with("kpt.dev/"))
}

/// An object's API version, kind and name, and namespace, for its record; `None` for an item
/// that declares none the build reads.
fn object_of(item: &Input) -> Option<([String; 3], Option<String>)> {
    match (item, item.workload()) {
        (Input::Whole(value), _) => {
            let text = |path: &str| crate::api::fields::str_at(value, path).map(str::to_string);
            let [api_version, kind, name] =
                ["apiVersion", "kind", "metadata.name"].map(|p| text(p).unwrap_or_default());
            Some(([api_version, kind, name], text("metadata.namespace")))
        }
        (_, Some(w)) => Some((
            [w.api_version().to_string(), w.kind().to_string(), w.name().to_string()],
            w.namespace().map(str::to_string),
        )),
        (_, None) => None,
    }
}
