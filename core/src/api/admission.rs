//! The admission guard's objects as the API server reads them (docs/security.md#the-admission-guard):
//! a `ValidatingAdmissionPolicy`, a `ValidatingAdmissionPolicyBinding` per guarded
//! namespace, and the `ConfigMap` each binding takes its parameters from; and how one of them
//! in the input is recognised as this function's. Fields stand in the order a reader reads
//! them (variables before the validations that use them), not in Kubernetes' alphabetical one.

use super::cluster_spiffe_id::{
    ANNOTATION_RENDERED_BY, LABEL_BINDING_NAMESPACE, LABEL_MANAGED_BY, MANAGED_BY,
};
use super::cluster_spiffe_id::{NAMESPACE_NAME_LABEL, RENDERED_BY};
use super::fields::{self, Tree};
use serde::Serialize;
use serde_json::Map;
use std::collections::BTreeMap;

pub const GROUP: &str = "admissionregistration.k8s.io";
pub const API_VERSION: &str = "admissionregistration.k8s.io/v1";
pub const POLICY_KIND: &str = "ValidatingAdmissionPolicy";
pub const BINDING_KIND: &str = "ValidatingAdmissionPolicyBinding";
pub const CONFIG_MAP_KIND: &str = "ConfigMap";
/// The annotation that marks an object of the guard, its value the guard's name: with
/// `rendered-by`, what makes an object of the input this function's.
pub const ANNOTATION_GUARD: &str = "kleym.sonda.red/admission-guard";

/// One object of the guard.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum GuardObject {
    Policy(Box<Policy>),
    Binding(Box<Binding>),
    Params(Box<Params>),
}

/// What every object of the guard carries in `metadata`.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Metadata {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub labels: BTreeMap<String, String>,
    /// Ordered as written: kept caller annotations and file annotations follow.
    pub annotations: Map<String, serde_json::Value>,
}

