//! kustomize renames (`namePrefix`, `nameSuffix`, renaming patches): the name a binding's
//! reference will carry once kustomize has fixed name references.
//!
//! kustomize runs transformers before it fixes references, so a transformer sees the pool
//! as `pd-llama` while the binding still says `llama`. Each renamed item carries its earlier
//! names in `internal.config.kubernetes.io/previousNames` (with `previousNamespaces` and
//! `previousKinds`, one entry each per rename), and after the transformers kustomize
//! rewrites every reference it is configured for (a `configurations:` nameReference) to the
//! referenced item's final name. [`Renames::final_name`] picks that item the way kustomize's
//! nameref filter does, so the identity is rendered with the names the binding, the pods and
//! the service account end up with.

use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::items::input::{self, Input};
use std::collections::HashMap;

pub const PREVIOUS_NAMES: &str = "internal.config.kubernetes.io/previousNames";
pub const PREVIOUS_NAMESPACES: &str = "internal.config.kubernetes.io/previousNamespaces";
pub const PREVIOUS_KINDS: &str = "internal.config.kubernetes.io/previousKinds";
pub const PREFIXES: &str = "internal.config.kubernetes.io/prefixes";
pub const SUFFIXES: &str = "internal.config.kubernetes.io/suffixes";

/// The namespace kustomize files an item without one under.
const DEFAULT_NAMESPACE: &str = "default";

/// Items of one kind that kustomize renamed, by namespace and earlier name.
#[derive(Default)]
pub struct Renames<'a> {
    by_earlier_name: HashMap<(&'a str, &'a str), Vec<Renamed<'a>>>,
}

/// One renamed item: its name now, and the prefixes and suffixes kustomize added to it.
#[derive(Clone)]
struct Renamed<'a> {
    name: &'a str,
    affixes: Affixes<'a>,
}

impl<'a> Renames<'a> {
    /// Indexes the items `is_kind` selects that kustomize renamed while they were of `kind`.
    /// Previous-name annotations of unequal lengths are unusable input (kustomize itself
    /// refuses them).
    pub fn build(
        items: &'a [Input],
        kind: &str,
        is_kind: impl Fn(&Value) -> bool,
    ) -> Result<Self, (usize, String)> {
        let mut by_earlier_name: HashMap<(&str, &str), Vec<Renamed>> = HashMap::new();
        for (i, item) in input::values(items).filter(|(_, item)| is_kind(item)) {
            let Some(names) = annotation(item, PREVIOUS_NAMES) else { continue };
            let (Some(name), namespace) = (fields::str_at(item, "metadata.name"), namespace_of(item)) else {
                continue;
            };
            let names: Vec<&str> = names.split(',').collect();
            let namespaces = annotation(item, PREVIOUS_NAMESPACES).map_or(0, |a| a.split(',').count());
            let kinds: Vec<&str> =
                annotation(item, PREVIOUS_KINDS).map(|a| a.split(',').collect()).unwrap_or_default();
            if namespaces != names.len() || kinds.len() != names.len() {
                return Err((
                    i,
                    format!(
                        "{kind} {namespace}/{name}: annotations {PREVIOUS_NAMES}, {PREVIOUS_NAMESPACES} and \
                         {PREVIOUS_KINDS} must hold as many entries each (they hold {}, {namespaces} and {}); \
                         kustomize writes them, so remove them or let kustomize set them",
                        names.len(),
                        kinds.len()
                    ),
                ));
            }
            // kustomize's nameref filter asks for an earlier name and an earlier kind each,
            // not necessarily of the same rename.
            if !kinds.contains(&kind) {
                continue;
            }
            let renamed = Renamed { name, affixes: Affixes::of(item) };
            let mut earlier = names;
            earlier.sort_unstable();
            earlier.dedup();
            for earlier_name in earlier {
                by_earlier_name.entry((namespace, earlier_name)).or_default().push(renamed.clone());
            }
        }
        Ok(Renames { by_earlier_name })
    }

