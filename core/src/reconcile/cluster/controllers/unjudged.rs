//! The fields of Argo's and KServe's items that shape their pods in ways the build does not judge
//! ([`super::Controller::unjudged`]): the template another object holds, a patch of the pod
//! spec, a value substituted at run time, a pod another object or the workflow's agent makes.
//! An item that sets one is may gain.

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

/// Why a Rollout's canary `experiment` step is not judged.
const EXPERIMENT: &str = "Argo Rollouts makes an Experiment of the step, whose ReplicaSets run the Rollout's \
     pod template under the labels and metadata each of its templates gives (argo-rollouts \
     rollout/experiment.go, GetExperimentFromTemplate; experiments/replicaset.go, newReplicaSetFromTemplate), \
     and the build does not derive those pods";

/// Why an InferenceService field beside its three components is not judged.
const INFERENCE_SERVICE_FIELD: &str = "the build derives pods of the predictor, transformer and explainer \
     alone, and KServe may make others of it (a multi-node predictor's worker Deployment, reconcileWorker; \
     a canary where a KServe version has one), under their own service account and the service's labels";

/// Why an Argo workflow's next version is not judged whole.
pub(super) const WORKFLOW_REMADE: &str = "Argo Workflows makes its pods with containers the build does not \
     see (the template's main container renamed main, its init containers and sidecars, a containerSet's, \
     the executor's wait and init: workflow/controller/workflowpod.go, createWorkflowPod) and names them \
     from its nodes (step groups, retries, withItems, onExit and hooks: workflow/util/pod_name.go, \
     GeneratePodName), under the defaults of the controller's configuration";

/// Why a KServe InferenceService's next version is not judged whole.
pub(super) const INFERENCE_SERVICE_REMADE: &str = "KServe makes its pods under what only the cluster holds, \
     and makes them again when it changes: the labels and containers of the serving runtime it picks, the \
     labels its configuration leaves off (serviceLabelDisallowedList) and the mode it defaults to, the \
     containers its pod webhook injects (a logger's or batcher's agent: pkg/webhook/admission/pod/agent_injector.go, \
     InjectAgent), and its validating webhook, which refuses a service it finds invalid, so that one makes \
     no pods (pkg/apis/serving/v1beta1/inference_service_validation.go)";

/// The first field of a KServe InferenceService the build does not derive pods from: a spec
/// field beside `predictor`, `transformer` and `explainer` (v1alpha2's `canary`, a field a
/// later version adds), or a component's `workerSpec`.
pub(super) fn inference_service(item: &Value) -> Option<Unjudged> {
    const COMPONENTS: [&str; 3] = ["predictor", "transformer", "explainer"];
    let spec = item.get("spec")?.as_object()?;
    if let Some((key, _)) = spec.iter().find(|(key, v)| !COMPONENTS.contains(key) && !v.is_null()) {
        return Some((format!("spec.{key}"), INFERENCE_SERVICE_FIELD));
    }
    COMPONENTS.iter().find_map(|c| {
        let worker = spec.get(c)?.get("workerSpec").filter(|w| !w.is_null())?;
        worker.is_object().then(|| (format!("spec.{c}.workerSpec"), INFERENCE_SERVICE_FIELD))
    })
}

/// Why a template run by the workflow's agent is not judged.
const AGENT: &str = "Argo Workflows runs `http` and `plugin` templates in an agent pod it makes per \
     workflow, under the workflow's pod metadata and service account (argo-workflows \
     workflow/controller/agent.go, createAgentPod), and the build does not derive that pod";

/// Why an `artifactGC` (the workflow's, or an output artifact's) is not judged.
const ARTIFACT_GC: &str = "Argo Workflows deletes the workflow's artifacts in a pod it makes, under that \
     setting's pod metadata and service account (argo-workflows workflow/controller/artifact_gc.go, \
     createArtifactGCPod), and the build does not derive that pod";

/// Why a step's or task's `inline` template is not judged.
const INLINE: &str = "Argo Workflows runs the template a step or task holds inline, under its own metadata \
     (argo-workflows workflow/templateresolution/context.go, GetTemplate), and the build derives pods only \
     of `templates[]`";

/// Why a Rollout's ephemeral metadata is not judged in passing.
const EPHEMERAL: &str = "Argo Rollouts deletes from the pods of each ReplicaSet every label key the \
     ephemeral metadata it last gave them recorded, the template's own value with it, whenever the metadata \
     it wants for them changes: an edit of the metadata or the strategy, a promotion or an abort, a \
     ReplicaSet no longer stable or active, whose pods run on until it is scaled down (argo-rollouts \
     rollout/ephemeralmetadata.go, reconcileEphemeralMetadata; utils/replicaset/canary.go, \
     SyncEphemeralPodMetadata); the build judges the pods as this version states them, not as a ReplicaSet \
     passes from one version to the next";

/// Why a Rollout's analysis is not judged.
const ANALYSIS: &str = "Argo Rollouts runs an AnalysisRun of the templates it names, with the Rollout's \
     arguments substituted into them, and a job metric's Job makes pods labelled and run as those arguments \
     say (argo-rollouts rollout/analysis.go, newAnalysisRunFromRollout; utils/analysis/factory.go, \
     ResolveMetricArgs; metricproviders/job/job.go, newMetricJob), which the build does not derive";

