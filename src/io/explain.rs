//! `explain`: the view a person reads. It reads what `render` reads (files, folders, `-`)
//! with the same configuration, writes nothing, and prints per binding its verdict, SPIFFE
//! ID, selectors, ClusterSPIFFEID and the pod templates it reaches or selects without an
//! SVID, then each pod template as SPIRE will treat it (reconcile::spire), then the findings,
//! each under its name: as aligned text, or as a stable JSON document for automation.

use super::annotations;
use super::pipeline;
use super::pipeline::Mode as _;
use super::render::{Files, Request};
use super::{RunOutput, error_output, wording};
use crate::api::binding::InferenceIdentityBindingStatus;
use crate::api::cluster_spiffe_id::ClusterSpiffeId;
use crate::config::FailurePolicy;
use crate::reconcile::Outcome;
use crate::reconcile::coverage::selector::Answer;
use crate::reconcile::findings::{Kind, Ref};
use crate::reconcile::item::Item;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    /// SARIF 2.1.0, for code scanning ([`annotations`]).
    Sarif,
    /// GitHub Actions workflow commands, one per finding ([`annotations`]).
    Github,
}

/// The report of a request's manifests and the failure policy they run under, or why
/// there is none. Without a trust domain no binding can render, and `render` fails: so
/// does the report.
pub fn build_with_policy(request: &Request) -> Result<(Report, FailurePolicy), String> {
    let mut files = Files::new(request);
    let (outcome, config) = pipeline::reconcile(&mut files, &request.env).map_err(|stop| stop.message)?;
    if outcome.trust_domain_missing {
        return Err(wording::trust_domain_missing(Files::TRUST_DOMAIN_HINT));
    }
    let mut report = report(&outcome);
    report.config = files.config_source.take();
    for b in &mut report.bindings {
        b.at = files.location(b.item).map(At::from);
    }
    for f in &mut report.findings {
        f.at = files.location(f.item).map(At::from);
    }
    Ok((report, config.failure_policy))
}

/// Explains the manifests of a request.
pub fn run(request: &Request, format: Format) -> RunOutput {
    let explained = build_with_policy(request);
    match explained {
        Err(message) => error_output(&message),
        Ok((report, failure_policy)) => {
            // As in every mode: under failurePolicy: Fail a failing binding fails the run, and
            // under workloadPolicy: Fail so does a warning finding.
            // The input explain reads is what gets applied: a stale output in it ships an
            // identity no binding renders any more, a failure of the same weight.
            let failing = report.bindings.iter().any(|b| !b.ready) || stale(&report) > 0;
            let exit_code = i32::from(
                report.findings.iter().any(|f| f.severity == "error")
                    || (failing && failure_policy == FailurePolicy::Fail),
            );
            let stdout = match format {
                Format::Text => text(&report),
                Format::Json => {
                    let mut json = serde_json::to_string_pretty(&report).expect("a report serializes");
                    json.push('\n');
                    json
                }
                Format::Sarif => annotations::sarif(&annotations::of(&report, failure_policy)),
                Format::Github => annotations::github(&annotations::of(&report, failure_policy)),
            };
            RunOutput { stdout, stderr: String::new(), exit_code }
        }
    }
}

/// The stable document `-o json` prints.
#[derive(Serialize, Debug)]
pub struct Report {
    /// The config file used (`--config`, or a Kptfile's `configPath` with the Kptfile),
    /// `configMap of KPTFILE`, or null when flags and variables alone set the run.
    pub config: Option<String>,
    pub bindings: Vec<BindingReport>,
    /// Every pod template of the input with a namespace: what SPIRE gives its pods.
    pub workloads: Vec<HeldReport>,
    pub findings: Vec<FindingReport>,
    /// Every pod template of the input that gets a SPIFFE ID, with the IDs it gets: what
    /// `diff` compares, from a saved report too.
    pub reach: Vec<Reach>,
}

/// A pod template and the SPIFFE IDs (SVIDs) its pods get.
#[derive(Serialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub struct Reach {
    #[serde(flatten)]
    pub workload: WorkloadRef,
    #[serde(rename = "spiffeIDs")]
    pub spiffe_ids: Vec<String>,
}

/// Where an item starts: its file (`None` for standard input), its name's bytes as they
/// are, and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub file: Option<PathBuf>,
    pub line: usize,
}

