//! Kubernetes Lists (any object with an `items` sequence, whatever its kind: kubectl decodes
//! every such object as a list, `List`, `ConfigMapList` or `Anything`),
//! docs/reference.md#lists: kubectl and kustomize apply a List's items as objects of their
//! own, but the reconcile reads objects only as items of the input. A binding, pool or pod
//! template inside a List would go unseen, its identity silently lost, so a List holding an
//! item the reconcile reads is unusable input. An item a rule judges only as an object of its
//! own (a Service's DNS names, a scaler's count, a ConfigMap's text) makes the List a record
//! of what the build cannot judge (`reconcile/unjudged/`); any other List passes through
//! untouched.

use crate::api::binding;
use crate::api::value::Value;
use crate::reconcile::cluster::workload;
use crate::reconcile::items::kinds;
use crate::reconcile::items::unusable::InputError;

/// A List that holds items the reconcile would read, or that its rules judge only as
/// objects of their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    /// The List's own `kind`: `List`, or a typed one (`ConfigMapList`).
    pub kind: String,
    /// Its items the reconcile would read, in order: the List is refused ([`check`]).
    pub read: Vec<Listed>,
    /// Its items a rule reads only as objects of their own ([`kinds::judged_alone`]), in order:
    /// the List is a record of what the build cannot judge.
    pub alone: Vec<Listed>,
    /// Whether the object is itself of a kind the reconcile reads (a ClusterSPIFFEID, a
    /// workload), which its `items` field, whatever it holds, keeps from being applied: the
    /// List is refused ([`check`]).
    pub itself: bool,
}

/// An item of a List that the reconcile would read, were it an item of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its index in the List's `items`, from 0.
    pub index: usize,
    /// Its `apiVersion`; empty when it has none.
    pub api_version: String,
    /// Its `kind`; empty when it has none.
    pub kind: String,
    /// Whether it is read for its pod templates rather than for its kind.
    pub pod_templates: bool,
}

impl Listed {
    /// Whether the item is an InferenceIdentityBinding.
    pub fn is_binding(&self) -> bool {
        self.api_version == binding::API_VERSION && self.kind == binding::KIND
    }
}

/// Whether an item is a List: it has an `items` sequence, whatever its kind. kubectl decodes
/// any such object as a list and applies each of its items (apimachinery's unstructured
/// decoding looks for `items`, not at the kind), and kustomize inlines them.
pub fn is_list(value: &Value) -> bool {
    value.get("items").is_some_and(Value::is_array)
}

