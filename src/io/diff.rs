//! `diff BASE HEAD`: what a change does to identities before it merges. Each side is read
//! as `explain` reads it (a file, a folder or `-`, with the same configuration) or is a
//! saved `explain -o json` report; both become the report's JSON document, and the diff
//! compares those: identities per binding, the SPIFFE IDs each pod template gets (the
//! report's `reach`), and findings. Text, markdown (a pull request comment) or JSON.

use super::explain::annotations;
use super::explain::{self, LabelSelector, Report};
use super::explain::{github, sarif};
use super::render::Request;
use super::{RunOutput, error_output};
use crate::config::FailurePolicy;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Text,
    Markdown,
    Json,
    /// HEAD's newly failing bindings and new findings as SARIF ([`annotations`]).
    Sarif,
    /// The same as GitHub Actions workflow commands ([`annotations`]).
    Github,
}

/// When the diff exits 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// Any change of identities or reach.
    Change,
    /// Only a change that grants: a workload gains an SVID, an identity is added or widened.
    Grant,
}

/// The exit status when the sides differ (as `terraform plan -detailed-exitcode`).
pub const DIFFERS: i32 = 2;

/// Compares two sides; `request` holds the configuration and standard input, its paths
/// are ignored.
pub fn run(base: &Path, head: &Path, request: &Request, output: Output, fail_on: FailOn) -> RunOutput {
    let sides = side(base, request).and_then(|b| Ok((b, side(head, request)?)));
    let ((before, _), (after, head_report)) = match sides {
        Ok(sides) => sides,
        Err(message) => return error_output(&message),
    };
    let diff = compare(&before, &after);
    let differs = match fail_on {
        FailOn::Change => !diff.identities.is_empty() || !diff.workloads.is_empty(),
        FailOn::Grant => diff.grants(),
    };
    let stdout = match output {
        Output::Text => text(&diff),
        Output::Markdown => markdown(&diff, MARKDOWN_LIMIT),
        Output::Json => {
            let mut out = serde_json::to_string_pretty(&diff).expect("a diff serializes");
            out.push('\n');
            out
        }
        Output::Sarif | Output::Github => {
            let Some((report, failure_policy)) = head_report else {
                return error_output(&format!(
                    "{}: -o sarif and -o github point at the lines of HEAD's manifests, and a saved \
                     report has none: give HEAD as files, a folder or `-`",
                    super::files::quote(head)
                ));
            };
            let new: BTreeSet<String> = diff.findings.new.iter().map(Finding::key).collect();
            let fresh: Vec<_> =
                report.findings.iter().filter(|f| new.contains(&Finding::of(f).key())).collect();
            // Bindings that fail in HEAD and did not in BASE, then the new findings.
            let newly_failing: Vec<_> = report
                .bindings
                .iter()
                .filter(|b| {
                    diff.identities.iter().any(|c| {
                        c.namespace == b.namespace
                            && c.name == b.name
                            && c.after.as_ref().is_some_and(|a| !a.ready)
                            && c.before.as_ref().is_none_or(|b| b.ready)
                    })
                })
                .collect();
            let mut found = annotations::failing(&newly_failing, failure_policy);
            found.extend(annotations::findings(&fresh));
            if output == Output::Sarif { sarif::sarif(&found) } else { github::github(&found) }
        }
    };
    RunOutput { stdout, stderr: String::new(), exit_code: if differs { DIFFERS } else { 0 } }
}

/// One side as a report: a saved report, read strictly, else the report of the manifests
/// there, which is also given (it knows the line of each item).
fn side(path: &Path, request: &Request) -> Result<(Saved, Option<(Report, FailurePolicy)>), String> {
    let name = super::files::quote(path);
    // A file is read within the input limit, as every file the function reads; its own
    // errors name it.
    let text = if path.as_os_str() == "-" {
        request.stdin.clone()
    } else if path.is_file() {
        Some(super::files::read_named(path, &mut super::files::Budget::default())?)
    } else {
        None
    };
    if let Some(text) = text.as_deref().filter(|t| is_saved_report(t)) {
        let report = Saved::read(text).map_err(|e| {
            format!("{name}: a saved explain report, but {e}: save it again with `explain -o json` of this version")
        })?;
        return Ok((report, None));
    }
    let side = Request {
        paths: vec![path.to_path_buf()],
        config_file: request.config_file.clone(),
        overrides: request.overrides.clone(),
        env: request.env.clone(),
        stdin: request.stdin.clone(),
    };
    // Errors about a file of the side name it already; others get the side's name.
    let named = |e: String| {
        let shown = if path.as_os_str() == "-" { "<stdin>" } else { name.as_str() };
        if e.starts_with(shown) || e.starts_with(&format!("reading {shown}")) {
            e
        } else {
            format!("{name}: {e}")
        }
    };
    let (report, policy) = explain::build_with_policy(&side).map_err(named)?;
    Ok((Saved::of(&report), Some((report, policy))))
}

