//! SPIRE Controller Manager `ClusterSPIFFEID`: the object rendered for a binding, and
//! how a `ClusterSPIFFEID` in the input is recognised as managed by this function or as
//! the kleym operator's.

use super::fields;
use super::labels::Labels;
use super::object_meta;
use crate::api::fields::Tree;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Map;

pub const GROUP: &str = "spire.spiffe.io";
pub const VERSION: &str = "v1alpha1";
pub const API_VERSION: &str = "spire.spiffe.io/v1alpha1";
pub const KIND: &str = "ClusterSPIFFEID";
/// The manager's other kinds, read as it reads them (docs/reference.md#what-spire-will-do).
pub const STATIC_ENTRY_KIND: &str = "ClusterStaticEntry";
pub const FEDERATED_TRUST_DOMAIN_KIND: &str = "ClusterFederatedTrustDomain";

pub const LABEL_MANAGED_BY: &str = "kleym.sonda.red/managed-by";
pub const MANAGED_BY: &str = "kleym";
pub const LABEL_BINDING_NAME: &str = "kleym.sonda.red/binding-name";
pub const LABEL_BINDING_NAMESPACE: &str = "kleym.sonda.red/binding-namespace";
pub const ANNOTATION_RENDERED_BY: &str = "kleym.sonda.red/rendered-by";
pub const RENDERED_BY: &str = "render-inference-identity";
/// The label a SPIRE Controller Manager with `filterByClassName` selects ClusterSPIFFEIDs by,
/// its value the manager's `className` (spire-controller-manager `cmd/main.go`).
pub const LABEL_CLASS_NAME: &str = "spire.spiffe.io/class-name";
/// The label every namespace carries: its name.
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";
/// The pod label a binding's variant is matched by.
pub const VARIANT_LABEL: &str = "identity.kleym.sonda.red/variant";
/// The annotation the kleym operator puts on every ClusterSPIFFEID it creates.
pub const ANNOTATION_OWNERSHIP_CLAIM: &str = "kleym.sonda.red/ownership-claim-id";

#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpiffeId {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub metadata: Metadata,
    pub spec: Spec,
}

#[derive(Serialize, Clone, Debug)]
pub struct Metadata {
    pub name: String,
    pub labels: OutputLabels,
    /// Ordered as written: kept caller annotations and file annotations follow.
    pub annotations: Map<String, serde_json::Value>,
}

/// The three labels every rendered ClusterSPIFFEID carries, and the class label under
/// `classNameLabel` (docs/reference.md#the-rendered-clusterspiffeid).
#[derive(Clone, Debug)]
pub struct OutputLabels {
    pub binding_name: String,
    pub binding_namespace: String,
    /// The value of [`LABEL_CLASS_NAME`], when the outputs carry it.
    pub class_name: Option<String>,
}

impl OutputLabels {
    /// Each label and its value, in key order.
    pub fn pairs(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            (LABEL_BINDING_NAME, Some(self.binding_name.as_str())),
            (LABEL_BINDING_NAMESPACE, Some(self.binding_namespace.as_str())),
            (LABEL_MANAGED_BY, Some(MANAGED_BY)),
            (LABEL_CLASS_NAME, self.class_name.as_deref()),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
    }
}

/// Written in key order, as a map would be.
impl Serialize for OutputLabels {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.pairs().count()))?;
        for (key, value) in self.pairs() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Spec {
    #[serde(rename = "spiffeIDTemplate")]
    pub spiffe_id_template: String,
    /// Only under `selectorScope: Binding`: the binding's namespace, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<PodSelector>,
    pub pod_selector: PodSelector,
    pub workload_selector_templates: Vec<String>,
    pub fallback: bool,
    pub hint: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
}

#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct PodSelector {
    pub match_labels: Labels,
}

/// Whether an item is of `kind` in the manager's group (any version).
pub fn is_spire_kind<T: Tree>(item: &T, kind: &str) -> bool {
    // An `apiVersion` without a `/` is a version of the core group (`ParseGroupVersion`).
    fields::str_at(item, "kind") == Some(kind)
        && fields::str_at(item, "apiVersion").and_then(|v| v.split_once('/')).is_some_and(|(g, _)| g == GROUP)
}