/// The List an item is, when it holds items the reconcile reads (a kind it reads whole, or
/// pod templates) or items its rules judge only alone ([`kinds::judged_alone`], which makes
/// the List one read whole, whatever its kind); `None` for any other item. Of each item of
/// the List it reads only its `apiVersion`, its `kind` and its pod templates, what a reader
/// keeps of an item it only passes on.
pub fn of(value: &Value) -> Option<List> {
    // An object with an `items` field, even empty or null, is a List to kubectl (apimachinery
    // `unstructured.go`, `unstructuredJSONScheme.decode`: `Items != nil`, `decodeToList`) and to
    // Argo CD (`IsList`), which apply its items and never the object: one the reconcile reads
    // as itself would be read, but not applied.
    let own = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
    let own_kind = own("kind");
    let controlled = crate::reconcile::cluster::controllers::of(own("apiVersion"), own_kind).is_some();
    let itself = value.get("items").is_some() && (kinds::reads_whole(own_kind) || controlled);
    if itself {
        let kind = own_kind.to_string();
        return Some(List { kind, read: Vec::new(), alone: Vec::new(), itself });
    }
    if !is_list(value) {
        return None;
    }
    let items = value.get("items").and_then(Value::as_array).unwrap_or_default();
    let text =
        |item: &Value, key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    let (mut read, mut alone) = (Vec::new(), Vec::new());
    let (list_version, list_kind) = (text(value, "apiVersion"), text(value, "kind"));
    for (index, item) in items.iter().enumerate() {
        // An item without a kind or an apiVersion takes the List's, its kind without `List`
        // (apimachinery `unstructured/helpers.go`, `decodeToList`: to kubectl, a
        // `ClusterSPIFFEID` holding kindless `items` is a list of ClusterSPIFFEIDs).
        let (mut api_version, mut kind) = (text(item, "apiVersion"), text(item, "kind"));
        let filled;
        let item = if item.is_object() && (kind.is_empty() || api_version.is_empty()) {
            if kind.is_empty() {
                kind = list_kind.strip_suffix("List").unwrap_or(&list_kind).to_string();
            }
            if api_version.is_empty() {
                api_version = list_version.clone();
            }
            let mut copy = item.clone();
            if let Some(map) = copy.as_object_mut() {
                map.insert("kind", Value::String(kind.as_str().into()));
                map.insert("apiVersion", Value::String(api_version.as_str().into()));
            }
            filled = copy;
            &filled
        } else {
            item
        };
        // A kind the build does not judge may make pods the gate must see: read like one
        // it reads whole.
        let whole = kinds::reads_whole(&kind) || (!kind.is_empty() && !kinds::is_judged(&api_version, &kind));
        let listed = |pod_templates| Listed {
            index,
            api_version: api_version.clone(),
            kind: kind.clone(),
            pod_templates,
        };
        // A leading `/` is the core group to kubectl (apimachinery `ParseGroupVersion`), a
        // spelling the build refuses in a document of its own: judged only there.
        if api_version.starts_with('/') {
            alone.push(listed(false));
        } else if whole || workload::workload_of(item).is_some() {
            read.push(listed(!whole));
        } else if !kind.is_empty() && kinds::judged_alone(item) {
            alone.push(listed(false));
        }
    }
    (!read.is_empty() || !alone.is_empty()).then(|| List {
        kind: text(value, "kind"),
        read,
        alone,
        itself: false,
    })
}

/// Refuses the first of the Lists given, by input position, that holds an item the
/// reconcile reads.
pub fn check<'a>(
    lists: impl IntoIterator<Item = (usize, std::borrow::Cow<'a, List>)>,
) -> Result<(), InputError> {
    match lists.into_iter().find(|(_, list)| list.itself || !list.read.is_empty()) {
        Some((i, list)) => Err(InputError::from((i, message(&list)))),
        None => Ok(()),
    }
}

