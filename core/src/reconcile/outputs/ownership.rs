//! Output ownership (docs/reference.md#output-and-ownership): whether each output can be
//! written (check 10); managed ClusterSPIFFEIDs are replaced in place or removed, stale
//! ones pruned, foreign ones (the operator's among them) never touched, new ones appended
//! sorted by name, each with the file slot it goes in (a path from `outputPath` and a free
//! index), as data: the edges that write files annotate it.

use crate::api::admission;
use crate::api::cluster_spiffe_id::{self as csid, ClusterSpiffeId};
use crate::api::fields;
use crate::api::names;
use crate::api::value::Value;
use crate::reconcile::items::file_slots::{self as annotations, FileSlot};
use crate::reconcile::items::input::{self, Input};
use crate::reconcile::items::item::Item;
use crate::reconcile::items::unusable::InputError;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

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

/// Places the renders (by name) among the items, in place: an item kept or replaced stays
/// where it is, one removed or pruned goes, and the new outputs follow, in the room `items`
/// has for them. `owner_present` says whether a binding of that namespace and name is in the
/// input, rendered or not. Each new output gets its slot: `output_path` with its name, and
/// an index no item uses in that file.
pub fn place(
    mut items: Vec<Item>,
    renders: Renders,
    owner_present: impl Fn(&str, &str) -> bool,
    prune: bool,
    output_path: &str,
) -> (Vec<Item>, OutputCounts) {
    let mut renders = renders;
    let mut counts = OutputCounts::default();
    items.retain_mut(|item| {
        let Some(input) = item.input() else { return true };
        match fate(input, |name| renders.contains_key(name), &owner_present, prune) {
            Fate::Replaced => {
                let name =
                    fields::child(input, &["metadata", "name"]).and_then(Value::as_str).unwrap_or_default();
                let render = renders.remove(name).expect("a replaced output has its render");
                let replaced = Item::Rendered(replace(input, render), None);
                *item = replaced;
                counts.replaced += 1;
                true
            }
            Fate::Removed => {
                counts.removed += 1;
                false
            }
            Fate::Pruned => {
                counts.pruned += 1;
                false
            }
            Fate::Kept => true,
        }
    });
    counts.added = renders.len();
    let placed: Vec<(String, Box<ClusterSpiffeId>)> =
        renders.into_iter().map(|(name, r)| (output_path.replace("{name}", &name), r)).collect();
    let files = placed.iter().map(|(path, _)| path.clone()).collect();
    let mut used = used_slots(&items, &files);
    items.reserve(placed.len());
    for (path, object) in placed {
        let index = (0u64..).find(|i| !used.contains(&(path.clone(), *i))).expect("a free index");
        used.insert((path.clone(), index));
        items.push(Item::Rendered(object, Some((path, index))));
    }
    (items, counts)
}

/// What holds a file a new output must not be written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// The input item at this position.
    Item(usize),
    /// The functionConfig, by its own file annotation.
    Config,
}

/// A new output that would land on a file of the package's own: its name, its path, and
/// the file in the way (`held`, by its holder): the same path, a file where the output
/// needs a folder (`inference.yaml` for `inference.yaml/{name}.yaml`), or a file under the
/// folder the output would be (`sub/x.yaml` for `sub`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash<'a> {
    pub name: &'a str,
    pub path: String,
    pub held: String,
    pub holder: Holder,
    pub overlap: Overlap,
}

/// How a new output's path meets the file in its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// The same path.
    Same,
    /// The same path but for case: one file on a case-insensitive disk.
    Case,
    /// The output goes under the file, where a folder would have to be.
    UnderFile,
    /// The output is a file where the file in the way has its folder.
    OnFolder,
}

