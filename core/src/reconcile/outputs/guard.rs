//! The admission guard's objects among the outputs (docs/reference.md#admission-guard), owned
//! as the ClusterSPIFFEIDs are: an object of the input that carries the guard's annotation and
//! `rendered-by` is this function's; a fresh render of the same kind, namespace and name
//! replaces it in place, one of this run's guard that no longer renders is removed, one of
//! another guard (or of a guard now off) is pruned under `prune`; an object of the same kind,
//! namespace and name that is not this guard's is never touched, and the run refuses to write
//! over it. New objects follow, each with its file slot.

use super::ownership::{OutputCounts, caller_annotations, used_slots};
use crate::api::admission::{self, GuardObject, ObjectKey};
use crate::reconcile::items::input::Input;
use crate::reconcile::items::item::Item;
use crate::reconcile::items::unusable::InputError;
use std::collections::{HashMap, HashSet};

/// The objects of this run's guard `guard` (none when it is off) placed among the items, in
/// place as [`super::ownership::place`] places the ClusterSPIFFEIDs.
pub fn place(
    mut items: Vec<Item>,
    objects: Vec<GuardObject>,
    guard: Option<&str>,
    prune: bool,
    output_path: &str,
) -> (Vec<Item>, OutputCounts) {
    let index: HashMap<ObjectKey, usize> = objects.iter().enumerate().map(|(i, o)| (o.key(), i)).collect();
    // The new objects keep the order the guard gives them: the policy, then by namespace.
    let mut fresh: Vec<Option<GuardObject>> = objects.into_iter().map(Some).collect();
    let mut counts = OutputCounts::default();
    items.retain_mut(|item| {
        let Some(value) = item.input() else { return true };
        let Some(owner) = admission::guard_of(value) else { return true };
        if let Some(mut object) = index.get(&admission::key_of(value)).and_then(|&i| fresh[i].take()) {
            object.metadata_mut().annotations.extend(caller_annotations(value));
            *item = Item::Guard(Box::new(object), None);
            counts.replaced += 1;
            true
        } else if guard == Some(owner) {
            counts.removed += 1;
            false
        } else if prune {
            counts.pruned += 1;
            false
        } else {
            true
        }
    });
    let placed: Vec<(String, GuardObject)> =
        fresh.into_iter().flatten().map(|o| (output_path.replace("{name}", &o.metadata().name), o)).collect();
    counts.added = placed.len();
    let files: HashSet<String> = placed.iter().map(|(path, _)| path.clone()).collect();
    let mut used = used_slots(&items, &files);
    items.reserve(placed.len());
    for (path, object) in placed {
        let index = (0u64..).find(|i| !used.contains(&(path.clone(), *i))).expect("a free index");
        used.insert((path.clone(), index));
        items.push(Item::Guard(Box::new(object), Some((path, index))));
    }
    (items, counts)
}

