//! Objects declared more than once: which copy a cluster runs or holds hangs on the order an
//! applier meets them in, which the build does not judge.

use super::Unjudged;
use crate::api::value::Value;
use crate::api::{fields, group_of};
use crate::reconcile::findings::Ref;
use crate::reconcile::items::input::Input;
use crate::reconcile::rules::identity::hex;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The records of the workloads `items` declares more than once (one API group, kind,
/// namespace and name) with pod templates that differ, and of the other items it reads whole
/// (a Namespace, whose labels namespace selectors read; the admission guard's objects) whose
/// copies differ: `kubectl apply` applies each copy in
/// the order it reads the files (by name, cli-runtime's `ExpandPathsToFileVisitors`) and the
/// last one stays; Argo CD keeps the last of its target objects (`DeduplicateTargetObjects`).
/// So renaming a file changes what runs without changing a line. A copy without a namespace
/// lands in the one it is applied to (`kubectl apply -n`, an Argo CD destination: cli-runtime
/// `DefaultNamespace`, argo-cd `NormalizeTargetObjects`), so it is a copy of one in any
/// namespace. One record per copy after the first, its digest over every copy's templates in
/// input order: any reordering is a change. Copies that are the same run the same, whichever
/// stays.
pub fn find<'t>(items: &[Input], written: &dyn Fn(usize) -> Option<&'t str>) -> Vec<Unjudged> {
    // Keys first, from what each item already holds: only a key met twice has its
    // workloads read.
    let mut positions: BTreeMap<Key, Vec<(usize, String)>> = BTreeMap::new();
    let cluster = cluster_scoped_kinds(items);
    for (position, item) in items.iter().enumerate() {
        let Some((key, namespace)) = key_of(item, &cluster) else { continue };
        positions.entry(key).or_default().push((position, namespace));
    }
    // Within one key, the copies in each namespace, with those in none.
    let clashes = positions.into_values().filter(|p| p.len() > 1).flat_map(|copies| {
        let mut namespaces: Vec<&str> =
            copies.iter().map(|(_, ns)| ns.as_str()).filter(|ns| !ns.is_empty()).collect();
        namespaces.sort_unstable();
        namespaces.dedup();
        if namespaces.is_empty() {
            namespaces.push("");
        }
        namespaces
            .into_iter()
            .map(|namespace| {
                copies
                    .iter()
                    .filter(|(_, ns)| ns.is_empty() || ns == namespace)
                    .map(|(i, _)| *i)
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    });
    let groups = clashes.filter(|p| p.len() > 1).filter_map(|p| {
        let copies: Vec<Copy> = p.into_iter().filter_map(|i| Copy::of(i, &items[i], written(i))).collect();
        (copies.len() > 1).then_some(copies)
    });
    let mut out: Vec<Unjudged> = Vec::new();
    for copies in groups {
        if copies.iter().all(|c| c.content == copies[0].content) {
            continue;
        }
        let mut hash = Sha256::new();
        for c in &copies {
            hash.update(c.content.as_bytes());
            hash.update(b"\0");
        }
        let digest = hex(&hash.finalize());
        for (n, copy) in copies.iter().enumerate().skip(1) {
            // A copy without a namespace clashes in each namespace: recorded once.
            if out.iter().any(|u| u.about.item == copy.about.item) {
                continue;
            }
            out.push(Unjudged {
                about: copy.about.clone(),
                field: "metadata.name".to_string(),
                message: format!(
                    "declared {} times with {}, this copy {} of them: kubectl and Argo CD keep the copy they \
                     apply last, so {} hangs on the order of the files; declare it once",
                    copies.len(),
                    if copy.pods { "other pod templates" } else { "other contents" },
                    n + 1,
                    if copy.pods { "which pods run" } else { "what the cluster holds" },
                ),
                digest: format!("{digest}{n}"),
                copy: true,
            });
        }
    }
    out
}

/// An object's API group, kind and name.
pub(super) type Key = (String, String, String);

/// The object an item declares: its key, and its namespace (empty when it names none, or is
/// of a kind that has none). `None` for an item the reconcile passes on without pod
/// templates, which declares nothing the build reads.
pub(super) fn key_of(item: &Input, cluster: &[(&str, &str)]) -> Option<(Key, String)> {
    let (key, namespace) = match item {
        Input::Whole(value) => {
            let text = |path: &str| fields::str_at(value, path).unwrap_or_default().to_string();
            (
                (group_of(&text("apiVersion")).to_string(), text("kind"), text("metadata.name")),
                text("metadata.namespace"),
            )
        }
        Input::Passed(passed) => {
            let w = passed.workload.as_deref()?;
            let ns = w.namespace().unwrap_or_default().to_string();
            ((group_of(w.api_version()).to_string(), w.kind().to_string(), w.name().to_string()), ns)
        }
    };
    // A cluster-scoped object has no namespace: kubectl and Argo CD drop one it carries
    // (cli-runtime `NamespaceIfScoped`, argo-cd `NormalizeTargetObjects`), so copies in
    // two namespaces are one object.
    // So are copies of a kind whose every object changes what is applied (a policy engine's,
    // cluster-scoped or not): taking them for one costs no review that their change does not.
    let (group, kind) = (key.0.as_str(), key.1.as_str());
    let one = CLUSTER_GROUPS.contains(&group)
        || cluster.contains(&(group, kind))
        || super::kinds::always_applies(group, kind);
    Some((key, if one { String::new() } else { namespace }))
}

/// One copy of an object declared more than once: what it is, and what of it tells copies
/// apart (a workload's pod templates; any other item read whole, all of it but the
/// annotations that only say where a reader met it).
struct Copy {
    about: Ref,
    pods: bool,
    content: String,
}

impl Copy {
    fn of(position: usize, item: &Input, written: Option<&str>) -> Option<Copy> {
        let value = item.value().map(without_places);
        if let Some(w) = item.workload() {
            let about = Ref::of_workload(position, &w, None);
            // Its templates and what its controller settles of its pods beside them (a
            // StatefulSet's replicas name its pods), and all of it as written where the caller
            // read it (else the item, where it was read whole): a field the model does not read,
            // an annotation a template's action reads, tells copies apart too.
            let rest = written.map_or_else(|| format!("{value:?}"), str::to_string);
            return Some(Copy { about, pods: true, content: format!("{w:?}\0{rest}") });
        }
        let value = value?;
        let about = super::reference(position, &value);
        Some(Copy { about, pods: false, content: format!("{value:?}") })
    }
}

/// `value` without the annotations that only say where a reader met it.
fn without_places(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(annotations) =
        value.get("metadata").and_then(|m| m.get("annotations")).and_then(Value::as_object)
    {
        let kept: Vec<(Box<str>, Value)> = annotations
            .iter()
            .filter(|(k, _)| !super::where_it_sits(k))
            .map(|(k, v)| (k.into(), v.clone()))
            .collect();
        if let Some(metadata) =
            value.as_object_mut().map(|m| m.entry("metadata")).and_then(Value::as_object_mut)
        {
            metadata.insert("annotations", Value::Object(kept.into_iter().collect()));
        }
    }
    value
}

/// The API groups whose every kind is cluster-scoped: SPIRE Controller Manager's and
/// Kubernetes' admission configuration.
const CLUSTER_GROUPS: [&str; 2] = ["spire.spiffe.io", crate::api::admission::GROUP];

/// The kinds, by API group, whose objects have no namespace: those of Kubernetes the build
/// knows outside [`CLUSTER_GROUPS`], and those a CustomResourceDefinition of `items` declares
/// `Cluster`. A kind of neither is taken to be namespaced (docs/review.md, "Assumed, not
/// judged").
pub(super) fn cluster_scoped_kinds(items: &[Input]) -> Vec<(&str, &str)> {
    const KNOWN: &[(&str, &str)] = &[
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("node.k8s.io", "RuntimeClass"),
        ("storage.k8s.io", "StorageClass"),
    ];
    let mut kinds = KNOWN.to_vec();
    for item in items {
        let Some(value) = item.value() else { continue };
        let text = |path: &str| fields::str_at(value, path).unwrap_or_default();
        if group_of(text("apiVersion")) == "apiextensions.k8s.io"
            && text("kind") == "CustomResourceDefinition"
            && text("spec.scope") == "Cluster"
        {
            kinds.push((text("spec.group"), text("spec.names.kind")));
        }
    }
    kinds
}
