//! A List holding an item that a rule judges only as an object of its own (a Service, whose
//! selector gives pods DNS names; a scaler, whose count names pods; a ConfigMap or Secret,
//! whose text may embed manifests or the manager's configuration; an Endpoints; the
//! admission guard's kinds): kubectl and Argo CD apply each item of a List as an object of
//! its own, and the rules do not look inside one, so the List is what the build cannot judge.

use crate::api::value::Value;
use crate::reconcile::items::lists;

/// The field and the message of the record of `value`, when it is a List holding an item a
/// rule judges only alone ([`lists::List::alone`]): the first such item, and how many more.
pub(super) fn alone(value: &Value) -> Option<(String, String)> {
    let list = lists::of(value)?;
    let first = list.alone.first()?;
    let what = if first.api_version.is_empty() {
        first.kind.clone()
    } else {
        format!("{} {}", first.api_version, first.kind)
    };
    let more = match list.alone.len() - 1 {
        0 => String::new(),
        n => format!(" (and {n} more such item(s))"),
    };
    let message = format!(
        "a {} holding {what} as its items[{}]{more}: kubectl and Argo CD apply each item of a List as an \
         object of its own, and the build's rules judge a {} only as a document of its own, so what it \
         grants is not judged; write each of the List's items as its own document",
        list.kind, first.index, first.kind
    );
    Some((format!("items[{}]", first.index), message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn a_list_of_objects_judged_alone_is_named_at_its_first() {
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role"});
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                         "spec": {"scaleTargetRef": {"kind": "StatefulSet", "name": "db"}}});
        let service = json!({"apiVersion": "v1", "kind": "Service", "spec": {"selector": {"app": "web"}}});
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [role.clone(), hpa, service]});
        let (field, message) = alone(&list).unwrap();
        assert_eq!(field, "items[1]");
        assert!(
            message.starts_with(
                "a List holding autoscaling/v2 HorizontalPodAutoscaler as its items[1] (and 1 more such item(s)): "
            ),
            "{message}"
        );
        assert!(message.ends_with("write each of the List's items as its own document"), "{message}");
        // A List of objects no rule reads alone is none.
        assert_eq!(alone(&json!({"apiVersion": "v1", "kind": "List", "items": [role]})), None);
    }
}
