//! How far a walk builds a node: whole, an item's head and pod templates (and a List's items'
//! heads), or nothing; what each key and entry is built as below a node built one way.

use crate::api::value::{Map, Value};
use crate::reconcile::cluster::{controllers, workload};
use crate::reconcile::kinds;

/// How much of a node to build. Of an item the reconcile only passes on, it needs its head
/// and its pod templates: [`Build::Head`] builds just those, a skeleton in which
/// `reconcile::coverage::workload_of` finds what it finds in the whole item, and
/// `reconcile::lists` the kinds of a List's items. A pod template
/// may stand anywhere in an item, so every mode but [`Build::Whole`] and [`Build::Nothing`]
/// probes the keys it does not build whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    Whole,
    /// An item: `apiVersion` and `kind` whole, `metadata` as [`Build::Metadata`], `items`
    /// as [`Build::Entries`], the rest probed.
    Head,
    /// A List's `items`: its entries as [`Build::Entry`], kept in their places, so the
    /// reconcile sees what a List holds (`reconcile::lists`).
    Entries,
    /// An entry of a List's `items`: `apiVersion` and `kind` whole, the rest probed; its
    /// `apiVersion` and `kind` kept only when the reconcile would read it (`entry` below), so a
    /// List of ConfigMaps costs no more than before.
    Entry,
    /// An item's metadata: `annotations` (where kpt and kustomize keep file paths), `name`,
    /// `namespace` and `labels` whole, the rest probed.
    Metadata,
    /// A node that may hold pod templates: of a mapping, `metadata` and `podMetadata` as
    /// [`Build::ProbeMetadata`], `containers` and `initContainers` as [`Build::Shape`], the service account
    /// fields, `podLabels` and the keys of the fields that shape a controller's pods whole,
    /// the rest probed; kept only when something in it is.
    Probe,
    /// A nested metadata: `labels` whole, the rest probed.
    ProbeMetadata,
    /// Whether the node is a sequence (kept, its entries as [`Build::Container`], so it is one
    /// even when nothing in it is); anything else is probed.
    Shape,
    /// An entry of `containers`: `name` and `image` whole (SPIRE's container and image
    /// selectors are judged by them), the rest probed. An entry with nothing built keeps its
    /// place as a null, so every container counts.
    Container,
    Nothing,
}

impl Build {
    pub(super) fn child(self, key: &str) -> Build {
        match (self, key) {
            (Build::Whole, _) => Build::Whole,
            (Build::Nothing, _) => Build::Nothing,
            (Build::Head | Build::Entry, "apiVersion" | "kind")
            | (Build::Metadata, "annotations" | "name" | "namespace" | "labels")
            | (Build::ProbeMetadata, "labels")
            | (Build::Container, "name" | "image") => Build::Whole,
            (Build::Head, "metadata") => Build::Metadata,
            (Build::Head, "items") => Build::Entries,
            // Every probing mode alike: what a pod template is read from, and the rest.
            // `podMetadata` and `podLabels` are the pod labels of a kind the reconcile knows
            // only by them; the fields a controller's declaration says shape its pods
            // (`replicas`, `ordinals`, `manualSelector`, `generateName`...) are built wherever
            // they stand (`cluster/controllers/`).
            (_, "serviceAccountName" | "serviceAccount" | "podLabels") => Build::Whole,
            (_, key) if controllers::is_shape_key(key) => Build::Whole,
            (_, "metadata" | "podMetadata") => Build::ProbeMetadata,
            (_, "containers" | "initContainers") => Build::Shape,
            _ => Build::Probe,
        }
    }

    /// What the elements of a sequence are built as.
    pub(super) fn element(self) -> Build {
        match self {
            Build::Whole => Build::Whole,
            Build::Nothing => Build::Nothing,
            Build::Entries => Build::Entry,
            Build::Shape => Build::Container,
            _ => Build::Probe,
        }
    }

