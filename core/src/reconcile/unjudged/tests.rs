//! The unjudged rule: which items it records, what field it names, and what its digest
//! follows.

use super::*;
use crate::api::value::item_json as json;
use crate::reconcile::rules::reason::Reason;
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
        origin: Origin::Input { item: 99 },
        pods: Some(pods),
        namespaces: Some(namespaces),
        spiffe_id_template: "spiffe://example.org/x".into(),
        ..Source::bare(name)
    }
}

fn task_run(namespace: &str, labels: Value) -> Input {
    Input::of(json!({
        "apiVersion": "tekton.dev/v1", "kind": "TaskRun",
        "metadata": {"name": "run", "namespace": namespace, "labels": labels},
        "spec": {"taskRef": {"name": "t"}, "serviceAccountName": "llama"}
    }))
}

/// The records of copies, with no text as written.
fn duplicates(items: &[Input]) -> Vec<Unjudged> {
    super::duplicates(items, &|_| None)
}

fn found(items: &[Input], sources: &[Source]) -> Vec<Unjudged> {
    find(items, sources.iter(), &|_| None)
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
    // One that names no such label still may: its controller labels its pods as it likes.
    let quiet = found(&[task_run("serving", json!({"team": "a"}))], &sources);
    assert_eq!(quiet.len(), 1);
    assert_eq!(quiet[0].field, "");
    assert!(quiet[0].message.contains("may label its pods as it likes"), "{}", quiet[0].message);
    // Where no identity selects, nothing.
    let pinned = [source("kleym-x", &[(variant, "prefill")], Some("serving"))];
    assert!(found(&[task_run("other", json!({"team": "a"}))], &pinned).is_empty());
    // A namespace it names under a longer name is one it may make pods in (a HelmChart's
    // `targetNamespace`).
    let mut installs = task_run("other", json!({}));
    if let Input::Whole(value) = &mut installs {
        *value = json!({"apiVersion": "example.com/v1", "kind": "Chart",
                        "metadata": {"name": "c", "namespace": "other"}, "spec": {"targetNamespace": "serving"}});
    }
    assert_eq!(found(&[installs], &pinned).len(), 1);
}

#[test]
fn a_records_digest_follows_the_namespaces_it_may_land_in_and_no_other() {
    let sources = [source("admin", &[("app.kubernetes.io/instance", "llama")], None)];
    let namespace = |name: &str, labels: Value| {
        Input::of(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}),
        )
    };
    let digest = |serving: Value, other: Value| {
        let items =
            [task_run("serving", json!({})), namespace("serving", serving), namespace("other", other)];
        found(&items, &sources)[0].digest.clone()
    };
    let before = digest(json!({"tier": "a"}), json!({"tier": "a"}));
    assert_ne!(before, digest(json!({"tier": "b"}), json!({"tier": "a"})), "its own namespace relabelled");
    assert_eq!(before, digest(json!({"tier": "a"}), json!({"tier": "b"})), "another namespace relabelled");
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
        // KServe's configuration, by its name or by a field only it names.
        Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "inferenceservice-config", "namespace": "kserve"}, "data": {"a": "b"}})),
        Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "copy"},
            "data": {"inferenceService": "{\"serviceLabelDisallowedList\": []}"}})),
    ];
    let records = found(&items, &[]);
    let kinds: Vec<&str> = records.iter().map(|r| r.about.kind.as_str()).collect();
    assert_eq!(kinds, ["MutatingWebhookConfiguration", "Application", "ConfigMap", "ConfigMap", "ConfigMap"]);
    assert!(records[2].message.contains("ControllerManagerConfig"), "{}", records[2].message);
    assert!(records[3].message.contains("KServe's configuration (metadata.name)"), "{}", records[3].message);
    assert!(
        records[4].message.contains("KServe's configuration (data.inferenceService)"),
        "{}",
        records[4].message
    );
}

/// SPIRE's own components and their configuration, wherever it sits: a Secret, a pod
/// template's annotation, a server's HCL file; a workload known by its image.
#[test]
fn spire_components_and_their_configuration_are_recorded_wherever_they_sit() {
    let deployment = |annotations: Value, image: &str| {
        Input::of(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "m", "namespace": "spire"},
            "spec": {"template": {"metadata": {"labels": {"app": "m"}, "annotations": annotations},
                                  "spec": {"containers": [{"name": "m", "image": image}]}}}}),
        )
    };
    let manager = "clusterName: prod\ntrustDomain: example.org\n";
    let items = [
        Input::of(
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"c.yaml": manager}}),
        ),
        deployment(json!({"example.org/config": manager}), "registry.example.org/app:1"),
        deployment(json!({}), "localhost:5000/mirror/spire-agent:1.9@sha256:00"),
        Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "server"},
            "data": {"server.conf": "server {\n  trust_domain = \"example.org\"\n}\n"}})),
        // Neither: an image whose registry host, not its repository, says spire-server; a
        // trust_domain without a server or agent block; clusterName alone.
        deployment(json!({"note": "clusterName: prod"}), "spire-server.example.org/app:1"),
        Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"},
            "data": {"a": "trust_domain = \"example.org\""}})),
    ];
    let records = found(&items, &[]);
    let said: Vec<(&str, &str)> =
        records.iter().map(|r| (r.about.kind.as_str(), r.message.as_str())).collect();
    assert_eq!(said.len(), 4, "{said:#?}");
    assert!(said[0].1.contains("holds a ControllerManagerConfig (stringData.c.yaml)"), "{}", said[0].1);
    assert!(said[1].1.contains("(spec.template.metadata.annotations.example.org/config)"), "{}", said[1].1);
    assert!(
        said[2].1.contains("runs a SPIRE component (localhost:5000/mirror/spire-agent:1.9@sha256:00)"),
        "{}",
        said[2].1
    );
    assert!(
        said[3].1.contains("a SPIRE server's or agent's configuration (data.server.conf)"),
        "{}",
        said[3].1
    );
    // The SPIRE component's workload is read whole, its arguments in its digest.
    assert!(items[2].value().is_some() && items[1].value().is_some());
    let plain = deployment(json!({}), "registry.example.org/app:1");
    assert!(plain.value().is_none(), "a workload that names no SPIRE component is passed on");
}

/// A bare Pod as a controller's pods: its annotations a downward API volume may write as a
/// file, its images.
#[test]
fn a_bare_pods_spire_configuration_and_component_are_recorded() {
    let pod = |annotations: Value, image: &str| {
        Input::of(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "spire",
            "annotations": annotations}, "spec": {"containers": [{"name": "c", "image": image}]}}))
    };
    let manager = "clusterName: prod\ntrustDomain: example.org\n";
    let configured = found(&[pod(json!({"example.org/config": manager}), "registry.example.org/app:1")], &[]);
    assert_eq!(configured.len(), 1, "{configured:#?}");
    assert!(
        configured[0].message.contains("(metadata.annotations.example.org/config)"),
        "{}",
        configured[0].message
    );
    let agent = found(&[pod(json!({}), "ghcr.io/spiffe/spire-agent:1.9")], &[]);
    assert_eq!(agent.len(), 1, "{agent:#?}");
    assert!(
        agent[0].message.contains("runs a SPIRE component (ghcr.io/spiffe/spire-agent:1.9)"),
        "{}",
        agent[0].message
    );
    assert!(found(&[pod(json!({}), "registry.example.org/app:1")], &[]).is_empty());
    // A ConfigMap's annotations and an `image` key of its data are no file and no container.
    let config_map = Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "spire", "annotations": {"example.org/config": manager}},
        "data": {"image": "ghcr.io/spiffe/spire-server:1.9"}}));
    assert!(found(&[config_map], &[]).is_empty());
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

