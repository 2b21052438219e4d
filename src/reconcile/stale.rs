//! Stale outputs: managed ClusterSPIFFEIDs of the input that this run replaces with other
//! content or removes (docs/reference.md, "Stale outputs"). Each is a `StaleOutput` finding
//! that says why (its binding renders another object, is gone or moved; its spec or labels
//! differ; it carries a namespace) with both names, except the output of a binding that now
//! fails: that binding's own result names the identity its failure takes from its pods.

use super::findings::{self, Finding, Kind, Level, Ref};
use super::input::{self, Input};
use super::ownership::{self, Fate, Renders};
use crate::api::cluster_spiffe_id::{self as csid, ClusterSpiffeId};
use serde_json::Value;
use std::collections::HashMap;

/// What a binding of the input does in this run.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// It renders the ClusterSPIFFEID of this name.
    Renders(String),
    /// It fails, with its `Type/Reason`.
    Fails(String),
}

/// A binding of the input: where it stands and its verdict.
#[derive(Debug, Clone)]
pub struct Binding {
    pub item: usize,
    pub verdict: Verdict,
}

/// A managed output removed because its binding, still in the input, fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lost {
    pub output: String,
    pub spiffe_id: String,
}

/// What the stale outputs come to.
#[derive(Debug, Default)]
pub struct Stale {
    pub findings: Vec<Finding>,
    /// By failing binding (namespace, name): the outputs its failure removes.
    pub lost: HashMap<(String, String), Vec<Lost>>,
}

/// Finds the stale outputs among `items`. `bindings` holds every binding of the input with a
/// namespace, by (namespace, name).
pub fn find(
    items: &[Input],
    renders: &Renders,
    bindings: &HashMap<(String, String), Binding>,
    prune: bool,
) -> Stale {
    let mut stale = Stale::default();
    let present = |ns: &str, name: &str| bindings.contains_key(&(ns.to_string(), name.to_string()));
    for (at, item) in input::values(items) {
        let fate = ownership::fate(item, |name| renders.contains_key(name), present, prune);
        let name = item.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        let owner = csid::binding_of(item).map(|(ns, b)| (ns.to_string(), b.to_string()));
        let spiffe_id = item.pointer("/spec/spiffeIDTemplate").and_then(Value::as_str).unwrap_or_default();
        let found = match fate {
            Fate::Kept => continue,
            Fate::Replaced => {
                let differences = differences(item, &renders[name]);
                if differences.is_empty() {
                    continue;
                }
                let (ns, b) = owner.clone().unwrap_or_default();
                format!(
                    "ClusterSPIFFEID {name} of the input is not what binding {ns}/{b} renders now: {}; the fresh \
                     render replaces it",
                    differences.join("; ")
                )
            }
            Fate::Removed => {
                let key = owner.clone().expect("a removed output names its binding");
                let (ns, b) = &key;
                match &bindings[&key].verdict {
                    Verdict::Fails(_) => {
                        // The failing binding's own result says what its pods lose.
                        stale
                            .lost
                            .entry(key.clone())
                            .or_default()
                            .push(Lost { output: name.to_string(), spiffe_id: spiffe_id.to_string() });
                        continue;
                    }
                    Verdict::Renders(new) => format!(
                        "ClusterSPIFFEID {name} of the input was rendered by binding {ns}/{b}, which renders \
                         ClusterSPIFFEID {new} now{}: a render removes {name}, and {new} takes its place",
                        changed_id(spiffe_id, renders.get(new).map(|r| r.spec.spiffe_id_template.as_str()))
                    ),
                }
            }
            Fate::Pruned => {
                let gone = match &owner {
                    Some((ns, b)) => format!("was rendered by binding {ns}/{b}, which is not in the input"),
                    None => "names no binding (its kleym.sonda.red/binding-* labels are missing)".to_string(),
                };
                let moved = owner.as_ref().and_then(|(_, b)| moved_to(b, bindings)).unwrap_or_default();
                format!(
                    "ClusterSPIFFEID {name} of the input {gone} (deleted, renamed or moved to another \
                     namespace){moved}: a render prunes it, and its pods lose SPIFFE ID {spiffe_id} on the next \
                     apply. If a kustomize overlay renamed or moved the binding after the function ran, list the \
                     function in the outermost kustomization instead"
                )
            }
        };
        let namespaced = match (fate, item.pointer("/metadata/namespace").and_then(Value::as_str)) {
            // A replaced output's namespace is among its differences already.
            (Fate::Replaced, _) | (_, None) => String::new(),
            (_, Some(ns)) => format!("; it also carries metadata.namespace {ns}, {CLUSTER_SCOPED}"),
        };
        let also =
            owner.and_then(|key| bindings.get(&key).map(|b| binding_ref(b.item, &key))).into_iter().collect();
        stale.findings.push(Finding {
            kind: Kind::StaleOutput,
            level: Level::Warning,
            message: format!("{found}{namespaced}"),
            about: Ref {
                item: at,
                api_version: csid::API_VERSION.to_string(),
                kind: csid::KIND.to_string(),
                namespace: None,
                name: name.to_string(),
                path: None,
            },
            also,
        });
    }
    stale
}

