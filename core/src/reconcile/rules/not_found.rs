//! The message of `TargetPoolNotFound`: besides what was searched, what the input does
//! hold, so that a typo, a pool without a namespace or a pool in another namespace shows at
//! once.

use crate::api::fields;
use crate::api::pool::PoolApi;
use crate::reconcile::cluster::kserve::{Derivation, Pool};
use crate::reconcile::items::input::{self, Input};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// Pool names listed in a message.
const LISTED: usize = 5;

/// Namespaces listed for a pool found elsewhere.
const OTHER_NAMESPACES: usize = 3;

/// Typo suggestions are looked for among at most this many names of a namespace: beyond,
/// the list is no help and the search would cost more than the whole reconcile.
const SUGGEST_AMONG: usize = 256;

/// Why a pool is usually where it is not looked for.
const NAMESPACE_CAUSE: &str =
    "kustomize's namespace: sets it only on the items of the kustomization that declares it";

/// Every InferencePool of the input by name, with its namespace (`None`: it has none) and
/// API; only for messages, so it is indexed on the first message, never in a run where
/// every pool is found.
#[derive(Default)]
pub struct PoolNames<'a> {
    items: &'a [Input],
    /// What KServe makes of the input's `LLMInferenceService`s.
    services: Vec<Derivation>,
    index: OnceLock<NameIndex<'a>>,
}

/// Where pools of one name are: namespace (`None`: none) and API.
type Places<'a> = Vec<(Option<Cow<'a, str>>, PoolApi)>;

#[derive(Default)]
struct NameIndex<'a> {
    by_name: BTreeMap<Cow<'a, str>, Places<'a>>,
    by_namespace: BTreeMap<Cow<'a, str>, BTreeSet<Cow<'a, str>>>,
    /// KServe LLMInferenceServices that create no pool the build knows, by namespace: name
    /// and why.
    kserve: BTreeMap<String, Vec<(String, String)>>,
}

impl<'a> NameIndex<'a> {
    fn build(items: &'a [Input], services: &[Derivation]) -> Self {
        let mut index = NameIndex::default();
        for service in services {
            let ns = service.namespace.clone().unwrap_or_default();
            let why = match &service.pool {
                // A pool without a namespace is one no binding finds: named only by its service.
                Pool::Creates { name, .. } if service.namespace.is_some() => {
                    let name: Cow<str> = Cow::Owned(name.clone());
                    let namespace = service.namespace.clone().map(Cow::Owned);
                    index.by_name.entry(name.clone()).or_default().push((namespace, PoolApi::V1));
                    index.by_namespace.entry(Cow::Owned(ns)).or_default().insert(name);
                    continue;
                }
                Pool::Uses(pool) => {
                    format!("uses InferencePool {pool:?} (spec.router.scheduler.pool.ref) and creates none")
                }
                Pool::Creates { .. } => continue,
                Pool::Refused(why) => {
                    format!("is refused by KServe, which makes no pool and no pods for it: {why}")
                }
                Pool::None(why) => why.to_string(),
                Pool::Unknown => {
                    "creates a pool the build cannot name (see its KServeUnknown finding)".into()
                }
            };
            index.kserve.entry(ns).or_default().push((service.name.clone(), why));
        }
        for (_, item) in input::values(items) {
            let (Some(api), Some(name)) = (PoolApi::of_item(item), fields::str_at(item, "metadata.name"))
            else {
                continue;
            };
            let namespace = fields::str_at(item, "metadata.namespace").filter(|ns| !ns.is_empty());
            index.by_name.entry(Cow::Borrowed(name)).or_default().push((namespace.map(Cow::Borrowed), api));
            if let Some(ns) = namespace {
                index.by_namespace.entry(Cow::Borrowed(ns)).or_default().insert(Cow::Borrowed(name));
            }
        }
        index
    }
}

impl<'a> PoolNames<'a> {
    /// The pools of `items` and those KServe makes of its `services`, indexed when a message
    /// first needs them.
    pub fn build(items: &'a [Input], services: Vec<Derivation>) -> Self {
        PoolNames { items, services, index: OnceLock::new() }
    }

    /// The message for a pool `name` not found in `namespace` among the `searched` APIs;
    /// `reference` is the name the binding gives, when kustomize renamed the pool since.
    pub fn message(&self, name: &str, reference: &str, namespace: &str, searched: &[PoolApi]) -> String {
        let index = self.index.get_or_init(|| NameIndex::build(self.items, &self.services));
        let listed = |apis: &[PoolApi]| apis.iter().map(|a| a.api_version()).collect::<Vec<_>>().join(", ");
        let renamed = if reference == name {
            String::new()
        } else {
            format!(" (kustomize's final name for {reference:?})")
        };
        let mut parts = vec![format!(
            "InferencePool {name:?}{renamed} was not found in namespace {namespace} (searched {})",
            listed(searched)
        )];
        let same_name = index.by_name.get(name).map(Vec::as_slice).unwrap_or_default();
        let unsearched: Vec<PoolApi> = same_name
            .iter()
            .filter(|(ns, _)| ns.as_deref() == Some(namespace))
            .map(|&(_, api)| api)
            .collect();
        if !unsearched.is_empty() {
            parts.push(format!(
                "one exists there as {}, which this binding does not use (spec.poolRef.group, or the served APIs)",
                listed(&unsearched)
            ));
        }
        let without_namespace = same_name.iter().any(|(ns, _)| ns.is_none());
        if without_namespace {
            parts.push(format!(
                "one without metadata.namespace is in the input: give it namespace {namespace}"
            ));
        }
        let elsewhere: BTreeSet<&str> =
            same_name.iter().filter_map(|(ns, _)| ns.as_deref().filter(|ns| *ns != namespace)).collect();
        if !elsewhere.is_empty() {
            parts.push(format!(
                "one is in namespace {}, and a binding uses only pools in its own",
                first_of(&elsewhere, OTHER_NAMESPACES)
            ));
        }
        if without_namespace || !elsewhere.is_empty() {
            parts.push(format!("({NAMESPACE_CAUSE})"));
        }
        match index.by_namespace.get(namespace) {
            None => parts.push(format!("namespace {namespace} holds no InferencePool")),
            Some(there) => {
                let there: BTreeSet<&str> = there.iter().map(|n| n.as_ref()).collect();
                let there = &there;
                let suggestion = nearest(name, there).map(|near| format!(" (did you mean {near:?}?)"));
                parts.push(format!(
                    "pools in {namespace}: {}{}",
                    first_of(there, LISTED),
                    suggestion.unwrap_or_default()
                ));
            }
        }
        for (service, why) in index.kserve.get(namespace).into_iter().flatten().take(LISTED) {
            parts.push(format!("KServe LLMInferenceService {namespace}/{service} {why}"));
        }
        let (head, rest) = parts.split_at(1);
        rest.iter().fold(head[0].clone(), |mut message, part| {
            message.push_str(if part.starts_with('(') { " " } else { "; " });
            message.push_str(part);
            message
        })
    }
}

