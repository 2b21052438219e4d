//! Stale outputs: managed ClusterSPIFFEIDs of the input that this run replaces with other
//! content or removes (docs/reference.md, "Stale outputs"). Each is a `StaleOutput` finding
//! that says why (its binding renders another object, is gone or moved; its spec or labels
//! differ, each named; it carries a namespace) with both names, the render that takes its place and
//! whether its pods keep the SPIFFE ID, and what the old object does if the input is applied
//! as it is; except the output of a binding that now fails: that binding's own result names
//! the identity its failure takes from its pods.

use crate::api::cluster_spiffe_id::{self as csid, ClusterSpiffeId};
use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::findings::{self, Finding, Kind, Level, Ref};
use crate::reconcile::items::input::{self, Input};
use crate::reconcile::outputs::ownership::{self, Fate, Renders};
use serde_json::Value as Json;
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
pub struct InputBinding {
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
    bindings: &HashMap<(String, String), InputBinding>,
    prune: bool,
) -> Stale {
    let mut stale = Stale::default();
    let present = |ns: &str, name: &str| bindings.contains_key(&(ns.to_string(), name.to_string()));
    for (at, item) in input::values(items) {
        let fate = ownership::fate(item, |name| renders.contains_key(name), present, prune);
        let name = fields::child(item, &["metadata", "name"]).and_then(Value::as_str).unwrap_or_default();
        let owner = csid::binding_of(item).map(|(ns, b)| (ns.to_string(), b.to_string()));
        let spiffe_id =
            fields::child(item, &["spec", "spiffeIDTemplate"]).and_then(Value::as_str).unwrap_or_default();
        let (found, shipped) = match fate {
            Fate::Kept => continue,
            Fate::Replaced => {
                let fresh = &renders[name];
                let differences = differences(item, fresh);
                if differences.is_empty() {
                    continue;
                }
                let (ns, b) = owner.clone().unwrap_or_default();
                let found = format!(
                    "ClusterSPIFFEID {name} of the input is not what binding {ns}/{b} renders now: {}; the fresh \
                     render replaces it",
                    differences.join("; ")
                );
                (found, as_shipped(item, spiffe_id, Some((name, fresh)), true))
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
                    Verdict::Renders(new) => {
                        let fresh = renders.get(new).map(|r| (new.as_str(), &**r));
                        let found = format!(
                            "ClusterSPIFFEID {name} of the input was rendered by binding {ns}/{b}, which renders \
                             ClusterSPIFFEID {new} now: a render removes {name}, and {new} takes its place{}",
                            taking_over(spiffe_id, fresh.map(|(_, r)| r))
                        );
                        (found, as_shipped(item, spiffe_id, fresh, false))
                    }
                }
            }
            Fate::Pruned => {
                let gone = match &owner {
                    Some((ns, b)) => format!("was rendered by binding {ns}/{b}, which is not in the input"),
                    None => "names no binding (its kleym.sonda.red/binding-* labels are missing)".to_string(),
                };
                let (moved, moved_output) =
                    owner.as_ref().and_then(|(_, b)| moved_to(b, bindings)).unwrap_or_default();
                let successor = successor(item, spiffe_id, owner.as_ref(), renders, bindings);
                // The pods lose the SPIFFE ID only when no render of this run carries it on.
                let then = match successor {
                    Some((new, fresh)) => {
                        let new = if moved_output == Some(new) {
                            "that object".to_string()
                        } else {
                            format!("ClusterSPIFFEID {new}")
                        };
                        format!(", and {new} takes its place{}", taking_over(spiffe_id, Some(fresh)))
                    }
                    None => format!(", and its pods lose SPIFFE ID {spiffe_id} on the next apply"),
                };
                let found = format!(
                    "ClusterSPIFFEID {name} of the input {gone} (deleted, renamed or moved to another \
                     namespace){moved}: a render prunes it{then}"
                );
                (found, as_shipped(item, spiffe_id, successor, false))
            }
        };
        let namespace = fields::child(item, &["metadata", "namespace"]).and_then(Value::as_str);
        let namespaced = match (fate, namespace) {
            // A replaced output's namespace is among its differences already.
            (Fate::Replaced, _) | (_, None) => String::new(),
            (_, Some(ns)) => format!("; it also carries metadata.namespace {ns}, {CLUSTER_SCOPED}"),
        };
        // How to avoid it, once: certain when a namespace transformer ran after the function,
        // a guess when the binding is only gone.
        let advice = match (namespace, fate) {
            (Some(_), _) => format!(". {MOVED_AFTER}: {OUTERMOST}"),
            (None, Fate::Pruned) => {
                format!(
                    ". If a kustomize overlay renamed or moved the binding after the function ran, {OUTERMOST}"
                )
            }
            _ => String::new(),
        };
        let also =
            owner.and_then(|key| bindings.get(&key).map(|b| binding_ref(b.item, &key))).into_iter().collect();
        stale.findings.push(Finding {
            kind: Kind::StaleOutput,
            level: Level::Warning,
            message: format!("{found}{namespaced}{shipped}{advice}"),
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
const CLUSTER_SCOPED: &str = "which a cluster-scoped object does not have";

/// What a namespace on a ClusterSPIFFEID says happened.
const MOVED_AFTER: &str = "A namespace transformer (kustomize's namespace:) ran after the function";

/// How to keep outputs from going stale under kustomize.
const OUTERMOST: &str = "list the function in the outermost kustomization, the last one that renames or moves \
                         anything";

/// How a managed output of the input differs from the fresh render of the same name.
fn differences(old: &Value, fresh: &ClusterSpiffeId) -> Vec<String> {
    // Both sides as `serde_json` values: this runs for the few outputs that went stale.
    let (old, fresh) = (&old.to_json(), serde_json::to_value(fresh).expect("a render serializes"));
    let mut found = Vec::new();
    if let Some(ns) = fields::child(old, &["metadata", "namespace"]).and_then(Json::as_str) {
        found.push(format!("it carries metadata.namespace {ns}, {CLUSTER_SCOPED}"));
    }
    let old_spec = old.get("spec").and_then(Json::as_object);
    let new_spec = fresh.get("spec").and_then(Json::as_object);
    let mut keys: Vec<&String> = old_spec.into_iter().chain(new_spec).flat_map(|s| s.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (was, is) = (old_spec.and_then(|s| s.get(key)), new_spec.and_then(|s| s.get(key)));
        if was == is {
            continue;
        }
        found.push(match (was, is) {
            (Some(Json::String(was)), Some(Json::String(is))) => {
                format!("its spec.{key} is {was}, not {is}")
            }
            (Some(_), None) => format!("its spec.{key} is set and the render has none"),
            (None, Some(_)) => format!("its spec.{key} is missing"),
            _ => format!("its spec.{key} differs"),
        });
    }
    found.extend(label_changes(old.pointer("/metadata/labels"), fresh.pointer("/metadata/labels")));
    found
}

/// How an old output's labels differ from the render's, label by label, in key order.
fn label_changes(old: Option<&Json>, fresh: Option<&Json>) -> Vec<String> {
    let (old, fresh) = (old.and_then(Json::as_object), fresh.and_then(Json::as_object));
    let mut keys: Vec<&String> = old.into_iter().chain(fresh).flat_map(|m| m.keys()).collect();
    keys.sort();
    keys.dedup();
    let text = |v: &Json| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    keys.into_iter()
        .filter_map(|key| match (old.and_then(|m| m.get(key)), fresh.and_then(|m| m.get(key))) {
            (was, is) if was == is => None,
            (None, Some(is)) => Some(format!("it lacks the label {key}={}", text(is))),
            (Some(was), None) => Some(format!("its label {key}={} is not the render's", text(was))),
            (Some(was), Some(is)) => Some(format!("its label {key} is {}, not {}", text(was), text(is))),
            (None, None) => None,
        })
        .collect()
}

/// What the pods of an output replaced by `new` hold after the render: the same SPIFFE ID,
/// or the new one.
fn taking_over(old: &str, new: Option<&ClusterSpiffeId>) -> String {
    match new.map(|n| n.spec.spiffe_id_template.as_str()) {
        Some(new) if new == old => format!(" with the same SPIFFE ID {old}, so its pods keep it"),
        Some(new) => format!(" (its pods move from SPIFFE ID {old} to {new})"),
        None => String::new(),
    }
}

/// The render of this run that takes the place of a pruned output, when there is one: a
/// render with the same SPIFFE ID (a binding renamed), the render of a binding of the same
/// name in another namespace (moved), or a render in the same namespace for the same pool
/// labels and variant (a binding renamed with its pool or service account). Bindings of one
/// namespace, pool and variant conflict, so the last finds one at most.
fn successor<'r>(
    old: &Value,
    spiffe_id: &str,
    owner: Option<&(String, String)>,
    renders: &'r Renders,
    bindings: &HashMap<(String, String), InputBinding>,
) -> Option<(&'r str, &'r ClusterSpiffeId)> {
    let all = || renders.iter().map(|(name, render)| (name.as_str(), &**render));
    if let Some(found) = all().find(|(_, r)| r.spec.spiffe_id_template == spiffe_id) {
        return Some(found);
    }
    if let Some((_, b)) = owner {
        let mut moved: Vec<(&String, &String)> = bindings
            .iter()
            .filter(|((_, n), _)| n == b)
            .filter_map(|((ns, _), binding)| match &binding.verdict {
                Verdict::Renders(output) => Some((ns, output)),
                Verdict::Fails(_) => None,
            })
            .collect();
        moved.sort();
        if let Some(found) = moved.first().and_then(|(_, output)| all().find(|(name, _)| name == output)) {
            return Some(found);
        }
    }
    let but_account = |selectors: &mut dyn Iterator<Item = &str>| -> Vec<String> {
        let mut kept: Vec<String> =
            selectors.filter(|s| !s.starts_with("k8s:sa:")).map(str::to_string).collect();
        kept.sort();
        kept
    };
    let old_selectors = but_account(&mut selectors_of(old));
    if old_selectors.is_empty() {
        return None;
    }
    all().find(|(_, r)| {
        but_account(&mut r.spec.workload_selector_templates.iter().map(String::as_str)) == old_selectors
    })
}

/// The `workloadSelectorTemplates` of a ClusterSPIFFEID of the input.
fn selectors_of(item: &Value) -> impl Iterator<Item = &str> {
    fields::child(item, &["spec", "workloadSelectorTemplates"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// What a stale output does when the input is applied as it is, without a fresh render (a
/// built stream sent on): beside `successor`, the render that takes its place (of the same
/// name when `same_object`), or alone, its pods keep the SPIFFE ID.
fn as_shipped(
    old: &Value,
    spiffe_id: &str,
    successor: Option<(&str, &ClusterSpiffeId)>,
    same_object: bool,
) -> String {
    const APPLIED: &str = ". Applied as it is, without a fresh render,";
    let Some((new, fresh)) = successor else {
        return format!("{APPLIED} it goes on giving SPIFFE ID {spiffe_id} to the pods its selectors match");
    };
    let selects = if same_object {
        "the fresh render selects".to_string()
    } else {
        format!("ClusterSPIFFEID {new} selects")
    };
    let new_selectors = &fresh.spec.workload_selector_templates;
    // A pod has one namespace, one service account and one value per label: a selector the
    // fresh render holds with another value is one those pods never match.
    let (mut asks, mut have) = (Vec::new(), Vec::new());
    for s in selectors_of(old) {
        let clash = selector_key(s)
            .and_then(|key| new_selectors.iter().find(|n| selector_key(n) == Some(key) && n.as_str() != s));
        if let Some(other) = clash {
            asks.push(s);
            have.push(other.as_str());
        }
    }
    if !asks.is_empty() {
        return format!(
            "{APPLIED} it asks for {}, where the pods {selects} have {}: they get no SVID from it",
            asks.join(", "),
            have.join(", ")
        );
    }
    if same_object {
        return String::new();
    }
    let extra: Vec<&str> = selectors_of(old).filter(|s| !new_selectors.iter().any(|n| n == s)).collect();
    let id = if fresh.spec.spiffe_id_template == spiffe_id {
        "the same SPIFFE ID a second time".to_string()
    } else {
        format!("SPIFFE ID {spiffe_id} as well")
    };
    match extra.as_slice() {
        [] => format!("{APPLIED} it gives the pods {selects} {id}"),
        extra => format!(
            "{APPLIED} it gives those of the pods {selects} that also match {} {id}",
            extra.join(", ")
        ),
    }
}

/// What a selector is about, for those a pod has one value of: `k8s:ns`, `k8s:sa`, and
/// `k8s:pod-label:<key>`.
fn selector_key(selector: &str) -> Option<&str> {
    if selector.starts_with("k8s:ns:") || selector.starts_with("k8s:sa:") {
        return Some(&selector[..6]);
    }
    let label = selector.strip_prefix("k8s:pod-label:")?;
    let key = label.split_once(':')?.0;
    Some(&selector[.."k8s:pod-label:".len() + key.len()])
}

/// `; binding ns/name of the input renders ClusterSPIFFEID x`: where a binding of the same
/// name stands now, for an output whose binding moved namespace; with the name it renders.
fn moved_to<'b>(
    name: &str,
    bindings: &'b HashMap<(String, String), InputBinding>,
) -> Option<(String, Option<&'b str>)> {
    let mut found: Vec<(&String, &InputBinding)> =
        bindings.iter().filter(|((_, n), _)| n == name).map(|((ns, _), b)| (ns, b)).collect();
    found.sort_by_key(|(ns, _)| *ns);
    let (ns, b) = found.first()?;
    Some(match &b.verdict {
        Verdict::Renders(output) => (
            format!("; binding {ns}/{name} of the input renders ClusterSPIFFEID {output}"),
            Some(output.as_str()),
        ),
        Verdict::Fails(reason) => (format!("; binding {ns}/{name} of the input fails ({reason})"), None),
    })
}

fn binding_ref(item: usize, (ns, name): &(String, String)) -> Ref {
    findings::binding_ref(item, Some(ns), name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;
    use crate::reconcile::rules::identity::{self, RenderInput};

    const ID: &str = "spiffe://example.org/ns/prod/sa/llama/inference/pool/llama/variant/decode";

    /// A managed output of the input, rendered for binding prod/`binding`.
    fn output(binding: &str, spiffe_id: &str, account: &str) -> Input {
        Input::Whole(json!({
            "apiVersion": csid::API_VERSION, "kind": csid::KIND,
            "metadata": {"name": format!("kleym-prod-{binding}-pool-1"),
                         "labels": {csid::LABEL_BINDING_NAME: binding, csid::LABEL_BINDING_NAMESPACE: "prod",
                                    csid::LABEL_MANAGED_BY: csid::MANAGED_BY},
                         "annotations": {csid::ANNOTATION_RENDERED_BY: csid::RENDERED_BY}},
            "spec": {"spiffeIDTemplate": spiffe_id, "podSelector": {"matchLabels": {"app": "llama"}},
                     "workloadSelectorTemplates": ["k8s:ns:prod", "k8s:pod-label:app:llama",
                                                   "k8s:pod-label:identity.kleym.sonda.red/variant:decode",
                                                   format!("k8s:sa:{account}")]}
        }))
    }

    /// This run: binding prod/`binding` at item 1 renders `spiffe_id` for `account`.
    fn run(
        binding: &str,
        spiffe_id: &str,
        account: &str,
    ) -> (Renders, HashMap<(String, String), InputBinding>) {
        let name = format!("kleym-prod-{binding}-pool-2");
        let render = identity::render(RenderInput {
            name: name.clone(),
            binding_name: binding,
            binding_namespace: "prod",
            spiffe_id,
            pool_labels: [("app".to_string(), "llama".to_string())].into_iter().collect(),
            selectors: vec![
                "k8s:ns:prod".to_string(),
                "k8s:pod-label:app:llama".to_string(),
                "k8s:pod-label:identity.kleym.sonda.red/variant:decode".to_string(),
                format!("k8s:sa:{account}"),
            ],
            class_name: None,
            class_label: None,
            binding_scope: None,
        });
        let bindings = HashMap::from([(
            ("prod".to_string(), binding.to_string()),
            InputBinding { item: 1, verdict: Verdict::Renders(name.clone()) },
        )]);
        (Renders::from([(name, Box::new(render))]), bindings)
    }

    fn message(
        items: &[Input],
        (renders, bindings): &(Renders, HashMap<(String, String), InputBinding>),
    ) -> String {
        let stale = find(items, renders, bindings, true);
        assert_eq!(stale.findings.len(), 1, "{:?}", stale.findings);
        stale.findings[0].message.clone()
    }

    #[test]
    fn a_renamed_binding_with_the_same_spiffe_id_names_the_new_object_and_keeps_the_pods_id() {
        let text = message(&[output("pd-decode", ID, "llama")], &run("pd-decode2", ID, "llama"));
        assert!(text.contains("binding prod/pd-decode, which is not in the input"), "{text}");
        assert!(
            text.contains(&format!(
                "ClusterSPIFFEID kleym-prod-pd-decode2-pool-2 takes its place with the same SPIFFE ID {ID}, so its \
                 pods keep it"
            )),
            "{text}"
        );
        assert!(!text.contains("lose"), "{text}");
        assert!(text.contains("the same SPIFFE ID a second time"), "{text}");
    }

    #[test]
    fn a_binding_renamed_with_its_account_names_its_successor_and_what_the_old_object_misses() {
        let renamed = ID.replace("sa/llama", "sa/x-llama");
        let text = message(&[output("pd-decode", ID, "llama")], &run("x-pd-decode", &renamed, "x-llama"));
        assert!(text.contains("kleym-prod-x-pd-decode-pool-2 takes its place"), "{text}");
        assert!(text.contains(&format!("its pods move from SPIFFE ID {ID} to {renamed}")), "{text}");
        assert!(
            text.contains(
                "it asks for k8s:sa:llama, where the pods ClusterSPIFFEID kleym-prod-x-pd-decode-pool-2 selects \
                 have k8s:sa:x-llama: they get no SVID from it"
            ),
            "{text}"
        );
        assert!(!text.contains("lose"), "{text}");
    }

    #[test]
    fn pods_lose_the_id_only_when_no_output_of_the_run_carries_it_on() {
        // Another pool's binding: nothing takes the deleted binding's place.
        let other = ID.replace("pool/llama/variant/decode", "pool/mistral/variant/prefill");
        let (renders, bindings) = run("mistral", &other, "mistral");
        let mut renders = renders;
        for r in renders.values_mut() {
            r.spec.workload_selector_templates =
                vec!["k8s:ns:prod".into(), "k8s:pod-label:app:mistral".into()];
        }
        let text = message(&[output("pd-decode", ID, "llama")], &(renders, bindings));
        assert!(text.contains(&format!("its pods lose SPIFFE ID {ID} on the next apply")), "{text}");
        assert!(
            text.contains(&format!("it goes on giving SPIFFE ID {ID} to the pods its selectors match")),
            "{text}"
        );
    }

    #[test]
    fn a_label_the_render_adds_replaces_the_output_in_place_naming_the_label() {
        let (mut renders, bindings) = run("pd-decode", ID, "llama");
        let name = renders.keys().next().unwrap().clone();
        let Input::Whole(mut value) = output("pd-decode", ID, "llama") else { unreachable!() };
        value["metadata"]["name"] = json!(name);
        value["spec"]["fallback"] = json!(false);
        value["spec"]["hint"] = json!("prod/pd-decode");
        renders.get_mut(&name).unwrap().metadata.labels.class_name = Some("spire-system-spire".into());
        let text = message(&[Input::Whole(value)], &(renders, bindings));
        assert!(
            text.ends_with(&format!(
                "ClusterSPIFFEID {name} of the input is not what binding prod/pd-decode renders now: it lacks the \
                 label spire.spiffe.io/class-name=spire-system-spire; the fresh render replaces it"
            )),
            "{text}"
        );
        assert_eq!(
            label_changes(
                Some(&serde_json::json!({"a": "1", "b": "2"})),
                Some(&serde_json::json!({"a": "3", "c": "4"}))
            ),
            ["its label a is 1, not 3", "its label b=2 is not the render's", "it lacks the label c=4"]
        );
    }

    #[test]
    fn a_namespaced_output_gives_the_kustomize_advice_once() {
        let Input::Whole(mut value) = output("pd-decode", ID, "llama") else { unreachable!() };
        value["metadata"]["namespace"] = json!("prod-eu");
        let text = message(&[Input::Whole(value)], &run("pd-decode2", ID, "llama"));
        assert_eq!(text.matches("list the function in the outermost kustomization").count(), 1, "{text}");
        assert!(text.contains("it also carries metadata.namespace prod-eu"), "{text}");
    }

    #[test]
    fn selectors_a_pod_holds_one_value_of_are_keyed_by_what_they_are_about() {
        assert_eq!(selector_key("k8s:ns:prod"), Some("k8s:ns"));
        assert_eq!(selector_key("k8s:sa:llama"), Some("k8s:sa"));
        assert_eq!(selector_key("k8s:pod-label:app:llama"), Some("k8s:pod-label:app"));
        assert_eq!(selector_key("k8s:pod-label:example.com/x:a:b"), Some("k8s:pod-label:example.com/x"));
        assert_eq!(selector_key("k8s:container-image:x"), None);
    }
}