    /// The name a reference to `name`, made by `referrer` in `namespace`, carries once
    /// kustomize has fixed references: the final name of the one item of this kind in that
    /// namespace that was once called `name`; `name` itself when there is none, or when
    /// kustomize cannot tell which is meant (it then stops the build itself).
    pub fn final_name<'n>(&self, referrer: &Value, namespace: &str, name: &'n str) -> &'n str
    where
        'a: 'n,
    {
        let key = (effective_namespace(namespace), name);
        let Some(candidates) = self.by_earlier_name.get(&key) else { return name };
        if let [only] = candidates.as_slice() {
            return only.name;
        }
        // As kustomize: first the affixes that agree where both have some, then all of them.
        let own = Affixes::of(referrer);
        let mut left: Vec<&Renamed> = candidates.iter().filter(|c| c.affixes.agree(&own, true)).collect();
        if left.len() > 1 {
            left.retain(|c| c.affixes.agree(&own, false));
        }
        match left.as_slice() {
            [] => name,
            [first, rest @ ..] if rest.iter().all(|c| c.name == first.name) => first.name,
            _ => name,
        }
    }
}

/// The prefixes and suffixes kustomize added to an item's name, oldest first.
#[derive(Clone, Default)]
struct Affixes<'a> {
    prefixes: Vec<&'a str>,
    suffixes: Vec<&'a str>,
}

impl<'a> Affixes<'a> {
    fn of(item: &'a Value) -> Self {
        let list = |key| annotation(item, key).map(|a| a.split(',').collect()).unwrap_or_default();
        Affixes { prefixes: list(PREFIXES), suffixes: list(SUFFIXES) }
    }

    /// kustomize's `PrefixesSuffixesEquals`: with `allow_empty`, a side without prefixes
    /// (or suffixes) agrees with any.
    fn agree(&self, other: &Affixes<'_>, allow_empty: bool) -> bool {
        let side =
            |a: &[&str], b: &[&str]| (allow_empty && (a.is_empty() || b.is_empty())) || same_ending(a, b);
        side(&self.prefixes, &other.prefixes) && side(&self.suffixes, &other.suffixes)
    }
}

/// kustomize's `SameEndingSubSlice`: the shorter list is the end of the longer; an empty
/// list agrees only with an empty one.
fn same_ending(a: &[&str], b: &[&str]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.is_empty();
    }
    long.ends_with(short)
}

fn annotation<'a>(item: &'a Value, key: &str) -> Option<&'a str> {
    item.get("metadata")?.get("annotations")?.get(key)?.as_str()
}

fn namespace_of(item: &Value) -> &str {
    effective_namespace(fields::str_at(item, "metadata.namespace").unwrap_or_default())
}

