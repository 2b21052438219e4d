//! What the API server refuses of a Kubernetes workload for its own validation, so that it is
//! never stored and makes no pods (kubernetes `pkg/apis/apps/validation/validation.go`,
//! `pkg/apis/batch/validation/validation.go`, `pkg/apis/core/validation/validation.go`): a
//! template label that is no label, a selector its template's labels do not match. Only what
//! every Kubernetes release refuses is judged; anything less sure counts as stored, so a
//! refusal never hides a workload the cluster runs.

use crate::api::fields;
use crate::api::names;
use crate::api::value::Value;
use crate::reconcile::cluster::selector::{Answer, Lookup, Selector};

/// Why the API server refuses a Pod: a label of its own that is no label (`ValidateObjectMeta`).
pub fn pod(item: &Value) -> Option<String> {
    template_labels(fields::child(item, &["metadata"]), "metadata.labels")
}

/// Why the API server refuses a ReplicationController: a template label that is no label;
/// no selector once defaulted (`SetDefaults_ReplicationController` takes the template's labels
/// for an empty one; `ValidateNonEmptySelector`); a selector the template's labels do not
/// match (`ValidatePodTemplateSpecForRC`).
pub fn replication_controller(item: &Value) -> Option<String> {
    let template = fields::child(item, &["spec", "template", "metadata"]);
    if let Some(why) = template_labels(template, "spec.template.metadata.labels") {
        return Some(why);
    }
    let labels = template.and_then(|m| m.get("labels")).and_then(Value::as_object);
    let selector = match item.pointer("/spec/selector") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_object()?),
    };
    let selector = selector.filter(|s| !s.is_empty());
    match (selector, labels.filter(|l| !l.is_empty())) {
        (None, None) => Some("it has no spec.selector and its template no labels to default one from".into()),
        (None, Some(_)) => None,
        (Some(selector), _) => selector.iter().find_map(|(key, want)| {
            let have = labels.and_then(|l| l.get(key));
            let matches = match (want, have) {
                (Value::String(w), Some(Value::String(h))) => w == h,
                (Value::String(_), None) => false,
                // A value of another type: not judged here.
                _ => true,
            };
            (!matches).then(|| format!("its spec.selector {key}={want} does not match its template's labels"))
        }),
    }
}

/// Why the API server refuses an `apps/v1` Deployment, ReplicaSet, StatefulSet or DaemonSet:
/// an empty `spec.selector`, one `LabelSelectorAsSelector` refuses, one its
/// template's labels do not match (`ValidateDeploymentSpec`, `ValidateReplicaSetSpec`,
/// `ValidateStatefulSetSpec`, `ValidateDaemonSetSpec`), or a template label that is no label.
pub fn apps(item: &Value) -> Option<String> {
    if fields::str_at(item, "apiVersion") != Some("apps/v1") {
        return None;
    }
    let spec = item.get("spec");
    let template = spec.and_then(|s| fields::child(s, &["template", "metadata"]));
    template_labels(template, "spec.template.metadata.labels").or_else(|| selector(spec, template, true))
}

/// Why the API server refuses a Job (a CronJob's Jobs: `job_spec` is where the Job spec
/// stands): a template label that is no label; with `manualSelector: true`, a selector its
/// template's labels do not match (`validateJobSpec`). A Job whose selector the
/// API server generates is not judged further.
pub fn job(item: &Value, job_spec: &[&str]) -> Option<String> {
    let spec = fields::child(item, job_spec);
    let template = spec.and_then(|s| fields::child(s, &["template", "metadata"]));
    let path = format!("{}.template.metadata.labels", job_spec.join("."));
    if let Some(why) = template_labels(template, &path) {
        return Some(why);
    }
    let manual = spec.and_then(|s| s.get("manualSelector")).and_then(Value::as_bool) == Some(true);
    if manual { selector(spec, template, false) } else { None }
}

/// Why the API server refuses the labels of a pod template's `metadata` at `path`.
fn template_labels(metadata: Option<&Value>, path: &str) -> Option<String> {
    let (key, why) = names::labels_refusal(metadata.and_then(|m| m.get("labels")))?;
    Some(format!("its {path} holds {key:?}, no valid label ({why})"))
}

