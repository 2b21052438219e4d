//! The fields of Argo's items that shape their pods in ways the build does not judge
//! ([`super::Controller::unjudged`]): the template another object holds, a patch of the pod
//! spec, a value substituted at run time. An item that sets one is may gain.

use super::Unjudged;
use crate::api::value::Value;

/// Why a Rollout's `workloadRef` is not judged.
const WORKLOAD_REF: &str = "Argo Rollouts makes its pods of the template of the workload it names, under \
     the Rollout's own ephemeral labels (argo-rollouts rollout/templateref.go, Resolve), and the build does \
     not join the two";

/// Why a workflow's `workflowTemplateRef` or a template's `templateRef` is not judged.
const TEMPLATE_REF: &str = "Argo Workflows runs the templates of the WorkflowTemplate it names, under the \
     workflow's own pod metadata and service account (argo-workflows workflow/util/merge.go, \
     JoinWorkflowSpec; workflow/templateresolution/context.go, GetTemplateFromRef), and the build does not \
     join the two";

/// Why a `podSpecPatch` is not judged.
const POD_SPEC_PATCH: &str = "Argo Workflows patches each pod's spec with it, its service account among \
     the fields (argo-workflows workflow/util/util.go, ApplyPodSpecPatch), where the build does not see";

/// Why a `resource` template is not judged.
const RESOURCE: &str = "Argo Workflows creates, applies, patches or replaces the object of its manifest \
     with kubectl, as the workflow's service account (argo-workflows cmd/argoexec/commands/resource.go, \
     execResource; workflow/executor/resource.go, ExecResource), and the build does not read that object";

/// Why a label or service account with `{{` is not judged.
const SUBSTITUTED: &str = "Argo Workflows substitutes the workflow's parameters and variables into it \
     before it makes the pod (argo-workflows workflow/controller/operator.go, substituteGlobalVariables; \
     workflow/common/util.go, ProcessArgs), so its value is only known at run time";

/// A Rollout's `spec.workloadRef`.
pub(super) fn rollout(item: &Value) -> Option<Unjudged> {
    item.pointer("/spec/workloadRef")
        .filter(|r| r.is_object())
        .map(|_| ("spec.workloadRef".into(), WORKLOAD_REF))
}

/// The first field of a workflow spec (at `at` in its item) the build does not judge: a
/// `workflowTemplateRef`, a `podSpecPatch` (the workflow's, its defaults', a template's), a
/// `templateRef` in a template, a `resource` template (an object it makes of a manifest), a
/// label or service account that Argo substitutes.
pub(super) fn workflow(spec: Option<&Value>, at: &str) -> Option<Unjudged> {
    let spec = spec?;
    if spec.get("workflowTemplateRef").is_some_and(Value::is_object) {
        return Some((format!("{at}.workflowTemplateRef"), TEMPLATE_REF));
    }
    let templates: Vec<(String, &Value)> = spec
        .get("templates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| (format!("{at}.templates[{i}]"), t))
        .collect();
    let defaults = spec.get("templateDefaults").map(|d| (format!("{at}.templateDefaults"), d));
    let mut shaping: Vec<(String, &Value)> = vec![(at.to_string(), spec)];
    shaping.extend(defaults);
    shaping.extend(templates.iter().cloned());
    for (path, node) in &shaping {
        if node.get("podSpecPatch").and_then(Value::as_str).is_some_and(|p| !p.trim().is_empty()) {
            return Some((format!("{path}.podSpecPatch"), POD_SPEC_PATCH));
        }
    }
    for (path, template) in &templates {
        if let Some(found) = template_ref(template, path) {
            return Some((found, TEMPLATE_REF));
        }
        if template.get("resource").is_some_and(Value::is_object) {
            return Some((format!("{path}.resource"), RESOURCE));
        }
    }
    for (path, node) in &shaping {
        let account = node.get("serviceAccountName").and_then(Value::as_str);
        if account.is_some_and(substituted) {
            return Some((format!("{path}.serviceAccountName"), SUBSTITUTED));
        }
        let metadata = if path == at { "podMetadata" } else { "metadata" };
        let labels = node.get(metadata).and_then(|m| m.get("labels")).and_then(Value::as_object);
        for (key, value) in labels.into_iter().flat_map(|l| l.iter()) {
            if substituted(key) || value.as_str().is_some_and(substituted) {
                return Some((format!("{path}.{metadata}.labels.{key}"), SUBSTITUTED));
            }
        }
    }
    None
}

/// Whether a text holds an Argo expression, `{{...}}`.
fn substituted(text: &str) -> bool {
    text.contains("{{")
}

/// The path of the first `templateRef` under a template (in its `steps` or `dag`).
fn template_ref(node: &Value, path: &str) -> Option<String> {
    match node {
        Value::Object(map) => map.iter().find_map(|(key, child)| {
            let at = format!("{path}.{key}");
            if key == "templateRef" && child.is_object() { Some(at) } else { template_ref(child, &at) }
        }),
        Value::Array(entries) => {
            entries.iter().enumerate().find_map(|(i, child)| template_ref(child, &format!("{path}[{i}]")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn field(spec: Value) -> Option<String> {
        workflow(Some(&spec), "spec").map(|(f, _)| f)
    }

    #[test]
    fn a_workflows_fields_the_build_does_not_judge_are_found_first_to_last() {
        let run = json!({"name": "main", "container": {"image": "x"}});
        assert_eq!(field(json!({"templates": [run]})), None);
        let create = json!({"name": "make", "resource": {"action": "create", "manifest": "kind: Pod"}});
        assert_eq!(field(json!({"templates": [run, create]})).as_deref(), Some("spec.templates[1].resource"));
        assert_eq!(
            field(json!({"workflowTemplateRef": {"name": "w"}, "podSpecPatch": "x"})).as_deref(),
            Some("spec.workflowTemplateRef")
        );
        assert_eq!(
            field(json!({"templates": [run, {"name": "p", "podSpecPatch": "serviceAccountName: a"}]}))
                .as_deref(),
            Some("spec.templates[1].podSpecPatch")
        );
        assert_eq!(
            field(json!({"templates": [{"name": "s", "steps": [[{"name": "a", "templateRef": {"name": "t", "template": "u"}}]]}]}))
                .as_deref(),
            Some("spec.templates[0].steps[0][0].templateRef")
        );
        assert_eq!(
            field(json!({"podMetadata": {"labels": {"v": "{{workflow.parameters.v}}"}}, "templates": [run]}))
                .as_deref(),
            Some("spec.podMetadata.labels.v")
        );
        assert_eq!(
            field(json!({"templates": [{"name": "a", "serviceAccountName": "{{inputs.parameters.sa}}", "container": {}}]}))
                .as_deref(),
            Some("spec.templates[0].serviceAccountName")
        );
        // An empty patch patches nothing.
        assert_eq!(field(json!({"podSpecPatch": " ", "templates": [run]})), None);
    }

    #[test]
    fn a_rollouts_workload_ref_is_not_judged() {
        let with =
            json!({"spec": {"workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}});
        assert_eq!(rollout(&with).map(|(f, _)| f).as_deref(), Some("spec.workloadRef"));
        assert_eq!(rollout(&json!({"spec": {"template": {}}})), None);
    }
}