/// `a, b, c and 2 more`.
fn first_of(names: &BTreeSet<&str>, count: usize) -> String {
    let named: Vec<&str> = names.iter().take(count).copied().collect();
    match names.len() - named.len() {
        0 => named.join(", "),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// The name of `names` nearest to `wanted` when it is close enough to be a typo: at most a
/// third of its characters edited (at least one). The first in order wins a tie.
pub fn nearest<'a>(wanted: &str, names: &BTreeSet<&'a str>) -> Option<&'a str> {
    if names.len() > SUGGEST_AMONG {
        return None;
    }
    let limit = (wanted.chars().count() / 3).max(1);
    names
        .iter()
        .filter(|n| **n != wanted)
        .filter(|n| n.chars().count().abs_diff(wanted.chars().count()) <= limit)
        .map(|n| (strsim::levenshtein(wanted, n), *n))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn pool(name: &str, namespace: Option<&str>) -> Value {
        let mut metadata = json!({"name": name});
        if let Some(ns) = namespace {
            metadata["namespace"] = json!(ns);
        }
        json!({"apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool", "metadata": metadata})
    }

    const SEARCHED: [PoolApi; 2] = PoolApi::PREFERENCE;

    #[test]
    fn a_typo_gets_the_nearest_name_and_the_pools_of_the_namespace() {
        let items =
            [pool("llama", Some("serving")), pool("mistral", Some("serving")), pool("qwen", Some("batch"))];
        let items: Vec<Input> = items.into_iter().map(|v| Input::Whole(v.into())).collect();
        let names = PoolNames::build(&items, Vec::new());
        assert_eq!(
            names.message("lama", "lama", "serving", &SEARCHED),
            "InferencePool \"lama\" was not found in namespace serving (searched inference.networking.k8s.io/v1, \
             inference.networking.x-k8s.io/v1alpha2); pools in serving: llama, mistral (did you mean \"llama\"?)"
        );
        let far = names.message("gemma", "gemma", "serving", &SEARCHED);
        assert!(!far.contains("did you mean"), "{far}");
        assert!(far.ends_with("; pools in serving: llama, mistral"), "{far}");
    }

    #[test]
    fn a_pool_elsewhere_or_without_a_namespace_is_named_with_the_usual_cause() {
        let items = [pool("llama", None), pool("llama", Some("batch")), pool("other", Some("serving"))];
        let items: Vec<Input> = items.into_iter().map(|v| Input::Whole(v.into())).collect();
        let names = PoolNames::build(&items, Vec::new());
        let message = names.message("llama", "llama", "serving", &SEARCHED[..1]);
        assert_eq!(
            message,
            "InferencePool \"llama\" was not found in namespace serving (searched inference.networking.k8s.io/v1); \
             one without metadata.namespace is in the input: give it namespace serving; one is in namespace batch, \
             and a binding uses only pools in its own (kustomize's namespace: sets it only on the items of the \
             kustomization that declares it); pools in serving: other"
        );
    }

    #[test]
    fn an_empty_namespace_a_long_list_and_an_unsearched_api_are_said_so() {
        let mut items: Vec<Value> = (0..8).map(|i| pool(&format!("p{i}"), Some("many"))).collect();
        items.push(json!({"apiVersion": "inference.networking.x-k8s.io/v1alpha2", "kind": "InferencePool",
                          "metadata": {"name": "alpha", "namespace": "many"}}));
        let items: Vec<Input> = items.into_iter().map(|v| Input::Whole(v.into())).collect();
        let names = PoolNames::build(&items, Vec::new());
        let none = names.message("llama", "llama", "empty", &SEARCHED);
        assert!(none.ends_with("; namespace empty holds no InferencePool"), "{none}");
        let many = names.message("q", "q", "many", &SEARCHED[..1]);
        assert!(many.ends_with("; pools in many: alpha, p0, p1, p2, p3 and 4 more"), "{many}");
        let alpha = names.message("alpha", "alpha", "many", &SEARCHED[..1]);
        assert!(!alpha.contains("did you mean"), "{alpha}");
        assert!(
            alpha.contains("; one exists there as inference.networking.x-k8s.io/v1alpha2, which this binding does not use"),
            "{alpha}"
        );
        let renamed = names.message("pd-llama", "llama", "empty", &SEARCHED);
        assert!(
            renamed.starts_with(
                "InferencePool \"pd-llama\" (kustomize's final name for \"llama\") was not found"
            ),
            "{renamed}"
        );
    }
}