#[test]
fn a_label_key_written_escaped_is_named_as_the_key() {
    let variant = "identity.kleym.sonda.red/variant";
    let by_key: HashMap<&str, Vec<usize>> = [(variant, vec![0])].into();
    for text in [
        "/metadata/labels/identity.kleym.sonda.red~1variant",
        "{.metadata.labels.identity\\.kleym\\.sonda\\.red/variant}",
        "/api/v1/pods?labelSelector=identity.kleym.sonda.red%2Fvariant%3Dprefill",
        "op: add, path: /spec/template/metadata/labels/identity.kleym.sonda.red~1variant, value: x",
        // A manifest embedded as text, its keys written with YAML's or JSON's escapes.
        "labels: {\"identity.kleym.sonda.red\\x2Fvariant\": prefill}",
        "{\"labels\": {\"identity.kleym.sonda.red\\u002Fvariant\": \"prefill\"}}",
        "{\"labels\": {\"identity.kleym.sonda.red\\/variant\": \"prefill\"}}",
        "labels: {\"\\U00000069dentity.kleym.sonda.red/variant\": prefill}",
        "labels: {\"identity.kleym.sonda.red/\\\n      variant\": prefill}",
        "labels: {\"identity.kleym.sonda.red/\\\r\n\tvariant\": prefill}",
        // A setting that joins a prefix and the key.
        "spark.kubernetes.executor.label.identity.kleym.sonda.red/variant=prefill",
    ] {
        let value = json!({"spec": {"patch": text}});
        assert_eq!(naming(&value, &by_key), [("spec.patch".to_string(), variant)], "{text}");
    }
    // A pointer's segment is a key whole: one beside other characters names no other key.
    assert!(
        naming(&json!({"spec": {"patch": "/labels/identity.kleym.sonda.red~1variants"}}), &by_key).is_empty()
    );
    assert_eq!(unescaped("/metadata/labels/app"), ["metadata", "labels", "app"]);
    // Each escape reads as the character it stands for; any other, and a broken one, as a
    // space, so no key is made of what the text does not say.
    assert_eq!(quoted("\\x61pp \\u0061pp \\x6g \\u+061 \\napp \\\\app \\"), "app app  6g  +061  app  app  ");
    assert!(unescaped("apps/v1 my.app").is_empty());
    // A scalar tagged binary reads as the text its base64 decodes to, on one line or several.
    let key = "aWRlbnRpdHkua2xleW0uc29uZGEucmVkL3ZhcmlhbnQ=";
    let tagged = format!("labels:\n  ? !!binary {key}\n  : prefill");
    assert_eq!(naming(&json!({"data": {"d": tagged}}), &by_key), [("data.d".to_string(), variant)]);
    let long =
        format!("labels: {{? !<tag:yaml.org,2002:binary> \"{}\n  {}\" : prefill}}", &key[..20], &key[20..]);
    assert!(unescaped(&long).contains(&variant.to_string()), "{long}");
    assert!(unescaped("!!binary not-base64!").is_empty());
}

#[test]
fn a_policy_engines_kinds_are_recorded_whatever_they_say() {
    for (api_version, kind) in [
        ("kyverno.io/v1", "ClusterPolicy"),
        ("kyverno.io/v1", "Policy"),
        ("policies.kyverno.io/v1alpha1", "MutatingPolicy"),
        ("mutations.gatekeeper.sh/v1", "AssignMetadata"),
        ("mutations.gatekeeper.sh/v1", "Assign"),
        ("policies.kubewarden.io/v1", "ClusterAdmissionPolicy"),
        ("policy.jspolicy.com/v1beta1", "JsPolicy"),
    ] {
        let item = Input::of(
            json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "p"}, "spec": {}}),
        );
        let records = found(&[item], &[]);
        assert_eq!(records.len(), 1, "{api_version} {kind}");
        assert!(records[0].message.contains("policy engine"), "{}", records[0].message);
    }
    // Gatekeeper's constraint templates only refuse: judged by what they name.
    let template =
        Input::of(json!({"apiVersion": "templates.gatekeeper.sh/v1", "kind": "ConstraintTemplate",
                                    "metadata": {"name": "t"}, "spec": {}}));
    assert!(found(&[template], &[]).is_empty());
}

#[test]
fn a_label_in_an_unknown_groups_own_domain_is_one_its_controller_may_set() {
    assert!(own_domain("serving.knative.dev/service", "serving.knative.dev"));
    assert!(own_domain("training.kubeflow.org/job-name", "kubeflow.org"));
    assert!(own_domain("volcano.sh/job-name", "batch.volcano.sh"));
    assert!(own_domain("jobset.sigs.k8s.io/jobset-name", "jobset.x-k8s.io"));
    // Kubernetes' shared domains belong to no one project: another project, another domain.
    assert!(!own_domain("statefulset.kubernetes.io/pod-name", "jobset.x-k8s.io"));
    assert!(!own_domain("kueue.x-k8s.io/queue-name", "jobset.x-k8s.io"));
    assert!(!own_domain("serving.kserve.io/inferenceservice", "serving.knative.dev"));
    // A key with no prefix, a core group: none.
    assert!(!own_domain("app", "example.org"));
    assert!(!own_domain("apps.example.org/x", "apps"));

    let sources = [source("jobsets", &[("jobset.sigs.k8s.io/jobset-name", "trainer")], Some("serving"))];
    let job_set = |namespace: &str| {
        Input::of(json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                         "metadata": {"name": "trainer", "namespace": namespace},
                         "spec": {"replicatedJobs": [{"name": "w", "template": {}}]}}))
    };
    let records = found(&[job_set("serving")], &sources);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "apiVersion");
    assert!(records[0].message.contains("jobset.sigs.k8s.io/jobset-name"), "{}", records[0].message);
    assert!(found(&[job_set("other")], &sources).is_empty());
}

#[test]
fn an_unknown_item_reaches_every_namespace_it_names() {
    let sources = [source("kleym-x", &[("app", "llama")], Some("serving"))];
    let sensor = |namespace: &str| {
        Input::of(json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Sensor",
                         "metadata": {"name": "s", "namespace": "events"},
                         "spec": {"triggers": [{"template": {"k8s": {"source": {"resource": {
                             "kind": "Pod", "metadata": {"namespace": namespace, "labels": {"app": "llama"}}}}}}}]}}))
    };
    assert_eq!(found(&[sensor("serving")], &sources).len(), 1);
    assert!(found(&[sensor("other")], &sources).is_empty());
    let value = json!({"metadata": {"namespace": "a"}, "spec": {"match": {"namespaces": ["b", "a"]}}});
    assert_eq!(namespaces_named(&value), ["a", "b"]);
    // A text that may hold or fetch a manifest hides where its pods land: anywhere.
    let holding = |text: &str| json!({"metadata": {"namespace": "a"}, "spec": {"source": text}});
    assert!(namespaces_named(&holding("https://example.org/pod.yaml")).is_empty(), "a URL");
    assert!(namespaces_named(&holding("kind: Pod\nmetadata:\n  namespace: b\n")).is_empty(), "a manifest");
    assert_eq!(namespaces_named(&holding("namespace b, on one line")), ["a"], "one line is no manifest");
    assert_eq!(namespaces_named(&holding("two\nlines")), ["a"], "lines that name no namespace");
    let listed = json!({"metadata": {"namespace": "a"}, "spec": {"sources": ["https://example.org/x"]}});
    assert!(namespaces_named(&listed).is_empty(), "a URL in a list");
}

/// A record's digest follows the declared Namespaces, and only those: a ConfigMap that shares
/// a Namespace's name is none.
#[test]
fn a_records_digest_follows_declared_namespaces_only() {
    let sources = [source("any", &[], None)];
    let widget = Input::of(json!({"apiVersion": "example.org/v1", "kind": "Widget",
                                  "metadata": {"name": "w", "namespace": "serving"}}));
    let named = |kind: &str, tier: &str| {
        Input::of(json!({"apiVersion": "v1", "kind": kind,
                         "metadata": {"name": "serving", "labels": {"tier": tier}}}))
    };
    let digest = |other: Input| found(&[widget.clone(), other], &sources)[0].digest.clone();
    assert_ne!(digest(named("Namespace", "a")), digest(named("Namespace", "b")), "its Namespace relabelled");
    assert_eq!(digest(named("ConfigMap", "a")), digest(named("ConfigMap", "b")), "a ConfigMap of that name");
}

#[test]
fn a_config_map_or_secret_that_embeds_selected_labels_is_recorded_in_any_namespace() {
    let variant = "identity.kleym.sonda.red/variant";
    let sources = [source("kleym-x", &[("app", "llama"), (variant, "prefill")], Some("serving"))];
    let map = |data: Value, labels: Value| {
        Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "defaults", "namespace": "argo", "labels": labels}, "data": data}))
    };
    let defaults = "spec:\n  podMetadata:\n    labels:\n      identity.kleym.sonda.red/variant: prefill\n";
    let records = found(&[map(json!({"workflowDefaults": defaults}), json!({}))], &sources);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "data.workflowDefaults");
    assert!(records[0].message.contains(variant), "{}", records[0].message);
    assert!(!records[0].message.contains("service account"), "it names none: {}", records[0].message);
    // Its own labels are no text it embeds, and a text that names no labels embeds none.
    assert!(found(&[map(json!({"a": "b"}), json!({"app": "llama"}))], &sources).is_empty());
    assert!(found(&[map(json!({"selector": "app=llama"}), json!({}))], &sources).is_empty());
    // A Secret's data, decoded.
    let secret = Input::of(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
                                  "data": {"pod.yaml": "bGFiZWxzOiB7YXBwOiBsbGFtYX0="}}));
    assert_eq!(found(&[secret], &sources)[0].field, "data.pod.yaml");
}