/// Whether an item is a ClusterSPIFFEID (any version of the SPIRE group).
pub fn is_cluster_spiffe_id<T: Tree>(item: &T) -> bool {
    is_spire_kind(item, KIND)
}

fn annotation<'a, T: Tree>(item: &'a T, key: &str) -> Option<&'a T> {
    fields::child(item, &["metadata", "annotations", key])
}

/// Whether a ClusterSPIFFEID is this function's: it carries the `rendered-by` annotation and
/// is not the operator's.
pub fn is_managed<T: Tree>(item: &T) -> bool {
    annotation(item, ANNOTATION_RENDERED_BY).and_then(Tree::text) == Some(RENDERED_BY) && !is_operators(item)
}

/// Whether a ClusterSPIFFEID carries the operator's ownership claim: the operator created it
/// and may update or delete it, so it is never this function's, whatever else it carries.
pub fn is_operators<T: Tree>(item: &T) -> bool {
    annotation(item, ANNOTATION_OWNERSHIP_CLAIM).is_some()
}

/// The (namespace, name) of the binding a managed ClusterSPIFFEID was rendered for.
pub fn binding_of<T: Tree>(item: &T) -> Option<(&str, &str)> {
    let labels = fields::child(item, &["metadata", "labels"])?;
    let label = |key| labels.child_at(key).and_then(Tree::text);
    Some((label(LABEL_BINDING_NAMESPACE)?, label(LABEL_BINDING_NAME)?))
}

/// JSON types a SPIRE object's `spec` fields must have: the API server refuses an object whose
/// field has another (the CRDs' `openAPIV3Schema`; spire-controller-manager
/// `config/crd/bases/`, as the `api/v1alpha1` types make them), where the build would read a
/// field of another type as absent.
const SPEC_TYPES: [(&str, &[(&str, &str)]); 3] = [
    (
        KIND,
        &[
            ("admin", "boolean"),
            ("autoPopulateDNSNames", "boolean"),
            ("className", "string"),
            ("dnsNameTemplates", "array of strings"),
            ("downstream", "boolean"),
            ("fallback", "boolean"),
            ("federatesWith", "array of strings"),
            ("hint", "string"),
            ("jwtTtl", "string"),
            ("namespaceSelector", "object"),
            ("podSelector", "object"),
            ("spiffeIDTemplate", "string"),
            ("ttl", "string"),
            ("workloadSelectorTemplates", "array of strings"),
        ],
    ),
    (
        STATIC_ENTRY_KIND,
        &[
            ("admin", "boolean"),
            ("className", "string"),
            ("dnsNames", "array of strings"),
            ("downstream", "boolean"),
            ("federatesWith", "array of strings"),
            ("hint", "string"),
            ("jwtSVIDTTL", "string"),
            ("parentID", "string"),
            ("selectors", "array of strings"),
            ("spiffeID", "string"),
            ("storeSVID", "boolean"),
            ("x509SVIDTTL", "string"),
        ],
    ),
    (
        FEDERATED_TRUST_DOMAIN_KIND,
        &[
            ("bundleEndpointProfile", "object"),
            ("bundleEndpointURL", "string"),
            ("className", "string"),
            ("trustDomain", "string"),
            ("trustDomainBundle", "string"),
        ],
    ),
];

/// The fields of the `spec` of a SPIRE object of `kind`, each with its schema's JSON type;
/// `None` for a kind that is not the manager's.
pub(crate) fn spec_fields(kind: &str) -> Option<&'static [(&'static str, &'static str)]> {
    SPEC_TYPES.iter().find(|(k, _)| *k == kind).map(|(_, fields)| *fields)
}

