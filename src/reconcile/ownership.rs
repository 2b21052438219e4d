//! Output ownership (docs/reference.md#output-and-ownership): whether each output can be
//! written (check 10); managed ClusterSPIFFEIDs are replaced in place or removed, stale
//! ones pruned, foreign ones (the operator's among them) never touched, new ones appended
//! sorted by name, each with the file slot it goes in (a path from `outputPath` and a free
//! index), as data: the edges that write files annotate it.

use super::input::{self, Input};
use super::item::Item;
use crate::api::cluster_spiffe_id::{self as csid, ClusterSpiffeId};
use crate::api::names;
use crate::reconcile::InputError;
use crate::reconcile::files::{self as annotations, FileSlot};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Rendered ClusterSPIFFEIDs by name.
pub type Renders = BTreeMap<String, Box<ClusterSpiffeId>>;

/// How many outputs each ownership rule touched.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OutputCounts {
    pub added: usize,
    pub replaced: usize,
    /// Managed outputs of bindings in the input that no longer render under that name.
    pub removed: usize,
    /// Managed outputs whose binding is not in the input.
    pub pruned: usize,
}

/// Places the renders (by name) among the items. `owner_present` says whether a binding of
/// that namespace and name is in the input, rendered or not. Each new output gets its slot:
/// `output_path` with its name, and an index no item uses in that file.
pub fn place(
    items: Vec<Item>,
    renders: Renders,
    owner_present: impl Fn(&str, &str) -> bool,
    prune: bool,
    output_path: &str,
) -> (Vec<Item>, OutputCounts) {
    let mut renders = renders;
    let mut counts = OutputCounts::default();
    let mut out = Vec::with_capacity(items.len() + renders.len());
    for item in items {
        let Some(input) = item.input() else {
            out.push(item);
            continue;
        };
        match fate(input, |name| renders.contains_key(name), &owner_present, prune) {
            Fate::Replaced => {
                let name = input.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
                let render = renders.remove(name).expect("a replaced output has its render");
                out.push(Item::Rendered(replace(input, render), None));
                counts.replaced += 1;
            }
            Fate::Removed => counts.removed += 1,
            Fate::Pruned => counts.pruned += 1,
            Fate::Kept => out.push(item),
        }
    }
    counts.added = renders.len();
    let placed: Vec<(String, Box<ClusterSpiffeId>)> =
        renders.into_iter().map(|(name, r)| (output_path.replace("{name}", &name), r)).collect();
    let files = placed.iter().map(|(path, _)| path.clone()).collect();
    let mut used = used_slots(&out, &files);
    for (path, object) in placed {
        let index = (0u64..).find(|i| !used.contains(&(path.clone(), *i))).expect("a free index");
        used.insert((path.clone(), index));
        out.push(Item::Rendered(object, Some((path, index))));
    }
    (out, counts)
}

/// Where a new output would land in a file of the package's own (kpt mode): the first
/// output name whose path (`template` with the name) is a file holding an input item other
/// than this function's managed ClusterSPIFFEIDs, with that path and the item's position.
/// Paths compare without `./` and empty segments.
pub fn clash<'a>(
    names: impl Iterator<Item = &'a str>,
    template: &str,
    items: &[Input],
) -> Option<(&'a str, String, usize)> {
    let mut held: HashMap<String, usize> = HashMap::new();
    for (position, item) in items.iter().enumerate() {
        if item.value().is_some_and(|v| csid::is_cluster_spiffe_id(v) && csid::is_managed(v)) {
            continue;
        }
        for (path, _) in item.slots() {
            held.entry(normal_path(path)).or_insert(position);
        }
    }
    names.into_iter().find_map(|name| {
        let path = normal_path(&template.replace("{name}", name));
        held.get(&path).map(|&position| (name, path, position))
    })
}

/// A relative file path without `.` and empty segments.
pub fn normal_path(path: &str) -> String {
    path.split('/').filter(|s| !s.is_empty() && *s != ".").collect::<Vec<_>>().join("/")
}

/// What becomes of an input item at placing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// A managed output a fresh render of the same name replaces in place.
    Replaced,
    /// A managed output of a binding in the input that no longer renders under its name.
    Removed,
    /// A managed output whose binding is gone, under `prune`.
    Pruned,
    /// Anything else: it stays as it came.
    Kept,
}

/// The fate of an input item: `rendered` says whether a render of that name exists,
/// `owner_present` whether the (namespace, name) binding is in the input.
pub fn fate(
    item: &Value,
    rendered: impl Fn(&str) -> bool,
    owner_present: impl Fn(&str, &str) -> bool,
    prune: bool,
) -> Fate {
    if !(csid::is_cluster_spiffe_id(item) && csid::is_managed(item)) {
        return Fate::Kept;
    }
    let name = item.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    if rendered(name) {
        Fate::Replaced
    } else if csid::binding_of(item).is_some_and(|(ns, name)| owner_present(ns, name)) {
        Fate::Removed
    } else if prune {
        Fate::Pruned
    } else {
        Fate::Kept
    }
}