#[test]
fn a_config_map_that_names_a_service_account_an_identity_requires_is_recorded() {
    let mut by_account = source("kleym-x", &[("app", "llama")], Some("serving"));
    by_account.selector_templates = vec!["k8s:ns:serving".into(), "k8s:sa:llama".into()];
    let by_labels = source("labels-only", &[("app", "llama")], Some("serving"));
    let map = |defaults: &str| {
        Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "controller-defaults", "namespace": "argo"},
                         "data": {"parallelism": "10", "workflowDefaults": defaults}}))
    };
    let sources = [by_account, by_labels];
    for defaults in [
        "spec:\n  serviceAccountName: llama\n",
        "{\"spec\": {\"serviceAccount\": \"llama\"}}",
        "spec: {\"service\\x41ccountName\": \"ll\\x61ma\"}",
    ] {
        let records = found(&[map(defaults)], &sources);
        assert_eq!(records.len(), 1, "{defaults}");
        assert_eq!(records[0].field, "data.workflowDefaults");
        assert!(records[0].message.contains("service account llama"), "{}", records[0].message);
        // Only the identity that requires the account: one that selects by labels alone
        // selects the same pods whatever their account.
        assert!(records[0].message.contains("ClusterSPIFFEID kleym-x "), "{}", records[0].message);
    }
    // Another account, or the account's name not as a pod's: none.
    assert!(found(&[map("spec:\n  serviceAccountName: builder\n")], &sources).is_empty());
    assert!(found(&[map("executor:\n  image: llama\n")], &sources).is_empty());
    // Labels and an account together: one record naming both.
    let both = "metadata:\n  labels: {app: x}\nspec:\n  serviceAccountName: llama\n";
    let records = found(&[map(both)], &sources);
    assert_eq!(records.len(), 1);
    assert!(
        records[0].message.contains("among them app, and the service account llama"),
        "{}",
        records[0].message
    );
}

#[test]
fn a_scaler_of_a_workload_whose_pods_hang_on_its_count_is_recorded() {
    let sources = [source("db-replicas", &[("app", "db")], Some("serving"))];
    let workload = |api_version: &str, kind: &str| {
        Input::of(
            json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "db", "namespace": "serving"},
                         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "db"}},
                                  "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": []}}}}),
        )
    };
    let hpa = |target_kind: &str, namespace: &str| {
        Input::of(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                         "metadata": {"name": "db", "namespace": namespace},
                         "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": target_kind, "name": "db"},
                                  "minReplicas": 2, "maxReplicas": 2}}))
    };
    let records = found(&[workload("apps/v1", "StatefulSet"), hpa("StatefulSet", "serving")], &sources);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "spec.scaleTargetRef");
    assert!(records[0].message.contains("StatefulSet db"), "{}", records[0].message);
    // A Deployment's pods do not hang on its count; a target elsewhere is not this one.
    assert!(found(&[workload("apps/v1", "Deployment"), hpa("Deployment", "serving")], &sources).is_empty());
    assert!(found(&[workload("apps/v1", "StatefulSet"), hpa("StatefulSet", "other")], &sources).is_empty());
    // The target is one group, kind and name: another of any is another workload.
    let aimed = |api_version: &str, kind: &str, name: &str| {
        Input::of(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                         "metadata": {"name": "db", "namespace": "serving"},
                         "spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": name}}}))
    };
    for (api_version, kind, name) in [
        ("example.org/v1", "StatefulSet", "db"),
        ("apps/v1", "ReplicaSet", "db"),
        ("apps/v1", "StatefulSet", "web"),
    ] {
        let records = found(&[workload("apps/v1", "StatefulSet"), aimed(api_version, kind, name)], &sources);
        assert!(records.is_empty(), "{api_version} {kind} {name}");
    }
    // KEDA's ScaledObject targets a Deployment unless it says.
    let scaled = Input::of(json!({"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
                                  "metadata": {"name": "db", "namespace": "serving"},
                                  "spec": {"scaleTargetRef": {"kind": "StatefulSet", "name": "db"}}}));
    assert_eq!(found(&[workload("apps/v1", "StatefulSet"), scaled], &sources).len(), 1);
    // Any kind with a spec.scaleTargetRef is a scaler: Datadog's WatermarkPodAutoscaler.
    let wpa = Input::of(json!({"apiVersion": "datadoghq.com/v1alpha1", "kind": "WatermarkPodAutoscaler",
                               "metadata": {"name": "db", "namespace": "serving"},
                               "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"},
                                        "minReplicas": 2, "maxReplicas": 2}}));
    let records = found(&[workload("apps/v1", "StatefulSet"), wpa], &sources);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "spec.scaleTargetRef");
    assert!(records[0].message.starts_with("a WatermarkPodAutoscaler that sets"), "{}", records[0].message);
}

#[test]
fn a_scaler_or_its_target_without_a_namespace_lands_in_the_others() {
    let sources = [source("db-replicas", &[("app", "db")], Some("serving"))];
    let with = |value: Value, namespace: Option<&str>| {
        let mut value = value;
        if let Some(ns) = namespace {
            value["metadata"]["namespace"] = json!(ns);
        }
        Input::of(value)
    };
    let sts = |namespace: Option<&str>| {
        with(
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
                   "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "db"}},
                            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": []}}}}),
            namespace,
        )
    };
    let hpa = |namespace: Option<&str>| {
        with(
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "db"},
                   "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"},
                            "minReplicas": 2, "maxReplicas": 2}}),
            namespace,
        )
    };
    for (scaler, target) in [(Some("serving"), None), (None, Some("serving")), (None, None)] {
        assert_eq!(found(&[sts(target), hpa(scaler)], &sources).len(), 1, "{scaler:?} {target:?}");
    }
    // Where the one that names its namespace lands, there: outside the identity's, nothing.
    assert!(found(&[sts(Some("other")), hpa(None)], &sources).is_empty());
    assert!(found(&[sts(None), hpa(Some("other"))], &sources).is_empty());
}

#[test]
fn a_known_controllers_field_it_does_not_judge_is_recorded_where_identities_select() {
    let sources = [source("kleym-x", &[("app", "llama")], Some("serving"))];
    let rollout = |namespace: &str| {
        Input::of(json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
                         "metadata": {"name": "r", "namespace": namespace},
                         "spec": {"workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}}))
    };
    let records = found(&[rollout("serving")], &sources);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].field, "spec.workloadRef");
    assert!(records[0].message.contains("templateref.go"), "{}", records[0].message);
    assert!(found(&[rollout("other")], &sources).is_empty());
    let cron = Input::of(json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "CronWorkflow",
                                "metadata": {"name": "c", "namespace": "serving"},
                                "spec": {"workflowSpec": {"podSpecPatch": "serviceAccountName: x", "templates": []}}}));
    // Beside the record of any change of a workflow (its containers and pod names).
    let fields: Vec<String> = found(&[cron], &sources).into_iter().map(|r| r.field).collect();
    assert_eq!(fields, ["", "spec.workflowSpec.podSpecPatch"]);
    // A Rollout's ephemeral metadata that gives labels: what its pods pass through between
    // two versions of it is not judged.
    let ephemeral = Input::of(json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
        "metadata": {"name": "r", "namespace": "serving"},
        "spec": {"strategy": {"blueGreen": {"previewMetadata": {"labels": {"tier": "preview"}}}}}}));
    assert_eq!(found(&[ephemeral], &sources)[0].field, "spec.strategy.blueGreen.previewMetadata");
}

#[test]
fn an_inference_service_is_recorded_by_itself_where_identities_select() {
    let isvc = |tier: &str| {
        Input::of(json!({"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": "s", "namespace": "serving", "labels": {"tier": tier}},
            "spec": {"predictor": {"model": {"modelFormat": {"name": "x"}}}}}))
    };
    let sources = [source("kleym-x", &[("app", "llama")], Some("serving"))];
    let records = found(&[isvc("gold")], &sources);
    assert_eq!(records.len(), 1);
    assert!(records[0].message.contains("agent_injector.go"), "{}", records[0].message);
    // Its digest follows the service, not the identities: what they give its pods as the
    // service states them is judged.
    let other = [source("kleym-y", &[("app", "other")], Some("serving"))];
    assert_eq!(found(&[isvc("gold")], &other)[0].digest, records[0].digest);
    assert_ne!(found(&[isvc("silver")], &sources)[0].digest, records[0].digest);
    let elsewhere = [source("kleym-x", &[("app", "llama")], Some("other"))];
    assert!(found(&[isvc("gold")], &elsewhere).is_empty());
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