/// Whether a text is a saved `explain -o json` report: a JSON object with `bindings` and
/// no `apiVersion` (a manifest in JSON has one).
fn is_saved_report(text: &str) -> bool {
    let Ok(Value::Object(value)) = serde_json::from_str::<Value>(text) else { return false };
    value.contains_key("bindings") && !value.contains_key("apiVersion")
}

/// A saved `explain -o json` report as `diff` reads it: every field of the document
/// (docs/reference.md#explain), typed and required, and no other, so a report that is not
/// one is refused naming the field instead of read as "nothing there".
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Saved {
    #[serde(deserialize_with = "required")]
    config: Option<String>,
    bindings: Vec<SavedBinding>,
    workloads: Vec<SavedHeld>,
    findings: Vec<Finding>,
    reach: Vec<SavedReach>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SavedBinding {
    #[serde(deserialize_with = "required")]
    namespace: Option<String>,
    name: String,
    ready: bool,
    reason: String,
    message: String,
    #[serde(rename = "spiffeID", deserialize_with = "required")]
    spiffe_id: Option<String>,
    #[serde(rename = "clusterSPIFFEID", deserialize_with = "required")]
    cluster_spiffe_id: Option<String>,
    #[serde(deserialize_with = "required")]
    class_name: Option<String>,
    #[serde(deserialize_with = "required")]
    pod_selector: Option<LabelSelector>,
    #[serde(deserialize_with = "required")]
    namespace_selector: Option<LabelSelector>,
    selectors: Vec<String>,
    workloads: Vec<Ref>,
    selected_without_identity: Vec<Ref>,
    removes: Vec<SavedRemoved>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct SavedRemoved {
    #[serde(rename = "clusterSPIFFEID")]
    cluster_spiffe_id: String,
    #[serde(rename = "spiffeID")]
    spiffe_id: String,
}

/// A pod template or another item a report names.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Ref {
    pub api_version: String,
    pub kind: String,
    #[serde(deserialize_with = "required")]
    pub namespace: Option<String>,
    pub name: String,
    /// Left out for an item that is not a pod template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SavedHeld {
    api_version: String,
    kind: String,
    #[serde(deserialize_with = "required")]
    namespace: Option<String>,
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    svids: Vec<String>,
    entries_without_identity: Vec<String>,
    fallbacks_skipped: Vec<String>,
    svids_with_unknowns: Vec<SavedUnknownSvid>,
    entries_not_made: Vec<SavedNotMade>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct SavedUnknownSvid {
    #[serde(rename = "spiffeID")]
    spiffe_id: String,
    unknown: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct SavedNotMade {
    #[serde(rename = "clusterSPIFFEID")]
    cluster_spiffe_id: String,
    reason: String,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SavedReach {
    api_version: String,
    kind: String,
    #[serde(deserialize_with = "required")]
    namespace: Option<String>,
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(rename = "spiffeIDs")]
    spiffe_ids: Vec<String>,
}

/// A finding of a report, as the diff lists it new or resolved.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub severity: FindingSeverity,
    pub reason: String,
    pub message: String,
    pub refs: Vec<Ref>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FindingSeverity {
    Error,
    Warning,
    Info,
}

impl FindingSeverity {
    fn word(self) -> &'static str {
        match self {
            FindingSeverity::Error => "error",
            FindingSeverity::Warning => "warning",
            FindingSeverity::Info => "info",
        }
    }
}

/// An `Option` field that must be there, null or not: serde reads a missing `Option` as
/// `None` unless told otherwise.
fn required<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::deserialize(d)
}

impl Saved {
    /// A saved report's text, read strictly: the error names the field at fault.
    fn read(text: &str) -> Result<Saved, String> {
        let mut json = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut json).map_err(|e| {
            let inner = e.inner().to_string();
            // serde_json ends its words with the place in the text; the path says more.
            let inner = inner.split(" at line ").next().unwrap_or_default().to_string();
            match e.path().to_string().as_str() {
                "." => inner,
                path => format!("{path}: {inner}"),
            }
        })
    }

    /// The report of manifests read now, as a saved one would hold it.
    fn of(report: &Report) -> Saved {
        let value = serde_json::to_value(report).expect("a report serializes");
        serde_json::from_value(value).expect("a report reads back as a saved one")
    }
}

