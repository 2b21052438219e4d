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
        let differs = |field: &str| rendered.get(field) != written.get(field);
        if let Some(field) = ["spec", "data"].into_iter().find(|f| differs(f)) {
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

/// The guard as committed: whether the input holds any of its objects, and the records of
/// those that are not its render.
pub struct Edits {
    pub committed: bool,
    pub records: Vec<Unjudged>,
}