/// Why a namespace on a ClusterSPIFFEID is a sign of a stale render.
const CLUSTER_SCOPED: &str = "which a cluster-scoped object does not have: a namespace transformer (kustomize's \
                              namespace:) ran after the function; list the function in the outermost \
                              kustomization, the last one that renames or moves anything";

/// How a managed output of the input differs from the fresh render of the same name.
fn differences(old: &Value, fresh: &ClusterSpiffeId) -> Vec<String> {
    let fresh = serde_json::to_value(fresh).expect("a render serializes");
    let mut found = Vec::new();
    if let Some(ns) = old.pointer("/metadata/namespace").and_then(Value::as_str) {
        found.push(format!("it carries metadata.namespace {ns}, {CLUSTER_SCOPED}"));
    }
    let old_spec = old.get("spec").and_then(Value::as_object);
    let new_spec = fresh.get("spec").and_then(Value::as_object);
    let mut keys: Vec<&String> = old_spec.into_iter().chain(new_spec).flat_map(|s| s.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (was, is) = (old_spec.and_then(|s| s.get(key)), new_spec.and_then(|s| s.get(key)));
        if was == is {
            continue;
        }
        found.push(match (was, is) {
            (Some(Value::String(was)), Some(Value::String(is))) => {
                format!("its spec.{key} is {was}, not {is}")
            }
            (Some(_), None) => format!("its spec.{key} is set and the render has none"),
            (None, Some(_)) => format!("its spec.{key} is missing"),
            _ => format!("its spec.{key} differs"),
        });
    }
    if old.pointer("/metadata/labels") != fresh.pointer("/metadata/labels") {
        found.push("its labels differ".to_string());
    }
    found
}

/// `, moving its pods from SPIFFE ID a to b`, when the SPIFFE ID changed.
fn changed_id(old: &str, new: Option<&str>) -> String {
    match new {
        Some(new) if new != old => format!(" (its pods move from SPIFFE ID {old} to {new})"),
        _ => String::new(),
    }
}

/// `; binding ns/name of the input renders ClusterSPIFFEID x`: where a binding of the same
/// name stands now, for an output whose binding moved namespace.
fn moved_to(name: &str, bindings: &HashMap<(String, String), Binding>) -> Option<String> {
    let mut found: Vec<(&String, &Binding)> =
        bindings.iter().filter(|((_, n), _)| n == name).map(|((ns, _), b)| (ns, b)).collect();
    found.sort_by_key(|(ns, _)| *ns);
    let (ns, b) = found.first()?;
    Some(match &b.verdict {
        Verdict::Renders(output) => {
            format!("; binding {ns}/{name} of the input renders ClusterSPIFFEID {output}")
        }
        Verdict::Fails(reason) => format!("; binding {ns}/{name} of the input fails ({reason})"),
    })
}

fn binding_ref(item: usize, (ns, name): &(String, String)) -> Ref {
    findings::binding_ref(item, Some(ns), name)
}