/// Why a List is refused, and what to do: the first item at fault, and how many more.
fn message(list: &List) -> String {
    if list.itself {
        return format!(
            "a {} with an `items` field: kubectl and Argo CD take any object with `items` for a List and \
             apply its items, never the object itself, so the function would read what is not applied; \
             remove the `items` field",
            list.kind
        );
    }
    let first = &list.read[0];
    let what = match (first.api_version.as_str(), first.kind.as_str()) {
        (_, "") => "an item without a kind".to_string(),
        ("", kind) => kind.to_string(),
        (version, kind) => format!("{version} {kind}"),
    };
    let templates = if first.pod_templates { " with pod templates" } else { "" };
    let more = match list.read.len() - 1 {
        0 => String::new(),
        n => format!(" and {n} more item(s) the function reads"),
    };
    let plural = |k: &str| match k.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{k}s"),
    };
    let kinds: Vec<String> = kinds::READ_WHOLE.iter().map(|k| plural(k)).collect();
    format!(
        "{} holds {what}{templates} as its own items[{}]{more}: the function reads {}, objects with \
         pod templates and objects of kinds whose pods it cannot judge only as documents of their own, \
         never inside a List, so it would not see them; split the List: write each of its items as its \
         own document (kubectl and kustomize apply them as they apply the List's items)",
        list.kind,
        first.index,
        kinds.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn list(items: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "List", "items": items})
    }

    /// `check` over these items, as the reconcile calls it.
    fn check_items(items: &[Value]) -> Result<(), InputError> {
        check(items.iter().enumerate().filter_map(|(i, v)| Some((i, std::borrow::Cow::Owned(of(v)?)))))
    }

    #[test]
    fn a_list_holding_a_read_kind_or_pod_templates_is_refused() {
        let binding = json!({"apiVersion": "kleym.sonda.red/v1alpha1", "kind": "InferenceIdentityBinding"});
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}});
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"template": {"spec": {"containers": []}}}});
        let found = of(&list(json!([config_map, binding, deployment]))).unwrap().read;
        assert_eq!(
            found.iter().map(|l| (l.index, l.pod_templates)).collect::<Vec<_>>(),
            [(1, false), (2, true)]
        );
        assert!(found[0].is_binding() && !found[1].is_binding());
        let items = [config_map.clone(), list(json!([config_map, binding, deployment]))];
        let e = check_items(&items).unwrap_err();
        assert_eq!(e.item, 1);
        assert!(
            e.message.starts_with(
                "List holds kleym.sonda.red/v1alpha1 InferenceIdentityBinding as its own items[1] and 1 more \
                 item(s) the function reads: the function reads InferenceIdentityBindings, "
            ),
            "{}",
            e.message
        );
        let advice = "split the List: write each of its items as its own document (kubectl and kustomize \
                      apply them as they apply the List's items)";
        assert!(e.message.ends_with(advice), "{}", e.message);
    }

    #[test]
    fn other_lists_pass_and_an_object_of_any_kind_with_items_is_a_list() {
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        let pool = json!({"kind": "InferencePool"});
        assert!(check_items(&[list(json!([config_map, 1, null]))]).is_ok());
        assert!(check_items(&[json!({"kind": "List", "items": {"a": pool}})]).is_ok(), "no items sequence");
        let typed = json!({"kind": "ConfigMapList", "items": [pool]});
        let e = check_items(&[typed]).unwrap_err();
        assert!(
            e.message.starts_with("ConfigMapList holds InferencePool as its own items[0]: "),
            "{}",
            e.message
        );
        // kubectl decodes any object with an items sequence as a list, whatever its kind.
        let e = check_items(&[json!({"kind": "Thing", "items": [pool]})]).unwrap_err();
        assert!(e.message.starts_with("Thing holds InferencePool as its own items[0]: "), "{}", e.message);
    }

    #[test]
    fn items_a_rule_reads_alone_make_a_list_a_record() {
        let service = json!({"apiVersion": "v1", "kind": "Service", "spec": {"selector": {"app": "web"}}});
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler"});
        let wpa = json!({"apiVersion": "datadoghq.com/v1alpha1", "kind": "WatermarkPodAutoscaler",
                         "spec": {"scaleTargetRef": {"kind": "StatefulSet", "name": "db"}}});
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role"});
        for item in [&service, &hpa, &wpa] {
            assert!(kinds::judged_alone(item), "{item:?}");
        }
        assert!(!kinds::judged_alone(&role));
        let found = of(&list(json!([role, service, hpa]))).unwrap();
        assert!(found.read.is_empty());
        assert_eq!(found.alone.iter().map(|l| l.index).collect::<Vec<_>>(), [1, 2]);
        assert!(check_items(&[list(json!([role, service]))]).is_ok(), "a record, not refused");
        assert_eq!(of(&list(json!([role]))), None);
        // A leading `/` is the core group to kubectl: such an item is judged only alone.
        let slashed = json!({"apiVersion": "/v1", "kind": "ConfigMap", "data": {"a": "b"}});
        let found = of(&list(json!([role, slashed]))).unwrap();
        assert_eq!(found.alone.iter().map(|l| l.index).collect::<Vec<_>>(), [1]);
        // An object of a kind the reconcile only passes on, given such items, is a List read
        // whole, whatever its kind.
        let passed =
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "items": [service]});
        assert!(kinds::reads_value_whole(&passed));
        let roles = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "items": [role]});
        assert!(!kinds::reads_value_whole(&roles));
        assert_eq!(of(&passed).map(|l| l.alone.len()), Some(1));
    }
}
