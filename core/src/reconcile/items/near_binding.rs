//! Objects that look like bindings and are not read as ones (docs/reference.md, findings,
//! `NotABinding`): another kind of the binding's group, or a kind spelled close to
//! InferenceIdentityBinding under any apiVersion. The function passes them on untouched, as
//! it passes on any kind it does not own, and renders no identity for them; the API server
//! would refuse them at apply time, so a typo there would lose an identity at deploy time
//! with nothing said at build time. This says it.

use crate::api::value::Value;
use crate::api::{binding, fields};
use crate::reconcile::findings::{Finding, Kind, Level, Ref};

/// The binding API's group.
const GROUP: &str = "kleym.sonda.red";

/// Edits (case aside) that still make a kind a misspelt binding kind.
const KIND_EDITS: usize = 2;

/// An object like a binding: its head, as the finding names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Near {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

/// The object's head when it looks like a binding and is not one; `None` for a binding and
/// for any other object.
pub fn of(value: &Value) -> Option<Near> {
    let api_version = fields::str_at(value, "apiVersion").unwrap_or_default();
    let kind = fields::str_at(value, "kind").unwrap_or_default();
    if api_version == binding::API_VERSION && kind == binding::KIND {
        return None;
    }
    let in_group = api_version.split('/').next() == Some(GROUP) && !kind.is_empty();
    // Lengths apart by more than the edits allowed cannot be that close: no distance to work
    // out. Counted in characters, as the distance is: a byte count would turn away a kind
    // whose edits are characters of several bytes.
    let spelt_close = kind.chars().count().abs_diff(binding::KIND.len()) <= KIND_EDITS
        && strsim::levenshtein(&kind.to_ascii_lowercase(), &binding::KIND.to_ascii_lowercase()) <= KIND_EDITS;
    if !in_group && !spelt_close {
        return None;
    }
    let text = |path: &[&str]| fields::child(value, path).and_then(Value::as_str).map(str::to_string);
    Some(Near {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        namespace: text(&["metadata", "namespace"]),
        name: text(&["metadata", "name"]).unwrap_or_default(),
    })
}

/// A `NotABinding` finding for each such object of the input, in input order.
pub fn findings<'a>(nears: impl IntoIterator<Item = (usize, std::borrow::Cow<'a, Near>)>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (item, near) in nears {
        let who = match (&near.namespace, near.name.as_str()) {
            (_, "") => "An object without a name".to_string(),
            (Some(ns), name) => format!("{ns}/{name}"),
            (None, name) => name.to_string(),
        };
        let what = match (near.api_version.as_str(), near.kind.as_str()) {
            ("", kind) => format!("kind {kind:?} and no apiVersion"),
            (version, "") => format!("apiVersion {version:?} and no kind"),
            (version, kind) => format!("apiVersion {version:?} and kind {kind:?}"),
        };
        let message = format!(
            "{who} has {what}, close to a binding's, but only {} {} is read as a binding: it is \
             passed on untouched and no identity is rendered for it, and a cluster that serves no such \
             kind refuses it; if it was meant as a binding, correct its apiVersion and kind",
            binding::API_VERSION,
            binding::KIND,
        );
        let about = Ref {
            item,
            api_version: near.api_version.clone(),
            kind: near.kind.clone(),
            namespace: near.namespace.clone(),
            name: near.name.clone(),
            path: None,
        };
        out.push(Finding {
            kind: Kind::NotABinding,
            level: Level::Warning,
            message,
            about,
            also: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn object(api_version: &str, kind: &str) -> Value {
        json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "b", "namespace": "ns"}})
    }

    #[test]
    fn a_kind_of_the_group_or_a_kind_spelt_close_is_like_a_binding() {
        let near = [
            ("kleym.sonda.red/v1alpha1", "InferenceIdentityBindng"),
            ("kleym.sonda.red/v1alpha1", "inferenceidentitybinding"),
            ("kleym.sonda.red/v1alpha", "InferenceIdentityBinding"),
            ("kleym.sonda.red/v1alpha1", "InferenceIdentityPolicy"),
            ("kleym.sonda.red", "InferenceIdentityBinding"),
            ("kleym.sonda.io/v1alpha1", "InferenceIdentityBinding"),
            ("v1", "InferenceIdentityBindings"),
            ("", "InfrenceIdentityBindng"),
            ("v1", "InferenceIdentityBindi€€"),
        ];
        for (api_version, kind) in near {
            let found = of(&object(api_version, kind));
            let want = Near {
                api_version: api_version.into(),
                kind: kind.into(),
                namespace: Some("ns".into()),
                name: "b".into(),
            };
            assert_eq!(found, Some(want), "{api_version} {kind}");
        }
        let far = [
            (binding::API_VERSION, binding::KIND),
            ("v1", "ConfigMap"),
            ("kleym.sonda.redx/v1", "Policy"),
            ("kleym.sonda.red/v1alpha1", ""),
            ("v1", "InferenceIdentityBnd"),
            ("inference.networking.k8s.io/v1", "InferencePool"),
        ];
        for (api_version, kind) in far {
            assert_eq!(of(&object(api_version, kind)), None, "{api_version} {kind}");
        }
        assert_eq!(of(&json!({"kind": "InferenceIdentityBindng"})).unwrap().name, "");
    }

    #[test]
    fn each_one_is_a_warning_about_its_own_item() {
        let items = [
            object("v1", "ConfigMap"),
            object("kleym.sonda.red/v1beta1", "InferenceIdentityBinding"),
            object("kleym.sonda.red/v1alpha1", "InferenceIdentityBindng"),
            json!({"kind": "InferenceIdentityBindng", "metadata": {"name": "c"}}),
        ];
        let found = findings(
            items.iter().enumerate().filter_map(|(i, v)| Some((i, std::borrow::Cow::Owned(of(v)?)))),
        );
        let about: Vec<(usize, String)> = found.iter().map(|f| (f.about.item, f.about.describe())).collect();
        let want = [
            (1, "InferenceIdentityBinding ns/b"),
            (2, "InferenceIdentityBindng ns/b"),
            (3, "InferenceIdentityBindng c"),
        ];
        assert_eq!(about, want.map(|(i, d)| (i, d.to_string())));
        assert!(found.iter().all(|f| f.kind == Kind::NotABinding && f.level == Level::Warning));
        assert!(found[1].message.starts_with(
            "ns/b has apiVersion \"kleym.sonda.red/v1alpha1\" and kind \"InferenceIdentityBindng\", close to a \
             binding's, but only kleym.sonda.red/v1alpha1 InferenceIdentityBinding is read as a binding"
        ));
        assert!(found[2].message.starts_with("c has kind \"InferenceIdentityBindng\" and no apiVersion"));
        let head = of(&json!({"apiVersion": "kleym.sonda.red/v1", "kind": "X"})).unwrap();
        let nameless = findings([(0, std::borrow::Cow::Owned(head))]);
        assert!(nameless[0].message.starts_with("An object without a name has apiVersion"));
    }
}
