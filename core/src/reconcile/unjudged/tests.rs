//! The unjudged rule: which items it records, what field it names, and what its digest
//! follows.

use super::*;
use crate::api::value::item_json as json;
use crate::reconcile::spire::source::{Origin, Source};

/// A ClusterSPIFFEID as the model reads it, selecting `labels`, in `namespace` when given.
fn source(name: &str, labels: &[(&str, &str)], namespace: Option<&str>) -> Source {
    let pods = Selector {
        match_labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        expressions: Vec::new(),
    };
    let mut namespaces = Selector::default();
    if let Some(ns) = namespace {
        namespaces.match_labels.push((spire::NAMESPACE_NAME_LABEL.to_string(), ns.to_string()));
    }
    Source {
        name: name.to_string(),
        origin: Origin::Input { item: 99 },
        class_name: String::new(),
        labels: Default::default(),
        fallback: false,
        pods: Some(pods),
        namespaces: Some(namespaces),
        spiffe_id_template: "spiffe://example.org/x".into(),
        selector_templates: Vec::new(),
        dns_name_templates: Vec::new(),
        federates_with: Vec::new(),
        admin: false,
        downstream: false,
        static_parent: None,
        ttls: [None, None],
        narrow: None,
        committed: false,
        auto_dns: false,
        store_svid: false,
    }
}

fn task_run(namespace: &str, labels: Value) -> Input {
    Input::of(json!({
        "apiVersion": "tekton.dev/v1", "kind": "TaskRun",
        "metadata": {"name": "run", "namespace": namespace, "labels": labels},
        "spec": {"taskRef": {"name": "t"}, "serviceAccountName": "llama"}
    }))
}

fn found(items: &[Input], sources: &[Source]) -> Vec<Unjudged> {
    find(items, sources.iter())
}

#[test]
fn an_unknown_kind_naming_a_label_an_identity_selects_is_recorded_at_that_field() {
    let variant = "identity.kleym.sonda.red/variant";
    let sources = [source("kleym-x", &[("app", "llama"), (variant, "prefill")], None)];
    let items = [task_run("serving", json!({"app": "llama", variant: "prefill"}))];
    let records = found(&items, &sources);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "metadata.labels.app");
    assert_eq!((records[0].about.kind.as_str(), records[0].about.name.as_str()), ("TaskRun", "run"));
    assert!(records[0].message.contains("ClusterSPIFFEID kleym-x"), "{}", records[0].message);
    // One that names no such label is judged: it reaches no identity by its labels.
    assert!(found(&[task_run("serving", json!({"team": "a"}))], &sources).is_empty());
}

#[test]
fn a_label_is_named_only_as_a_whole_key_in_a_key_or_a_string() {
    let names = |text: &str, key: &str| tokens(text).any(|t| t == key);
    assert!(names("app", "app"));
    assert!(names("labels['app'] == 'x'", "app"));
    assert!(names("app=llama,tier=gpu", "app"));
    assert!(!names("apps/v1", "app"));
    assert!(!names("happy", "app"));
    assert!(!names("my.app", "app"));
    assert!(!names("anything", ""));
    // A value the label key stands in, deep in a spec: its path is named.
    let value = json!({"spec": {"steps": [{"env": [{"value": "SELECT=identity.kleym.sonda.red/variant"}]}]}});
    let by_key: HashMap<&str, Vec<usize>> = [("identity.kleym.sonda.red/variant", vec![0])].into();
    assert_eq!(
        naming(&value, &by_key),
        [("spec.steps[0].env[0].value".to_string(), "identity.kleym.sonda.red/variant")]
    );
}

#[test]
fn an_identity_that_selects_by_no_label_reaches_any_unknown_item_in_its_namespaces() {
    let any = source("spire-default", &[], Some("serving"));
    let quiet = task_run("serving", json!({"team": "a"}));
    let records = found(std::slice::from_ref(&quiet), std::slice::from_ref(&any));
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "");
    // Outside its namespaces, nothing.
    assert!(found(&[task_run("other", json!({}))], &[any]).is_empty());
}