#[test]
fn an_unknown_kind_may_reach_an_identity_that_selects_only_by_labels_any_controller_writes() {
    let shared = [source("admin", &[("app.kubernetes.io/instance", "llama")], Some("serving"))];
    let own = [source(
        "kleym-x",
        &[("app", "llama"), ("identity.kleym.sonda.red/variant", "prefill")],
        Some("serving"),
    )];
    let prometheus = |namespace: &str| {
        Input::of(json!({"apiVersion": "monitoring.coreos.com/v1", "kind": "Prometheus",
                         "metadata": {"name": "llama", "namespace": namespace}, "spec": {"replicas": 1}}))
    };
    let records = found(&[prometheus("serving")], &shared);
    assert_eq!(records.len(), 1);
    assert!(
        records[0].message.contains("any controller may write (app.kubernetes.io/instance)"),
        "{}",
        records[0].message
    );
    assert!(found(&[prometheus("other")], &shared).is_empty(), "another namespace");
    // A key of another domain, which it does not name: its controller may write it all the same
    // (the operator's `operator.prometheus.io/name`).
    let other = found(&[prometheus("serving")], &own);
    assert_eq!(other.len(), 1);
    assert!(other[0].message.contains("may label its pods as it likes"), "{}", other[0].message);
    for key in ["app", "app.kubernetes.io/name", "statefulset.kubernetes.io/pod-name", "node.k8s.io/x"] {
        assert!(shared_key(key), "{key}");
    }
    for key in ["identity.kleym.sonda.red/variant", "example.com/app", "kubernetes.io.example.com/x"] {
        assert!(!shared_key(key), "{key}");
    }
}

#[test]
fn a_workload_declared_twice_with_other_templates_is_recorded_and_its_order_is_in_the_digest() {
    let deployment = |labels: Value| {
        Input::of(json!({"apiVersion": "apps/v1", "kind": "Deployment",
                         "metadata": {"name": "llama", "namespace": "serving"},
                         "spec": {"selector": {"matchLabels": {"app": "llama"}},
                                  "template": {"metadata": {"labels": labels},
                                               "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
    };
    let admin = || deployment(json!({"app": "llama", "role": "admin"}));
    let plain = || deployment(json!({"app": "llama"}));
    let records = duplicates(&[admin(), plain()]);
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].about.item, records[0].field.as_str()), (1, "metadata.name"));
    let swapped = duplicates(&[plain(), admin()]);
    assert_ne!(records[0].digest, swapped[0].digest, "the order is what changes");
    assert!(duplicates(&[admin(), admin()]).is_empty(), "copies that are the same run the same");
    assert!(duplicates(&[admin()]).is_empty());
    // A copy without a namespace lands in the namespace it is applied to: a copy of one in any.
    let placed = |namespace: Option<&str>, labels: Value| {
        let mut metadata = json!({"name": "llama"});
        if let Some(ns) = namespace {
            metadata = json!({"name": "llama", "namespace": ns});
        }
        Input::of(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata,
                         "spec": {"selector": {"matchLabels": {"app": "llama"}},
                                  "template": {"metadata": {"labels": labels},
                                               "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
    };
    let unset = || placed(None, json!({"app": "llama"}));
    let unset_records = duplicates(&[unset(), admin()]);
    assert_eq!(unset_records.iter().map(|r| r.about.item).collect::<Vec<_>>(), [1]);
    // Recorded once though it clashes in two namespaces.
    let other = placed(Some("other"), json!({"app": "llama", "role": "admin"}));
    let twice = duplicates(&[admin(), other, unset()]);
    assert_eq!(twice.iter().map(|r| r.about.item).collect::<Vec<_>>(), [2]);
    // One object is one group, kind, namespace and name: another group's Deployment of that
    // name is another object, another version of the group's the same one.
    let in_group = |api_version: &str| {
        Input::of(json!({"apiVersion": api_version, "kind": "Deployment",
                         "metadata": {"name": "llama", "namespace": "serving"},
                         "spec": {"selector": {"matchLabels": {"app": "llama"}},
                                  "template": {"metadata": {"labels": {"app": "llama"}},
                                               "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
    };
    assert!(duplicates(&[admin(), in_group("example.org/v1")]).is_empty());
    assert_eq!(duplicates(&[admin(), in_group("apps/v1beta2")]).len(), 1);
}

/// Any other item read whole and declared twice with other contents is recorded too (a
/// Namespace's labels, the guard's objects); copies apart only in where a reader met them
/// are one.
#[test]
fn an_item_read_whole_declared_twice_with_other_contents_is_recorded() {
    let namespace = |labels: Value, path: &str| {
        Input::of(json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "serving", "labels": labels,
                         "annotations": {"internal.config.kubernetes.io/path": path, "config.kubernetes.io/index": path}}}))
    };
    let records = duplicates(&[namespace(json!({}), "a.yaml"), namespace(json!({"tier": "ops"}), "b.yaml")]);
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].about.kind.as_str(), records[0].about.item), ("Namespace", 1));
    assert!(records[0].message.contains("other contents"), "{}", records[0].message);
    let same = duplicates(&[
        namespace(json!({"tier": "ops"}), "a.yaml"),
        namespace(json!({"tier": "ops"}), "b.yaml"),
    ]);
    assert!(same.is_empty(), "where a reader met them is no difference");
    let swapped = duplicates(&[namespace(json!({"tier": "ops"}), "b.yaml"), namespace(json!({}), "a.yaml")]);
    assert_ne!(records[0].digest, swapped[0].digest, "the order is what changes");
}

/// A SPIRE component's record follows every ConfigMap and Secret, of any namespace (an
/// operator may copy one across), whatever their text says, and every item of a kind the
/// build does not judge (an operator may write one); not the items the build judges.
#[test]
fn a_spire_components_digest_follows_every_configuration() {
    let manager = Input::of(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "m", "namespace": "spire"},
        "spec": {"template": {"metadata": {"labels": {"app": "m"}},
                              "spec": {"containers": [{"name": "m", "image": "ghcr.io/spiffe/spire-controller-manager:0.6.6"}]}}}}));
    let env = |namespace: &str, value: &str| {
        Input::of(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "env", "namespace": namespace},
            "data": {"WATCH_CLASSLESS": value}}),
        )
    };
    let sealed = |value: &str| {
        Input::of(json!({"apiVersion": "bitnami.com/v1alpha1", "kind": "SealedSecret",
            "metadata": {"name": "conf", "namespace": "spire"}, "spec": {"encryptedData": {"conf": value}}}))
    };
    let service = |port: u64| {
        Input::of(
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "spire"},
            "spec": {"ports": [{"port": port}]}}),
        )
    };
    let digest = |items: &[Input]| {
        let records = found(items, &[]);
        records
            .iter()
            .find(|r| r.about.kind == "Deployment")
            .map(|r| r.digest.clone())
            .expect("the component")
    };
    let with = |spire: &str, other: &str, secret: &str, port: u64| {
        digest(&[manager.clone(), env("spire", spire), env("other", other), sealed(secret), service(port)])
    };
    let base = with("false", "false", "a", 80);
    assert_ne!(base, with("true", "false", "a", 80), "its namespace's");
    assert_ne!(base, with("false", "true", "a", 80), "another namespace's");
    assert_ne!(base, with("false", "false", "b", 80), "an unjudged kind's");
    // What a SPIRE component does reaches any pod, from anything it reads (a Service gives
    // an identity with autoPopulateDNSNames its names): every item is in its digest.
    assert_ne!(base, with("false", "false", "a", 81), "a judged kind's");
}

/// HCL reads a SPIRE server's keys in any case.
#[test]
fn a_spire_servers_configuration_is_known_in_any_case_of_its_keys() {
    let server = |text: &str| {
        Input::of(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s"}, "data": {"server.conf": text}}),
        )
    };
    let records = found(&[server("Server {\n  Trust_Domain = \"example.org\"\n}\n")], &[]);
    assert!(
        records.len() == 1 && records[0].message.contains("SPIRE server's or agent's configuration"),
        "{records:?}"
    );
}

#[test]
fn the_namespace_index_answers_as_each_identitys_scope() {
    let mut by_selector = source("by-selector", &[("app", "a")], None);
    by_selector.selector_templates = vec!["k8s:ns:serving".into(), "k8s:ns:batch".into()];
    let mut nowhere = source("nowhere", &[("app", "a")], Some("serving"));
    nowhere.selector_templates = vec!["k8s:ns:batch".into()];
    let mut twice = source("twice", &[("app", "a")], None);
    twice.namespaces = Some(Selector {
        match_labels: Vec::new(),
        expressions: vec![crate::reconcile::cluster::selector::Expression {
            key: spire::NAMESPACE_NAME_LABEL.into(),
            operator: "In".into(),
            values: vec!["serving".into(), "serving".into(), "other".into()],
        }],
    });
    let sources = [
        source("serving", &[("app", "a")], Some("serving")),
        source("anywhere", &[("app", "a")], None),
        by_selector,
        nowhere,
        twice,
        source("batch", &[("app", "a")], Some("batch")),
    ];
    let reaches: Vec<Reach<'_>> = sources.iter().map(Reach::of).collect();
    let scopes = Scopes::of(&reaches);
    // An item without a namespace may land in any: every identity, "nowhere" too.
    assert_eq!(scopes.within(None), [0, 1, 2, 3, 4, 5]);
    // "twice" once, though its selector names "serving" twice.
    assert_eq!(scopes.within(Some("serving")), [0, 1, 2, 4]);
    assert_eq!(scopes.within(Some("batch")), [1, 2, 5]);
    assert_eq!(scopes.within(Some("other")), [1, 4]);
    assert_eq!(scopes.within(Some("elsewhere")), [1]);
    // An `In` on another label, or another operator on the name label, pins nothing.
    let expression = |key: &str, operator: &str| Selector {
        match_labels: Vec::new(),
        expressions: vec![crate::reconcile::cluster::selector::Expression {
            key: key.into(),
            operator: operator.into(),
            values: vec!["serving".into()],
        }],
    };
    assert_eq!(pinned(&expression("tier", "In")), None);
    assert_eq!(pinned(&expression(spire::NAMESPACE_NAME_LABEL, "NotIn")), None);
    assert_eq!(pinned(&expression(spire::NAMESPACE_NAME_LABEL, "In")), Some(vec!["serving"]));
}