/// Why the API server refuses a SPIRE object of `kind` for its `spec` (a field of another
/// JSON type than its schema's; a null is no field, as the API server prunes it), if it does.
pub fn schema_refusal(kind: &str, value: &crate::api::value::Value) -> Option<String> {
    use crate::api::value::Value;
    let (_, fields) = SPEC_TYPES.iter().find(|(k, _)| *k == kind)?;
    if let Some(version) = unserved_version(fields::str_at(value, "apiVersion").unwrap_or_default(), kind) {
        return Some(format!("the API server serves no version {version} of it, only {SERVED_VERSION}"));
    }
    if let Some(why) = metadata_refusal(value) {
        return Some(why);
    }
    let spec = value.get("spec");
    for (field, want) in fields.iter() {
        let Some(v) = spec.and_then(|s| s.get(field)).filter(|v| !v.is_null()) else { continue };
        let fits = match *want {
            "boolean" => v.as_bool().is_some(),
            "string" => v.as_str().is_some(),
            "object" => v.is_object(),
            _ => v.as_array().is_some_and(|items| items.iter().all(Value::is_string)),
        };
        if !fits {
            return Some(format!(
                "the API server refuses it: its spec.{field} is not a{} {want}, as the {kind} schema requires",
                if want.starts_with(['a', 'o']) { "n" } else { "" }
            ));
        }
    }
    if let Some(path) =
        required(kind).iter().find(|path| fields::child(value, path).is_none_or(|v| v.is_null()))
    {
        return Some(format!(
            "the API server refuses it: its {} is required by the {kind} schema",
            path.join(".")
        ));
    }
    None
}

/// The fields the CRD of a SPIRE object of `kind` requires (its `required` lists, v0.6.6's
/// `config/crd/bases/`): one missing, or null (which the API server prunes), is refused.
fn required(kind: &str) -> &'static [&'static [&'static str]] {
    match kind {
        KIND => &[&["spec"], &["spec", "spiffeIDTemplate"]],
        STATIC_ENTRY_KIND => {
            &[&["spec"], &["spec", "parentID"], &["spec", "selectors"], &["spec", "spiffeID"]]
        }
        FEDERATED_TRUST_DOMAIN_KIND => &[
            &["spec"],
            &["spec", "bundleEndpointProfile"],
            &["spec", "bundleEndpointProfile", "type"],
            &["spec", "bundleEndpointURL"],
            &["spec", "trustDomain"],
        ],
        _ => &[],
    }
}

/// The one version of its group SPIRE Controller Manager's CRDs serve.
pub const SERVED_VERSION: &str = "v1alpha1";

/// The version of a SPIRE object of `kind` (`apiVersion` its) that the CRDs do not serve, if
/// it is of another than [`SERVED_VERSION`].
pub fn unserved_version<'a>(api_version: &'a str, kind: &str) -> Option<&'a str> {
    let (group, version) = api_version.split_once('/')?;
    let spire_kind = SPEC_TYPES.iter().any(|(k, _)| *k == kind);
    (group == GROUP && spire_kind && version != SERVED_VERSION).then_some(version)
}