/// The first output name whose file (`template` with the name) is in the way of a file
/// of the package's own (kpt mode): one that holds an input item other than this
/// function's managed ClusterSPIFFEIDs and guard objects, or the functionConfig's (`config`,
/// its value).
/// Files compare as kpt writes them: under their package (kpt's render places a
/// subpackage's `x.yaml` at `sub/x.yaml`; new outputs go to the package the function runs
/// in, the shortest package path given), without `./` and empty segments, and without
/// regard to case, as a case-insensitive disk (macOS) compares names.
pub fn clash<'a>(
    names: impl Iterator<Item = &'a str>,
    template: &str,
    items: &'a [Input],
    config: Option<&'a serde_json::Value>,
) -> Option<Clash<'a>> {
    let config_annotations = config
        .and_then(|c| fields::child(c, &["metadata", "annotations"]))
        .and_then(serde_json::Value::as_object);
    let packages =
        items.iter().filter_map(Input::package).chain(config_annotations.and_then(annotations::package_of));
    let root = packages.min_by_key(|p| p.len()).map(Path::new);
    // A file's path in the package the function runs in; `None` outside it.
    let placed = |package: Option<&str>, path: &str| -> Option<String> {
        let under = match (package, root) {
            (Some(package), Some(root)) => Path::new(package).strip_prefix(root).ok()?.to_str()?,
            _ => "",
        };
        Some(normal_path(&format!("{under}/{path}")))
    };
    let mut held: HashMap<String, (String, Holder)> = HashMap::new();
    // Items of one file come one after another: a file placed already keeps its first holder.
    let mut last: Option<(Option<&str>, &str)> = None;
    let mut hold = |package: Option<&'a str>, path: &'a str, holder: Holder| {
        if last == Some((package, path)) {
            return;
        }
        last = Some((package, path));
        if let Some(file) = placed(package, path) {
            held.entry(file.to_lowercase()).or_insert((file, holder));
        }
    };
    for (position, item) in items.iter().enumerate() {
        if item.value().is_some_and(|v| {
            (csid::is_cluster_spiffe_id(v) && csid::is_managed(v)) || admission::guard_of(v).is_some()
        }) {
            continue;
        }
        for (path, _) in item.slots() {
            hold(item.package(), path, Holder::Item(position));
        }
    }
    for (path, _) in config_annotations.into_iter().flat_map(annotations::file_slots) {
        hold(config_annotations.and_then(annotations::package_of), path, Holder::Config);
    }
    // The folders the held files stand in, each with the first file under it by name.
    let mut keys: Vec<&String> = held.keys().collect();
    keys.sort();
    let mut folders: HashMap<&str, &(String, Holder)> = HashMap::new();
    for key in keys {
        for (at, _) in key.match_indices('/') {
            folders.entry(&key[..at]).or_insert(&held[key]);
        }
    }
    names.into_iter().find_map(|name| {
        let path = normal_path(&template.replace("{name}", name));
        let key = path.to_lowercase();
        let same = held.get(&key).map(|h| (h, if h.0 == path { Overlap::Same } else { Overlap::Case }));
        let under_file = || key.match_indices('/').find_map(|(at, _)| held.get(&key[..at]));
        let ((file, holder), overlap) = same
            .or_else(|| under_file().map(|h| (h, Overlap::UnderFile)))
            .or_else(|| folders.get(key.as_str()).map(|h| (*h, Overlap::OnFolder)))?;
        Some(Clash { name, path, held: file.clone(), holder: *holder, overlap })
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
    let name = fields::child(item, &["metadata", "name"]).and_then(Value::as_str).unwrap_or_default();
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
    fresh.metadata.annotations.extend(caller_annotations(old));
    fresh
}

/// The caller's annotations of an output a fresh render replaces (kpt's file and index),
/// which the render keeps.
pub(super) fn caller_annotations(old: &Value) -> impl Iterator<Item = (String, serde_json::Value)> + '_ {
    fields::child(old, &["metadata", "annotations"])
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| annotations::is_caller_annotation(k))
        .map(|(k, v)| (k.to_string(), v.to_json()))
}

/// The (path, index) slots the items already use in the given files, in either annotation
/// form. Only the candidate files are collected, and only in the package new outputs go
/// to (the shortest package path; a subpackage's `x.yaml` is another file).
pub(super) fn used_slots(items: &[Item], files: &HashSet<String>) -> HashSet<FileSlot> {
    fn slots<'a>(item: &'a Item, files: &HashSet<String>) -> (Option<&'a str>, Vec<FileSlot>) {
        let found = item.slots().into_iter().filter(|(path, _)| files.contains(*path));
        (item.package(), found.map(|(path, index)| (path.to_string(), index)).collect())
    }
    // Reading every item's annotations is the cost; the items are many.
    let found = crate::parallel::map(items.iter().collect(), |item| slots(item, files));
    let root = found.iter().filter_map(|(package, _)| *package).min_by_key(|p| p.len());
    let in_root = |package: &Option<&str>| package.is_none() || *package == root;
    found.into_iter().filter(|(package, _)| in_root(package)).flat_map(|(_, slots)| slots).collect()
}