    /// Whether a node built this way is kept only when something in it is; a scalar, never.
    pub(super) fn sparse(self) -> bool {
        matches!(
            self,
            Build::Nothing
                | Build::Probe
                | Build::ProbeMetadata
                | Build::Shape
                | Build::Container
                | Build::Entries
                | Build::Entry
        )
    }
}

/// An entry of a List's `items` as built ([`Build::Entry`]), kept as far as
/// `reconcile::lists` reads it: its `apiVersion` and `kind` when it is of a kind the reconcile
/// reads, of a kind it does not judge, of one a rule reads only alone (`kinds::judged_alone`),
/// or holds a pod template, and what else was built (a template's labels) in any case.
/// The list reads in it what it reads in the whole entry.
pub(super) fn entry(built: Vec<(Box<str>, Value)>) -> Option<Value> {
    let text = |name: &str| built.iter().find(|(key, _)| &**key == name).and_then(|(_, v)| v.as_str());
    let (api_version, kind) = (text("apiVersion").unwrap_or_default(), text("kind"));
    // One without a kind or an apiVersion takes the List's (`reconcile::lists`): kept, so
    // that the List is read whole.
    if kind.is_none_or(str::is_empty) || api_version.is_empty() {
        return Some(Value::Object(Map::from_unique(built)));
    }
    if kind.is_some_and(|kind| kinds::reads_whole(kind) || !kinds::is_judged(api_version, kind)) {
        return Some(Value::Object(Map::from_unique(built)));
    }
    // A kind a rule reads only as an object of its own (a Service, a ConfigMap, a scaler):
    // the List is read whole, and a record by it.
    if let Some(kind) = kind {
        let head = |k: &str, v: &str| (Box::<str>::from(k), Value::String(v.into()));
        let head = Value::Object(Map::from_unique(vec![head("apiVersion", api_version), head("kind", kind)]));
        if kinds::judged_alone(&head) {
            return Some(Value::Object(Map::from_unique(built)));
        }
    }
    // Whether it holds a pod template does not hang on its head, which is kept only then.
    let (head, rest): (Vec<_>, Vec<_>) =
        built.into_iter().partition(|(key, _)| &**key == "kind" || &**key == "apiVersion");
    let mut entry = Value::Object(Map::from_unique(rest));
    let templates = workload::workload_of(&entry).is_some();
    match &mut entry {
        Value::Object(map) if templates => head.into_iter().for_each(|(key, value)| map.insert(&key, value)),
        Value::Object(map) if map.is_empty() => return None,
        _ => {}
    }
    Some(entry)
}

#[cfg(test)]
mod tests {
    use super::Build;
    use super::{kinds, workload};
    use crate::api::value::Value;

    /// Below a node built whole or not at all, everything is built the same way: the
    /// exact reader walks whole inputs building nothing, and must not build below.
    #[test]
    fn whole_and_nothing_hold_all_the_way_down() {
        for key in
            ["apiVersion", "kind", "metadata", "items", "labels", "containers", "serviceAccountName", "x"]
        {
            assert_eq!(Build::Whole.child(key), Build::Whole, "{key}");
            assert_eq!(Build::Nothing.child(key), Build::Nothing, "{key}");
        }
        assert_eq!(Build::Whole.element(), Build::Whole);
        assert_eq!(Build::Nothing.element(), Build::Nothing);
        assert_eq!(Build::Entries.element(), Build::Entry);
        assert_eq!(Build::Head.element(), Build::Probe);
    }