/// The fresh render, keeping the caller's annotations of the object it replaces.
fn replace(old: &Value, mut fresh: Box<ClusterSpiffeId>) -> Box<ClusterSpiffeId> {
    let kept = old
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| annotations::is_caller_annotation(k))
        .map(|(k, v)| (k.clone(), v.clone()));
    fresh.metadata.annotations.extend(kept);
    fresh
}

/// The (path, index) slots the items already use in the given files, in either annotation
/// form. Only the candidate files are collected.
fn used_slots(items: &[Item], files: &HashSet<String>) -> HashSet<FileSlot> {
    let slots = |item: &Item| -> Vec<FileSlot> {
        let found = item.slots().into_iter().filter(|(path, _)| files.contains(*path));
        found.map(|(path, index)| (path.to_string(), index)).collect()
    };
    // Reading every item's annotations is the cost; the items are many.
    crate::parallel::map(items.iter().collect(), slots).into_iter().flatten().collect()
}

/// ClusterSPIFFEIDs of the input by name: the item position and whether it is managed.
pub type OutputIndex<'a> = HashMap<&'a str, (usize, bool)>;

/// ClusterSPIFFEIDs of the input by name, with whether each is managed. Two with the same
/// name are unusable input (a cluster-scoped name is unique).
pub fn index_outputs(items: &[Input]) -> Result<OutputIndex<'_>, InputError> {
    let mut by_name = HashMap::new();
    for (i, item) in input::values(items).filter(|(_, item)| csid::is_cluster_spiffe_id(item)) {
        let Some(name) = item.pointer("/metadata/name").and_then(Value::as_str) else {
            return Err(InputError::from((i, "ClusterSPIFFEID has no metadata.name".to_string())));
        };
        if let Some((first, _)) = by_name.insert(name, (i, csid::is_managed(item))) {
            let message = format!("ClusterSPIFFEID {name} appears twice in the input");
            return Err(InputError::repeating(i, first, message));
        }
    }
    Ok(by_name)
}

/// Check 10: why the output of binding `i` cannot be written, for each binding whose output
/// cannot be. `named[i]` is the output name of binding `i`, `None` when it does not render.
/// Refused: a binding name that is no label value (the API server would refuse the label),
/// a name a foreign ClusterSPIFFEID of the input already has, and a name two bindings
/// render (both are refused: neither may take the other's identity).
pub fn unwritable(
    binding_names: &[&str],
    named: &[Option<String>],
    outputs: &OutputIndex<'_>,
    items: &[Input],
) -> Vec<(usize, String)> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for name in named.iter().flatten() {
        *count.entry(name).or_default() += 1;
    }
    let mut failures = Vec::new();
    for (i, name) in named.iter().enumerate() {
        let Some(name) = name else { continue };
        let binding = binding_names[i];
        let failure = if let Err(e) = names::label_value(binding) {
            Some(format!(
                "binding name {binding:?} cannot be the value of label {}: {e}; the API server would refuse the output",
                csid::LABEL_BINDING_NAME
            ))
        } else if let Some(&(at, false)) = outputs.get(name.as_str()) {
            Some(items[at].value().map_or_else(
                || format!("ClusterSPIFFEID {name} is not this function's"),
                |item| foreign(name, item),
            ))
        } else if count[name.as_str()] > 1 {
            Some(format!("another binding renders the same ClusterSPIFFEID name {name}; refusing both"))
        } else {
            None
        };
        failures.extend(failure.map(|message| (i, message)));
    }
    failures
}

/// Why a foreign ClusterSPIFFEID of the input blocks the output of the same name.
fn foreign(name: &str, item: &Value) -> String {
    let file = match annotations::file_of(item) {
        Some((path, index)) => format!(" (file {path}, index {index})"),
        None => String::new(),
    };
    if csid::is_operators(item) {
        return format!(
            "ClusterSPIFFEID {name} in the input{file} carries annotation {}: it is the operator's object \
             (the kleym operator created it and owns it), so this function will not replace it. While the \
             operator manages this binding, leave the binding out of the build-time render; to move it to \
             build time, follow the move in the README (Compatibility with the kleym operator) and take \
             the operator's object out of the input",
            csid::ANNOTATION_OWNERSHIP_CLAIM
        );
    }
    format!(
        "ClusterSPIFFEID {name} already exists in the input{file} without annotation {}: {}; \
         refusing to replace an object this function does not own",
        csid::ANNOTATION_RENDERED_BY,
        csid::RENDERED_BY
    )
}
