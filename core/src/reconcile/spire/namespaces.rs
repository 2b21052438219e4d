//! Which namespaces an object selects, as the manager judges them: by the Namespace objects
//! the input holds, else by the name label every namespace carries; the namespaces the
//! objects name, where a template whose item names none may land; and whether an object's
//! two selectors pick a pod template.

use super::pods::Pod;
use super::source::Source;
use crate::api::cluster_spiffe_id::NAMESPACE_NAME_LABEL;
use crate::reconcile::cluster::seen::Seen;
use crate::reconcile::cluster::selector::{Answer, Lookup, Selector};
use std::collections::{BTreeMap, HashMap};

/// Any namespace the input does not name, where a workload whose item names none may land as
/// well as in those it names: its name is none of theirs (an `In` or `k8s:ns` of a named one
/// does not hold there, a `NotIn` does), its labels and its name in a template are unknown.
/// No namespace is named by the empty string.
pub(super) const OTHER_NAMESPACE: &str = "";

/// An object's `podSelector` and `namespaceSelector`, judging pod templates one by one; each
/// namespace is judged once.
pub(super) struct Picks<'s, 'a> {
    pods: &'s Selector,
    namespaces: &'s Selector,
    seen: &'s Seen<'a>,
    by_namespace: HashMap<u32, Answer>,
}

impl<'s, 'a> Picks<'s, 'a> {
    pub(super) fn new(pods: &'s Selector, namespaces: &'s Selector, seen: &'s Seen<'a>) -> Self {
        Picks { pods, namespaces, seen, by_namespace: HashMap::new() }
    }

    /// Whether the object selects `pod` by its labels and by its namespace (`known`: the
    /// `matchLabels` label the candidates hold by the index); `None` when either surely
    /// does not.
    pub(super) fn pod(&mut self, pod: &Pod<'_>, known: Option<usize>) -> Option<(Answer, Answer)> {
        let by_pod = self.pods.selects_but(&|key: &str| pod.label(key), known);
        if by_pod == Answer::No {
            return None;
        }
        let by_namespace = if self.namespaces.is_empty() {
            Answer::Yes
        } else {
            let (namespaces, seen) = (self.namespaces, self.seen);
            *self.by_namespace.entry(pod.ns).or_insert_with(|| {
                namespace_selects(namespaces, pod.namespace, seen.namespaces.get(pod.namespace))
            })
        };
        (by_namespace != Answer::No).then_some((by_pod, by_namespace))
    }
}

/// The namespaces a selector can only select by name (`kubernetes.io/metadata.name` as a
/// `matchLabels` label or `In` values), when it names them.
pub(super) fn pinned(selector: &Selector) -> Option<Vec<String>> {
    if let Some((_, name)) = selector.match_labels.iter().find(|(k, _)| k == NAMESPACE_NAME_LABEL) {
        return Some(vec![name.clone()]);
    }
    let e = selector.expressions.iter().find(|e| e.key == NAMESPACE_NAME_LABEL && e.operator == "In")?;
    Some(e.values.clone())
}

/// The namespaces `sources` name: by a `namespaceSelector` that pins them, or a constant
/// `k8s:ns:` workload selector (a binding's).
pub(super) fn named_namespaces(sources: &[Source]) -> Vec<String> {
    let mut named = Vec::new();
    for source in sources {
        if let Some(names) = source.namespaces.as_ref().and_then(pinned) {
            named.extend(names);
        }
        named.extend(
            source
                .selector_templates
                .iter()
                .filter_map(|s| s.strip_prefix("k8s:ns:"))
                .filter(|n| !n.contains("{{"))
                .map(str::to_string),
        );
    }
    named.sort();
    named.dedup();
    named
}

/// Suffixes of the label keys a controller sets on Namespaces, over what their objects
/// declare: the Hierarchical Namespace Controller's tree labels, `<ancestor>.tree.hnc.x-k8s.io/depth`,
/// which it writes for every ancestor and removes where a user set them (kubernetes-sigs/hierarchical-namespaces
/// `internal/hierarchyconfig/reconciler.go`, `syncLabels`; `api/v1alpha2/hierarchy_types.go`,
/// `LabelTreeDepthSuffix`). Only the cluster knows them, for a declared Namespace too.
pub(super) const CONTROLLER_NAMESPACE_LABELS: [&str; 1] = [".tree.hnc.x-k8s.io/depth"];

/// Whether `selector` selects `namespace`, judged by its Namespace object's labels when
/// the input holds it, else by its name label alone: any other label is unknown, and so is
/// one a controller sets on Namespaces ([`CONTROLLER_NAMESPACE_LABELS`]).
pub fn namespace_selects(
    selector: &Selector,
    namespace: &str,
    labels: Option<&BTreeMap<String, String>>,
) -> Answer {
    let label = |key: &str| match labels {
        _ if key == NAMESPACE_NAME_LABEL => Lookup::Value(namespace),
        _ if CONTROLLER_NAMESPACE_LABELS.iter().any(|s| key.ends_with(s)) => Lookup::Unknown,
        Some(labels) => labels.get(key).map_or(Lookup::Absent, |v| Lookup::Value(v)),
        None => Lookup::Unknown,
    };
    selector.selects(&label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn a_tree_label_of_a_declared_namespace_is_the_controllers_unknown() {
        let exists = Selector::read(Some(&json!({"matchExpressions": [
            {"key": "tenant-a.tree.hnc.x-k8s.io/depth", "operator": "Exists"}]})))
        .expect("a selector");
        let declared: BTreeMap<String, String> = [("tier".to_string(), "gpu".to_string())].into();
        assert_eq!(namespace_selects(&exists, "serving", Some(&declared)), Answer::Unknown);
        // Declared or not, HNC writes it: a declared value is no more known.
        let with: BTreeMap<String, String> =
            [("tenant-a.tree.hnc.x-k8s.io/depth".to_string(), "1".to_string())].into();
        assert_eq!(namespace_selects(&exists, "serving", Some(&with)), Answer::Unknown);
        // Any other label a declared Namespace lacks, it lacks.
        let tier =
            Selector::read(Some(&json!({"matchExpressions": [{"key": "team", "operator": "Exists"}]})))
                .expect("a selector");
        assert_eq!(namespace_selects(&tier, "serving", Some(&declared)), Answer::No);
    }
}