#[test]
fn a_spire_object_argo_cd_recreates_changes_which_declaration_is_the_oldest() {
    // Of the objects declaring one entry, or one trust domain, the manager applies the oldest.
    let object = |kind: &str, options: &str| {
        json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": kind, "metadata": {"name": "x",
               "annotations": {"argocd.argoproj.io/sync-options": options}}, "spec": {}})
    };
    for kind in ["ClusterSPIFFEID", "ClusterStaticEntry", "ClusterFederatedTrustDomain"] {
        let why = changes_what_is_applied(
            "spire.spiffe.io/v1alpha1",
            kind,
            &object(kind, "Prune=false,Replace=true"),
        )
        .unwrap_or_else(|| panic!("{kind}"));
        assert!(why.contains("(Replace=true)") && why.contains("the oldest"), "{why}");
        assert_eq!(why.contains("trust domain"), kind == "ClusterFederatedTrustDomain", "{why}");
        assert!(
            changes_what_is_applied("spire.spiffe.io/v1alpha1", kind, &object(kind, "Prune=false")).is_none()
        );
    }
}

/// Copies of a cluster-scoped kind are one object whatever namespace each carries; a kind the
/// build does not know is namespaced unless a CustomResourceDefinition of the input says not.
#[test]
fn copies_of_a_cluster_scoped_object_in_two_namespaces_are_copies() {
    let entry = |namespace: &str, admin: bool| {
        Input::of(json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterStaticEntry",
            "metadata": {"name": "e", "namespace": namespace},
            "spec": {"spiffeID": "spiffe://example.org/e", "parentID": "spiffe://example.org/n",
                     "selectors": ["k8s:ns:a"], "admin": admin}}))
    };
    assert_eq!(duplicates(&[entry("west", false), entry("east", true)]).len(), 1);
    let widget = |namespace: &str, size: u64| {
        Input::of(json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": namespace}, "spec": {"size": size}}))
    };
    assert!(duplicates(&[widget("a", 1), widget("b", 2)]).is_empty(), "namespaced: two objects");
    let crd = Input::of(json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Cluster", "names": {"kind": "Widget"}}}));
    assert_eq!(duplicates(&[crd, widget("a", 1), widget("b", 2)]).len(), 1, "its CRD says Cluster");
    // A CRD that says Namespaced, and an object of another kind that reads like a Cluster one,
    // declare no cluster-scoped kind.
    let definition = |api_version: &str, kind: &str, scope: &str| {
        Input::of(
            json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": scope, "names": {"kind": "Widget"}}}),
        )
    };
    for (api_version, kind, scope) in [
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "Namespaced"),
        ("apiextensions.k8s.io/v1", "Other", "Cluster"),
        ("example.com/v1", "CustomResourceDefinition", "Cluster"),
    ] {
        let input = [definition(api_version, kind, scope), widget("a", 1), widget("b", 2)];
        assert!(duplicates(&input).is_empty(), "{api_version} {kind} {scope}");
    }
}

#[test]
fn a_binding_whose_verdict_hangs_on_an_api_the_folders_do_not_list_follows_every_item() {
    let binding = Input::of(json!({
        "apiVersion": "kleym.sonda.red/v1alpha1", "kind": "InferenceIdentityBinding",
        "metadata": {"name": "chat", "namespace": "serving"},
        "spec": {"poolRef": {"name": "chat"}, "serviceAccountName": "chat", "identityBoundary": {"variant": "main"}}
    }));
    let other = |image: &str| {
        Input::of(json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "far", "namespace": "elsewhere"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}
        }))
    };
    assert!(unserved(std::slice::from_ref(&binding), &[]).is_empty());
    let why = || vec![(0, Unserved::Fails(Reason::InferencePoolCRDMissing))];
    let records = unserved(&[binding.clone(), other("a")], &why());
    assert_eq!((records.len(), records[0].field.as_str()), (1, "spec.poolRef"));
    assert!(records[0].message.contains("(InferencePoolCRDMissing) only because"));
    let spire =
        unserved(std::slice::from_ref(&binding), &[(0, Unserved::Fails(Reason::ClusterSPIFFEIDCRDMissing))]);
    assert!(spire[0].field.is_empty() && spire[0].message.contains("the ClusterSPIFFEID API"));
    let shadowed =
        Unserved::Shadowed { pool: "chat".into(), api: "inference.networking.k8s.io/v1alpha2".into() };
    let resolved = unserved(std::slice::from_ref(&binding), &[(0, shadowed)]);
    assert!(
        resolved[0]
            .message
            .contains("resolves InferencePool chat under inference.networking.k8s.io/v1alpha2")
    );
    // An item far from the binding, changed, changes the record: the cluster's render may reach it.
    let changed = unserved(&[binding, other("b")], &why());
    assert_ne!(records[0].digest, changed[0].digest);
}