impl From<(Option<PathBuf>, usize)> for At {
    fn from((file, line): (Option<PathBuf>, usize)) -> Self {
        At { file, line }
    }
}

/// A label selector of a rendered ClusterSPIFFEID (`matchLabels` is all it uses).
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
}

/// One pod template, as SPIRE Controller Manager will treat its pods.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct HeldReport {
    #[serde(flatten)]
    pub workload: WorkloadRef,
    /// The SPIFFE IDs its pods hold, in the manager's order.
    pub svids: Vec<String>,
    /// ClusterSPIFFEIDs whose entries for its pods never attest.
    pub entries_without_identity: Vec<String>,
    /// Fallback ClusterSPIFFEIDs the manager skips for its pods.
    pub fallbacks_skipped: Vec<String>,
    /// The `svids` that hold template actions only the cluster settles, with those actions.
    #[serde(rename = "svidsWithUnknowns")]
    pub svids_with_unknowns: Vec<UnknownSvid>,
    /// ClusterSPIFFEIDs that select its pods but whose entry the manager cannot make, and why.
    pub entries_not_made: Vec<NotMade>,
    /// For the text: each SVID with what of it is known only in the cluster.
    #[serde(skip)]
    svid_lines: Vec<String>,
    /// For the text: SVIDs that hang on what the input does not say.
    #[serde(skip)]
    maybe: Vec<String>,
    /// For the text: the namespace the manager ignores, when it does.
    #[serde(skip)]
    ignored: Option<String>,
}

/// An SVID whose SPIFFE ID is known only in the cluster in part.
#[derive(Serialize, Debug)]
pub struct UnknownSvid {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    /// The actions kept as written (`{{ .NodeMeta.Name }}`).
    pub unknown: Vec<String>,
}

/// An entry the manager cannot make for a pod template's pods.
#[derive(Serialize, Debug)]
pub struct NotMade {
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: String,
    pub reason: String,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct BindingReport {
    /// Its position in the input.
    #[serde(skip)]
    pub item: usize,
    #[serde(skip)]
    pub at: Option<At>,
    pub namespace: Option<String>,
    pub name: String,
    pub ready: bool,
    pub reason: String,
    pub message: String,
    #[serde(rename = "spiffeID")]
    pub spiffe_id: Option<String>,
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: Option<String>,
    /// `spec.className` of its ClusterSPIFFEID.
    pub class_name: Option<String>,
    /// What its ClusterSPIFFEID makes entries for: the pods its `podSelector` selects, in the
    /// namespaces its `namespaceSelector` selects (all when null): its scope.
    pub pod_selector: Option<LabelSelector>,
    pub namespace_selector: Option<LabelSelector>,
    pub selectors: Vec<String>,
    /// The pod templates that get its SVID.
    pub workloads: Vec<WorkloadRef>,
    /// The pod templates its ClusterSPIFFEID selects that never get its SVID.
    pub selected_without_identity: Vec<WorkloadRef>,
    /// For a failing binding, the managed outputs of the input its failure removes.
    pub removes: Vec<Removed>,
}

#[derive(Serialize, Debug)]
pub struct Removed {
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: String,
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
}

#[derive(Serialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadRef {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct FindingReport {
    #[serde(skip)]
    pub kind: Kind,
    /// The position of the item it is about.
    #[serde(skip)]
    pub item: usize,
    #[serde(skip)]
    pub at: Option<At>,
    pub severity: &'static str,
    pub reason: &'static str,
    pub message: String,
    pub refs: Vec<WorkloadRef>,
}

impl From<&Ref> for WorkloadRef {
    fn from(r: &Ref) -> Self {
        WorkloadRef {
            api_version: r.api_version.clone(),
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            path: r.path.clone().filter(|p| !p.is_empty()),
        }
    }
}