impl Finding {
    fn of(finding: &explain::FindingReport) -> Finding {
        let value = serde_json::to_value(finding).expect("a finding serializes");
        serde_json::from_value(value).expect("a finding reads back")
    }

    /// What a finding is about: its reason and the items it names. The message is not
    /// part of it: a finding that words itself otherwise is the same finding.
    fn key(&self) -> String {
        // The note that no output has a className is about the run, not the outputs it
        // names (the first of them, which a binding added elsewhere changes): one per run.
        if self.reason == "IgnoredBySpire" && self.severity == FindingSeverity::Info {
            return self.reason.clone();
        }
        let refs: Vec<String> = self
            .refs
            .iter()
            .map(|r| {
                format!(
                    "{}\0{}\0{}\0{}\0{}",
                    r.api_version,
                    r.kind,
                    r.namespace.as_deref().unwrap_or_default(),
                    r.name,
                    r.path.as_deref().unwrap_or_default()
                )
            })
            .collect();
        format!("{}\0{}", self.reason, refs.join("\0\0"))
    }
}

/// What a diff found.
#[derive(Serialize, Debug, Default)]
pub struct Diff {
    pub identities: Vec<IdentityChange>,
    pub workloads: Vec<WorkloadChange>,
    pub findings: FindingChanges,
}

#[derive(Serialize, Debug)]
pub struct IdentityChange {
    pub change: &'static str,
    pub namespace: Option<String>,
    pub name: String,
    pub before: Option<Identity>,
    pub after: Option<Identity>,
}

/// What a diff compares of a binding.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: Option<String>,
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: Option<String>,
    pub class_name: Option<String>,
    /// What its ClusterSPIFFEID makes entries for (its scope): pods, and namespaces (null:
    /// all of them).
    pub pod_selector: Option<LabelSelector>,
    pub namespace_selector: Option<LabelSelector>,
    pub selectors: Vec<String>,
    pub ready: bool,
    pub reason: String,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadChange {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub path: Option<String>,
    pub gains: Vec<String>,
    pub loses: Vec<String>,
}

#[derive(Serialize, Debug, Default)]
pub struct FindingChanges {
    pub new: Vec<Finding>,
    pub resolved: Vec<Finding>,
}

impl Identity {
    /// Whether this identity reaches pods `before` did not give it to: it is new, renders
    /// where it did not, names another SPIFFE ID or class, drops a selector (fewer selectors
    /// match more pods), or selects pods or namespaces it did not (a `selectorScope` of
    /// `Binding` made `Pool`).
    fn widens(&self, before: Option<&Identity>) -> bool {
        let Some(id) = &self.spiffe_id else { return false };
        let Some(before) = before.filter(|b| b.spiffe_id.is_some()) else { return true };
        before.spiffe_id.as_ref() != Some(id)
            || before.class_name != self.class_name
            || before.selectors.iter().any(|s| !self.selectors.contains(s))
            || selects_more(before.pod_selector.as_ref(), self.pod_selector.as_ref())
            || selects_more(before.namespace_selector.as_ref(), self.namespace_selector.as_ref())
    }
}

/// Whether `after` selects what `before` did not: a label `before` asks for that `after`
/// does not (none selects everything).
fn selects_more(before: Option<&LabelSelector>, after: Option<&LabelSelector>) -> bool {
    let Some(before) = before else { return false };
    let empty = BTreeMap::new();
    let after = after.map_or(&empty, |a| &a.match_labels);
    before.match_labels.iter().any(|(k, v)| after.get(k) != Some(v))
}