/// What of BASE may still run where HEAD is applied: an object HEAD does not declare (in its
/// namespace, or where either names none), and a workload whose templates HEAD changes.
#[test]
fn what_head_drops_or_whose_pods_it_changes_may_still_run() {
    let deployment = |namespace: Option<&str>, labels: Value| {
        let mut metadata = json!({"name": "llama"});
        if let Some(ns) = namespace {
            metadata["namespace"] = json!(ns);
        }
        Input::of(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata,
                         "spec": {"selector": {"matchLabels": {"app": "llama"}},
                                  "template": {"metadata": {"labels": labels},
                                               "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
    };
    let identity = |namespace: Option<&str>, admin: bool| {
        let mut metadata = json!({"name": "llama"});
        if let Some(ns) = namespace {
            metadata["namespace"] = json!(ns);
        }
        Input::of(
            json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID", "metadata": metadata,
                         "spec": {"spiffeIDTemplate": "spiffe://x/y", "admin": admin}}),
        )
    };
    let serving = || deployment(Some("serving"), json!({"app": "llama"}));
    let before = [serving(), identity(None, false)];
    assert_eq!(lingering(&before, &before), Lingering::default(), "HEAD as BASE");
    assert_eq!(lingering(&[serving()], &before).dropped, [1], "the identity dropped");
    assert_eq!(lingering(&[identity(None, false)], &before).dropped, [0], "the Deployment dropped");
    let elsewhere = [deployment(Some("other"), json!({"app": "llama"})), identity(None, false)];
    assert_eq!(lingering(&elsewhere, &before).dropped, [0], "another namespace's is another object");
    let unset = [deployment(None, json!({"app": "llama"})), identity(None, false)];
    assert_eq!(lingering(&unset, &before), Lingering::default(), "one without a namespace lands in any");
    // A cluster-scoped object has no namespace: one written with one is the same object.
    let stray = [serving(), identity(Some("serving"), false)];
    assert_eq!(lingering(&stray, &before), Lingering::default());
    // Changed templates leave BASE's pods running until they are replaced; any other change
    // replaces the object.
    let relabelled =
        [identity(None, false), deployment(Some("serving"), json!({"app": "llama", "tier": "x"}))];
    let old_pods = Lingering { replaced: vec![(0, 1)], ..Lingering::default() };
    assert_eq!(lingering(&relabelled, &before), old_pods);
    // Any other change: either side's version may stand beside the other side's other
    // objects while it is applied.
    let admin = Lingering { changed: vec![(1, 1)], ..Lingering::default() };
    assert_eq!(lingering(&[serving(), identity(None, true)], &before), admin);
    let front = |app: &str| {
        Input::of(
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "front", "namespace": "serving"},
                         "spec": {"selector": {"app": app}, "ports": [{"port": 80}]}}),
        )
    };
    let with_front = [serving(), identity(None, false), front("llama")];
    let moved = lingering(&[serving(), identity(None, false), front("other")], &with_front);
    assert_eq!(moved, Lingering { changed: vec![(2, 2)], ..Lingering::default() });
    // Every version HEAD declares: two copies, or one in each namespace BASE's may be in.
    let changed = || deployment(Some("serving"), json!({"app": "llama", "tier": "x"}));
    assert_eq!(lingering(&[changed(), changed()], &before).replaced, [(0, 0), (0, 1)]);
    let unset_before = [deployment(None, json!({"app": "llama"}))];
    let two = [changed(), deployment(Some("other"), json!({"app": "llama", "tier": "x"}))];
    assert_eq!(lingering(&two, &unset_before).replaced, [(0, 0), (0, 1)]);
    // HEAD's version refused for its metadata: BASE's stays, whatever its kind.
    let mut refused = identity(None, true);
    if let Input::Whole(value) = &mut refused
        && let Some(metadata) =
            value.as_object_mut().map(|v| v.entry("metadata")).and_then(Value::as_object_mut)
    {
        metadata.insert("labels", json!({"tier": "not valid"}));
    }
    assert_eq!(
        lingering(&[serving(), refused], &before),
        Lingering { refused: vec![(1, 1)], ..Lingering::default() }
    ); // Or for its spec: a SPIRE object's against its schema, a Service's cluster IP once set.
    let typed = Input::of(json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
                                 "metadata": {"name": "llama"}, "spec": {"spiffeIDTemplate": "spiffe://x/y", "ttl": 3600}}));
    assert_eq!(lingering(&[serving(), typed], &before).refused, [(1, 1)]);
    let service = |ip: Option<&str>| {
        let mut spec = json!({"selector": {"app": "llama"}, "ports": [{"port": 80}]});
        if let Some(ip) = ip {
            spec["clusterIP"] = json!(ip);
        }
        Input::of(json!({"apiVersion": "v1", "kind": "Service",
                         "metadata": {"name": "llama", "namespace": "serving"}, "spec": spec}))
    };
    let refused = |was: Option<&str>, now: Option<&str>| lingering(&[service(now)], &[service(was)]).refused;
    assert_eq!(refused(Some("10.0.0.1"), Some("10.0.0.2")), [(0, 0)]);
    assert!(refused(Some("10.0.0.1"), Some("10.0.0.1")).is_empty());
    assert!(refused(None, Some("10.0.0.2")).is_empty(), "one the cluster chose is set first here");
    assert!(refused(Some("10.0.0.1"), None).is_empty(), "left to the cluster, kept");
    // Its first clusterIPs where it writes no clusterIP: the old one is filled in, and clashes.
    let listed = Input::of(json!({"apiVersion": "v1", "kind": "Service",
                                  "metadata": {"name": "llama", "namespace": "serving"},
                                  "spec": {"clusterIPs": ["10.0.0.2"], "ports": [{"port": 80}]}}));
    assert_eq!(lingering(&[listed], &[service(Some("10.0.0.1"))]).refused, [(0, 0)]);
    // No ports unless headless or an ExternalName, a selector label it refuses.
    let spec = |spec: Value| {
        Input::of(json!({"apiVersion": "v1", "kind": "Service",
                         "metadata": {"name": "llama", "namespace": "serving"}, "spec": spec}))
    };
    let refused = |s: Value| lingering(&[spec(s)], &[service(None)]).refused;
    assert_eq!(refused(json!({"selector": {"app": "llama"}})), [(0, 0)]);
    assert!(refused(json!({"clusterIP": "None"})).is_empty(), "headless");
    assert!(refused(json!({"type": "ExternalName", "externalName": "x.example"})).is_empty());
    assert_eq!(refused(json!({"selector": {"app": "no body"}, "ports": [{"port": 80}]})), [(0, 0)]);
    // Its primary IP family where both have a cluster IP; its class where both are balancers.
    let changed = |was: Value, now: Value| lingering(&[spec(now)], &[spec(was)]).refused;
    let family =
        |families: Value, ip: &str| json!({"clusterIP": ip, "ipFamilies": families, "ports": [{"port": 80}]});
    assert_eq!(changed(family(json!(["IPv4"]), ""), family(json!(["IPv6"]), "")), [(0, 0)]);
    assert!(changed(family(json!(["IPv4"]), ""), family(json!(["IPv4", "IPv6"]), "")).is_empty());
    assert!(changed(family(json!(["IPv4"]), "None"), family(json!(["IPv6"]), "None")).is_empty(), "headless");
    let balancer = |class: Option<&str>, kind: &str| json!({"type": kind, "loadBalancerClass": class, "ports": [{"port": 80}]});
    assert_eq!(changed(balancer(Some("a"), "LoadBalancer"), balancer(Some("b"), "LoadBalancer")), [(0, 0)]);
    assert_eq!(changed(balancer(None, "LoadBalancer"), balancer(Some("b"), "LoadBalancer")), [(0, 0)]);
    assert!(changed(balancer(Some("a"), "LoadBalancer"), balancer(Some("a"), "LoadBalancer")).is_empty());
    assert!(changed(balancer(Some("a"), "LoadBalancer"), balancer(None, "ClusterIP")).is_empty());
}

/// Copies of a kind whose every object changes what is applied are one object in any
/// namespace: a policy engine's group, any of its kinds; a kind of Kubernetes' named alone.
#[test]
fn copies_of_a_kind_that_always_applies_are_one_object_in_any_namespace() {
    let copy = |api_version: &str, kind: &str, namespace: &str, data: &str| {
        Input::of(json!({"apiVersion": api_version, "kind": kind,
                         "metadata": {"name": "p", "namespace": namespace}, "spec": {"x": data}}))
    };
    let twice = |api_version: &str, kind: &str| {
        duplicates(&[copy(api_version, kind, "a", "1"), copy(api_version, kind, "b", "2")]).len()
    };
    assert_eq!(twice("kyverno.io/v1", "Policy"), 1, "a policy engine's group");
    assert_eq!(twice("v1", "LimitRange"), 1, "a kind of Kubernetes' named alone");
    assert_eq!(twice("example.org/v1", "LimitRange"), 0, "the kind in another group");
    assert_eq!(twice("example.org/v1", "Policy"), 0, "another group's kind of that name");
}

/// Each mix takes what it says of the other side: HEAD's identities with BASE's objects of
/// some parts and its dropped objects kept or not; BASE's with HEAD's objects of some parts,
/// and its dropped objects pruned or not. HEAD's identities stay whole; BASE's take HEAD's by part.
#[test]
fn each_mix_takes_what_may_stand_while_a_pull_request_is_applied() {
    use super::{Differ, Lingers, Mix, Take, differ, mix, parts};
    let object = |kind: &str, name: &str, spec: Value| {
        let api_version = if kind == "ClusterSPIFFEID" { "spire.spiffe.io/v1alpha1" } else { "v1" };
        Input::of(json!({"apiVersion": api_version, "kind": kind,
                         "metadata": {"name": name, "namespace": "serving"}, "spec": spec}))
    };
    let service =
        |app: &str| object("Service", "front", json!({"selector": {"app": app}, "ports": [{"port": 80}]}));
    let identity = |name: &str, admin: bool| {
        object("ClusterSPIFFEID", name, json!({"spiffeIDTemplate": "spiffe://x/y", "admin": admin}))
    };
    let namespace = |team: &str| {
        Input::of(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "serving", "labels": {"team": team}}}),
        )
    };
    // BASE: a Service, a Namespace, two identities; HEAD: the Service moved, the Namespace
    // relabelled, one identity dropped, the other changed, a Service added.
    let base = [service("llama"), identity("plain", false), identity("admin", true), namespace("a")];
    let head = [
        identity("admin", false),
        service("other"),
        object("Service", "back", json!({"ports": [{"port": 80}]})),
        namespace("b"),
    ];
    let sides = differ(&head, &base);
    let both = parts::SERVICES | parts::NAMESPACES;
    let parts = both | parts::SPIRE;
    assert_eq!(
        sides,
        Differ { dropped: true, refused: false, identities: true, parts, narrowed: false, spire: 1 }
    );
    let takes = |m: Mix| if m.head { mix(&head, &base, m) } else { mix(&base, &head, m) };
    let at = |head: bool, parts: u8, dropped: bool| {
        takes(Mix { head, parts, dropped, narrowed: false, one_by_one: 0 })
    };
    let kept = (Take::In { from: 1, at: None }, Lingers::Dropped);
    let (old_service, old_namespace) = (
        (Take::In { from: 0, at: Some(1) }, Lingers::Old),
        (Take::In { from: 3, at: Some(3) }, Lingers::Old),
    );
    assert_eq!(takes(Mix::FIRST), [kept]);
    assert_eq!(at(true, both, true), [kept, old_service, old_namespace]);
    assert_eq!(at(true, parts::NAMESPACES, false), [old_namespace]);
    let pruned = (Take::Out { at: 1 }, Lingers::Pruned);
    let (new_service, new_namespace, added) = (
        (Take::In { from: 1, at: Some(0) }, Lingers::New),
        (Take::In { from: 3, at: Some(3) }, Lingers::New),
        (Take::In { from: 2, at: None }, Lingers::New),
    );
    assert_eq!(at(false, both, false), [new_service, new_namespace, added]);
    assert_eq!(at(false, parts::SERVICES, true), [pruned, new_service, added]);
    assert_eq!(at(false, 0, true), [pruned]);
    // HEAD's identities stay whole beside BASE's parts; BASE's take HEAD's by part.
    assert_eq!(at(true, parts::IDENTITIES | both, false), [old_service, old_namespace]);
    let new_identity = (Take::In { from: 0, at: Some(2) }, Lingers::New);
    assert_eq!(at(false, parts::SPIRE, false), [new_identity]);
    // Every state but the two sides: HEAD's identities with each subset of BASE's other
    // parts, BASE's dropped objects kept or not; BASE's with each subset of HEAD's parts but
    // all of them (HEAD, or HEAD with the dropped kept), pruned or not.
    let all = Mix::all(sides);
    assert_eq!(all[0], Mix::FIRST);
    assert_eq!(all.len(), 4 + 3 + 6 + 7);
    assert!(
        !all.contains(&Mix { head: false, parts, dropped: true, narrowed: false, one_by_one: 0 }),
        "HEAD again"
    );
    assert!(all.iter().filter(|m| m.head).all(|m| m.parts & parts::IDENTITIES == 0));
    assert!(
        !all.contains(&Mix { head: true, parts: 0, dropped: false, narrowed: false, one_by_one: 0 }),
        "HEAD itself"
    );
    assert!(
        !all.contains(&Mix { head: false, parts: 0, dropped: false, narrowed: false, one_by_one: 0 }),
        "BASE itself"
    );
    // Identities alike: BASE's identities would give the same states again.
    let alike = Differ { identities: false, ..sides };
    assert!(Mix::all(alike).iter().all(|m| m.head));
    assert!(Mix::all(Differ::default()).is_empty());
    let refused = Mix::all(Differ { refused: true, ..Differ::default() });
    assert_eq!(refused, [Mix::FIRST]);
    // Nothing dropped: BASE's identities beside HEAD's parts, nothing pruned.
    let kept_all = Mix::all(Differ { dropped: false, ..sides });
    let base_side: Vec<&Mix> = kept_all.iter().filter(|m| !m.head).collect();
    assert!(!base_side.is_empty() && base_side.iter().all(|m| !m.dropped), "{kept_all:?}");
    // The identities' parts are the bindings', the pools' and SPIRE's.
    assert_eq!(parts::IDENTITIES, parts::BINDINGS + parts::POOLS + parts::SPIRE);
}