/// kustomize counts an item without a namespace as one in `default`.
fn effective_namespace(namespace: &str) -> &str {
    if namespace.is_empty() { DEFAULT_NAMESPACE } else { namespace }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn renamed(name: &str, ns: &str, earlier: &str, prefixes: Option<&str>) -> Value {
        let count = earlier.split(',').count();
        let mut annotations = json!({
            PREVIOUS_NAMES: earlier,
            PREVIOUS_NAMESPACES: vec![ns; count].join(","),
            PREVIOUS_KINDS: vec!["ServiceAccount"; count].join(","),
        });
        if let Some(p) = prefixes {
            annotations[PREFIXES] = json!(p);
        }
        json!({"apiVersion": "v1", "kind": "ServiceAccount",
               "metadata": {"name": name, "namespace": ns, "annotations": annotations}})
    }

    fn referrer(prefixes: Option<&str>) -> Value {
        match prefixes {
            None => json!({"metadata": {"name": "b"}}),
            Some(p) => json!({"metadata": {"name": "b", "annotations": {PREFIXES: p}}}),
        }
    }

    fn index(items: &[Input]) -> Renames<'_> {
        Renames::build(items, "ServiceAccount", |i| i["kind"] == "ServiceAccount").unwrap()
    }

    #[test]
    fn a_reference_to_an_earlier_name_gets_the_final_name_in_its_namespace_only() {
        let items =
            [renamed("pd-vllm", "serving", "vllm", Some("pd-")), renamed("x-other", "batch", "vllm", None)];
        let items: Vec<Input> = items.into_iter().map(Input::Whole).collect();
        let renames = index(&items);
        assert_eq!(renames.final_name(&referrer(Some("pd-")), "serving", "vllm"), "pd-vllm");
        assert_eq!(renames.final_name(&referrer(None), "batch", "vllm"), "x-other");
        assert_eq!(renames.final_name(&referrer(None), "serving", "llama"), "llama", "never renamed");
        assert_eq!(renames.final_name(&referrer(None), "other", "vllm"), "vllm", "another namespace");
    }

    #[test]
    fn every_earlier_name_of_stacked_overlays_leads_to_the_final_name() {
        let items = [renamed("b-a-vllm", "serving", "vllm,a-vllm", Some("a-,b-"))];
        let items: Vec<Input> = items.into_iter().map(Input::Whole).collect();
        let renames = index(&items);
        assert_eq!(renames.final_name(&referrer(Some("a-,b-")), "serving", "vllm"), "b-a-vllm");
        assert_eq!(renames.final_name(&referrer(Some("a-,b-")), "serving", "a-vllm"), "b-a-vllm");
    }

    #[test]
    fn several_candidates_are_told_apart_by_prefixes_as_kustomize_does() {
        // Two overlays of one base, each with its own prefix, built together.
        let items = [
            renamed("one-vllm", "serving", "vllm", Some("one-")),
            renamed("two-vllm", "serving", "vllm", Some("two-")),
        ];
        let items: Vec<Input> = items.into_iter().map(Input::Whole).collect();
        let renames = index(&items);
        assert_eq!(renames.final_name(&referrer(Some("two-")), "serving", "vllm"), "two-vllm");
        assert_eq!(renames.final_name(&referrer(Some("one-")), "serving", "vllm"), "one-vllm");
        // A referrer without prefixes cannot tell them apart: kustomize stops, the name stays.
        assert_eq!(renames.final_name(&referrer(None), "serving", "vllm"), "vllm");
        assert_eq!(renames.final_name(&referrer(Some("three-")), "serving", "vllm"), "vllm");
    }

    #[test]
    fn items_without_a_namespace_count_as_default_and_other_kinds_are_ignored() {
        let mut no_ns = renamed("pd-vllm", "", "vllm", None);
        no_ns["metadata"].as_object_mut().unwrap().remove("namespace");
        let mut was_other_kind = renamed("pd-cm", "serving", "cm", None);
        was_other_kind["metadata"]["annotations"][PREVIOUS_KINDS] = json!("ConfigMap");
        let items = [no_ns, was_other_kind];
        let items: Vec<Input> = items.into_iter().map(Input::Whole).collect();
        let renames = index(&items);
        assert_eq!(renames.final_name(&referrer(None), "default", "vllm"), "pd-vllm");
        assert_eq!(renames.final_name(&referrer(None), "serving", "cm"), "cm");
    }

    #[test]
    fn annotations_of_unequal_lengths_are_unusable_input() {
        let mut item = renamed("pd-vllm", "serving", "vllm,a-vllm", None);
        item["metadata"]["annotations"][PREVIOUS_KINDS] = json!("ServiceAccount");
        let items = [Input::Whole(json!({"kind": "ConfigMap"})), Input::Whole(item)];
        let Err((at, message)) = Renames::build(&items, "ServiceAccount", |i| i["kind"] == "ServiceAccount")
        else {
            panic!("accepted")
        };
        assert_eq!(at, 1);
        assert!(message.contains("ServiceAccount serving/pd-vllm"), "{message}");
        assert!(message.contains("they hold 2, 2 and 1"), "{message}");
    }
}
