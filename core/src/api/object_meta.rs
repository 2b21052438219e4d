//! What the API server refuses of any object's `metadata`, and which fields of an object its
//! schema does not know (apimachinery `pkg/api/validation/objectmeta.go`,
//! `ValidateObjectMetaAccessor`; `pkg/apis/meta/v1/types.go`, `ObjectMeta`).

use crate::api::names;
use crate::api::value::Value;

/// The most the annotations of one object may hold, keys and values together
/// (`TotalAnnotationSizeLimitB`).
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// The fields of `metadata` the API server knows.
pub const FIELDS: [&str; 15] = [
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// Why the API server refuses an object for its `metadata`, created or updated, if it does:
/// a name that is no DNS subdomain (`NameIsDNSSubdomain`), a label it refuses
/// (`ValidateLabels`), an annotation key that is no qualified name or annotations over
/// 256 KiB (`ValidateAnnotations`), a finalizer that is no qualified name or both deletion
/// finalizers (`ValidateFinalizers`), an owner reference without a version, kind, name or
/// UID, or two controllers (`ValidateOwnerReferences`). Values of other types than the API's are
/// not judged here.
pub fn refusal(metadata: &Value) -> Option<String> {
    let text = |key: &str| metadata.get(key).and_then(Value::as_str).unwrap_or_default();
    let name = text("name");
    if !name.is_empty() && names::dns1123_subdomain(name).is_err() {
        return Some(format!("its name {name:?} is no DNS subdomain"));
    }
    if let Some((key, _)) = names::labels_refusal(metadata.get("labels")) {
        return Some(format!("its label {key:?} is no valid label"));
    }
    annotations(metadata.get("annotations"))
        .or_else(|| strings(metadata.get("finalizers")).find_map(finalizer))
        .or_else(|| finalizer_pair(metadata.get("finalizers")))
        .or_else(|| owners(metadata.get("ownerReferences")))
}

/// Why the API server refuses to create an object for its `metadata`, where an update of
/// one it holds takes it: a `generateName` that is no DNS subdomain prefix (an update checks
/// it only as a path segment: apiserver `pkg/registry/rest/update.go`, `validateCommonFields`).
/// Whether the cluster holds the object already only the cluster knows.
pub fn create_refusal(metadata: &Value) -> Option<String> {
    let generate = metadata.get("generateName").and_then(Value::as_str).unwrap_or_default();
    // A prefix may end in `-`: the API server checks it with the dash and the character
    // before it replaced by one letter (`maskTrailingDash`).
    let masked = match generate.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => {
            let mut rest = rest.to_string();
            rest.pop();
            format!("{rest}a")
        }
        _ => generate.to_string(),
    };
    (!generate.is_empty() && names::dns1123_subdomain(&masked).is_err())
        .then(|| format!("its generateName {generate:?} is no DNS subdomain prefix"))
}

/// Annotations as the API server gets them. kubectl's client-side apply replaces a map that
/// holds a value other than a string with its own (`GetModifiedConfiguration`: the
/// unstructured `GetAnnotations` reads none), so such a map is not judged; nor is a key with
/// a letter beyond ASCII, which Go lower-cases by its own tables before the check.
fn annotations(annotations: Option<&Value>) -> Option<String> {
    let map = annotations.and_then(Value::as_object)?;
    if map.iter().any(|(key, value)| !value.is_string() || !key.is_ascii()) {
        return None;
    }
    let mut size = 0;
    for (key, value) in map.iter() {
        // Keys are checked lower-cased.
        if names::qualified_name(&key.to_ascii_lowercase()).is_err() {
            return Some(format!("its annotation key {key:?} is no qualified name"));
        }
        size += key.len() + value.as_str().map_or(0, str::len);
    }
    (size > ANNOTATIONS_LIMIT).then(|| format!("its annotations hold {size} bytes, over 256 KiB"))
}

/// Both deletion finalizers at once (`ValidateFinalizers`): the garbage collector cannot
/// orphan and delete in the foreground.
fn finalizer_pair(finalizers: Option<&Value>) -> Option<String> {
    let has = |name: &str| strings(finalizers).any(|f| f == name);
    (has("orphan") && has("foregroundDeletion"))
        .then(|| "its finalizers orphan and foregroundDeletion exclude each other".to_string())
}

fn finalizer(name: &str) -> Option<String> {
    names::qualified_name(name).err().map(|_| format!("its finalizer {name:?} is no qualified name"))
}