/// Why the API server refuses an object for its `metadata` (apiextensions-apiserver
/// `pkg/registry/customresource/validator.go`, which runs apimachinery's
/// `ValidateObjectMetaAccessor`: [`object_meta::refusal`]).
fn metadata_refusal(value: &crate::api::value::Value) -> Option<String> {
    let why = object_meta::refusal(value.get("metadata")?)?;
    Some(format!("the API server refuses it: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::{Value, item_json as json};

    fn object(api_version: &str, kind: &str, annotations: Value) -> Value {
        json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "n", "annotations": annotations}})
    }

    #[test]
    fn a_cluster_spiffe_id_is_that_kind_in_the_spire_group() {
        assert!(is_cluster_spiffe_id(&object(API_VERSION, KIND, json!({}))));
        assert!(is_cluster_spiffe_id(&object("spire.spiffe.io/v1beta1", KIND, json!({}))));
        assert!(!is_cluster_spiffe_id(&object("example.com/v1", KIND, json!({}))));
        assert!(!is_cluster_spiffe_id(&object(API_VERSION, "ClusterStaticEntry", json!({}))));
        assert!(!is_cluster_spiffe_id(&object("spire.spiffe.io.example/v1", KIND, json!({}))));
    }

    #[test]
    fn the_operators_objects_are_never_managed() {
        let mine = json!({ANNOTATION_RENDERED_BY: RENDERED_BY});
        assert!(is_managed(&object(API_VERSION, KIND, mine)));
        assert!(!is_managed(&object(API_VERSION, KIND, json!({ANNOTATION_RENDERED_BY: "someone-else"}))));
        let both = json!({ANNOTATION_RENDERED_BY: RENDERED_BY, ANNOTATION_OWNERSHIP_CLAIM: "claim"});
        assert!(!is_managed(&object(API_VERSION, KIND, both.clone())));
        assert!(is_operators(&object(API_VERSION, KIND, both)));
        assert!(is_operators(&object(API_VERSION, KIND, json!({ANNOTATION_OWNERSHIP_CLAIM: "claim"}))));
        assert!(!is_operators(&object(API_VERSION, KIND, json!({}))));
    }

    /// A field of another JSON type than the schema's is refused; a null is no field.
    #[test]
    fn the_api_server_refuses_a_spire_object_whose_field_has_another_type() {
        use crate::api::value::item_json as json;
        let csid = |mut spec: crate::api::value::Value| {
            spec.as_object_mut().unwrap().insert("spiffeIDTemplate", json!("x"));
            json!({"apiVersion": API_VERSION, "kind": KIND, "spec": spec})
        };
        assert_eq!(
            schema_refusal(KIND, &csid(json!({"ttl": "1h", "admin": true, "federatesWith": ["a"]}))),
            None
        );
        assert_eq!(schema_refusal(KIND, &csid(json!({"ttl": null}))), None, "null is pruned");
        for (spec, field) in [
            (json!({"ttl": 3600}), "ttl"),
            (json!({"hint": 7}), "hint"),
            (json!({"fallback": "false"}), "fallback"),
            (json!({"federatesWith": ["a", 1]}), "federatesWith"),
            (json!({"podSelector": []}), "podSelector"),
        ] {
            let why = schema_refusal(KIND, &csid(spec)).expect(field);
            assert!(why.contains(&format!("spec.{field} ")), "{why}");
        }
        let entry = json!({"spec": {"storeSVID": "yes"}});
        assert!(schema_refusal(STATIC_ENTRY_KIND, &entry).is_some_and(|w| w.contains("a boolean")));
        let federation = json!({"spec": {"trustDomainBundle": {"keys": []}}});
        assert!(
            schema_refusal(FEDERATED_TRUST_DOMAIN_KIND, &federation).is_some_and(|w| w.contains("a string"))
        );
        assert_eq!(schema_refusal("Other", &entry), None);
        // A field the CRD requires, missing or null.
        let static_entry = |selectors: Value| {
            json!({"apiVersion": API_VERSION, "kind": STATIC_ENTRY_KIND, "metadata": {"name": "e"},
                   "spec": {"parentID": "spiffe://example.org/a", "spiffeID": "spiffe://example.org/b",
                            "selectors": selectors}})
        };
        assert_eq!(schema_refusal(STATIC_ENTRY_KIND, &static_entry(json!([]))), None, "an empty list is one");
        assert!(
            schema_refusal(STATIC_ENTRY_KIND, &static_entry(json!(null)))
                .is_some_and(|w| w.contains("spec.selectors is required"))
        );
        let no_spec = json!({"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": "c"}});
        assert!(schema_refusal(KIND, &no_spec).is_some_and(|w| w.contains("its spec is required")));
        let profile = json!({"apiVersion": API_VERSION, "kind": FEDERATED_TRUST_DOMAIN_KIND, "metadata": {"name": "f"},
                             "spec": {"trustDomain": "partner.org", "bundleEndpointURL": "https://x",
                                      "bundleEndpointProfile": {}}});
        assert!(
            schema_refusal(FEDERATED_TRUST_DOMAIN_KIND, &profile)
                .is_some_and(|w| w.contains("spec.bundleEndpointProfile.type"))
        );
        // Its metadata as the API server validates it.
        let named = |name: &str, labels: crate::api::value::Value| json!({"metadata": {"name": name, "labels": labels}, "spec": {"spiffeIDTemplate": "x"}});
        assert_eq!(
            schema_refusal(KIND, &named("tools-admin.v1", json!({"a.b/c_d": "x.Y-1", "e": ""}))),
            None
        );
        for (name, labels) in [
            ("Tools_Admin", json!({})),
            ("tools-", json!({})),
            ("ok", json!({"team": "ml platform"})),
            ("ok", json!({"Bad_Prefix/x": "y"})),
            ("ok", json!({"x": "a".repeat(64)})),
        ] {
            assert!(schema_refusal(KIND, &named(name, labels.clone())).is_some(), "{name} {labels:?}");
        }
    }
}