fn report(outcome: &Outcome) -> Report {
    let places = Places::of(outcome);
    let rendered: HashMap<&str, &ClusterSpiffeId> = outcome
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Rendered(object, _) => Some((object.metadata.name.as_str(), &**object)),
            _ => None,
        })
        .collect();
    let bindings = outcome
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Binding(position, value, status) => {
                Some(binding(*position, value, status, &rendered, outcome, &places))
            }
            _ => None,
        })
        .collect();
    let findings = outcome
        .findings
        .iter()
        .map(|f| FindingReport {
            kind: f.kind,
            item: f.about.item,
            at: None,
            severity: wording::severity(outcome.severity(f)),
            reason: f.kind.as_str(),
            message: f.message.clone(),
            refs: std::iter::once(&f.about).chain(&f.also).map(WorkloadRef::from).collect(),
        })
        .collect();
    let model = &outcome.coverage.spire;
    let workloads: Vec<HeldReport> = model
        .held
        .iter()
        .filter_map(|h| {
            let names = |sources: &mut dyn Iterator<Item = usize>| -> Vec<String> {
                sources.map(|s| model.sources[s].name.clone()).collect()
            };
            Some(HeldReport {
                workload: places.workload(h.item, h.template)?,
                svids: h.svids().map(|e| e.spiffe_id.text.clone()).collect(),
                entries_without_identity: names(&mut h.without_identity()),
                fallbacks_skipped: names(&mut h.skipped.iter().map(|k| k.source)),
                svids_with_unknowns: h
                    .svids()
                    .filter(|e| !e.spiffe_id.is_known())
                    .map(|e| UnknownSvid {
                        spiffe_id: e.spiffe_id.text.clone(),
                        unknown: e.spiffe_id.unknown.clone(),
                    })
                    .collect(),
                entries_not_made: h
                    .failed
                    .iter()
                    .map(|f| NotMade {
                        cluster_spiffe_id: model.sources[f.source].name.clone(),
                        reason: f.why.clone(),
                    })
                    .collect(),
                svid_lines: h.svids().map(|e| svid_line(&e.spiffe_id)).collect(),
                maybe: h
                    .entries
                    .iter()
                    .filter(|e| !e.is_sure())
                    .map(|e| {
                        let mut line = format!(
                            "{} (ClusterSPIFFEID {}",
                            svid_line(&e.spiffe_id),
                            model.sources[e.source].name
                        );
                        if let Some(unsure) = e.unsure {
                            line.push_str(", ");
                            line.push_str(crate::reconcile::spire::findings::unsure_words(unsure));
                        }
                        if e.attests == Answer::Unknown {
                            line.push_str(&format!(", if {} hold in the cluster", e.misses.join(", ")));
                        }
                        line.push(')');
                        line
                    })
                    .collect(),
                ignored: h
                    .ignored_namespace
                    .then(|| "its namespace: the manager's ignoreNamespaces".to_string()),
            })
        })
        .collect();
    let reach = reach(&workloads);
    Report { config: None, reach, bindings, workloads, findings }
}

/// Per pod template of the input, the SPIFFE IDs its pods get (what SPIRE Controller
/// Manager issues them, from every ClusterSPIFFEID of the output), sorted; templates that get
/// none are left out. The one place `diff` learns what reaches what.
fn reach(workloads: &[HeldReport]) -> Vec<Reach> {
    workloads
        .iter()
        .filter(|w| !w.svids.is_empty())
        .map(|w| {
            let mut spiffe_ids = w.svids.clone();
            spiffe_ids.sort();
            spiffe_ids.dedup();
            Reach { workload: w.workload.clone(), spiffe_ids }
        })
        .collect()
}

fn binding(
    position: usize,
    value: &Value,
    status: &InferenceIdentityBindingStatus,
    objects: &HashMap<&str, &ClusterSpiffeId>,
    outcome: &Outcome,
    places: &Places<'_>,
) -> BindingReport {
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str).map(str::to_string);
    let ready = status.conditions.iter().find(|c| c.type_ == "Ready");
    let rendered = status.rendered_cluster_spiffeid.as_ref();
    let object = rendered.and_then(|r| objects.get(r.name.as_str()));
    let selector = |labels: &crate::api::labels::Labels| LabelSelector {
        match_labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    BindingReport {
        item: position,
        at: None,
        namespace: text("/metadata/namespace"),
        name: text("/metadata/name").unwrap_or_default(),
        ready: ready.is_some_and(|c| c.status == "True"),
        reason: ready.map(|c| c.reason.to_string()).unwrap_or_default(),
        message: ready.map(|c| c.message.to_string()).unwrap_or_default(),
        spiffe_id: rendered.map(|r| r.spiffe_id.clone()),
        cluster_spiffe_id: rendered.map(|r| r.name.clone()),
        class_name: rendered.and(status.cluster_spiffeid_class_name.clone()),
        pod_selector: object.map(|o| selector(&o.spec.pod_selector.match_labels)),
        namespace_selector: object
            .and_then(|o| o.spec.namespace_selector.as_ref())
            .map(|n| selector(&n.match_labels)),
        selectors: status.rendered_selectors.first().map(|s| s.selectors.clone()).unwrap_or_default(),
        workloads: places.held_by(outcome, position, true),
        selected_without_identity: places.held_by(outcome, position, false),
        removes: outcome
            .failure_of(position)
            .into_iter()
            .flat_map(|f| &f.removes)
            .map(|l| Removed { cluster_spiffe_id: l.output.clone(), spiffe_id: l.spiffe_id.clone() })
            .collect(),
    }
}

