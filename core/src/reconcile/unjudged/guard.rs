//! The admission guard as committed: its objects applied as they are in the files, when
//! they are not what this run renders.

use super::{Unjudged, record};
use crate::api::admission::{GuardObject, ObjectKey};
use crate::api::value::Value;
use crate::reconcile::items::input::Input;
use std::collections::HashMap;

/// The records of the guard `guard` as committed among `items`, against `fresh`, the
/// objects this run renders for it. A folder applied as committed (kubectl, an Argo CD
/// directory application, `kpt live apply`) applies the guard's files as they are: one whose
/// `spec` or `data` (all the API server's admission plugin reads) differs from its fresh
/// render may admit what the render denies, and one the files lack leaves its namespace
/// unguarded. None when the input commits none of the guard's objects: then the render is
/// what is applied, and `diff` stops a HEAD that no longer commits what BASE did.
pub fn edits(items: &[Input], guard: &str, fresh: &[GuardObject]) -> Edits {
    let committed: Vec<(usize, &Value, ObjectKey)> = items
        .iter()
        .enumerate()
        .filter_map(|(at, item)| {
            let (key, owner) = item.admission()?;
            (owner == Some(guard)).then_some((at, item.value()?, key))
        })
        .collect();
    let Some(&(anchor, anchor_value, _)) = committed.first() else {
        return Edits { committed: false, records: Vec::new() };
    };
    let by_key: HashMap<&ObjectKey, (usize, &Value)> =
        committed.iter().map(|(at, value, key)| (key, (*at, *value))).collect();
    let mut out = Vec::new();
    for object in fresh {
        let key = object.key();
        let (kind, name) = (object.kind(), &object.metadata().name);
        let Some(&(at, value)) = by_key.get(&key) else {
            out.push(record(
                anchor,
                anchor_value,
                format!("{kind} {name}"),
                format!(
                    "the admission guard {guard:?} is committed without its {kind} {name}: applied as committed \
                     (kubectl apply, an Argo CD directory application, kpt live apply), what that object \
                     denies is admitted; render the folder again"
                ),
                &[],
                &[],
            ));
            continue;
        };
        let Ok(rendered) = serde_json::to_value(object) else { continue };
        let Ok(written) = serde_json::to_value(value) else { continue };
        if let Some(field) = edited(&rendered, &written) {
            out.push(record(
                at,
                value,
                field.to_string(),
                format!(
                    "the admission guard's {kind} {name}, as committed, is not what renders now: applied as \
                     committed (kubectl apply, an Argo CD directory application, kpt live apply), it may admit \
                     what the render denies; render the folder again, or drop the edit"
                ),
                &[],
                &[],
            ));
        }
    }
    Edits { committed: true, records: out }
}

/// The first field of a guard object as committed (`written`) that is not its render, in the
/// order the API server and the appliers read them: `spec` and `data` (all the admission
/// plugin reads), any other field beside `metadata` (an `items` field makes kubectl and Argo CD
/// take the object for a List and never apply it: apimachinery `unstructured/helpers.go`,
/// `decodeToList`; Argo CD `IsList`), then its annotations, by which appliers skip, defer or
/// delete an object (`config.kubernetes.io/local-config`, Argo CD's hooks and sync options).
/// The annotations a reader adds to say where an item sits (kpt's and kustomize's
/// `config.kubernetes.io/index`, `path` and `internal.config.kubernetes.io/`) are no edit.
fn edited(rendered: &serde_json::Value, written: &serde_json::Value) -> Option<String> {
    let differs = |field: &str| rendered.get(field) != written.get(field);
    let keys =
        |v: &serde_json::Value| v.as_object().into_iter().flat_map(|m| m.keys().cloned()).collect::<Vec<_>>();
    let mut others: Vec<String> = keys(rendered).into_iter().chain(keys(written)).collect();
    others.retain(|k| !["spec", "data", "metadata"].contains(&k.as_str()));
    others.sort();
    let top = ["spec".to_string(), "data".to_string()].into_iter().chain(others);
    if let Some(field) = top.into_iter().find(|f| differs(f)) {
        return Some(field);
    }
    let annotations = |v: &serde_json::Value| -> std::collections::BTreeMap<String, serde_json::Value> {
        let map = v.pointer("/metadata/annotations").and_then(serde_json::Value::as_object);
        map.into_iter()
            .flatten()
            .filter(|(k, _)| {
                !k.starts_with("internal.config.kubernetes.io/")
                    && !["config.kubernetes.io/index", "config.kubernetes.io/path"].contains(&k.as_str())
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    (annotations(rendered) != annotations(written)).then(|| "metadata.annotations".to_string())
}

/// The guard as committed: whether the input holds any of its objects, and the records of
/// those that are not its render.
pub struct Edits {
    pub committed: bool,
    pub records: Vec<Unjudged>,
}

#[cfg(test)]
mod tests {
    use super::edited;
    use serde_json::json;

    /// What appliers read is an edit; where a reader says an item sits is not.
    #[test]
    fn a_guard_object_is_edited_by_any_field_an_applier_reads() {
        let rendered = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "g", "annotations": {"kleym.sonda.red/admission-guard": "g"}},
            "data": {"k": "v"}
        });
        let with = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut written = rendered.clone();
            edit(&mut written);
            edited(&rendered, &written)
        };
        assert_eq!(with(&|_| {}), None);
        assert_eq!(with(&|w| w["data"]["k"] = json!("w")).as_deref(), Some("data"));
        assert_eq!(with(&|w| w["items"] = json!([])).as_deref(), Some("items"));
        assert_eq!(with(&|w| w["items"] = json!(null)).as_deref(), Some("items"), "null is a field");
        let annotate = |key: &'static str| {
            move |w: &mut serde_json::Value| w["metadata"]["annotations"][key] = json!("x")
        };
        assert_eq!(
            with(&annotate("config.kubernetes.io/local-config")).as_deref(),
            Some("metadata.annotations")
        );
        assert_eq!(with(&annotate("argocd.argoproj.io/hook")).as_deref(), Some("metadata.annotations"));
        for where_it_sits in [
            "config.kubernetes.io/index",
            "config.kubernetes.io/path",
            "internal.config.kubernetes.io/path",
            "internal.config.kubernetes.io/seqindent",
        ] {
            assert_eq!(with(&annotate(where_it_sits)), None, "{where_it_sits}");
        }
        assert_eq!(
            with(&|w| w["metadata"]["labels"] = json!({"a": "b"})),
            None,
            "labels are read by no applier"
        );
        // A field the render has and the file lacks is an edit too.
        assert_eq!(
            with(&|w| w.as_object_mut().unwrap().remove("data").map(drop).unwrap()).as_deref(),
            Some("data")
        );
    }
}