fn owners(owners: Option<&Value>) -> Option<String> {
    let owners = owners.and_then(Value::as_array)?;
    let mut controllers = 0;
    for owner in owners {
        let text = |key: &str| owner.get(key).and_then(Value::as_str).unwrap_or_default();
        let api_version = text("apiVersion");
        let version = api_version.rsplit_once('/').map_or(api_version, |(_, v)| v);
        for (field, value) in
            [("apiVersion", version), ("kind", text("kind")), ("name", text("name")), ("uid", text("uid"))]
        {
            if value.is_empty() {
                return Some(format!("an owner reference of it has no {field}"));
            }
        }
        controllers += usize::from(owner.get("controller").and_then(Value::as_bool) == Some(true));
    }
    (controllers > 1).then(|| "two of its owner references are controllers".to_string())
}

/// The strings of a list.
fn strings(list: Option<&Value>) -> impl Iterator<Item = &str> {
    list.and_then(Value::as_array).unwrap_or(&[]).iter().filter_map(Value::as_str)
}

/// The first field of `metadata` the API server does not know.
pub fn unknown_field(metadata: &Value) -> Option<&str> {
    let map = metadata.as_object()?;
    map.iter().map(|(key, _)| key).find(|key| !FIELDS.contains(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn what_the_api_server_refuses_of_metadata() {
        assert_eq!(refusal(&json!({"name": "a", "generateName": "tools-", "labels": {"a": ""}})), None);
        for (bad, why) in [
            (json!({"name": "Tools_Admin"}), "name"),
            (json!({"labels": {"team": "ml platform"}}), "label"),
            (json!({"annotations": {"not a key": "x"}}), "annotation key"),
            (json!({"annotations": {"a": "x".repeat(ANNOTATIONS_LIMIT)}}), "256 KiB"),
            (
                json!({"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": ""}]}),
                "uid",
            ),
            (
                json!({"ownerReferences": [{"apiVersion": "apps/", "kind": "D", "name": "c", "uid": "u"}]}),
                "apiVersion",
            ),
        ] {
            let got = refusal(&bad).unwrap_or_default();
            assert!(got.contains(why), "{bad}: {got}");
        }
        let two =
            json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u", "controller": true});
        assert!(refusal(&json!({"ownerReferences": [two.clone(), two]})).is_some());
        assert_eq!(refusal(&json!({"annotations": {"Example.com/Key": "x"}})), None, "keys are lower-cased");
        // What only a creation refuses: an update of an object the cluster holds takes it.
        for bad in [json!({"generateName": "Tools_"}), json!({"generateName": "x__-"})] {
            assert_eq!(refusal(&bad), None, "{bad}");
            assert!(create_refusal(&bad).is_some_and(|w| w.contains("generateName")), "{bad}");
        }
        for (bad, why) in [
            (json!({"finalizers": ["not valid!"]}), "finalizer"),
            (json!({"finalizers": ["orphan", "foregroundDeletion"]}), "exclude"),
        ] {
            assert!(refusal(&bad).is_some_and(|w| w.contains(why)), "{bad}");
        }
        assert_eq!(refusal(&json!({"finalizers": ["example.com/keep", "kubernetes"]})), None);
        // The dash and the character before it are masked together.
        assert_eq!(create_refusal(&json!({"generateName": "x_-"})), None);
        assert_eq!(refusal(&json!({"annotations": {"not a key": 1}})), None, "kubectl replaces the map");
        assert_eq!(refusal(&json!({"annotations": {"\u{130}": "x"}})), None, "Go's own lower-casing");
    }

    /// The edges of each rule, as the API server draws them.
    #[test]
    fn each_limit_is_drawn_where_the_api_server_draws_it() {
        // Annotations of 256 KiB exactly pass (`totalSize > TotalAnnotationSizeLimitB`), and
        // so do a few KiB.
        let sized = |n: usize| json!({"annotations": {"a": "x".repeat(n - 1)}});
        assert_eq!(refusal(&sized(ANNOTATIONS_LIMIT)), None);
        assert!(refusal(&sized(ANNOTATIONS_LIMIT + 1)).is_some());
        assert_eq!(refusal(&sized(2000)), None);
        // One deletion finalizer alone is taken; one controller among the owners too.
        assert_eq!(refusal(&json!({"finalizers": ["orphan"]})), None);
        assert_eq!(refusal(&json!({"finalizers": ["foregroundDeletion"]})), None);
        let owner =
            json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u", "controller": true});
        assert_eq!(refusal(&json!({"ownerReferences": [owner]})), None);
        // A prefix of the dash alone has nothing before it to mask (`maskTrailingDash`).
        assert!(create_refusal(&json!({"generateName": "-"})).is_some());
        assert_eq!(create_refusal(&json!({"generateName": "a-"})), None);
    }

    #[test]
    fn unknown_metadata_fields() {
        assert_eq!(unknown_field(&json!({"name": "a", "labels": {}})), None);
        assert_eq!(unknown_field(&json!({"name": "a", "lables": {}})), Some("lables"));
    }
}