/// The first object of the input that stands where the guard `guard` would write one of
/// `objects` (the same kind, namespace and name) and is not that guard's: the run refuses
/// to replace it.
pub fn clash(items: &[Input], objects: &[GuardObject], guard: &str) -> Option<InputError> {
    let keys: HashSet<ObjectKey> = objects.iter().map(GuardObject::key).collect();
    items.iter().enumerate().find_map(|(at, item)| {
        let (key, owner) = item.admission()?;
        if owner == Some(guard) || !keys.contains(&key) {
            return None;
        }
        let (kind, ns, name) = key;
        let whose = match owner {
            Some(other) => format!("it is the admission guard {other:?}'s"),
            None => format!(
                "it carries no annotations {} and {}: this function did not write it",
                admission::ANNOTATION_GUARD,
                crate::api::cluster_spiffe_id::ANNOTATION_RENDERED_BY
            ),
        };
        let named = if ns.is_empty() { name } else { format!("{ns}/{name}") };
        Some(InputError::from((
            at,
            format!(
                "{kind} {named} is where the admission guard {guard:?} writes one of its objects, and {whose}; \
                 refusing to replace it: give the guard another admissionGuard.name, or take the object out"
            ),
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::admission::{Metadata, Params};
    use crate::api::value::item_json as json;

    fn params(name: &str) -> GuardObject {
        GuardObject::Params(Box::new(Params {
            api_version: "v1",
            kind: "ConfigMap",
            metadata: Metadata::of(name.into(), Some("kleym-system".into()), "g", Some("ns")),
            data: Default::default(),
        }))
    }

    fn input(name: &str, guard: Option<&str>, path: &str) -> Input {
        object("v1", "ConfigMap", Some("kleym-system"), name, guard, path)
    }

    fn object(
        api_version: &str,
        kind: &str,
        ns: Option<&str>,
        name: &str,
        guard: Option<&str>,
        path: &str,
    ) -> Input {
        let mut annotations = json!({"internal.config.kubernetes.io/path": path});
        if let Some(guard) = guard {
            annotations["kleym.sonda.red/admission-guard"] = json!(guard);
            annotations["kleym.sonda.red/rendered-by"] = json!("render-inference-identity");
        }
        let mut metadata = json!({"name": name, "annotations": annotations});
        if let Some(ns) = ns {
            metadata["namespace"] = json!(ns);
        }
        Input::of(json!({"apiVersion": api_version, "kind": kind, "metadata": metadata}))
    }

    fn names(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Guard(o, slot) => format!("{} {:?}", o.metadata().name, slot),
                Item::Input(_, input) => match input.value() {
                    Some(v) => format!("input {}", crate::api::fields::str_at(v, "metadata.name").unwrap()),
                    None => "input passed on".to_string(),
                },
                _ => "other".into(),
            })
            .collect()
    }

    #[test]
    fn the_guards_objects_are_replaced_in_place_and_the_rest_follow() {
        let items: Vec<Item> = [
            input("g-a", Some("g"), "guard/g-a.yaml"),
            input("g-gone", Some("g"), "guard/g-gone.yaml"),
            input("other-b", Some("other"), "x.yaml"),
            input("theirs", None, "guard/g-c.yaml"),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, input)| Item::Input(i, input))
        .collect();
        let (placed, counts) =
            place(items.clone(), vec![params("g-a"), params("g-c")], Some("g"), true, "guard/{name}.yaml");
        // A ConfigMap without the marks is not the guard's: it passes on as it came.
        assert_eq!(names(&placed), ["g-a None", "input theirs", r#"g-c Some(("guard/g-c.yaml", 1))"#]);
        assert_eq!((counts.replaced, counts.removed, counts.pruned, counts.added), (1, 1, 1, 1));
        // The replaced object keeps its file.
        let Item::Guard(kept, _) = &placed[0] else { panic!() };
        assert_eq!(kept.metadata().annotations["internal.config.kubernetes.io/path"], "guard/g-a.yaml");
        // Without prune another guard's objects stay; with the guard off, its own go only then.
        let (kept, counts) = place(items, Vec::new(), None, false, "guard/{name}.yaml");
        assert_eq!(kept.len(), 4);
        assert_eq!(counts, OutputCounts::default());
    }

    #[test]
    fn an_object_not_the_guards_where_it_writes_is_refused() {
        let binding =
            |guard| object(admission::API_VERSION, admission::BINDING_KIND, None, "g-a", guard, "x.yaml");
        let items = [binding(None), input("g-b", Some("other"), "y.yaml")];
        let guard_binding = GuardObject::Binding(Box::new(crate::api::admission::Binding {
            api_version: admission::API_VERSION,
            kind: admission::BINDING_KIND,
            metadata: Metadata::of("g-a".into(), None, "g", Some("ns")),
            spec: crate::api::admission::BindingSpec {
                policy_name: "g".into(),
                validation_actions: vec!["Deny"],
                param_ref: crate::api::admission::ParamRef {
                    name: "g-a".into(),
                    namespace: "kleym-system".into(),
                    parameter_not_found_action: "Deny",
                },
                match_resources: crate::api::admission::MatchResources {
                    namespace_selector: crate::api::admission::NamespaceSelector::named("ns"),
                },
            },
        }));
        let e = clash(&items, std::slice::from_ref(&guard_binding), "g").unwrap();
        assert_eq!(e.item, 0);
        assert!(
            e.message.contains("ValidatingAdmissionPolicyBinding g-a is where the admission guard \"g\""),
            "{}",
            e.message
        );
        assert!(e.message.contains("this function did not write it"), "{}", e.message);
        // The guard's own is no clash; a ConfigMap without the marks is known by its kind and
        // name, read whole or passed on.
        assert_eq!(clash(&[binding(Some("g"))], std::slice::from_ref(&guard_binding), "g"), None);
        let theirs = input("g-c", None, "z.yaml");
        let passed = Input::Passed(crate::reconcile::items::input::Passed::of(theirs.value().unwrap()));
        for theirs in [theirs, passed] {
            assert_eq!(clash(&[theirs], &[params("g-c")], "g").map(|e| e.item), Some(0));
        }
        let e = clash(&items, &[params("g-b")], "g").unwrap();
        assert!(e.message.contains("it is the admission guard \"other\"'s"), "{}", e.message);
        assert_eq!(clash(&items, &[params("g-c")], "g"), None);
    }
}
