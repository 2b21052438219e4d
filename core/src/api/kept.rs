//! Whether the cluster keeps a SPIRE object the manifests declare: one the garbage collector
//! may delete, one only an update of a stored object takes, or one kubectl may refuse while
//! Argo CD stores the rest. Such an object's grants are `may` (docs/review.md).

use super::cluster_spiffe_id::spec_fields;
use super::object_meta;
use super::value::Value;

/// Why the cluster may not keep a SPIRE object of `kind` that the manifests declare, if it
/// may not:
/// - it names an owner, and the garbage collector deletes it once the owner is gone or stands
///   under another UID (kubernetes `pkg/controller/garbagecollector/garbagecollector.go`,
///   `attemptToDeleteItem`);
/// - only an update of one the cluster holds takes its metadata ([`object_meta::create_refusal`]);
/// - it carries a status, or a field its schema does not know, which `kubectl apply` refuses
///   (its field validation is `Strict` by default: kubectl `AddValidateFlags`) while Argo CD,
///   which asks for none, has the API server prune it and store the rest;
/// - kubectl's copy of it in an annotation may pass the API server's 256 KiB.
pub fn may_not_be_kept(kind: &str, value: &Value) -> Option<String> {
    let metadata = value.get("metadata");
    if metadata
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .is_some_and(|o| !o.is_empty())
    {
        return Some("it names an owner, and the garbage collector deletes it once the owner is gone".into());
    }
    let fields = spec_fields(kind)?;
    if let Some(why) = metadata.and_then(object_meta::create_refusal) {
        return Some(format!(
            "the API server refuses to create it ({why}), though an update of one it holds takes it"
        ));
    }
    if value.get("status").is_some_and(|s| s.as_object().is_none_or(|m| !m.is_empty())) {
        return Some(
            "it carries a status, whose fields kubectl checks against the schema and may refuse, while Argo \
             CD stores the rest"
                .into(),
        );
    }
    // kubectl's client-side apply copies the object into an annotation, its `<`, `>` and `&`
    // escaped as six bytes each: over 256 KiB of annotations, the API server refuses it.
    let copied = 6 * json_len(value);
    if copied > 256 * 1024 {
        return Some(
            "it is so large that kubectl's copy of it in an annotation may pass the API server's 256 KiB"
                .into(),
        );
    }
    let unknown = |map: Option<&Value>, known: &[&str], at: &str| {
        let map = map.and_then(Value::as_object)?;
        map.iter().find(|(key, _)| !known.contains(key)).map(|(key, _)| format!("{at}{key}"))
    };
    let spec_fields: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    let selector = |at: &str| {
        let selector = value.get("spec").and_then(|s| s.get(at));
        let expressions = selector.and_then(|s| s.get("matchExpressions")).and_then(Value::as_array);
        unknown(selector, &["matchLabels", "matchExpressions"], &format!("spec.{at}.")).or_else(|| {
            expressions.into_iter().flatten().find_map(|e| {
                unknown(Some(e), &["key", "operator", "values"], &format!("spec.{at}.matchExpressions[]."))
            })
        })
    };
    let field = unknown(Some(value), &["apiVersion", "kind", "metadata", "spec", "status"], "")
        .or_else(|| metadata.and_then(object_meta::unknown_field).map(|f| format!("metadata.{f}")))
        .or_else(|| unknown(value.get("spec"), &spec_fields, "spec."))
        .or_else(|| selector("podSelector"))
        .or_else(|| selector("namespaceSelector"))
        .or_else(|| {
            let profile = value.get("spec").and_then(|s| s.get("bundleEndpointProfile"));
            unknown(profile, &["type", "endpointSPIFFEID"], "spec.bundleEndpointProfile.")
        })?;
    Some(format!("its field {field} is not in its schema: kubectl refuses it, Argo CD stores the rest"))
}

/// The length of `value` written as compact JSON, counted as serde_json writes it without
/// keeping the text.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).map_or(0, |()| count.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::cluster_spiffe_id::KIND;
    use crate::api::value::item_json as json;

    #[test]
    fn an_owner_or_an_unknown_field_may_leave_the_object_out() {
        let csid = |metadata: Value, spec: Value, extra: Option<Value>| {
            let mut v = json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": KIND, "metadata": metadata,
                               "spec": spec});
            if let Some(extra) = extra {
                v.as_object_mut().unwrap().insert("specs", extra);
            }
            may_not_be_kept(KIND, &v)
        };
        let spec = json!({"spiffeIDTemplate": "x", "podSelector": {"matchLabels": {"a": "b"}}});
        let named = json!({"name": "a"});
        assert_eq!(csid(named.clone(), spec.clone(), None), None);
        let owned = json!({"name": "a", "ownerReferences": [{"uid": "u"}]});
        assert!(csid(owned, spec.clone(), None).is_some_and(|w| w.contains("owner")));
        assert_eq!(csid(json!({"name": "a", "ownerReferences": []}), spec.clone(), None), None);
        let field = |metadata: Value, spec: Value, extra: Option<Value>| {
            csid(metadata, spec, extra).unwrap_or_default()
        };
        assert!(
            field(named.clone(), json!({"spiffeIDTemplate": "x", "federatesWth": []}), None)
                .contains("spec.federatesWth")
        );
        assert!(field(json!({"name": "a", "lables": {}}), spec.clone(), None).contains("metadata.lables"));
        assert!(field(named.clone(), spec.clone(), Some(json!({}))).contains("specs"));
        let selector = json!({"spiffeIDTemplate": "x", "podSelector": {"matchLabel": {}}});
        assert!(field(named, selector, None).contains("spec.podSelector.matchLabel"));
    }

    #[test]
    fn a_status_a_create_only_name_or_a_size_past_kubectls_copy_may_leave_it_out() {
        let csid = |extra: (&str, Value)| {
            let mut v = json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": KIND, "metadata": {"name": "a"},
                               "spec": {"spiffeIDTemplate": "x"}});
            v.as_object_mut().unwrap().insert(extra.0, extra.1);
            may_not_be_kept(KIND, &v)
        };
        assert!(csid(("status", json!({"stats": {}}))).is_some_and(|w| w.contains("status")));
        assert!(csid(("status", json!(1))).is_some_and(|w| w.contains("status")));
        assert_eq!(csid(("status", json!({}))), None, "an empty status is none");
        let generated = |prefix: &str| csid(("metadata", json!({"generateName": prefix, "name": "a"})));
        assert!(generated("A_").is_some_and(|w| w.contains("create")));
        assert_eq!(generated("a-"), None);
        // Six times the JSON past 256 KiB: kubectl's escaped copy may pass the limit.
        let spec = |n: usize| json!({"spiffeIDTemplate": "x".repeat(n)});
        let size = |n: usize| 6 * json_len(&json!({"spec": spec(n)}));
        assert_eq!(size(1), 6 * r#"{"spec":{"spiffeIDTemplate":"x"}}"#.len());
        // The object around the template's text writes 121 bytes.
        let limit = 256 * 1024 / 6 - 121;
        assert!(csid(("spec", spec(limit + 1))).is_some_and(|w| w.contains("256 KiB")));
        assert_eq!(csid(("spec", spec(limit))), None);
    }
}