impl Diff {
    /// Whether the change grants: a workload gains an SVID, or an identity is added or
    /// widened.
    pub fn grants(&self) -> bool {
        self.workloads.iter().any(|w| !w.gains.is_empty())
            || self.identities.iter().any(IdentityChange::grants)
    }
}

impl IdentityChange {
    fn grants(&self) -> bool {
        self.after.as_ref().is_some_and(|a| a.widens(self.before.as_ref()))
    }
}

type Key = (Option<String>, String);

fn identities(report: &Saved) -> BTreeMap<Key, Identity> {
    report
        .bindings
        .iter()
        .map(|b| {
            let mut selectors = b.selectors.clone();
            selectors.sort();
            let identity = Identity {
                spiffe_id: b.spiffe_id.clone(),
                cluster_spiffe_id: b.cluster_spiffe_id.clone(),
                class_name: b.class_name.clone(),
                pod_selector: b.pod_selector.clone(),
                namespace_selector: b.namespace_selector.clone(),
                selectors,
                ready: b.ready,
                reason: b.reason.clone(),
            };
            ((b.namespace.clone(), b.name.clone()), identity)
        })
        .collect()
}

/// A pod template: (namespace, kind, name, path, apiVersion), the order the diff lists them.
type Template = (Option<String>, String, String, Option<String>, String);

fn reach(report: &Saved) -> BTreeMap<Template, BTreeSet<String>> {
    report
        .reach
        .iter()
        .map(|r| {
            let template =
                (r.namespace.clone(), r.kind.clone(), r.name.clone(), r.path.clone(), r.api_version.clone());
            (template, r.spiffe_ids.iter().cloned().collect())
        })
        .collect()
}

/// Findings by what they are about ([`Finding::key`]).
fn findings(report: &Saved) -> BTreeMap<String, &Finding> {
    report.findings.iter().map(|f| (f.key(), f)).collect()
}

/// The changes from `before` to `after`.
fn compare(before: &Saved, after: &Saved) -> Diff {
    let (old, new) = (identities(before), identities(after));
    let keys: BTreeSet<&Key> = old.keys().chain(new.keys()).collect();
    let identities = keys
        .into_iter()
        .filter_map(|key| {
            let (b, a) = (old.get(key), new.get(key));
            let change = match (b, a) {
                (None, Some(_)) => "added",
                (Some(_), None) => "removed",
                (Some(b), Some(a)) if b != a => "changed",
                _ => return None,
            };
            Some(IdentityChange {
                change,
                namespace: key.0.clone(),
                name: key.1.clone(),
                before: b.cloned(),
                after: a.cloned(),
            })
        })
        .collect();
    let (old, new) = (reach(before), reach(after));
    let templates: BTreeSet<&Template> = old.keys().chain(new.keys()).collect();
    let empty = BTreeSet::new();
    let workloads = templates
        .into_iter()
        .filter_map(|t| {
            let (b, a) = (old.get(t).unwrap_or(&empty), new.get(t).unwrap_or(&empty));
            let gains: Vec<String> = a.difference(b).cloned().collect();
            let loses: Vec<String> = b.difference(a).cloned().collect();
            (!gains.is_empty() || !loses.is_empty()).then(|| WorkloadChange {
                api_version: t.4.clone(),
                kind: t.1.clone(),
                namespace: t.0.clone(),
                name: t.2.clone(),
                path: t.3.clone(),
                gains,
                loses,
            })
        })
        .collect();
    let (old, new) = (findings(before), findings(after));
    let findings = FindingChanges {
        new: new.iter().filter(|(k, _)| !old.contains_key(*k)).map(|(_, f)| (*f).clone()).collect(),
        resolved: old.iter().filter(|(k, _)| !new.contains_key(*k)).map(|(_, f)| (*f).clone()).collect(),
    };
    Diff { identities, workloads, findings }
}

