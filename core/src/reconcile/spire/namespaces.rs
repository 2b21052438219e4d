//! Which namespaces an object selects, as the manager judges them: by the Namespace objects
//! the input holds, else by the name label every namespace carries; and the namespaces the
//! objects name, where a template whose item names none may land.

use super::source::Source;
use crate::api::cluster_spiffe_id::NAMESPACE_NAME_LABEL;
use crate::reconcile::cluster::selector::{Answer, Lookup, Selector};
use std::collections::BTreeMap;

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

/// Whether `selector` selects `namespace`, judged by its Namespace object's labels when
/// the input holds it, else by its name label alone: any other label is unknown.
pub fn namespace_selects(
    selector: &Selector,
    namespace: &str,
    labels: Option<&BTreeMap<String, String>>,
) -> Answer {
    let label = |key: &str| match labels {
        _ if key == NAMESPACE_NAME_LABEL => Lookup::Value(namespace),
        Some(labels) => labels.get(key).map_or(Lookup::Absent, |v| Lookup::Value(v)),
        None => Lookup::Unknown,
    };
    selector.selects(&label)
}