/// A Rollout's `spec.workloadRef`, its first canary `experiment` step, its first analysis,
/// or its first ephemeral metadata that gives labels.
pub(super) fn rollout(item: &Value) -> Option<Unjudged> {
    if item.pointer("/spec/workloadRef").is_some_and(Value::is_object) {
        return Some(("spec.workloadRef".into(), WORKLOAD_REF));
    }
    let steps = item.pointer("/spec/strategy/canary/steps").and_then(Value::as_array).unwrap_or(&[]);
    let experiment = steps.iter().position(|step| step.get("experiment").is_some_and(Value::is_object));
    if let Some(i) = experiment {
        return Some((format!("spec.strategy.canary.steps[{i}].experiment"), EXPERIMENT));
    }
    let analysis = steps.iter().position(|step| step.get("analysis").is_some_and(Value::is_object));
    if let Some(i) = analysis {
        return Some((format!("spec.strategy.canary.steps[{i}].analysis"), ANALYSIS));
    }
    let background = ["canary.analysis", "blueGreen.prePromotionAnalysis", "blueGreen.postPromotionAnalysis"];
    if let Some(path) = background.iter().find(|p| {
        item.pointer(&format!("/spec/strategy/{}", p.replace('.', "/"))).is_some_and(Value::is_object)
    }) {
        return Some((format!("spec.strategy.{path}"), ANALYSIS));
    }
    super::derived::ROLLOUT_METADATA.iter().find_map(|path| {
        let pointer = format!("/{}/labels", path.replace('.', "/"));
        let labels = item.pointer(&pointer).and_then(Value::as_object)?;
        (!labels.is_empty()).then(|| (path.to_string(), EPHEMERAL))
    })
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
    if spec.get("artifactGC").is_some_and(Value::is_object) {
        return Some((format!("{at}.artifactGC"), ARTIFACT_GC));
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
        if let Some(found) = nested(template, path) {
            return Some(found);
        }
        if template.get("resource").is_some_and(Value::is_object) {
            return Some((format!("{path}.resource"), RESOURCE));
        }
        if let Some(key) =
            ["http", "plugin"].into_iter().find(|k| template.get(k).is_some_and(Value::is_object))
        {
            return Some((format!("{path}.{key}"), AGENT));
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

/// The first template a template's `steps` or `dag` name in another object (`templateRef`) or
/// hold inline (`inline`): its path, and why it is not judged.
fn nested(node: &Value, path: &str) -> Option<Unjudged> {
    match node {
        Value::Object(map) => map.iter().find_map(|(key, child)| {
            let at = format!("{path}.{key}");
            match key {
                "templateRef" if child.is_object() => Some((at, TEMPLATE_REF)),
                "inline" if child.is_object() => Some((at, INLINE)),
                "artifactGC" if child.is_object() => Some((at, ARTIFACT_GC)),
                _ => nested(child, &at),
            }
        }),
        Value::Array(entries) => {
            entries.iter().enumerate().find_map(|(i, child)| nested(child, &format!("{path}[{i}]")))
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
        // Artifact garbage collection runs in a pod of its own, the workflow's or an artifact's.
        let gc = json!({"serviceAccountName": "payments", "podMetadata": {"labels": {"app": "payments"}}});
        assert_eq!(field(json!({"artifactGC": gc, "templates": [run]})).as_deref(), Some("spec.artifactGC"));
        let saved = json!({"name": "main", "container": {"image": "x"},
                           "outputs": {"artifacts": [{"name": "out", "artifactGC": gc}]}});
        assert_eq!(
            field(json!({"templates": [saved]})).as_deref(),
            Some("spec.templates[0].outputs.artifacts[0].artifactGC")
        );
        for (agent, key) in [
            (json!({"name": "h", "http": {"url": "x"}}), "http"),
            (json!({"name": "p", "plugin": {"x": {}}}), "plugin"),
        ] {
            assert_eq!(field(json!({"templates": [run, agent]})), Some(format!("spec.templates[1].{key}")));
        }
        assert_eq!(
            field(json!({"templates": [{"name": "d", "dag": {"tasks": [{"name": "a", "inline": {"container": {}}}]}}]}))
                .as_deref(),
            Some("spec.templates[0].dag.tasks[0].inline")
        );
    }

    #[test]
    fn a_rollouts_workload_ref_is_not_judged() {
        let with =
            json!({"spec": {"workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}});
        assert_eq!(rollout(&with).map(|(f, _)| f).as_deref(), Some("spec.workloadRef"));
        assert_eq!(rollout(&json!({"spec": {"template": {}}})), None);
        let experiment = json!({"spec": {"strategy": {"canary": {"steps": [{"setWeight": 20},
            {"experiment": {"templates": [{"name": "e", "specRef": "canary"}]}}]}}}});
        assert_eq!(
            rollout(&experiment).map(|(f, _)| f).as_deref(),
            Some("spec.strategy.canary.steps[1].experiment")
        );
    }

    #[test]
    fn an_inference_services_canary_or_workers_are_not_derived() {
        let isvc = |spec: Value| json!({"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService", "spec": spec});
        let predictor = json!({"serviceAccountName": "shop", "model": {"modelFormat": {"name": "x"}}});
        assert_eq!(inference_service(&isvc(json!({"predictor": predictor.clone()}))), None);
        let canary = isvc(
            json!({"predictor": predictor.clone(), "canary": [{"predictor": {"serviceAccountName": "pay"}}]}),
        );
        assert_eq!(inference_service(&canary).map(|u| u.0), Some("spec.canary".into()));
        let mut worker = predictor.clone();
        worker.as_object_mut().unwrap().insert("workerSpec", json!({"serviceAccountName": "pay"}));
        assert_eq!(
            inference_service(&isvc(json!({"predictor": worker}))).map(|u| u.0),
            Some("spec.predictor.workerSpec".into())
        );
    }
}
