//! Reports for the diff's tests, written as the JSON a saved report holds.

use crate::io::explain::Report;
use crate::io::explain::report::Power;
use serde_json::{Value, json};

/// A report of those bindings and that reach, read strictly as a saved one.
pub(super) fn report(bindings: Value, reach: Value) -> Report {
    let value =
        json!({"config": null, "bindings": bindings, "workloads": [], "findings": [], "reach": reach});
    Report::read(&value.to_string()).unwrap()
}

/// A report of Deployment `ns/d`, whose pods hold the `sure` SPIFFE IDs and may hold the
/// `may` ones (from ClusterSPIFFEID `c`, if its namespace carries the labels it asks for).
pub(super) fn held(sure: &[&str], may: &[&str]) -> Report {
    let may: Vec<Value> = may
        .iter()
        .map(|id| {
            json!({"spiffeID": id, "clusterSPIFFEID": "c", "madeIf": "namespaceLabels",
                   "attestsIf": [], "unknown": []})
        })
        .collect();
    let template = json!({"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ns", "name": "d",
                          "path": "spec.template"});
    let mut workload = template.clone();
    for (field, value) in [
        ("svids", json!(sure)),
        ("entriesWithoutIdentity", json!([])),
        ("fallbacksSkipped", json!([])),
        ("svidsWithUnknowns", json!([])),
        ("entriesNotMade", json!([])),
        ("mayHold", json!(may)),
    ] {
        workload[field] = value;
    }
    let mut reach = template;
    reach["spiffeIDs"] = json!(sure);
    let reach = if sure.is_empty() { json!([]) } else { json!([reach]) };
    let value = json!({"config": null, "bindings": [], "workloads": [workload], "findings": [],
                       "reach": reach});
    Report::read(&value.to_string()).unwrap()
}

/// A ready binding of namespace `ns` selecting `app: a`, with those selectors.
pub(super) fn binding(name: &str, selectors: &[&str]) -> Value {
    json!({"namespace": "ns", "name": name, "ready": true, "reason": "Reconciled", "message": "",
           "spiffeID": format!("spiffe://x/{name}"), "clusterSPIFFEID": name, "className": null,
           "podSelector": {"matchLabels": {"app": "a"}}, "namespaceSelector": null,
           "selectors": selectors, "workloads": [], "selectedWithoutIdentity": [], "removes": []})
}

/// Entry 0 of `object` for `spiffe_id`: no power but `admin` if asked, and the
/// server's default lifetimes.
pub(super) fn power(spiffe_id: &str, object: &str, admin: bool) -> Power {
    Power {
        spiffe_id: spiffe_id.into(),
        object: object.into(),
        entry: 0,
        admin,
        downstream: false,
        federates_with: Vec::new(),
        dns_names: Vec::new(),
        ttl: None,
        jwt_ttl: None,
        store_svid: false,
        hangs_on: Vec::new(),
    }
}
