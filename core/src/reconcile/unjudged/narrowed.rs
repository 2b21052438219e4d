//! A ClusterSPIFFEID a pull request changes, narrowed to the pods both its versions select.
//! Applied one object at a time, two identities that swap their selectors pass through a
//! state where a pod is selected by neither, and SPIRE Controller Manager then gives it a
//! `fallback` identity's entry (spire-controller-manager `pkg/spireentry/reconciler.go`: a
//! fallback's entries only for pods no other ClusterSPIFFEID names). A pod is selected by no
//! version chosen of each changed object exactly when no narrowed one selects it, so one
//! state, every changed one narrowed, stands for every order ([`super::Mix::narrowed`]).

use crate::api::value::Value;
use crate::api::{fields, group_of};
use crate::reconcile::items::input::Input;
use serde_json::{Value as Json, json};

const GROUP: &str = "spire.spiffe.io";
const KIND: &str = "ClusterSPIFFEID";

/// A ClusterSPIFFEID's spec, when `item` is one.
fn spec(item: &Input) -> Option<&Value> {
    let value = item.value()?;
    let text = |path: &str| fields::str_at(value, path).unwrap_or_default();
    (group_of(text("apiVersion")) == GROUP && text("kind") == KIND).then(|| value.get("spec"))?
}

const FALLBACK: &str = "fallback";

fn fallback(spec: &Value) -> bool {
    spec.get(FALLBACK).and_then(Value::as_bool) == Some(true)
}

/// The fields of a spec that give power to the entries an object makes and decide nothing of
/// which pods get one: neither version of an object that differs in them alone leaves a pod
/// without its entry.
const POWER_ONLY: [&str; 5] = ["admin", "downstream", "ttl", "jwtTtl", "hint"];

/// The selectors of a spec, joined where versions differ.
const SELECTORS: [&str; 2] = ["podSelector", "namespaceSelector"];

/// A spec without the fields in `left_out`.
fn without(spec: &Value, left_out: &[&str]) -> Json {
    let mut json = spec.to_json();
    if let Some(map) = json.as_object_mut() {
        map.retain(|k, _| !left_out.contains(&k.as_str()));
    }
    json
}

/// Whether `base` to `head` is a change narrowing judges: a ClusterSPIFFEID that is no
/// fallback in one version at least and may leave a pod without an entry in one: it selects
/// otherwise, renders otherwise (its templates, its class: an entry one version fails to
/// render is no entry, and the manager leaves that pod to a fallback), or is a fallback in
/// the other (which keeps no other fallback from a pod).
pub fn narrowable(base: &Input, head: &Input) -> bool {
    match (spec(base), spec(head)) {
        (Some(b), Some(h)) => {
            !(fallback(b) && fallback(h)) && without(b, &POWER_ONLY) != without(h, &POWER_ONLY)
        }
        _ => false,
    }
}

/// Whether `items` hold a fallback ClusterSPIFFEID.
pub fn has_fallback(items: &[Input]) -> bool {
    items.iter().filter_map(spec).any(fallback)
}

/// Whether `item` gives pods entries that keep a fallback identity from them: a binding, or
/// a ClusterSPIFFEID that is no fallback.
pub fn covers(item: &Input) -> bool {
    let kind = item.value().and_then(|v| fields::str_at(v, "kind"));
    kind == Some("InferenceIdentityBinding") || spec(item).is_some_and(|s| !fallback(s))
}

/// `own`, selecting only the pods `other` selects too: each of its selectors joined with
/// `other`'s; and none at all where the two differ in anything else that decides which pods
/// get an entry (a template one of them may fail to render, a class the manager may not
/// read): some order leaves each such pod without one. Where one of the two is a fallback,
/// that one whole: it keeps no other fallback from a pod, and gives the most fallback
/// entries.
pub fn narrowed(own: &Input, other: &Input) -> Option<Input> {
    let (mine, theirs) = (spec(own)?, spec(other)?);
    if fallback(mine) != fallback(theirs) {
        return Some(if fallback(mine) { own.clone() } else { other.clone() });
    }
    let mut value = own.value()?.to_json();
    let out = value.get_mut("spec")?.as_object_mut()?;
    let (mine_json, theirs_json) = (mine.to_json(), theirs.to_json());
    for key in SELECTORS {
        match both(mine_json.get(key), theirs_json.get(key)) {
            Some(joined) => out.insert(key.to_string(), joined),
            None => out.remove(key),
        };
    }
    let rest = [&POWER_ONLY[..], &SELECTORS[..]].concat();
    if without(mine, &rest) != without(theirs, &rest) {
        let none = json!({"key": "kleym.sonda.red/none", "values": ["none"]});
        let exprs = [("In", &none), ("NotIn", &none)].map(|(op, e)| {
            let mut e = e.clone();
            e["operator"] = json!(op);
            e
        });
        out.insert("podSelector".to_string(), json!({"matchExpressions": exprs}));
    }
    Some(Input::Whole(Value::from(value)))
}