impl Metadata {
    /// The metadata of an object of the guard `guard`; `guarded` is the namespace whose
    /// bindings it serves, for those made per namespace.
    pub fn of(name: String, namespace: Option<String>, guard: &str, guarded: Option<&str>) -> Metadata {
        let mut labels = BTreeMap::from([(LABEL_MANAGED_BY.to_string(), MANAGED_BY.to_string())]);
        if let Some(ns) = guarded {
            labels.insert(LABEL_BINDING_NAMESPACE.to_string(), ns.to_string());
        }
        let mut annotations = Map::new();
        annotations.insert(ANNOTATION_GUARD.into(), guard.into());
        annotations.insert(ANNOTATION_RENDERED_BY.into(), RENDERED_BY.into());
        Metadata { name, namespace, labels, annotations }
    }
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub metadata: Metadata,
    pub spec: PolicySpec,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    pub failure_policy: &'static str,
    pub param_kind: ParamKind,
    pub match_constraints: MatchConstraints,
    pub variables: Vec<Variable>,
    pub validations: Vec<Validation>,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParamKind {
    pub api_version: &'static str,
    pub kind: &'static str,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MatchConstraints {
    pub resource_rules: Vec<ResourceRule>,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRule {
    pub api_groups: Vec<&'static str>,
    pub api_versions: Vec<&'static str>,
    pub operations: Vec<&'static str>,
    pub resources: Vec<String>,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: &'static str,
    pub expression: String,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Validation {
    pub expression: String,
    pub message_expression: String,
    pub reason: &'static str,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub metadata: Metadata,
    pub spec: BindingSpec,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BindingSpec {
    pub policy_name: String,
    pub validation_actions: Vec<&'static str>,
    pub param_ref: ParamRef,
    pub match_resources: MatchResources,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParamRef {
    pub name: String,
    pub namespace: String,
    pub parameter_not_found_action: &'static str,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MatchResources {
    pub namespace_selector: NamespaceSelector,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSelector {
    pub match_labels: BTreeMap<&'static str, String>,
}

impl NamespaceSelector {
    /// The namespace of this name, by the label the API server gives every namespace.
    pub fn named(namespace: &str) -> NamespaceSelector {
        NamespaceSelector { match_labels: BTreeMap::from([(NAMESPACE_NAME_LABEL, namespace.to_string())]) }
    }
}

/// The `ConfigMap` a binding takes as its parameters: the facts of one guarded namespace.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Params {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub metadata: Metadata,
    pub data: BTreeMap<String, String>,
}

impl GuardObject {
    pub fn metadata(&self) -> &Metadata {
        match self {
            GuardObject::Policy(p) => &p.metadata,
            GuardObject::Binding(b) => &b.metadata,
            GuardObject::Params(p) => &p.metadata,
        }
    }

    pub fn metadata_mut(&mut self) -> &mut Metadata {
        match self {
            GuardObject::Policy(p) => &mut p.metadata,
            GuardObject::Binding(b) => &mut b.metadata,
            GuardObject::Params(p) => &mut p.metadata,
        }
    }

    pub fn api_version(&self) -> &'static str {
        match self {
            GuardObject::Policy(p) => p.api_version,
            GuardObject::Binding(b) => b.api_version,
            GuardObject::Params(p) => p.api_version,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            GuardObject::Policy(p) => p.kind,
            GuardObject::Binding(b) => b.kind,
            GuardObject::Params(p) => p.kind,
        }
    }

    /// What tells it from every other object: kind, namespace, name.
    pub fn key(&self) -> ObjectKey {
        let m = self.metadata();
        (self.kind().to_string(), m.namespace.clone().unwrap_or_default(), m.name.clone())
    }
}

/// An object's kind, namespace (empty: cluster-scoped) and name.
pub type ObjectKey = (String, String, String);

/// Whether an item is of a kind the guard writes: a policy or policy binding of
/// `admissionregistration.k8s.io`, or a core `v1` ConfigMap.
pub fn is_guard_kind<T: Tree>(item: &T) -> bool {
    let api_version = fields::str_at(item, "apiVersion").unwrap_or_default();
    match fields::str_at(item, "kind") {
        Some(POLICY_KIND | BINDING_KIND) => api_version.split('/').next() == Some(GROUP),
        Some(CONFIG_MAP_KIND) => api_version == "v1",
        _ => false,
    }
}

/// The name of the guard an item of the input belongs to, when it is this function's: a
/// guard kind carrying the guard annotation and `rendered-by`.
pub fn guard_of<T: Tree>(item: &T) -> Option<&str> {
    if !is_guard_kind(item) {
        return None;
    }
    let annotation = |key| fields::child(item, &["metadata", "annotations", key]).and_then(Tree::text);
    if annotation(ANNOTATION_RENDERED_BY) != Some(RENDERED_BY) {
        return None;
    }
    annotation(ANNOTATION_GUARD)
}

/// The kind, namespace and name of an item, as [`GuardObject::key`] gives them.
pub fn key_of<T: Tree>(item: &T) -> ObjectKey {
    let text = |path| fields::str_at(item, path).unwrap_or_default().to_string();
    (text("kind"), text("metadata.namespace"), text("metadata.name"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn an_object_is_the_guards_by_its_kind_and_both_annotations() {
        let marked = json!({ANNOTATION_RENDERED_BY: RENDERED_BY, ANNOTATION_GUARD: "g"});
        let item = |api_version: &str, kind: &str, annotations| json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "n", "annotations": annotations}});
        assert_eq!(guard_of(&item(API_VERSION, POLICY_KIND, marked.clone())), Some("g"));
        assert_eq!(
            guard_of(&item("admissionregistration.k8s.io/v1beta1", BINDING_KIND, marked.clone())),
            Some("g")
        );
        assert_eq!(guard_of(&item("v1", CONFIG_MAP_KIND, marked.clone())), Some("g"));
        // Another group's kind of that name, a ConfigMap of another version, no rendered-by.
        assert_eq!(guard_of(&item("example.org/v1", POLICY_KIND, marked.clone())), None);
        assert_eq!(guard_of(&item("v2", CONFIG_MAP_KIND, marked)), None);
        assert_eq!(guard_of(&item("v1", CONFIG_MAP_KIND, json!({ANNOTATION_GUARD: "g"}))), None);
        let theirs = json!({ANNOTATION_RENDERED_BY: "someone", ANNOTATION_GUARD: "g"});
        assert_eq!(guard_of(&item(API_VERSION, POLICY_KIND, theirs)), None);
    }
}