    /// The head of an item the reconcile passes on holds, for the reconcile, what the whole
    /// item holds: the same pod templates, labels, accounts and pod names, on every document
    /// of the golden cases and on the shapes a head once dropped (a StatefulSet's
    /// `replicas`, the `podMetadata` and `podLabels` of a kind known only by them).
    #[test]
    fn a_head_holds_what_the_reconcile_reads_of_every_item() {
        let shapes = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web, namespace: s}\nspec:\n  \
                      replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: []}\n\
                      ---\napiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  \
                      podLabels: {app: llama}\n  serviceAccountName: llama\n\
                      ---\napiVersion: example.com/v1\nkind: Other\nmetadata: {name: o}\nspec:\n  \
                      podMetadata:\n    labels: {app: llama}\n    annotations: {a: b}\n\
                      ---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: one, namespace: s}\nspec:\n  \
                      ordinals: {start: 5}\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: []}\n\
                      ---\napiVersion: batch/v1\nkind: Job\nmetadata: {generateName: run-, namespace: s}\nspec:\n  \
                      manualSelector: true\n  completionMode: Indexed\n  completions: 3\n  selector: {matchLabels: {app: run}}\n  \
                      template:\n    metadata: {labels: {app: run}}\n    spec: {containers: []}\n\
                      ---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, namespace: s}\nspec:\n  \
                      jobTemplate:\n    spec:\n      completionMode: Indexed\n      completions: 4\n      \
                      template:\n        metadata: {labels: {app: c}}\n        spec: {containers: []}\n\
                      ---\napiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\nspec:\n  \
                      leaderWorkerTemplate:\n    size: 1\n    leaderTemplate:\n      spec: {containers: []}\n    \
                      workerTemplate:\n      spec: {containers: []}\n\
                      ---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: s}\nspec:\n  \
                      containers:\n  - {name: vllm, image: 'vllm:1', args: [a]}\n  - {args: [a]}\n  - {}\n  \
                      initContainers:\n  - {name: fetch, image: 'fetch:1'}\n";
        let mut texts = vec![("shapes".to_string(), shapes.to_string())];
        for path in crate::io::read::yaml_files_under(&["testdata"]) {
            texts.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
        }
        let (mut compared, mut templates) = (0, 0);
        for (name, text) in &texts {
            for document in text.split("\n---\n") {
                let Ok(whole) = crate::yaml::parse(document).map(Value::from) else { continue };
                let kind = whole.get("kind").and_then(Value::as_str).unwrap_or_default();
                if kinds::reads_whole(kind) {
                    continue;
                }
                let Ok((Some(node), _)) =
                    super::super::document(document, 0, Build::Head, super::super::Limits::NONE)
                else {
                    continue;
                };
                let Some(head) = node.value.filter(|_| node.exact) else { continue };
                let of = workload::workload_of;
                assert_eq!(of(&head), of(&whole), "{name}: {document}");
                compared += 1;
                templates += of(&whole).map_or(0, |w| w.templates().len());
            }
        }
        assert!(compared > 400 && templates > 150, "{compared} items, {templates} templates");
        let shapes: Vec<Value> =
            shapes.split("\n---\n").map(|d| crate::yaml::parse(d).unwrap().into()).collect();
        let of = |i: usize| workload::workload_of(&shapes[i]).unwrap();
        assert_eq!(of(0).pod_name(), None, "three replicas: three pod names");
        assert_eq!(of(1).templates()[0].label("app"), Some("llama"));
        assert_eq!(of(2).templates()[0].label("app"), Some("llama"));
        // The fields a controller's declaration names, which a head builds too.
        assert_eq!(of(3).pod_name(), Some("one-5"), "a StatefulSet's ordinals");
        assert_eq!(
            of(4).owner().detail,
            "manualSelector; Indexed; completions 3; generated name",
            "a Job's manualSelector, completionMode, completions, generateName"
        );
        assert_eq!(
            of(5).owner().detail,
            "Indexed; completions 4; generated name",
            "a CronJob's Jobs' completionMode and completions"
        );
        assert_eq!(of(6).templates().len(), 1, "a group of one has no workers");
        // Every container counts, those with nothing the head builds too.
        let containers: Vec<_> = of(7).templates()[0].containers().iter().map(|c| c.0.to_string()).collect();
        assert_eq!(containers, ["vllm", "", "", "fetch"]);
    }
}
