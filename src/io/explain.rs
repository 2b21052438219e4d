//! `explain`: the view a person reads. It reads what `render` reads (files, folders, `-`)
//! with the same configuration, writes nothing, and prints per binding its verdict, SPIFFE
//! ID, selectors, ClusterSPIFFEID and the pod templates it reaches, then the findings, each
//! under its name: as aligned text, or as a stable JSON document for automation.

use super::render::{self, Request};
use super::{RunOutput, error_output};
use crate::api::binding::InferenceIdentityBindingStatus;
use crate::config::{FailurePolicy, WorkloadPolicy};
use crate::reconcile::Outcome;
use crate::reconcile::findings::{Kind, Ref};
use crate::reconcile::item::Item;
use serde::Serialize;
use serde_json::Value;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Explains the manifests of a request.
pub fn run(request: &Request, format: Format) -> RunOutput {
    let explained = render::load(request).and_then(|mut loaded| {
        let outcome = loaded.reconcile(request)?;
        let mut report = report(&outcome, loaded.config.workload_policy);
        report.config = loaded.config_source.take();
        Ok((report, loaded.config.failure_policy))
    });
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
    pub findings: Vec<FindingReport>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct BindingReport {
    pub namespace: Option<String>,
    pub name: String,
    pub ready: bool,
    pub reason: String,
    pub message: String,
    #[serde(rename = "spiffeID")]
    pub spiffe_id: Option<String>,
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: Option<String>,
    pub selectors: Vec<String>,
    pub workloads: Vec<WorkloadRef>,
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

#[derive(Serialize, Debug, Clone)]
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
    kind: Kind,
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

fn report(outcome: &Outcome, policy: WorkloadPolicy) -> Report {
    let bindings = outcome
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Binding(position, value, status) => Some(binding(*position, value, status, outcome)),
            _ => None,
        })
        .collect();
    let findings = outcome
        .findings
        .iter()
        .map(|f| FindingReport {
            kind: f.kind,
            severity: super::severity_word(f.severity(policy)),
            reason: f.kind.as_str(),
            message: f.message.clone(),
            refs: std::iter::once(&f.about).chain(&f.also).map(WorkloadRef::from).collect(),
        })
        .collect();
    Report { config: None, bindings, findings }
}

fn binding(
    position: usize,
    value: &Value,
    status: &InferenceIdentityBindingStatus,
    outcome: &Outcome,
) -> BindingReport {
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str).map(str::to_string);
    let ready = status.conditions.iter().find(|c| c.type_ == "Ready");
    let rendered = status.rendered_cluster_spiffeid.as_ref();
    BindingReport {
        namespace: text("/metadata/namespace"),
        name: text("/metadata/name").unwrap_or_default(),
        ready: ready.is_some_and(|c| c.status == "True"),
        reason: ready.map(|c| c.reason.to_string()).unwrap_or_default(),
        message: ready.map(|c| c.message.to_string()).unwrap_or_default(),
        spiffe_id: rendered.map(|r| r.spiffe_id.clone()),
        cluster_spiffe_id: rendered.map(|r| r.name.clone()),
        selectors: status.rendered_selectors.first().map(|s| s.selectors.clone()).unwrap_or_default(),
        workloads: outcome
            .coverage
            .reached
            .get(&position)
            .into_iter()
            .flatten()
            .filter_map(|&(item, template)| workload_ref(outcome, item, template))
            .collect(),
        removes: outcome
            .lost
            .get(&position)
            .into_iter()
            .flatten()
            .map(|l| Removed { cluster_spiffe_id: l.output.clone(), spiffe_id: l.spiffe_id.clone() })
            .collect(),
    }
}

/// The reference of the `template`-th pod template of the input item at `item`.
fn workload_ref(outcome: &Outcome, item: usize, template: usize) -> Option<WorkloadRef> {
    let input = outcome.items.iter().find_map(|i| match i {
        Item::Input(position, input) if *position == item => Some(input),
        _ => None,
    })?;
    let workload = input.workload()?;
    let path = workload.templates().get(template)?.path().to_string();
    Some(WorkloadRef {
        api_version: workload.api_version().to_string(),
        kind: workload.kind().to_string(),
        namespace: workload.namespace().map(str::to_string),
        name: workload.name().to_string(),
        path: Some(path).filter(|p| !p.is_empty()),
    })
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
        } else {
            field(&mut out, "reaches", &["nothing: it renders no identity".to_string()]);
        }
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
