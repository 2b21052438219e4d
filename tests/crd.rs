//! The CRD that `render-inference-identity crd` prints against the operator's own CRD
//! (`tests/crds/kleym.sonda.red_inferenceidentitybindings.yaml`), node by node: a cluster
//! running the operator must be able to install it without harm
//! (docs/reference.md#ways-to-run). Both `openAPIV3Schema` trees are walked together; any
//! drift fails with the path of the node.

mod common;

use serde_json::Value;
use std::collections::BTreeSet;

/// The one documented extension: `spec.poolRef.group` also admits the experimental group.
const ENUM_EXTENSIONS: [(&str, &str); 1] = [("spec.poolRef.group", "inference.networking.x-k8s.io")];

/// Keys that only document a node.
const DOCS: [&str; 2] = ["description", "title"];

fn operator_crd() -> Value {
    let text = common::repo_file("tests/crds/kleym.sonda.red_inferenceidentitybindings.yaml");
    render_inference_identity::yaml::parse(&text).expect("the operator's CRD parses")
}

fn printed_crd() -> Value {
    let out = std::process::Command::new(common::BIN).arg("crd").output().expect("the binary runs");
    common::assert_success(&out);
    render_inference_identity::yaml::parse(&common::stdout(&out)).expect("the printed CRD parses")
}

fn strings(value: Option<&Value>) -> BTreeSet<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

fn number(value: Option<&Value>) -> Option<f64> {
    value.and_then(Value::as_f64)
}

/// Every way `ours` fails to be a superset of `theirs` at `path`.
fn compare(path: &str, theirs: &Value, ours: &Value, problems: &mut Vec<String>) {
    let (Some(theirs), Some(ours)) = (theirs.as_object(), ours.as_object()) else {
        problems.push(format!("{path}: not a schema object on both sides"));
        return;
    };
    let at = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    for (key, want) in theirs {
        let got = ours.get(key);
        match key.as_str() {
            k if DOCS.contains(&k) => {}
            "properties" => {
                let empty = serde_json::Map::new();
                let got = got.and_then(Value::as_object).unwrap_or(&empty);
                for (name, child) in want.as_object().into_iter().flatten() {
                    match got.get(name) {
                        Some(mine) => compare(&at(name), child, mine, problems),
                        None => problems.push(format!("{}: missing property", at(name))),
                    }
                }
                for name in got.keys().filter(|n| !want.as_object().is_some_and(|w| w.contains_key(*n))) {
                    problems.push(format!("{}: property the operator's CRD does not have", at(name)));
                }
            }
            "items" => match got {
                Some(mine) => compare(&format!("{path}[]"), want, mine, problems),
                None => problems.push(format!("{path}: no items schema")),
            },
            "required" => {
                if strings(Some(want)) != strings(got) {
                    problems.push(format!(
                        "{path}: required {:?}, operator {:?}",
                        strings(got),
                        strings(Some(want))
                    ));
                }
            }
            "enum" => {
                let (want, got) = (strings(Some(want)), strings(got));
                if let Some(lost) = want.difference(&got).next() {
                    problems.push(format!("{path}: enum lacks {lost:?}"));
                }
                for extra in got.difference(&want) {
                    if !ENUM_EXTENSIONS.contains(&(path, extra.as_str())) {
                        problems.push(format!("{path}: enum value {extra:?} is no documented extension"));
                    }
                }
            }
            "pattern" => {
                if got.is_some_and(|g| g != want) {
                    problems.push(format!("{path}: pattern {got:?}, operator {want}"));
                }
            }
            "maxLength" | "maxItems" | "maximum" => {
                if number(got).is_some_and(|g| number(Some(want)).is_some_and(|w| g < w)) {
                    problems.push(format!("{path}: {key} {got:?} is stricter than the operator's {want}"));
                }
            }
            "minLength" | "minItems" | "minimum" => {
                if number(got).is_some_and(|g| number(Some(want)).is_some_and(|w| g > w)) {
                    problems.push(format!("{path}: {key} {got:?} is stricter than the operator's {want}"));
                }
            }
            _ => {
                // type, format, x-kubernetes-* markers, CEL rules: exactly the operator's.
                if got != Some(want) {
                    problems.push(format!("{path}: {key} is {got:?}, operator {want}"));
                }
            }
        }
    }
    // A bound the operator writes as an integer is printed as one (`minimum: 0`, not `0.0`).
    for key in ["maxLength", "maxItems", "maximum", "minLength", "minItems", "minimum"] {
        if theirs.get(key).is_some_and(Value::is_i64) && ours.get(key).is_some_and(|g| !g.is_i64()) {
            problems.push(format!("{path}: {key} {} is not written as an integer", ours[key]));
        }
    }
    for key in ours.keys().filter(|k| !theirs.contains_key(*k) && !DOCS.contains(&k.as_str())) {
        problems.push(format!("{path}: {key} {} is not in the operator's CRD", ours[key]));
    }
}

