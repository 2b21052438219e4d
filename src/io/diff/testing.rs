//! Reports for the diff's tests, written as the JSON a saved report holds.

use crate::io::explain::Report;
use serde_json::{Value, json};

/// A report of those bindings and that reach, read strictly as a saved one.
pub(super) fn report(bindings: Value, reach: Value) -> Report {
    let value =
        json!({"config": null, "bindings": bindings, "workloads": [], "findings": [], "reach": reach});
    Report::read(&value.to_string()).unwrap()
}

/// A ready binding of namespace `ns` selecting `app: a`, with those selectors.
pub(super) fn binding(name: &str, selectors: &[&str]) -> Value {
    json!({"namespace": "ns", "name": name, "ready": true, "reason": "Reconciled", "message": "",
           "spiffeID": format!("spiffe://x/{name}"), "clusterSPIFFEID": name, "className": null,
           "podSelector": {"matchLabels": {"app": "a"}}, "namespaceSelector": null,
           "selectors": selectors, "workloads": [], "selectedWithoutIdentity": [], "removes": []})
}