fn qualified(namespace: &Option<String>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

fn workload_name(w: &WorkloadChange) -> String {
    let name = qualified(&w.namespace, &w.name);
    match &w.path {
        Some(path) => format!("{} {name} ({path})", w.kind),
        None => format!("{} {name}", w.kind),
    }
}

fn verdict(i: &Identity) -> String {
    if i.ready { "Ready".to_string() } else { format!("not ready: {}", i.reason) }
}

/// A selector's labels as `k=v, k=v`; `none` when there is none.
fn labels(selector: Option<&LabelSelector>, none: &str) -> String {
    match selector {
        None => none.to_string(),
        Some(s) if s.match_labels.is_empty() => none.to_string(),
        Some(s) => s.match_labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "),
    }
}

/// What changed in an identity, as short phrases.
fn what_changed(b: &Identity, a: &Identity) -> Vec<String> {
    let mut out = Vec::new();
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".to_string());
    if b.ready != a.ready || b.reason != a.reason {
        out.push(format!("{} -> {}", verdict(b), verdict(a)));
    }
    if b.spiffe_id != a.spiffe_id {
        out.push(format!("SPIFFE ID {} -> {}", show(&b.spiffe_id), show(&a.spiffe_id)));
    }
    if b.cluster_spiffe_id != a.cluster_spiffe_id {
        out.push(format!("ClusterSPIFFEID {} -> {}", show(&b.cluster_spiffe_id), show(&a.cluster_spiffe_id)));
    }
    if b.class_name != a.class_name {
        out.push(format!("className {} -> {}", show(&b.class_name), show(&a.class_name)));
    }
    // Only between two renders: a failing side has no object, which the verdict says.
    if a.spiffe_id.is_some() && b.spiffe_id.is_some() {
        if b.pod_selector != a.pod_selector {
            let (was, is) = (b.pod_selector.as_ref(), a.pod_selector.as_ref());
            out.push(format!("podSelector {} -> {}", labels(was, "all pods"), labels(is, "all pods")));
        }
        if b.namespace_selector != a.namespace_selector {
            let (was, is) = (b.namespace_selector.as_ref(), a.namespace_selector.as_ref());
            out.push(format!(
                "namespaceSelector {} -> {}",
                labels(was, "all namespaces"),
                labels(is, "all namespaces")
            ));
        }
        for s in a.selectors.iter().filter(|s| !b.selectors.contains(s)) {
            out.push(format!("selector +{s}"));
        }
        for s in b.selectors.iter().filter(|s| !a.selectors.contains(s)) {
            out.push(format!("selector -{s}"));
        }
    }
    out
}

fn identity_line(c: &IdentityChange) -> String {
    match (&c.before, &c.after) {
        (None, Some(a)) | (Some(a), None) => {
            format!("{}, {}", a.spiffe_id.as_deref().unwrap_or("no identity"), verdict(a))
        }
        (Some(b), Some(a)) => what_changed(b, a).join("; "),
        (None, None) => String::new(),
    }
}

fn finding_line(f: &Finding) -> String {
    format!("{} {}: {}", f.severity.word(), f.reason, f.message)
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line: what changed, or that nothing did.
fn summary(diff: &Diff) -> String {
    let by = |change: &str| diff.identities.iter().filter(|c| c.change == change).count();
    let mut parts = Vec::new();
    for change in ["added", "removed", "changed"] {
        let n = by(change);
        if n > 0 {
            parts.push(format!("{} {change}", count(n, "identity", "identities")));
        }
    }
    let gains = diff.workloads.iter().filter(|w| !w.gains.is_empty()).count();
    let loses = diff.workloads.iter().filter(|w| !w.loses.is_empty()).count();
    if gains > 0 {
        parts.push(format!("{} SVIDs", count(gains, "workload gains", "workloads gain")));
    }
    if loses > 0 {
        parts.push(format!("{} SVIDs", count(loses, "workload loses", "workloads lose")));
    }
    let (new, resolved) = (diff.findings.new.len(), diff.findings.resolved.len());
    if new > 0 {
        parts.push(count(new, "new finding", "new findings"));
    }
    if resolved > 0 {
        parts.push(count(resolved, "finding resolved", "findings resolved"));
    }
    if parts.is_empty() { "no identity, reach or finding changes".to_string() } else { parts.join(", ") }
}

/// The diff as text for a terminal.
pub fn text(diff: &Diff) -> String {
    let mut out = format!("{}\n", summary(diff));
    if !diff.identities.is_empty() {
        out.push_str("\nIdentities\n");
        for c in &diff.identities {
            out.push_str(&format!(
                "  {:<8} {}  {}\n",
                c.change,
                qualified(&c.namespace, &c.name),
                identity_line(c)
            ));
        }
    }
    if !diff.workloads.is_empty() {
        out.push_str("\nWorkloads\n");
        for w in &diff.workloads {
            out.push_str(&format!("  {}\n", workload_name(w)));
            for id in &w.gains {
                out.push_str(&format!("    gains  {id}\n"));
            }
            for id in &w.loses {
                out.push_str(&format!("    loses  {id}\n"));
            }
        }
    }
    for (title, list) in
        [("New findings", &diff.findings.new), ("Resolved findings", &diff.findings.resolved)]
    {
        if !list.is_empty() {
            out.push_str(&format!("\n{title}\n"));
            for f in list {
                out.push_str(&format!("  {}\n", finding_line(f)));
            }
        }
    }
    out
}

/// Most characters of the markdown: under GitHub's 65,536-character limit of a comment,
/// with room for what a workflow adds around it.
pub const MARKDOWN_LIMIT: usize = 60_000;

/// Text for markdown outside code spans, one line: what GitHub would read as markup
/// (emphasis, links, headings, code, a table's `|`) escaped with `\`, and `<`, `>`, `&` as
/// entities, since GitHub strips what it takes for HTML (`<release name>`).
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A code span holding `text` as it is, in a table cell: a fence longer than any run of
/// backticks inside, the `|` escaped (GitHub splits cells on it even in code).
fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A row of the markdown: the section it goes in, how much it matters (0 first: what
/// grants), and its text.
struct Row {
    section: usize,
    rank: u8,
    text: String,
}

/// The diff as a pull request comment: a summary line, then tables; at most `limit`
/// characters. When the rows do not all fit, those that grant come first, then the other
/// identity and workload changes, then the findings, and a last line says how many were
/// left out and where the whole diff is.
pub fn markdown(diff: &Diff, limit: usize) -> String {
    let mut rows = Vec::new();
    for c in &diff.identities {
        let text = format!(
            "| {} | {} | {} |\n",
            c.change,
            code(&qualified(&c.namespace, &c.name)),
            md(&identity_line(c))
        );
        rows.push(Row { section: 0, rank: u8::from(!c.grants()), text });
    }
    for w in &diff.workloads {
        let ids = |list: &[String]| list.iter().map(|id| code(id)).collect::<Vec<_>>().join("<br>");
        let text = format!("| {} | {} | {} |\n", md(&workload_name(w)), ids(&w.gains), ids(&w.loses));
        rows.push(Row { section: 1, rank: u8::from(w.gains.is_empty()), text });
    }
    for f in &diff.findings.new {
        let text = format!("- **{}** {}: {}\n", f.severity.word(), md(&f.reason), md(&f.message));
        rows.push(Row { section: 2, rank: 2, text });
    }
    const HEADS: [&str; 3] = [
        "\n| change | binding | identity |\n| --- | --- | --- |\n",
        "\n| workload | gains | loses |\n| --- | --- | --- |\n",
        "\nNew findings:\n\n",
    ];
    let mut out = format!("**Identity changes:** {}\n", md(&summary(diff)));
    // Room for the heads and the line that says what was left out.
    let room = limit
        .saturating_sub(out.chars().count() + HEADS.iter().map(|h| h.chars().count()).sum::<usize>() + 400);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| (rows[i].rank, rows[i].section, i));
    let mut kept = vec![false; rows.len()];
    let mut used = 0;
    for i in order {
        let len = rows[i].text.chars().count();
        if used + len <= room {
            used += len;
            kept[i] = true;
        }
    }
    let mut left = [0; 3];
    for (section, head) in HEADS.iter().enumerate() {
        let mut wrote = false;
        for (row, _) in rows.iter().zip(&kept).filter(|(r, k)| r.section == section && **k) {
            if !wrote {
                out.push_str(head);
                wrote = true;
            }
            out.push_str(&row.text);
        }
        left[section] = rows.iter().zip(&kept).filter(|(r, k)| r.section == section && !**k).count();
    }
    if left.iter().any(|&n| n > 0) {
        let parts: Vec<String> = [
            ("identity change", "identity changes"),
            ("workload", "workloads"),
            ("new finding", "new findings"),
        ]
        .iter()
        .zip(left)
        .filter(|(_, n)| *n > 0)
        .map(|((one, many), n)| count(n, one, many))
        .collect();
        out.push_str(&format!(
            "\n_Left out to stay under GitHub's comment limit: {}. The whole diff: `render-inference-identity diff` with `-o text` or `-o json`._\n",
            parts.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn saved(value: Value) -> Saved {
        Saved::read(&value.to_string()).unwrap()
    }

    fn report(bindings: Value, reach: Value) -> Saved {
        saved(json!({"config": null, "bindings": bindings, "workloads": [], "findings": [], "reach": reach}))
    }

    fn binding(name: &str, selectors: &[&str]) -> Value {
        json!({"namespace": "ns", "name": name, "ready": true, "reason": "Reconciled", "message": "",
               "spiffeID": format!("spiffe://x/{name}"), "clusterSPIFFEID": name, "className": null,
               "podSelector": {"matchLabels": {"app": "a"}}, "namespaceSelector": null,
               "selectors": selectors, "workloads": [], "selectedWithoutIdentity": [], "removes": []})
    }

    #[test]
    fn a_narrowed_selector_is_no_grant_and_a_dropped_one_is() {
        let wide = report(json!([binding("a", &["k8s:ns:ns"])]), json!([]));
        let narrow = report(json!([binding("a", &["k8s:ns:ns", "k8s:sa:x"])]), json!([]));
        let narrowed = compare(&wide, &narrow);
        assert_eq!(narrowed.identities.len(), 1);
        assert!(!narrowed.grants());
        assert!(compare(&narrow, &wide).grants());
        assert!(compare(&wide, &wide).identities.is_empty());
    }

    #[test]
    fn a_scope_made_wider_is_a_change_and_a_grant() {
        let pool = binding("a", &["k8s:ns:ns"]);
        let mut scoped = pool.clone();
        scoped["podSelector"] =
            json!({"matchLabels": {"app": "a", "identity.kleym.sonda.red/variant": "decode"}});
        scoped["namespaceSelector"] = json!({"matchLabels": {"kubernetes.io/metadata.name": "ns"}});
        let (pool, scoped) = (report(json!([pool]), json!([])), report(json!([scoped]), json!([])));
        let widened = compare(&scoped, &pool);
        assert_eq!(widened.identities.len(), 1, "{}", text(&widened));
        assert!(widened.grants());
        let line = identity_line(&widened.identities[0]);
        assert!(
            line.contains("podSelector app=a, identity.kleym.sonda.red/variant=decode -> app=a"),
            "{line}"
        );
        assert!(
            line.contains("namespaceSelector kubernetes.io/metadata.name=ns -> all namespaces"),
            "{line}"
        );
        let narrowed = compare(&pool, &scoped);
        assert_eq!(narrowed.identities.len(), 1);
        assert!(!narrowed.grants());
    }

    #[test]
    fn reach_changes_are_gains_and_losses_per_template() {
        let template = |ids: &[&str]| {
            json!([{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ns", "name": "d",
                    "path": "spec.template", "spiffeIDs": ids}])
        };
        let before = report(json!([]), template(&["spiffe://x/a"]));
        let after = report(json!([]), template(&["spiffe://x/b"]));
        let diff = compare(&before, &after);
        assert_eq!(diff.workloads[0].gains, ["spiffe://x/b"]);
        assert_eq!(diff.workloads[0].loses, ["spiffe://x/a"]);
        assert!(diff.grants());
        assert!(!compare(&after, &report(json!([]), json!([]))).grants());
    }

    #[test]
    fn a_saved_report_is_told_from_a_json_manifest() {
        assert!(is_saved_report(r#"{"bindings": [], "findings": []}"#));
        assert!(!is_saved_report(r#"{"apiVersion": "v1", "kind": "List", "bindings": []}"#));
        assert!(!is_saved_report("kind: A"));
    }

    #[test]
    fn a_saved_report_is_read_strictly_naming_the_field() {
        let read = |text: &str| Saved::read(text).unwrap_err();
        let empty = r#""config": null, "workloads": [], "findings": [], "reach": []"#;
        assert_eq!(read(r#"{"bindings": [], "findings": []}"#), "missing field `config`");
        let unknown = read(&format!(r#"{{"bindings": [{{"foo": 1}}], {empty}}}"#));
        assert!(unknown.starts_with("bindings[0].foo: unknown field `foo`"), "{unknown}");
        let mut b = binding("a", &[]);
        b["ready"] = json!("yes");
        let wrong = read(&format!(r#"{{"bindings": [{b}], {empty}}}"#));
        assert!(
            wrong.starts_with("bindings[0].ready: invalid type: string \"yes\", expected a boolean"),
            "{wrong}"
        );
        let mut b = binding("a", &[]);
        b["selectors"] = json!(42);
        assert!(
            read(&format!(r#"{{"bindings": [{b}], {empty}}}"#))
                .starts_with("bindings[0].selectors: invalid type")
        );
        let reach =
            r#"[{"apiVersion": "v1", "kind": "Pod", "namespace": "ns", "name": "p", "spiffeIDs": "zz"}]"#;
        let ids = read(&format!(
            r#"{{"bindings": [], "config": null, "workloads": [], "findings": [], "reach": {reach}}}"#
        ));
        assert!(ids.starts_with("reach[0].spiffeIDs: invalid type"), "{ids}");
        let mut b = binding("a", &[]);
        b.as_object_mut().unwrap().remove("namespace");
        let missing = read(&format!(r#"{{"bindings": [{b}], {empty}}}"#));
        assert!(missing.starts_with("bindings[0]: missing field `namespace`"), "{missing}");
        let finding = r#"[{"severity": "bad", "reason": "X", "message": "", "refs": []}]"#;
        let severity = read(&format!(
            r#"{{"bindings": [], "config": null, "workloads": [], "reach": [], "findings": {finding}}}"#
        ));
        assert!(severity.starts_with("findings[0].severity: unknown variant `bad`"), "{severity}");
    }

    #[test]
    fn every_report_explain_writes_reads_back_as_a_saved_one() {
        // What `Saved::of` expects of every live report, held on the goldens' reports.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut read = 0;
        for case in std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()) {
            let file = case.join("expected.json");
            if case.file_name().unwrap().to_string_lossy().starts_with("explain-") && file.is_file() {
                let text = std::fs::read_to_string(&file).unwrap();
                assert!(is_saved_report(&text), "{file:?}");
                Saved::read(&text).unwrap_or_else(|e| panic!("{file:?}: {e}"));
                read += 1;
            }
        }
        assert!(read >= 10, "{read} reports");
    }

    #[test]
    fn markdown_escapes_what_github_would_take_for_markup() {
        assert_eq!(
            md("<release namespace>-<name> & *x* a|b\nc"),
            "&lt;release namespace&gt;-&lt;name&gt; &amp; \\*x\\* a\\|b c"
        );
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
    }

    #[test]
    fn markdown_stays_under_the_limit_keeping_what_grants() {
        let many: Vec<Value> = (0..300).map(|i| binding(&format!("b{i:03}"), &["k8s:ns:ns"])).collect();
        let mut changed = binding("b000", &["k8s:ns:ns"]);
        changed["spiffeID"] = json!("spiffe://x/other");
        let before = report(json!([binding("z", &[]), changed]), json!([]));
        let diff = compare(&before, &report(json!(many), json!([])));
        let whole = markdown(&diff, usize::MAX);
        assert!(!whole.contains("Left out"), "everything fits");
        let limit = 4_000;
        let cut = markdown(&diff, limit);
        assert!(cut.chars().count() <= limit, "{}", cut.chars().count());
        assert!(
            cut.starts_with(
                "**Identity changes:** 299 identities added, 1 identity removed, 1 identity changed\n"
            ),
            "{cut}"
        );
        // What grants comes first: added and changed identities; the removal is left out.
        assert!(cut.contains("| added | `ns/b001` |"), "{cut}");
        assert!(!cut.contains("| removed |"), "{cut}");
        assert!(cut.contains("Left out to stay under GitHub's comment limit: "), "{cut}");
        assert!(cut.contains("1 identity change") || cut.contains("identity changes"), "{cut}");
        // Far more than a comment holds, at the real limit: under GitHub's 65,536 characters.
        let many: Vec<Value> =
            (0..2_000).map(|i| binding(&format!("binding-{i:05}"), &["k8s:ns:ns"])).collect();
        let diff = compare(&report(json!([]), json!([])), &report(json!(many), json!([])));
        let text = markdown(&diff, MARKDOWN_LIMIT);
        assert!(markdown(&diff, usize::MAX).chars().count() > 65_536);
        assert!(text.chars().count() <= 65_536 && text.contains("Left out"), "{}", text.chars().count());
    }
}
