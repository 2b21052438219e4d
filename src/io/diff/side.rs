//! One side of a diff: a saved `explain -o json` report, read strictly, or else the report
//! of the manifests there (a file, a folder or `-`), read as `explain` reads them.

use crate::config::FailurePolicy;
use crate::io::explain::{self, Report};
use crate::io::files;
use crate::io::read::parsed::Parsed;
use crate::io::render::{Judge, Request};
use crate::reconcile::unjudged::{Differ, Mix};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// A side's report, and for manifests read now (not a saved report) the failure policy they
/// run under; their report also knows the line of each item.
pub(super) struct Side {
    pub report: Report,
    pub policy: Option<FailurePolicy>,
    /// For a saved report written before a field the gate reads of HEAD (`workloads[].mayHold`,
    /// `workloads[].powers`, `staticEntries`, `federatedTrustDomains`, `unjudged`): it is
    /// read as holding none, which a base may be and a head, whose possible grants a gate
    /// must see, may not.
    pub lacks_head_fields: bool,
    /// For manifests read now: the SPIRE (manager and trust domain) their own config describes.
    pub manager: Option<Judge>,
    /// The objects of the manifests read as lingering that were read with this side's
    /// ([`Request::lingering`]).
    pub dropped: Vec<explain::Dropped>,
    /// With manifests read as lingering: what they and this side's differ in.
    pub differ: Differ,
}

/// The side at `path`, its errors named after it; judged by the manager `judge`, when given,
/// instead of its own config's; with what of the manifests at `lingering` may run beside it
/// ([`Request::lingering`]); its files parsed once in the run, by `parsed`.
pub(super) fn read(
    path: &Path,
    request: &Request,
    judge: Option<&Judge>,
    lingering: Option<(&Path, Mix)>,
    parsed: &Arc<Parsed>,
) -> Result<Side, String> {
    let name = files::quote(path);
    // A file is read within the input limit, as every file the function reads; its own
    // errors name it.
    let text = if path.as_os_str() == "-" {
        request.stdin.clone()
    } else if path.is_file() {
        Some(files::read_named(path, &mut files::Budget::default())?)
    } else {
        None
    };
    if let Some(text) = text.as_deref().filter(|t| is_saved_report(t)) {
        let report = Report::read(text).map_err(|e| {
            format!("{name}: a saved explain report, but {e}: save it again with `explain -o json` of this version")
        })?;
        let lacks_head_fields = lacks_head_fields(text);
        // The SPIRE its config described, when the report says it.
        let manager = match &report.spire {
            Some(spire) => Some(Judge {
                spire: crate::config::SpireManager::of_spec(spire.controller_manager.clone())
                    .map_err(|e| format!("{name}: its spire.controllerManager: {e}"))?,
                trust_domain: spire.trust_domain.clone(),
            }),
            None => None,
        };
        return Ok(Side {
            report,
            policy: None,
            lacks_head_fields,
            manager,
            dropped: Vec::new(),
            differ: Differ::default(),
        });
    }
    let side = Request {
        paths: vec![path.to_path_buf()],
        config_file: request.config_file.clone(),
        overrides: request.overrides.clone(),
        env: request.env.clone(),
        stdin: request.stdin.clone(),
        judge: judge.cloned(),
        namespace: request.namespace.clone(),
        lingering: lingering.map(|(path, mix)| (path.to_path_buf(), mix)),
        parsed: Some(Arc::clone(parsed)),
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
    let (report, config, (dropped, differ)) = explain::build_with_dropped(&side).map_err(named)?;
    // The SPIRE the side's own config describes, not the one it was judged by.
    let manager = if judge.is_some() {
        None
    } else {
        Some(Judge { spire: config.spire, trust_domain: config.trust_domain.clone() })
    };
    Ok(Side {
        report,
        policy: Some(config.failure_policy),
        lacks_head_fields: false,
        manager,
        dropped,
        differ,
    })
}

/// Whether a text is a saved `explain -o json` report: a JSON object with `bindings` and
/// no `apiVersion` (a manifest in JSON has one).
fn is_saved_report(text: &str) -> bool {
    let Ok(Value::Object(value)) = serde_json::from_str::<Value>(text) else { return false };
    value.contains_key("bindings") && !value.contains_key("apiVersion")
}

/// Whether a saved report lacks a field the gate reads of HEAD (a pod template's `mayHold` or
/// `powers`, or `staticEntries`, `federatedTrustDomains`, `unjudged`): a report saved before
/// they were written.
fn lacks_head_fields(text: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else { return false };
    let workloads = value.get("workloads").and_then(Value::as_array);
    let top = ["staticEntries", "federatedTrustDomains", "unjudged"].iter().any(|k| value.get(k).is_none());
    top || workloads
        .is_some_and(|w| w.iter().any(|w| w.get("mayHold").is_none() || w.get("powers").is_none()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_report_is_told_from_a_json_manifest() {
        assert!(is_saved_report(r#"{"bindings": [], "findings": []}"#));
        assert!(!is_saved_report(r#"{"apiVersion": "v1", "kind": "List", "bindings": []}"#));
        assert!(!is_saved_report("kind: A"));
    }

    #[test]
    fn a_saved_report_without_any_field_a_head_needs_predates_them() {
        let whole = serde_json::json!({
            "bindings": [], "findings": [], "reach": [],
            "workloads": [{"mayHold": [], "powers": []}],
            "staticEntries": [], "federatedTrustDomains": [], "unjudged": [],
        });
        assert!(!lacks_head_fields(&whole.to_string()));
        for top in ["staticEntries", "federatedTrustDomains", "unjudged"] {
            let mut report = whole.clone();
            report.as_object_mut().unwrap().remove(top);
            assert!(lacks_head_fields(&report.to_string()), "{top}");
        }
        for field in ["mayHold", "powers"] {
            let mut report = whole.clone();
            report["workloads"][0].as_object_mut().unwrap().remove(field);
            assert!(lacks_head_fields(&report.to_string()), "{field}");
        }
    }

    #[test]
    fn every_report_explain_writes_is_told_as_a_saved_one() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut read = 0;
        for case in std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()) {
            let file = case.join("expected.json");
            if case.file_name().unwrap().to_string_lossy().starts_with("explain-") && file.is_file() {
                assert!(is_saved_report(&std::fs::read_to_string(&file).unwrap()), "{file:?}");
                read += 1;
            }
        }
        assert!(read >= 10, "{read} reports");
    }
}