#[test]
fn kinds_that_change_what_is_applied_are_recorded_whatever_they_say() {
    let items = [
        Input::of(
            json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
                         "metadata": {"name": "inject"}, "webhooks": []}),
        ),
        Input::of(json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                         "metadata": {"name": "app", "namespace": "argocd"}, "spec": {}})),
        Input::of(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "spire-controller-manager"},
                         "data": {"config.yaml": "apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\nclassName: x\n"}}),
        ),
        Input::of(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "plain"}, "data": {"a": "b"}}),
        ),
    ];
    let records = found(&items, &[]);
    let kinds: Vec<&str> = records.iter().map(|r| r.about.kind.as_str()).collect();
    assert_eq!(kinds, ["MutatingWebhookConfiguration", "Application", "ConfigMap"]);
    assert!(records[2].message.contains("ControllerManagerConfig"), "{}", records[2].message);
}

#[test]
fn judged_kinds_are_never_recorded() {
    let sources = [source("any", &[], None)];
    let items = [
        Input::of(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "s"},
                         "spec": {"template": {"metadata": {"labels": {"app": "llama"}}, "spec": {"containers": []}}}}),
        ),
        Input::of(json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "s"},
                         "spec": {"selector": {"app": "llama"}}})),
        Input::of(json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                         "metadata": {"name": "n", "namespace": "s"}, "spec": {"podSelector": {"matchLabels": {"app": "llama"}}}})),
    ];
    assert!(found(&items, &sources).is_empty());
}

#[test]
fn the_digest_follows_the_content_the_field_and_the_identities_not_where_the_item_stands() {
    let sources = [source("kleym-x", &[("app", "llama")], None)];
    let digest = |items: &[Input], sources: &[Source]| found(items, sources)[0].digest.clone();
    let base = digest(&[task_run("serving", json!({"app": "llama"}))], &sources);
    assert_eq!(base.len(), 64);
    // Another value: another unknown.
    assert_ne!(base, digest(&[task_run("serving", json!({"app": "other"}))], &sources));
    // Another identity it may reach: another unknown.
    let more = [source("kleym-x", &[("app", "llama")], None), source("new", &[("app", "x")], None)];
    assert_ne!(base, digest(&[task_run("serving", json!({"app": "llama"}))], &more));
    // The file it stands in, by kpt's annotations, and its keys' order: the same unknown.
    let moved = Input::of(json!({
        "kind": "TaskRun", "apiVersion": "tekton.dev/v1",
        "spec": {"serviceAccountName": "llama", "taskRef": {"name": "t"}},
        "metadata": {"labels": {"app": "llama"}, "namespace": "serving", "name": "run",
                     "annotations": {"config.kubernetes.io/path": "elsewhere.yaml", "internal.config.kubernetes.io/index": "3"}}
    }));
    assert_eq!(base, digest(&[moved], &sources));
}

fn endpoints(namespace: &str, target: Value) -> Input {
    Input::of(json!({
        "apiVersion": "v1", "kind": "Endpoints",
        "metadata": {"name": "admin", "namespace": namespace},
        "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "notReadyAddresses": [{"ip": "10.0.0.2", "targetRef": target}]}]
    }))
}

#[test]
fn an_endpoints_naming_a_pod_is_recorded_only_where_an_identity_gives_dns_names() {
    let pod = json!({"kind": "Pod", "uid": "5f0c"});
    let mut dns = source("dns", &[("app", "llama")], Some("serving"));
    dns.auto_dns = true;
    let plain = source("plain", &[("app", "llama")], Some("serving"));
    let records = found(&[endpoints("serving", pod.clone())], std::slice::from_ref(&dns));
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "subsets[0].notReadyAddresses[0].targetRef");
    assert!(records[0].message.contains("ClusterSPIFFEID dns"), "{}", records[0].message);
    assert!(found(&[endpoints("serving", pod.clone())], &[plain]).is_empty(), "no DNS names there");
    assert!(found(&[endpoints("other", pod)], std::slice::from_ref(&dns)).is_empty(), "another namespace");
    for target in [json!({"kind": "Pod"}), json!({"kind": "Node", "uid": "1"}), json!({"uid": "1"})] {
        assert!(
            found(&[endpoints("serving", target.clone())], std::slice::from_ref(&dns)).is_empty(),
            "{target}"
        );
    }
    let slice = Input::of(json!({
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "admin", "namespace": "serving"},
        "endpoints": [{"addresses": ["10.0.0.1"], "targetRef": {"kind": "Pod", "uid": "5f0c"}}]
    }));
    assert!(found(&[slice], &[dns]).is_empty(), "the manager reads no EndpointSlice");
}