/// An object that makes pods on one side only is of both parts: what the sides differ in and
/// what each mix takes agree on it, so either of its versions stands beside either side.
#[test]
fn an_object_that_makes_pods_on_one_side_only_moves_with_either_part() {
    use super::{Lingers, Mix, Take, differ, mix, parts};
    let thing = |labels: Option<Value>| {
        let mut spec = json!({"size": 1});
        if let Some(labels) = labels {
            spec["podLabels"] = labels;
        }
        Input::of(json!({"apiVersion": "example.org/v1", "kind": "Thing",
                         "metadata": {"name": "t", "namespace": "serving"}, "spec": spec}))
    };
    let (base, head) = ([thing(Some(json!({"app": "pay"})))], [thing(None)]);
    assert!(base[0].workload().is_some() && head[0].workload().is_none());
    let both = parts::PODS | parts::REST;
    assert_eq!(differ(&head, &base).parts, both);
    for part in [parts::PODS, parts::REST] {
        let old = mix(
            &head,
            &base,
            Mix { head: true, parts: part, dropped: false, narrowed: false, one_by_one: 0 },
        );
        assert_eq!(old, [(Take::In { from: 0, at: Some(0) }, Lingers::Old)], "{part}");
        let new = mix(
            &base,
            &head,
            Mix { head: false, parts: part, dropped: false, narrowed: false, one_by_one: 0 },
        );
        assert_eq!(new, [(Take::In { from: 0, at: Some(0) }, Lingers::New)], "{part}");
    }
}

/// Identities that swap what they select, beside a fallback one: what the sides differ in
/// asks for the narrowed states, one on each side, each narrowing every changed one in place.
#[test]
fn identities_that_change_what_they_select_beside_a_fallback_are_judged_narrowed() {
    use super::{Lingers, Mix, Take, differ, mix, parts};
    let csid = |name: &str, mut spec: Value| {
        spec["spiffeIDTemplate"] = json!("spiffe://x/{{ .PodMeta.Name }}");
        Input::of(json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
                         "metadata": {"name": name}, "spec": spec}))
    };
    let selects = |name: &str, app: &str| csid(name, json!({"podSelector": {"matchLabels": {"app": app}}}));
    let fallback = csid("ops", json!({"fallback": true, "admin": true}));
    let base = [selects("a", "cart"), selects("b", "pay"), fallback.clone()];
    let head = [selects("b", "cart"), selects("a", "pay"), fallback];
    let sides = differ(&head, &base);
    assert!(sides.narrowed);
    let all = Mix::all(sides);
    let narrowed: Vec<&Mix> = all.iter().filter(|m| m.narrowed).collect();
    assert_eq!(narrowed.len(), 2);
    assert!(narrowed.iter().all(|m| m.parts == 0 && !m.dropped) && narrowed[0].head != narrowed[1].head);
    let takes = |head_side: bool| {
        let m = Mix { head: head_side, parts: 0, dropped: false, narrowed: true, one_by_one: 0 };
        if head_side { mix(&head, &base, m) } else { mix(&base, &head, m) }
    };
    let narrow = |from, at| (Take::Narrowed { from, at }, Lingers::Narrowed);
    assert_eq!(takes(true), [narrow(0, 1), narrow(1, 0)]);
    assert_eq!(takes(false), [narrow(1, 0), narrow(0, 1)]);
    // Without a fallback identity, no pod goes anywhere when none selects it.
    let plain = |items: &[Input]| items[..2].to_vec();
    assert!(!differ(&plain(&head), &plain(&base)).narrowed);
    // A workload changed beside them: each narrowed state also stands beside the other
    // side's version of it (old pods beside HEAD's fallback), the side's own first.
    let deployment = |app: &str| {
        Input::of(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "cart", "namespace": "shop"}, "spec": {"template": {
                "metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "c"}]}}}}))
    };
    let (mut base, mut head) = (base.to_vec(), head.to_vec());
    base.push(deployment("cart"));
    head.push(deployment("shop"));
    let all = Mix::all(differ(&head, &base));
    let narrowed: Vec<(bool, u8)> = all.iter().filter(|m| m.narrowed).map(|m| (m.head, m.parts)).collect();
    assert_eq!(narrowed, [(true, 0), (false, 0), (true, parts::PODS), (false, parts::PODS)]);
    let beside = Mix { head: true, parts: parts::PODS, dropped: false, narrowed: true, one_by_one: 0 };
    let takes = mix(&head, &base, beside);
    assert!(takes.contains(&(Take::In { from: 3, at: Some(3) }, Lingers::Old)), "{takes:?}");
    assert!(takes.contains(&narrow(0, 1)), "{takes:?}");
    let beside = Mix { head: false, ..beside };
    assert!(mix(&base, &head, beside).contains(&(Take::In { from: 3, at: Some(3) }, Lingers::New)));
    // Beside the workload's part only: a ConfigMap changed too stays the side's own.
    let config = |data: &str| {
        Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "shop"}, "data": {"k": data}}))
    };
    base.push(config("a"));
    head.push(config("b"));
    let beside = Mix { head: true, parts: parts::PODS, dropped: false, narrowed: true, one_by_one: 0 };
    let takes = mix(&head, &base, beside);
    assert!(!takes.iter().any(|(t, _)| *t == Take::In { from: 4, at: Some(4) }), "{takes:?}");
    // An identity that gives pods entries dropped, or added, beside a fallback is judged
    // narrowed too: a pod may pass through a moment without it.
    let fallback = csid("ops", json!({"fallback": true, "admin": true}));
    let gives = selects("a", "cart");
    assert!(differ(std::slice::from_ref(&fallback), &[gives.clone(), fallback.clone()]).narrowed, "dropped");
    assert!(differ(&[gives.clone(), fallback.clone()], std::slice::from_ref(&fallback)).narrowed, "added");
    // A fallback on one side only is enough: HEAD's may take the pods HEAD's change leaves.
    let moved = selects("a", "pay");
    assert!(differ(&[moved.clone(), fallback.clone()], std::slice::from_ref(&gives)).narrowed, "in HEAD");
    assert!(differ(&[moved], &[gives, fallback]).narrowed, "in BASE");
}