/// ClusterSPIFFEIDs of the input by name: the item position and whether it is managed.
pub type OutputIndex<'a> = HashMap<&'a str, (usize, bool)>;

/// ClusterSPIFFEIDs of the input by name, with whether each is managed. Two with the same
/// name are unusable input (a cluster-scoped name is unique).
pub fn index_outputs(items: &[Input]) -> Result<OutputIndex<'_>, InputError> {
    let mut by_name = HashMap::new();
    for (i, item) in input::values(items).filter(|(_, item)| csid::is_cluster_spiffe_id(*item)) {
        let Some(name) = fields::child(item, &["metadata", "name"]).and_then(Value::as_str) else {
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
/// render (both are refused: neither may take the other's identity). Each with whether it is
/// that last: the kleym operator writes the object for whichever binding it reconciles first
/// (`internal/controller/inferenceidentitybinding_spiffe.go`, `authorizeManagedOutputApply`),
/// so that binding's identity may stand.
pub fn unwritable(
    binding_names: &[&str],
    named: &[Option<String>],
    outputs: &OutputIndex<'_>,
    items: &[Input],
) -> Vec<(usize, String, bool)> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for name in named.iter().flatten() {
        *count.entry(name).or_default() += 1;
    }
    let mut failures = Vec::new();
    for (i, name) in named.iter().enumerate() {
        let Some(name) = name else { continue };
        let binding = binding_names[i];
        let failure = if let Err(e) = names::label_value(binding) {
            Some((
                format!(
                    "binding name {binding:?} cannot be the value of label {}: {e}; the API server would refuse the output",
                    csid::LABEL_BINDING_NAME
                ),
                false,
            ))
        } else if let Some(&(at, false)) = outputs.get(name.as_str()) {
            Some((
                items[at].value().map_or_else(
                    || format!("ClusterSPIFFEID {name} is not this function's"),
                    |item| foreign(name, item),
                ),
                false,
            ))
        } else if count[name.as_str()] > 1 {
            Some((
                format!("another binding renders the same ClusterSPIFFEID name {name}; refusing both"),
                true,
            ))
        } else {
            None
        };
        failures.extend(failure.map(|(message, shared)| (i, message, shared)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    /// An item of `kind` in `path` of the package at `package`.
    fn at(kind: &str, path: &str, package: Option<&str>) -> Input {
        let mut annotations = json!({"internal.config.kubernetes.io/path": path});
        if let Some(package) = package {
            annotations[annotations::PACKAGE_PATH] = json!(package);
        }
        Input::of(
            json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": "x", "annotations": annotations}}),
        )
    }

    fn clash_of(
        template: &str,
        items: &[Input],
        config: Option<&serde_json::Value>,
    ) -> Option<(String, String, Holder)> {
        clash(["out"].into_iter(), template, items, config).map(|c| (c.path, c.held, c.holder))
    }

    fn overlap_of(template: &str, items: &[Input]) -> Option<Overlap> {
        clash(["out"].into_iter(), template, items, None).map(|c| c.overlap)
    }

    #[test]
    fn files_compare_under_their_package_as_kpt_writes_them() {
        let items = [
            at("Kptfile", "Kptfile", Some("/pkg")),
            at("Kptfile", "Kptfile", Some("/pkg/sub")),
            at("ConfigMap", "x.yaml", Some("/pkg/sub")),
        ];
        assert_eq!(clash_of("x.yaml", &items, None), None);
        let found = Some(("sub/x.yaml".into(), "sub/x.yaml".into(), Holder::Item(2)));
        assert_eq!(clash_of("sub/x.yaml", &items, None), found);
        assert_eq!(clash_of("./sub//x.yaml", &items, None).map(|c| c.2), Some(Holder::Item(2)));
        // A package outside the one the function runs in is no file of it.
        let stray = [at("Kptfile", "Kptfile", Some("/pkg")), at("ConfigMap", "x.yaml", Some("/other"))];
        assert_eq!(clash_of("x.yaml", &stray, None), None);
        // Without package paths (kpt fn eval, kustomize), paths are the package's already.
        assert_eq!(
            clash_of("sub/x.yaml", &[at("ConfigMap", "sub/x.yaml", None)], None).map(|c| c.2),
            Some(Holder::Item(0))
        );
    }

    #[test]
    fn names_compare_without_case_and_folders_clash_with_files() {
        let items = [at("Deployment", "apps/web.yaml", None)];
        let case = clash_of("APPS/Web.yaml", &items, None);
        assert_eq!(case, Some(("APPS/Web.yaml".into(), "apps/web.yaml".into(), Holder::Item(0))));
        // The output needs a folder where the file is; the output file is where a folder is.
        assert_eq!(
            clash_of("apps/web.yaml/{name}.yaml", &items, None).map(|c| c.1),
            Some("apps/web.yaml".into())
        );
        assert_eq!(clash_of("Apps", &items, None).map(|c| c.1), Some("apps/web.yaml".into()));
        assert_eq!(clash_of("apps/other.yaml", &items, None), None);
        // How each meets the file: the message says it in the user's terms.
        assert_eq!(overlap_of("apps/web.yaml", &items), Some(Overlap::Same));
        assert_eq!(overlap_of("./apps//web.yaml", &items), Some(Overlap::Same));
        assert_eq!(overlap_of("APPS/Web.yaml", &items), Some(Overlap::Case));
        assert_eq!(overlap_of("apps/web.yaml/{name}.yaml", &items), Some(Overlap::UnderFile));
        assert_eq!(overlap_of("Apps/WEB.yaml/{name}.yaml", &items), Some(Overlap::UnderFile));
        assert_eq!(overlap_of("apps", &items), Some(Overlap::OnFolder));
    }

    #[test]
    fn a_folder_names_its_first_file_by_name_and_a_file_its_first_item() {
        // The same on every run: the folder's files are many, and hash order is not theirs.
        let names = ["m.yaml", "c.yaml", "x.yaml", "a.yaml", "q.yaml", "b.yaml", "z.yaml", "k.yaml"];
        let items: Vec<Input> = names.iter().map(|n| at("ConfigMap", &format!("apps/{n}"), None)).collect();
        for _ in 0..8 {
            assert_eq!(clash_of("apps", &items, None).map(|c| c.1), Some("apps/a.yaml".into()));
        }
        // Two items of one file, one after the other, and a third later: the first holds it.
        let items = [
            at("ConfigMap", "a.yaml", None),
            at("Secret", "a.yaml", None),
            at("Service", "b.yaml", None),
            at("Pod", "a.yaml", None),
        ];
        assert_eq!(clash_of("a.yaml", &items, None).map(|c| c.2), Some(Holder::Item(0)));
        assert_eq!(clash_of("b.yaml", &items, None).map(|c| c.2), Some(Holder::Item(2)));
    }

    #[test]
    fn the_config_file_is_held_and_managed_outputs_are_not() {
        let config =
            serde_json::json!({"metadata": {"annotations": {"config.kubernetes.io/path": "fn/config.yaml"}}});
        assert_eq!(clash_of("fn/Config.yaml", &[], Some(&config)).map(|c| c.2), Some(Holder::Config));
        let managed = Input::of(json!({
            "apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
            "metadata": {"name": "out", "annotations": {
                "kleym.sonda.red/rendered-by": "render-inference-identity",
                "internal.config.kubernetes.io/path": "ids.yaml"}},
        }));
        assert_eq!(clash_of("ids.yaml", &[managed], None), None);
        // A ClusterSPIFFEID of the user's own is a file of the package like any other.
        let own = Input::of(json!({
            "apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
            "metadata": {"name": "theirs", "annotations": {"internal.config.kubernetes.io/path": "ids.yaml"}},
        }));
        assert_eq!(clash_of("ids.yaml", &[own], None).map(|c| c.2), Some(Holder::Item(0)));
    }
}