fn schema_of(crd: &Value) -> &Value {
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema").expect("an openAPIV3Schema")
}

fn problems(theirs: &Value, ours: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    compare("", theirs, ours, &mut problems);
    problems
}

#[test]
fn the_printed_schema_is_a_superset_of_the_operators_node_by_node() {
    let (theirs, ours) = (operator_crd(), printed_crd());
    let found = problems(schema_of(&theirs), schema_of(&ours));
    assert!(found.is_empty(), "{} difference(s):\n{}", found.len(), found.join("\n"));
}

#[test]
fn names_scope_versions_and_printer_columns_are_the_operators() {
    let (theirs, ours) = (operator_crd(), printed_crd());
    assert_eq!(ours["metadata"]["name"], theirs["metadata"]["name"]);
    for key in ["group", "names", "scope"] {
        assert_eq!(ours["spec"][key], theirs["spec"][key], "spec.{key}");
    }
    let (want, got) = (&theirs["spec"]["versions"][0], &ours["spec"]["versions"][0]);
    assert_eq!(ours["spec"]["versions"].as_array().map(Vec::len), Some(1));
    for key in ["name", "served", "storage", "subresources", "additionalPrinterColumns"] {
        assert_eq!(got[key], want[key], "versions[0].{key}");
    }
}

/// A change made to a copy of the operator's schema, and the problem it must raise.
type Drift = (&'static str, fn(&mut Value));

/// The walk is not vacuous: each kind of drift it exists to catch is caught.
#[test]
fn the_comparison_catches_each_kind_of_drift() {
    let theirs = schema_of(&operator_crd()).clone();
    let drifts: [Drift; 9] = [
        ("status.conditions[].observedGeneration: minimum", |s| {
            s["properties"]["status"]["properties"]["conditions"]["items"]["properties"]["observedGeneration"]
                ["minimum"] = serde_json::json!(0.0);
        }),
        ("spec.poolRef.name: pattern", |s| {
            s["properties"]["spec"]["properties"]["poolRef"]["properties"]["name"]["pattern"] =
                "^[a-z]+$".into();
        }),
        ("status.ownedClusterSPIFFEID: missing property", |s| {
            s["properties"]["status"]["properties"].as_object_mut().unwrap().remove("ownedClusterSPIFFEID");
        }),
        ("status.conditions: x-kubernetes-list-type", |s| {
            s["properties"]["status"]["properties"]["conditions"]
                .as_object_mut()
                .unwrap()
                .remove("x-kubernetes-list-type");
        }),
        ("status: x-kubernetes-validations", |s| {
            s["properties"]["status"]["x-kubernetes-validations"][0]["rule"] = "true".into();
        }),
        ("spec.serviceAccountName: maxLength", |s| {
            s["properties"]["spec"]["properties"]["serviceAccountName"]["maxLength"] = 63.into();
        }),
        ("spec: required", |s| {
            s["properties"]["spec"]["required"] = serde_json::json!(["poolRef"]);
        }),
        ("status.conflicts[].cause: enum", |s| {
            s["properties"]["status"]["properties"]["conflicts"]["items"]["properties"]["cause"]["enum"] =
                serde_json::json!(["VariantReuse", "Other"]);
        }),
        ("status.renderedSelectors[].selectors: type", |s| {
            s["properties"]["status"]["properties"]["renderedSelectors"]["items"]["properties"]["selectors"]
                ["type"] = "string".into();
        }),
    ];
    for (want, drift) in drifts {
        let mut ours = theirs.clone();
        drift(&mut ours);
        let found = problems(&theirs, &ours);
        assert!(found.iter().any(|p| p.starts_with(want)), "{want} not caught: {found:?}");
    }
    assert!(problems(&theirs, &theirs).is_empty(), "the operator's CRD differs from itself");
}