/// Why the API server refuses the label selector `spec.selector` for the template whose
/// `metadata` is given: one it cannot take, one that is empty (when `empty_refused`), or one
/// the template's labels do not match. A selector of values of other types than the API's,
/// or a template label of one, is not judged, nor is a missing one (docs/review.md).
fn selector(spec: Option<&Value>, template: Option<&Value>, empty_refused: bool) -> Option<String> {
    let value = spec.and_then(|s| s.get("selector")).filter(|v| !v.is_null());
    let value = value?;
    let selector = Selector::read(Some(value))?;
    if let Some(why) = selector.problem() {
        return Some(format!("its spec.selector is refused: {why}"));
    }
    if selector.is_empty() {
        return empty_refused.then(|| "its spec.selector is empty".into());
    }
    let labels = template.and_then(|m| m.get("labels"));
    let label = |key: &str| match labels.and_then(|l| l.get(key)) {
        None => Lookup::Absent,
        Some(Value::String(v)) => Lookup::Value(v),
        Some(Value::Null) => Lookup::Value(""),
        Some(_) => Lookup::Unknown,
    };
    (selector.selects(&label) == Answer::No)
        .then(|| "its spec.selector does not match its template's labels".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn deployment(selector: Value, labels: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
               "spec": {"selector": selector, "template": {"metadata": {"labels": labels},
                        "spec": {"containers": []}}}})
    }

    #[test]
    fn apps_kinds_run_only_with_a_selector_their_template_matches() {
        let labels = json!({"app": "llama", "identity.kleym.sonda.red/variant": "prefill"});
        for good in [
            json!({"matchLabels": {"app": "llama"}}),
            json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["llama"]}]}),
            json!({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}),
        ] {
            assert_eq!(apps(&deployment(good.clone(), labels.clone())), None, "{good}");
        }
        for bad in [
            json!({}),
            json!({"matchLabels": {"app": "other"}}),
            json!({"matchLabels": {"app": "llama", "tier": "gpu"}}),
            json!({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["llama"]}]}),
            json!({"matchExpressions": [{"key": "app", "operator": "In"}]}),
        ] {
            assert!(apps(&deployment(bad.clone(), labels.clone())).is_some(), "{bad}");
        }
        // The API server refuses one without a selector too; but so many examples leave it
        // out that one counts as stored (docs/review.md, what the gate assumes).
        assert_eq!(apps(&deployment(json!(null), labels.clone())), None);
        let mut beta = deployment(json!({}), labels.clone());
        beta.as_object_mut().unwrap().insert("apiVersion", json!("apps/v1beta2"));
        assert_eq!(apps(&beta), None, "only apps/v1 is judged");
    }

    #[test]
    fn a_template_label_that_is_no_label_is_refused_and_an_odd_type_is_not_judged() {
        let selector = json!({"matchLabels": {"app": "llama"}});
        let why = apps(&deployment(selector.clone(), json!({"app": "llama", "tier": "a b"}))).unwrap();
        assert!(why.contains("spec.template.metadata.labels") && why.contains("\"a b\""), "{why}");
        assert!(apps(&deployment(selector.clone(), json!({"app": "llama", "bad key!": "x"}))).is_some());
        assert!(apps(&deployment(selector.clone(), json!({"app": "llama", "n": 1}))).is_some());
        assert_eq!(apps(&deployment(selector, json!({"app": "llama", "empty": null}))), None);
        // A selector value of another type cannot be read: not judged.
        assert_eq!(apps(&deployment(json!({"matchLabels": {"app": 1}}), json!({"app": "x"}))), None);
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"app": "-x"}}});
        assert!(super::pod(&pod).is_some());
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"app": ""}}});
        assert_eq!(super::pod(&pod), None, "an empty value is a label value");
    }

    #[test]
    fn a_replication_controller_defaults_its_selector_from_its_template() {
        let rc = |selector: Value, labels: Value| {
            json!({"apiVersion": "v1", "kind": "ReplicationController",
                   "spec": {"selector": selector, "template": {"metadata": {"labels": labels}}}})
        };
        assert_eq!(replication_controller(&rc(json!(null), json!({"app": "a"}))), None);
        assert_eq!(replication_controller(&rc(json!({"app": "a"}), json!({"app": "a", "b": "c"}))), None);
        assert!(replication_controller(&rc(json!({}), json!({}))).is_some());
        assert!(replication_controller(&rc(json!({"app": "b"}), json!({"app": "a"}))).is_some());
        assert!(replication_controller(&rc(json!({"other": "a"}), json!({"app": "a"}))).is_some());
    }

    #[test]
    fn a_job_is_judged_by_its_selector_only_when_it_is_manual() {
        let job_of = |manual: bool, selector: Value| {
            json!({"apiVersion": "batch/v1", "kind": "Job", "spec": {"manualSelector": manual,
                   "selector": selector, "template": {"metadata": {"labels": {"app": "a"}}}}})
        };
        assert_eq!(job(&job_of(false, json!({"matchLabels": {"app": "b"}})), &["spec"]), None);
        assert!(job(&job_of(true, json!({"matchLabels": {"app": "b"}})), &["spec"]).is_some());
        assert_eq!(job(&job_of(true, json!({"matchLabels": {"app": "a"}})), &["spec"]), None);
        assert_eq!(job(&job_of(true, json!({})), &["spec"]), None, "an empty selector selects all");
    }
}
