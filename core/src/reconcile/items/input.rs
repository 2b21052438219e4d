//! An input item as the reconcile sees it: whole, for the kinds it reads (bindings, pools,
//! ClusterSPIFFEIDs, CRDs, service accounts, namespaces), or reduced to the few facts it
//! needs of an item it only passes on: the file slots it takes, its pod templates, and, of a
//! List, the items in it the reconcile would read ([`crate::reconcile::items::lists`]).
//! Readers ask [`crate::reconcile::items::kinds::reads_whole`] which items to build whole; the rest never become
//! values.

use crate::api::admission;
use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::cluster::kserve;
use crate::reconcile::cluster::workload::{self, Workload};
use crate::reconcile::items::file_slots::{self, FileSlot};
use crate::reconcile::items::lists::{self, List};
use crate::reconcile::items::near_binding::{self, Near};
use std::borrow::Cow;

/// One input item.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// An item the reconcile reads, as a value.
    Whole(Value),
    /// An item the reconcile only passes on.
    Passed(Passed),
}

/// What the reconcile needs of an item it only passes on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Passed {
    /// The file slots it takes, so new outputs never land on them.
    pub slots: Vec<FileSlot>,
    /// The package its file is in (kpt's render), when the input says.
    pub package: Option<String>,
    /// Its pod templates, when it holds any.
    pub workload: Option<Box<Workload>>,
    /// When it is a List, the items in it the reconcile would read.
    pub list: Option<Box<List>>,
    /// When it looks like a binding and is not one, its head ([`near_binding`]).
    pub near_binding: Option<Box<Near>>,
    /// When it is of a kind the admission guard writes, its kind, namespace and name: where
    /// the guard must not write one of its own ([`admission::is_guard_kind`]).
    pub admission: Option<Box<admission::ObjectKey>>,
}

impl Input {
    /// An item as the reconcile sees it, from its whole value.
    pub fn of(value: impl Into<Value>) -> Input {
        let value = value.into();
        if crate::reconcile::items::kinds::reads_value_whole(&value) || admission::guard_of(&value).is_some()
        {
            Input::Whole(value)
        } else {
            Input::Passed(Passed::of(&value))
        }
    }

    /// The value of an item read whole.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Input::Whole(value) => Some(value),
            Input::Passed(_) => None,
        }
    }

    /// The item's pod templates, when it holds any.
    pub fn workload(&self) -> Option<Cow<'_, Workload>> {
        match self {
            Input::Whole(value) => workload::workload_of(value).map(Cow::Owned),
            Input::Passed(passed) => passed.workload.as_deref().map(Cow::Borrowed),
        }
    }

    /// When the item is a List, the items in it the reconcile would read ([`lists::of`]).
    pub fn list(&self) -> Option<Cow<'_, List>> {
        match self {
            Input::Whole(value) => lists::of(value).map(Cow::Owned),
            Input::Passed(passed) => passed.list.as_deref().map(Cow::Borrowed),
        }
    }

    /// When the item looks like a binding and is not one, its head ([`near_binding::of`]).
    pub fn near_binding(&self) -> Option<Cow<'_, Near>> {
        match self {
            Input::Whole(value) => near_binding::of(value).map(Cow::Owned),
            Input::Passed(passed) => passed.near_binding.as_deref().map(Cow::Borrowed),
        }
    }

    /// The package folder the item's file is in (kpt's render), when the input says.
    pub fn package(&self) -> Option<&str> {
        match self {
            Input::Whole(value) => fields::child(value, &["metadata", "annotations"])
                .and_then(Value::as_object)
                .and_then(file_slots::package_of),
            Input::Passed(passed) => passed.package.as_deref(),
        }
    }

    /// The kind, namespace and name of an item of a kind the admission guard writes, and the
    /// guard it belongs to when it is one's.
    pub fn admission(&self) -> Option<(admission::ObjectKey, Option<&str>)> {
        match self {
            Input::Whole(value) if admission::is_guard_kind(value) => {
                Some((admission::key_of(value), admission::guard_of(value)))
            }
            Input::Whole(_) => None,
            Input::Passed(passed) => Some(((**passed.admission.as_ref()?).clone(), None)),
        }
    }

    /// The file slots the item takes.
    pub fn slots(&self) -> Vec<(&str, u64)> {
        match self {
            Input::Whole(value) => fields::child(value, &["metadata", "annotations"])
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(file_slots::file_slots)
                .collect(),
            Input::Passed(passed) => {
                passed.slots.iter().map(|(path, index)| (path.as_str(), *index)).collect()
            }
        }
    }
}

impl Passed {
    /// The facts the reconcile needs of an item, from its value (or a skeleton of it that
    /// holds its head, annotations and pod templates, and the head of each item of a List).
    pub fn of(value: &Value) -> Passed {
        let annotations = fields::child(value, &["metadata", "annotations"]).and_then(Value::as_object);
        let slots = annotations
            .into_iter()
            .flat_map(file_slots::file_slots)
            .map(|(p, i)| (p.to_string(), i))
            .collect();
        let package = annotations.and_then(file_slots::package_of).map(str::to_string);
        let workload = workload::workload_of(value).map(Box::new);
        let list = lists::of(value).map(Box::new);
        let near_binding = near_binding::of(value).map(Box::new);
        let admission = admission::is_guard_kind(value).then(|| Box::new(admission::key_of(value)));
        Passed { slots, package, workload, list, near_binding, admission }
    }
}

/// The items read whole, with their positions.
pub fn values(items: &[Input]) -> impl Iterator<Item = (usize, &Value)> {
    items.iter().enumerate().filter_map(|(i, item)| Some((i, item.value()?)))
}

/// Every item's pod templates ([`Input::workload`]), in order, with those KServe makes of an
/// `LLMInferenceService` and the presets beside it. Finding them walks all of an item read
/// whole, so those are searched first, on all cores.
pub fn workloads(items: &[Input]) -> impl Iterator<Item = Option<Cow<'_, Workload>>> {
    workloads_of(items.iter())
}

/// [`workloads`] of the items given, in order.
pub fn workloads_of<'i>(
    items: impl Iterator<Item = &'i Input> + Clone,
) -> impl Iterator<Item = Option<Cow<'i, Workload>>> {
    let whole: Vec<(usize, &Value)> = items.clone().filter_map(Input::value).enumerate().collect();
    let mut derived: std::collections::HashMap<usize, Workload> = kserve::derive_all(&whole)
        .into_iter()
        .filter_map(|(i, d)| Some((i, workload::derived(&d)?)))
        .collect();
    let values = whole.into_iter().map(|(_, v)| v).collect();
    let mut found = crate::parallel::map(values, workload::workload_of).into_iter().enumerate();
    items.map(move |item| match item {
        Input::Whole(_) => {
            let (at, own) = found.next()?;
            own.or_else(|| derived.remove(&at)).map(Cow::Owned)
        }
        Input::Passed(_) => item.workload(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn only_the_kinds_the_reconcile_reads_stay_whole() {
        let pool = json!({"apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool"});
        assert_eq!(Input::of(pool.clone()), Input::Whole(pool));
        let deployment = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"annotations": {"internal.config.kubernetes.io/path": "d.yaml", "a": "b"}},
            "spec": {"replicas": 1},
        });
        let passed = Input::of(deployment);
        assert_eq!(passed, Input::Passed(Passed { slots: vec![("d.yaml".into(), 0)], ..Passed::default() }));
        assert_eq!(passed.slots(), [("d.yaml", 0)]);
    }
}
