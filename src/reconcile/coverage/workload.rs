//! Pod templates, as SPIRE will see their pods (contract 9): a pod template is any mapping
//! inside an item that has `spec.containers` (a list) beside an optional `metadata.labels`
//! (a Pod itself, a Deployment's `spec.template`, a CronJob's `jobTemplate`, a
//! LeaderWorkerSet's leader and worker templates, the templates custom resources nest). Its
//! pods run as `spec.serviceAccountName`, else the deprecated `spec.serviceAccount`, else
//! `default`, in the item's namespace.

use crate::api::fields;
use serde_json::Value;

/// The service account of a pod that names none.
pub const DEFAULT_SERVICE_ACCOUNT: &str = "default";

/// An item that holds pod templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// The item's `metadata.namespace`; `None` when it has none.
    pub namespace: Option<String>,
    pub templates: Vec<PodTemplate>,
}

/// One pod template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodTemplate {
    /// Where it stands in its item: `spec.template`, `spec.roles[0].template`; empty for a
    /// Pod.
    pub path: String,
    /// Its `metadata.labels` that are strings, sorted by key.
    pub labels: Vec<(String, String)>,
    /// `spec.serviceAccountName`, else `spec.serviceAccount`, else `default`.
    pub service_account: String,
}

impl PodTemplate {
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok().map(|i| self.labels[i].1.as_str())
    }
}

/// The pod templates of an item, or `None` when it holds none.
pub fn workload_of(item: &Value) -> Option<Workload> {
    let mut templates = Vec::new();
    let mut path = Vec::new();
    collect(item, &mut path, &mut templates);
    if templates.is_empty() {
        return None;
    }
    let text = |path: &str| fields::str_at(item, path).unwrap_or_default().to_string();
    Some(Workload {
        api_version: text("apiVersion"),
        kind: text("kind"),
        name: text("metadata.name"),
        namespace: fields::str_at(item, "metadata.namespace").filter(|ns| !ns.is_empty()).map(str::to_string),
        templates,
    })
}

/// A step of a path into an item.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn collect<'a>(node: &'a Value, path: &mut Vec<Step<'a>>, out: &mut Vec<PodTemplate>) {
    match node {
        Value::Object(map) => {
            if let Some(template) = template(node) {
                out.push(PodTemplate { path: render(path), ..template });
            }
            for (key, child) in map {
                path.push(Step::Key(key));
                collect(child, path, out);
                path.pop();
            }
        }
        Value::Array(entries) => {
            for (i, child) in entries.iter().enumerate() {
                path.push(Step::Index(i));
                collect(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The mapping as a pod template, its path left empty.
fn template(node: &Value) -> Option<PodTemplate> {
    let spec = node.get("spec")?.as_object()?;
    spec.get("containers")?.as_array()?;
    let mut labels: Vec<(String, String)> = node
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    labels.sort();
    let account = |key| spec.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let service_account = account("serviceAccountName").or_else(|| account("serviceAccount"));
    Some(PodTemplate {
        path: String::new(),
        labels,
        service_account: service_account.unwrap_or(DEFAULT_SERVICE_ACCOUNT).to_string(),
    })
}

fn render(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(labels: Value, account: Option<(&str, &str)>) -> Value {
        let mut spec = json!({"containers": [{"name": "c", "image": "x"}]});
        if let Some((key, name)) = account {
            spec[key] = json!(name);
        }
        json!({"metadata": {"labels": labels}, "spec": spec})
    }

    #[test]
    fn every_kind_of_template_is_found_where_it_stands() {
        let item = json!({
            "apiVersion": "example.org/v1", "kind": "Nested", "metadata": {"name": "n", "namespace": "serving"},
            "spec": {
                "template": pod(json!({"app": "a", "n": 1}), Some(("serviceAccountName", "sa"))),
                "jobTemplate": {"spec": {"template": pod(json!({}), Some(("serviceAccount", "old")))}},
                "roles": [{"name": "r0"}, {"leaderWorkerTemplate": {"workerTemplate": pod(json!({"w": "1"}), None)}}],
            }
        });
        let workload = workload_of(&item).unwrap();
        assert_eq!((workload.kind.as_str(), workload.namespace.as_deref()), ("Nested", Some("serving")));
        let found: Vec<(&str, &str, usize)> = workload
            .templates
            .iter()
            .map(|t| (t.path.as_str(), t.service_account.as_str(), t.labels.len()))
            .collect();
        assert_eq!(
            found,
            [
                ("spec.template", "sa", 1),
                ("spec.jobTemplate.spec.template", "old", 0),
                ("spec.roles[1].leaderWorkerTemplate.workerTemplate", "default", 1),
            ]
        );
        assert_eq!(workload.templates[0].label("app"), Some("a"));
        assert_eq!(workload.templates[0].label("n"), None, "labels that are not strings are no labels");
    }

    #[test]
    fn a_pod_is_its_own_template_and_containers_must_be_a_list() {
        let mut item = pod(json!({"app": "a"}), None);
        item["kind"] = json!("Pod");
        assert_eq!(workload_of(&item).unwrap().templates[0].path, "");
        let not = json!({"kind": "X", "spec": {"containers": {"a": 1}}});
        assert_eq!(workload_of(&not), None);
        assert_eq!(workload_of(&json!({"kind": "ConfigMap", "data": {"a": "b"}})), None);
    }
}
