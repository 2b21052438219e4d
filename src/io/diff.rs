//! `diff BASE HEAD`: what a change does to identities before it merges. Each side is read
//! as `explain` reads it (a file, a folder or `-`, with the same configuration) or is a
//! saved `explain -o json` report; both become the report's JSON document, and the diff
//! compares those: identities per binding, the SPIFFE IDs each pod template gets (the
//! report's `reach`), and findings. Text, markdown (a pull request comment) or JSON.

use super::annotations;
use super::explain::{self, Report};
use super::render::Request;
use super::{RunOutput, error_output};
use crate::config::FailurePolicy;
use serde::Serialize;
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
        Output::Markdown => markdown(&diff),
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
            let new: BTreeSet<String> = diff.findings.new.iter().map(finding_key).collect();
            let fresh: Vec<_> = report
                .findings
                .iter()
                .filter(|f| {
                    new.contains(&finding_key(&serde_json::to_value(f).expect("a finding serializes")))
                })
                .collect();
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
            if output == Output::Sarif { annotations::sarif(&found) } else { annotations::github(&found) }
        }
    };
    RunOutput { stdout, stderr: String::new(), exit_code: if differs { DIFFERS } else { 0 } }
}

/// One side as the report's JSON document: a saved report as it is, else the report of
/// the manifests there, which is also given (it knows the line of each item).
fn side(path: &Path, request: &Request) -> Result<(Value, Option<(Report, FailurePolicy)>), String> {
    let name = super::files::quote(path);
    let text = if path.as_os_str() == "-" {
        request.stdin.clone()
    } else if path.is_file() {
        Some(super::files::read_named(path, &mut super::files::Budget::default())?)
    } else {
        None
    };
    if let Some(report) = text.as_deref().and_then(saved_report) {
        let report = check_report(report).map_err(|e| format!("{name}: a saved explain report, but {e}"))?;
        return Ok((report, None));
    }
    let side = Request {
        paths: vec![path.to_path_buf()],
        config_file: request.config_file.clone(),
        overrides: request.overrides.clone(),
        env: request.env.clone(),
        stdin: request.stdin.clone(),
    };
    let (report, policy) = explain::build_with_policy(&side).map_err(|e| format!("{name}: {e}"))?;
    Ok((serde_json::to_value(&report).expect("a report serializes"), Some((report, policy))))
}

/// The text as a saved `explain -o json` report: a JSON object with `bindings` and no
/// `apiVersion` (a manifest in JSON has one).
fn saved_report(text: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(text).ok()?;
    (value.get("bindings").is_some() && value.get("apiVersion").is_none()).then_some(value)
}

fn check_report(report: Value) -> Result<Value, String> {
    for key in ["bindings", "findings", "reach"] {
        if !report.get(key).is_some_and(Value::is_array) {
            return Err(format!(
                "it has no `{key}` list: save it again with `explain -o json` of this version"
            ));
        }
    }
    Ok(report)
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
pub struct Identity {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: Option<String>,
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: Option<String>,
    #[serde(rename = "className")]
    pub class_name: Option<String>,
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
    pub new: Vec<Value>,
    pub resolved: Vec<Value>,
}

impl Identity {
    /// Whether this identity reaches pods `before` did not give it to: it is new, renders
    /// where it did not, names another SPIFFE ID or class, or drops a selector (fewer
    /// selectors match more pods).
    fn widens(&self, before: Option<&Identity>) -> bool {
        let Some(id) = &self.spiffe_id else { return false };
        let Some(before) = before.filter(|b| b.spiffe_id.is_some()) else { return true };
        before.spiffe_id.as_ref() != Some(id)
            || before.class_name != self.class_name
            || before.selectors.iter().any(|s| !self.selectors.contains(s))
    }
}

impl Diff {
    /// Whether the change grants: a workload gains an SVID, or an identity is added or
    /// widened.
    pub fn grants(&self) -> bool {
        self.workloads.iter().any(|w| !w.gains.is_empty())
            || self.identities.iter().any(|c| c.after.as_ref().is_some_and(|a| a.widens(c.before.as_ref())))
    }
}

type Key = (Option<String>, String);

fn identities(report: &Value) -> BTreeMap<Key, Identity> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let list = report["bindings"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|b| {
            let mut selectors: Vec<String> = b["selectors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect();
            selectors.sort();
            let identity = Identity {
                spiffe_id: text(b, "spiffeID"),
                cluster_spiffe_id: text(b, "clusterSPIFFEID"),
                class_name: text(b, "className"),
                selectors,
                ready: b["ready"].as_bool().unwrap_or(false),
                reason: text(b, "reason").unwrap_or_default(),
            };
            ((text(b, "namespace"), text(b, "name").unwrap_or_default()), identity)
        })
        .collect()
}

/// A pod template: (namespace, kind, name, path, apiVersion), the order the diff lists them.
type Template = (Option<String>, String, String, Option<String>, String);

fn reach(report: &Value) -> BTreeMap<Template, BTreeSet<String>> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let list = report["reach"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|r| {
            let template = (
                text(r, "namespace"),
                text(r, "kind").unwrap_or_default(),
                text(r, "name").unwrap_or_default(),
                text(r, "path"),
                text(r, "apiVersion").unwrap_or_default(),
            );
            let ids = r["spiffeIDs"].as_array().into_iter().flatten();
            (template, ids.filter_map(|s| s.as_str().map(str::to_string)).collect())
        })
        .collect()
}