/// Two label selectors joined: what both select. An absent or empty one selects everything
/// (as the manager reads it), so the other stands; one that is no mapping is kept, as the
/// API server refuses it.
fn both(a: Option<&Json>, b: Option<&Json>) -> Option<Json> {
    let everything =
        |s: &Option<&Json>| s.is_none_or(|s| s.is_null() || s.as_object().is_some_and(|m| m.is_empty()));
    match (everything(&a), everything(&b)) {
        (true, _) => return b.cloned(),
        (_, true) => return a.cloned(),
        _ => {}
    }
    let mut expressions = Vec::new();
    for selector in [a?, b?] {
        let Some(selector) = selector.as_object() else { return Some(selector.clone()) };
        let labels = selector.get("matchLabels").and_then(Json::as_object).into_iter().flatten();
        expressions.extend(labels.map(|(k, v)| json!({"key": k, "operator": "In", "values": [v]})));
        let listed = selector.get("matchExpressions").and_then(Json::as_array).into_iter().flatten();
        expressions.extend(listed.cloned());
    }
    Some(json!({"matchExpressions": expressions}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csid(spec: Json) -> Input {
        Input::of(json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
                         "metadata": {"name": "x"}, "spec": spec}))
    }

    #[test]
    fn a_changed_identity_narrowed_selects_what_both_versions_select() {
        let base = csid(json!({"podSelector": {"matchLabels": {"app": "a"}}, "admin": true}));
        let head = csid(json!({"podSelector": {"matchLabels": {"app": "b"}},
                               "namespaceSelector": {"matchExpressions": [{"key": "t", "operator": "Exists"}]}}));
        assert!(narrowable(&base, &head));
        let joined = narrowed(&head, &base).unwrap().value().unwrap().to_json();
        let expected = json!({"matchExpressions": [
            {"key": "app", "operator": "In", "values": ["b"]},
            {"key": "app", "operator": "In", "values": ["a"]},
        ]});
        assert_eq!(joined["spec"]["podSelector"], expected);
        // An absent selector selects everything: the other one stands. The rest is own's.
        assert_eq!(
            joined["spec"]["namespaceSelector"],
            head.value().unwrap().to_json()["spec"]["namespaceSelector"]
        );
        assert_eq!(joined["spec"].get("admin"), None);
        // Whichever side holds it: own's absent or null, the other's stands.
        let other_way = narrowed(&base, &head).unwrap().value().unwrap().to_json();
        assert_eq!(
            other_way["spec"]["namespaceSelector"],
            head.value().unwrap().to_json()["spec"]["namespaceSelector"]
        );
        let null = csid(json!({"podSelector": null}));
        let kept = narrowed(&null, &base).unwrap().value().unwrap().to_json();
        assert_eq!(kept["spec"]["podSelector"], json!({"matchLabels": {"app": "a"}}));
        // Other classes: nothing.
        let classed = csid(json!({"podSelector": {"matchLabels": {"app": "b"}}, "className": "c"}));
        let none = narrowed(&classed, &base).unwrap().value().unwrap().to_json();
        assert_eq!(none["spec"]["podSelector"]["matchExpressions"][1]["operator"], "NotIn");
    }

    #[test]
    fn only_a_changed_selection_of_identities_that_are_no_fallback_is_narrowed() {
        let plain = |app: &str| csid(json!({"podSelector": {"matchLabels": {"app": app}}}));
        let fallback =
            |app: &str| csid(json!({"podSelector": {"matchLabels": {"app": app}}, "fallback": true}));
        assert!(!narrowable(&plain("a"), &plain("a")), "the same selection");
        assert!(!narrowable(&fallback("a"), &fallback("b")), "a fallback on both sides");
        // A fallback on one side keeps no other fallback from a pod and gives the most
        // fallback entries: narrowed, it is that version whole, on either side.
        assert!(narrowable(&plain("a"), &fallback("a")), "a fallback on one side");
        for (own, other) in [(plain("a"), fallback("b")), (fallback("b"), plain("a"))] {
            let kept = narrowed(&own, &other).unwrap().value().unwrap().to_json();
            assert_eq!(kept, fallback("b").value().unwrap().to_json());
        }
        let admin = csid(json!({"podSelector": {"matchLabels": {"app": "a"}}, "admin": true}));
        assert!(!narrowable(&plain("a"), &admin), "a change of power, not of selection");
        let other = Input::of(json!({"apiVersion": "example.org/v1", "kind": "ClusterSPIFFEID",
                                     "metadata": {"name": "x"}, "spec": {"podSelector": {}}}));
        assert!(!narrowable(&other, &plain("a")), "another group's kind");
        assert!(has_fallback(&[plain("a"), fallback("b")]) && !has_fallback(&[plain("a")]));
        assert!(covers(&plain("a")) && !covers(&fallback("a")));
    }

    #[test]
    fn a_version_that_may_render_otherwise_leaves_every_pod_to_a_fallback() {
        let with = |template: &str| {
            csid(json!({"podSelector": {"matchLabels": {"app": "a"}}, "spiffeIDTemplate": template}))
        };
        let (base, head) = (with("spiffe://other.org/x"), with("spiffe://example.org/x"));
        assert!(narrowable(&base, &head), "one version may fail to render");
        let none = narrowed(&head, &base).unwrap().value().unwrap().to_json();
        let exprs = &none["spec"]["podSelector"]["matchExpressions"];
        assert_eq!(
            (exprs[0]["operator"].as_str(), exprs[1]["operator"].as_str()),
            (Some("In"), Some("NotIn"))
        );
    }
}