/// A SPIFFE ID, with the parts known only in the cluster said as such.
fn svid_line(id: &crate::reconcile::spire::template::Evaluated) -> String {
    if id.is_known() {
        return id.text.clone();
    }
    format!("{} ({} known only in the cluster)", id.text, id.unknown.join(", "))
}

/// Lookups the report makes for every binding and pod template, built once.
struct Places<'o> {
    /// The input items with pod templates, by position.
    inputs: std::collections::HashMap<usize, &'o crate::reconcile::input::Input>,
    /// By object of the model: the held templates it gives its SVID, and those it selects without.
    by_source: Vec<(Vec<usize>, Vec<usize>)>,
}

impl<'o> Places<'o> {
    fn of(outcome: &'o Outcome) -> Places<'o> {
        let inputs = outcome
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Input(position, input) if input.workload().is_some() => Some((*position, input)),
                _ => None,
            })
            .collect();
        Places { inputs, by_source: outcome.coverage.spire.by_source() }
    }

    /// The pod templates the rendered object of the binding at `position` gives its SVID
    /// to (`attesting`), or selects without one.
    fn held_by(&self, outcome: &Outcome, position: usize, attesting: bool) -> Vec<WorkloadRef> {
        let model = &outcome.coverage.spire;
        let Some(source) = model.rendered(position) else { return Vec::new() };
        let (with, without) = &self.by_source[source];
        let held = if attesting { with } else { without };
        held.iter().filter_map(|&h| self.workload(model.held[h].item, model.held[h].template)).collect()
    }

    /// The reference of the `template`-th pod template of the input item at `item`.
    fn workload(&self, item: usize, template: usize) -> Option<WorkloadRef> {
        let workload = self.inputs.get(&item)?.workload()?;
        let path = workload.templates().get(template)?.path().to_string();
        Some(WorkloadRef {
            api_version: workload.api_version().to_string(),
            kind: workload.kind().to_string(),
            namespace: workload.namespace().map(str::to_string),
            name: workload.name().to_string(),
            path: Some(path).filter(|p| !p.is_empty()),
        })
    }
}