/// A binding, a pool and a SPIRE object each move as a part of their own, so that a pool of
/// one side is judged beside the bindings of the other.
#[test]
fn bindings_pools_and_spire_objects_are_parts_of_their_own() {
    use super::{differ, parts};
    let binding = |variant: &str| {
        Input::of(json!({"apiVersion": "kleym.sonda.red/v1alpha1", "kind": "InferenceIdentityBinding",
            "metadata": {"name": "b", "namespace": "s"}, "spec": {"poolRef": {"name": "p"},
            "serviceAccountName": "a", "identityBoundary": {"variant": variant}}}))
    };
    let pool = |app: &str| {
        Input::of(json!({"apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool",
            "metadata": {"name": "p", "namespace": "s"},
            "spec": {"selector": {"matchLabels": {"app": app}}, "targetPorts": [{"number": 8000}]}}))
    };
    let csid = |app: &str| {
        Input::of(json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
            "metadata": {"name": "c"}, "spec": {"spiffeIDTemplate": "spiffe://x/y",
            "podSelector": {"matchLabels": {"app": app}}}}))
    };
    assert_eq!(differ(&[binding("decode")], &[binding("prefill")]).parts, parts::BINDINGS);
    assert_eq!(differ(&[pool("a")], &[pool("b")]).parts, parts::POOLS);
    assert_eq!(differ(&[csid("a")], &[csid("b")]).parts, parts::SPIRE);
}

/// A CustomResourceDefinition's look-alike in another group, and a SPIRE kind's name in
/// another group, are neither: their schema and their re-creation change nothing SPIRE reads.
#[test]
fn look_alikes_of_a_crd_or_a_spire_object_in_another_group_are_not_them() {
    use super::kinds::changes_what_is_applied;
    let crd: Value = json!({"apiVersion": "example.com/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "x"}, "spec": {"group": "spire.spiffe.io", "names": {"kind": "ClusterSPIFFEID"}}});
    let said =
        changes_what_is_applied("example.com/v1", "CustomResourceDefinition", &crd).unwrap_or_default();
    assert!(!said.contains("a kind the build reads"), "{said}");
    let replaced = |api_version: &str| -> Value {
        json!({"apiVersion": api_version, "kind": "ClusterSPIFFEID", "metadata": {"name": "x",
            "annotations": {"argocd.argoproj.io/sync-options": "Replace=true"}}, "spec": {}})
    };
    let said = changes_what_is_applied("example.com/v1", "ClusterSPIFFEID", &replaced("example.com/v1"));
    assert!(!said.unwrap_or_default().contains("deletes and creates again"));
    let spire = changes_what_is_applied(
        "spire.spiffe.io/v1alpha1",
        "ClusterSPIFFEID",
        &replaced("spire.spiffe.io/v1alpha1"),
    );
    assert!(spire.unwrap_or_default().contains("deletes and creates again"), "the real one is");
}

/// What Kubernetes writes into pods beside their template follows the core ServiceAccounts,
/// Namespaces and Nodes, dynamic resources and the classes admission writes; not a core
/// ConfigMap, nor a kind of one of those names in another group.
#[test]
fn the_pod_context_follows_what_kubernetes_writes_into_pods_and_nothing_else() {
    let item = |api_version: &str, kind: &str, data: Value| {
        Input::of(json!({"apiVersion": api_version, "kind": kind,
            "metadata": {"name": "x", "namespace": "serving"}, "data": data}))
    };
    let base = [item("v1", "ServiceAccount", json!({})), item("v1", "ConfigMap", json!({"a": "1"}))];
    let context = pod_context(&base);
    let changed = |i: usize, changed: Input| {
        let mut items = base.to_vec();
        items[i] = changed;
        pod_context(&items)
    };
    assert_ne!(context, changed(0, item("v1", "ServiceAccount", json!({"a": "1"}))), "a ServiceAccount");
    assert_eq!(context, changed(1, item("v1", "ConfigMap", json!({"a": "2"}))), "a ConfigMap is none of it");
    let foreign = [item("example.com/v1", "Node", json!({})), base[1].clone()];
    let other = [item("example.com/v1", "Node", json!({"a": "1"})), base[1].clone()];
    assert_eq!(pod_context(&foreign), pod_context(&other), "a Node of another group is none of it");
    let node = [item("v1", "Node", json!({})), base[1].clone()];
    assert_ne!(pod_context(&node), pod_context(&[item("v1", "Node", json!({"a": "1"})), base[1].clone()]));
    let claim = [item("resource.k8s.io/v1", "ResourceClaim", json!({}))];
    assert_ne!(
        pod_context(&claim),
        pod_context(&[item("resource.k8s.io/v1", "ResourceClaim", json!({"a": 1}))])
    );
}

/// Beside the admission guard, a ClusterSPIFFEID this function does not render is recorded,
/// whatever it selects; one it renders is not.
#[test]
fn a_cluster_spiffe_id_not_rendered_here_is_recorded_beside_the_guard() {
    let csid = |name: &str, annotations: Value| {
        Input::of(json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
            "metadata": {"name": name, "annotations": annotations},
            "spec": {"spiffeIDTemplate": "spiffe://td/x", "podSelector": {"matchLabels": {"role": "ops"}}}}))
    };
    let items = [
        csid("hand-written", json!({})),
        csid("rendered", json!({"kleym.sonda.red/rendered-by": "render-inference-identity"})),
        Input::of(
            json!({"apiVersion": "example.com/v1", "kind": "ClusterSPIFFEID", "metadata": {"name": "other"}}),
        ),
    ];
    let records = super::guard::foreign_identities(&items, &|_| None);
    let names: Vec<_> = records.iter().map(|r| r.about.name.as_str()).collect();
    assert_eq!(names, ["hand-written"]);
    assert!(
        records[0].message.contains("does not render, beside the admission guard"),
        "{}",
        records[0].message
    );
    let namespace = |labels: Value| {
        Input::of(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tools", "labels": labels}}),
        )
    };
    let beside = |labels: Value| {
        let items = [csid("hand-written", json!({})), namespace(labels)];
        super::guard::foreign_identities(&items, &|_| None)[0].digest.clone()
    };
    assert_ne!(beside(json!({})), beside(json!({"team": "ml"})), "a Namespace's labels change its reach");
    assert_eq!(beside(json!({"team": "ml"})), beside(json!({"team": "ml"})));
    let with_config_map = |labels: Value| {
        let config_map = Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "tools", "labels": labels}}));
        super::guard::foreign_identities(&[csid("hand-written", json!({})), config_map], &|_| None)[0]
            .digest
            .clone()
    };
    assert_eq!(
        with_config_map(json!({"a": "1"})),
        with_config_map(json!({"a": "2"})),
        "a ConfigMap is no Namespace"
    );
}

/// Two SPIRE objects a pull request changes may stand one of each side: the older
/// declaration of an entry moved away while the newer, with more power, is still BASE's.
/// BASE's identities are judged with each of HEAD's versions alone.
#[test]
fn spire_objects_a_pull_request_changes_are_taken_one_by_one() {
    let identity = |name: &str, team: &str, admin: bool| {
        Input::of(json!({"apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterSPIFFEID",
            "metadata": {"name": name},
            "spec": {"spiffeIDTemplate": "spiffe://x/y", "admin": admin,
                     "podSelector": {"matchLabels": {"team": team}}}}))
    };
    let base = [identity("pay", "pay", false), identity("pay-admin", "pay", true)];
    let head = [identity("pay", "retired", false), identity("pay-admin", "pay", false)];
    let sides = differ(&head, &base);
    assert_eq!(sides.spire, 2);
    let one_by_one: Vec<u16> = Mix::all(sides).iter().map(|m| m.one_by_one).filter(|&m| m != 0).collect();
    assert_eq!(one_by_one, [1, 2], "each alone; both are HEAD's own");
    let takes = |m: u16| {
        mix(&base, &head, Mix { head: false, parts: 0, dropped: false, narrowed: false, one_by_one: m })
    };
    assert_eq!(takes(1), [(Take::In { from: 0, at: Some(0) }, Lingers::New)]);
    assert_eq!(takes(2), [(Take::In { from: 1, at: Some(1) }, Lingers::New)]);
    let five: Vec<Input> = (0..5).map(|i| identity(&format!("c{i}"), "pay", false)).collect();
    let changed: Vec<Input> = (0..5).map(|i| identity(&format!("c{i}"), "other", false)).collect();
    let mut masks: Vec<u16> =
        Mix::all(differ(&changed, &five)).iter().map(|m| m.one_by_one).filter(|&m| m != 0).collect();
    masks.sort_unstable();
    assert_eq!(masks, [1, 2, 4, 8, 15, 16, 23, 27, 29, 30], "past ONE_BY_ONE, each alone and each but one");
    let four = Mix::all(differ(&changed[..4], &five[..4]));
    let masks: Vec<u16> = four.iter().map(|m| m.one_by_one).filter(|&m| m != 0).collect();
    assert_eq!(masks, (1..15).collect::<Vec<u16>>(), "up to ONE_BY_ONE, every choice but none and all");
}