/// Findings by what they are about: their reason and the items they name. The message is
/// not part of it: a finding that words itself otherwise is the same finding.
fn findings(report: &Value) -> BTreeMap<String, Value> {
    let list = report["findings"].as_array().cloned().unwrap_or_default();
    list.into_iter().map(|f| (finding_key(&f), f)).collect()
}

fn finding_key(finding: &Value) -> String {
    // The note that no output has a className is about the run, not the outputs it names
    // (the first of them, which a binding added elsewhere changes): one per run.
    if finding["reason"] == "IgnoredBySpire" && finding["severity"] == "info" {
        return format!("{}", finding["reason"]);
    }
    format!("{}\0{}", finding["reason"], finding["refs"])
}

/// The changes from `before` to `after`.
pub fn compare(before: &Value, after: &Value) -> Diff {
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
        new: new.iter().filter(|(k, _)| !old.contains_key(*k)).map(|(_, f)| f.clone()).collect(),
        resolved: old.iter().filter(|(k, _)| !new.contains_key(*k)).map(|(_, f)| f.clone()).collect(),
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
    let added: Vec<&String> = a.selectors.iter().filter(|s| !b.selectors.contains(s)).collect();
    let removed: Vec<&String> = b.selectors.iter().filter(|s| !a.selectors.contains(s)).collect();
    if a.spiffe_id.is_some() && b.spiffe_id.is_some() {
        for s in added {
            out.push(format!("selector +{s}"));
        }
        for s in removed {
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

fn finding_line(f: &Value) -> String {
    format!(
        "{} {}: {}",
        f["severity"].as_str().unwrap_or_default(),
        f["reason"].as_str().unwrap_or_default(),
        f["message"].as_str().unwrap_or_default()
    )
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

/// A table cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The diff as a pull request comment: a summary line, then tables.
pub fn markdown(diff: &Diff) -> String {
    let mut out = format!("**Identity changes:** {}\n", summary(diff));
    if !diff.identities.is_empty() {
        out.push_str("\n| change | binding | identity |\n| --- | --- | --- |\n");
        for c in &diff.identities {
            out.push_str(&format!(
                "| {} | `{}` | {} |\n",
                c.change,
                cell(&qualified(&c.namespace, &c.name)),
                cell(&identity_line(c))
            ));
        }
    }
    if !diff.workloads.is_empty() {
        out.push_str("\n| workload | gains | loses |\n| --- | --- | --- |\n");
        for w in &diff.workloads {
            let ids = |list: &[String]| {
                list.iter().map(|id| format!("`{}`", cell(id))).collect::<Vec<_>>().join("<br>")
            };
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                cell(&workload_name(w)),
                ids(&w.gains),
                ids(&w.loses)
            ));
        }
    }
    if !diff.findings.new.is_empty() {
        out.push_str("\nNew findings:\n\n");
        for f in &diff.findings.new {
            out.push_str(&format!(
                "- **{}** {}: {}\n",
                f["severity"].as_str().unwrap_or_default(),
                f["reason"].as_str().unwrap_or_default(),
                cell(f["message"].as_str().unwrap_or_default())
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(bindings: Value, reach: Value) -> Value {
        json!({"config": null, "bindings": bindings, "findings": [], "reach": reach})
    }

    fn binding(name: &str, selectors: &[&str]) -> Value {
        json!({"namespace": "ns", "name": name, "ready": true, "reason": "Reconciled",
               "spiffeID": format!("spiffe://x/{name}"), "clusterSPIFFEID": name, "className": null,
               "selectors": selectors})
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
        assert!(saved_report(r#"{"bindings": [], "findings": []}"#).is_some());
        assert!(saved_report(r#"{"apiVersion": "v1", "kind": "List", "bindings": []}"#).is_none());
        assert!(saved_report("kind: A").is_none());
        assert!(check_report(json!({"bindings": [], "findings": []})).unwrap_err().contains("`reach`"));
    }

    #[test]
    fn table_cells_stay_one_line() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