/// The report as text, aligned for a terminal.
fn text(report: &Report) -> String {
    let mut out =
        format!("Config: {}\n", report.config.as_deref().unwrap_or("none (flags and variables only)"));
    let ready = report.bindings.iter().filter(|b| b.ready).count();
    let reaching = report.bindings.iter().filter(|b| !b.workloads.is_empty()).count();
    let stale = match stale(report) {
        0 => String::new(),
        n => format!("; {n} stale output(s) in the input (StaleOutput below)"),
    };
    out.push_str(&format!(
        "Bindings: {}, {ready} ready, {} failing, {reaching} reaching pod templates of the input{stale}\n",
        report.bindings.len(),
        report.bindings.len() - ready
    ));
    for b in &report.bindings {
        let name = match &b.namespace {
            Some(ns) => format!("{ns}/{}", b.name),
            None => b.name.clone(),
        };
        let verdict = if b.ready { "Ready".to_string() } else { format!("not ready: {}", b.reason) };
        out.push_str(&format!("\n{name}  {verdict}\n"));
        if !b.ready {
            field(&mut out, "message", std::slice::from_ref(&b.message));
            let removes: Vec<String> = b
                .removes
                .iter()
                .map(|r| {
                    format!(
                        "ClusterSPIFFEID {} of the input: its pods lose SPIFFE ID {} on the next apply",
                        r.cluster_spiffe_id, r.spiffe_id
                    )
                })
                .collect();
            field(&mut out, "removes", &removes);
        }
        if let (Some(id), Some(output)) = (&b.spiffe_id, &b.cluster_spiffe_id) {
            field(&mut out, "SPIFFE ID", std::slice::from_ref(id));
            field(&mut out, "ClusterSPIFFEID", std::slice::from_ref(output));
            field(&mut out, "selectors", &b.selectors);
            let mut reaches: Vec<String> = b.workloads.iter().map(workload_line).collect();
            if reaches.is_empty() {
                reaches.push("no pod template of the input".to_string());
            }
            field(&mut out, "reaches", &reaches);
            let without: Vec<String> = b.selected_without_identity.iter().map(workload_line).collect();
            field(&mut out, "selects, no SVID", &without);
        } else {
            field(&mut out, "reaches", &["nothing: it renders no identity".to_string()]);
        }
    }
    if !report.workloads.is_empty() {
        out.push_str(&format!(
            "\nPod templates: {}, as SPIRE will give their pods SVIDs\n",
            report.workloads.len()
        ));
    }
    for w in &report.workloads {
        out.push_str(&format!("\n{}\n", workload_line(&w.workload)));
        let svids = if w.svid_lines.is_empty() { vec!["none".to_string()] } else { w.svid_lines.clone() };
        field(&mut out, "SVIDs", &svids);
        field(&mut out, "may also hold", &w.maybe);
        field(&mut out, "ignored", w.ignored.as_slice());
        field(&mut out, "no identity from", &w.entries_without_identity);
        field(&mut out, "fallback skipped", &w.fallbacks_skipped);
        let not_made: Vec<String> =
            w.entries_not_made.iter().map(|n| format!("{}: {}", n.cluster_spiffe_id, n.reason)).collect();
        field(&mut out, "no entry from", &not_made);
    }
    let failing = report.bindings.len() - ready;
    if report.findings.is_empty() {
        out.push_str(&match failing {
            0 => "\nFindings: none\n".to_string(),
            n => format!("\nFindings: none beyond the {n} failing binding(s) above\n"),
        });
        return out;
    }
    out.push_str(&format!("\nFindings: {}\n", report.findings.len()));
    // Under each name, in the order of the findings table.
    let mut reasons: Vec<(Kind, &str)> = report.findings.iter().map(|f| (f.kind, f.reason)).collect();
    reasons.sort();
    reasons.dedup();
    for (_, reason) in reasons {
        out.push_str(&format!("\n  {reason}\n"));
        for f in report.findings.iter().filter(|f| f.reason == reason) {
            let lines = wrap(&f.message, WIDTH - 13);
            for (i, line) in lines.iter().enumerate() {
                let severity = if i == 0 { f.severity } else { "" };
                out.push_str(&format!("    {severity:<8} {line}\n"));
            }
        }
    }
    out
}

/// How many managed outputs of the input are stale.
fn stale(report: &Report) -> usize {
    report.findings.iter().filter(|f| f.kind == Kind::StaleOutput).count()
}

/// The width text lines are wrapped to, for a terminal.
const WIDTH: usize = 100;

/// `  label            value` lines, the label column aligned, long values wrapped.
fn field<T: AsRef<str>>(out: &mut String, label: &str, values: &[T]) {
    let mut first = true;
    for value in values {
        for line in wrap(value.as_ref(), WIDTH - 19) {
            let label = if first { label } else { "" };
            first = false;
            out.push_str(&format!("  {label:<16} {line}\n"));
        }
    }
}

/// `text` cut into lines of at most `width` characters at spaces (a longer word stands
/// alone on its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            // A run of spaces that ends a line is not kept at its end.
            lines.push(std::mem::take(&mut line).trim_end().to_string());
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

fn workload_line(w: &WorkloadRef) -> String {
    let name = match &w.namespace {
        Some(ns) => format!("{ns}/{}", w.name),
        None => w.name.clone(),
    };
    match w.path.as_deref().filter(|p| !p.is_empty()) {
        Some(path) => format!("{} {name}  {path}", w.kind),
        None => format!("{} {name}", w.kind),
    }
}
