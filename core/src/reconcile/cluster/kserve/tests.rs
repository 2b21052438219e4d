//! The derivation rules of `kserve/`, one service shape each.

use super::*;
use serde_json::json;

fn service(spec: Value) -> Value {
    json!({
        "apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService",
        "metadata": {"name": "llama", "namespace": "serving", "labels": {"kueue.x-k8s.io/queue-name": "q", "team": "t"}},
        "spec": spec,
    })
}

fn of(item: &Value, presets: &[Value]) -> Derivation {
    derive(item, &Presets::of(presets))
}

/// Each template of a model server as (role, account, labels as `k=v`).
fn templates(d: &Derivation) -> Vec<(String, String, Vec<String>)> {
    d.templates
        .iter()
        .filter(|t| !["(scheduler)", "(tokenizer)"].contains(&t.role.as_str()))
        .map(|t| {
            (t.role.clone(), t.account.clone(), t.labels.iter().map(|(k, v)| format!("{k}={v}")).collect())
        })
        .collect()
}

fn selector(d: &Derivation) -> Vec<String> {
    match &d.pool {
        Pool::Creates { selector, .. } => selector.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        other => panic!("no pool: {other:?}"),
    }
}

const SELECTOR: [&str; 3] = [
    "app.kubernetes.io/name=llama",
    "app.kubernetes.io/part-of=llminferenceservice",
    "kserve.io/component=workload",
];

#[test]
fn a_single_node_service_has_a_pool_and_one_pod_of_both_roles_running_as_default() {
    let d = of(
        &service(
            json!({"router": {"scheduler": {}}, "labels": {"identity.kleym.sonda.red/variant": "decode"}}),
        ),
        &[],
    );
    assert_eq!(
        d.pool,
        Pool::Creates { name: "llama-inference-pool".into(), selector: vec![], custom: false }
            .with(&SELECTOR)
    );
    assert_eq!(
        templates(&d),
        [(
            "(decode)".into(),
            "default".into(),
            vec![
                "app.kubernetes.io/component=llminferenceservice-workload".into(),
                "app.kubernetes.io/name=llama".into(),
                "app.kubernetes.io/part-of=llminferenceservice".into(),
                "identity.kleym.sonda.red/variant=decode".into(),
                "kserve.io/component=workload".into(),
                "kueue.x-k8s.io/queue-name=q".into(),
                "llm-d.ai/role=both".into(),
            ]
        )]
    );
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    assert_eq!(d.pool_item().unwrap()["spec"]["selector"]["matchLabels"]["kserve.io/component"], "workload");
}

#[test]
fn prefill_and_decode_each_take_their_labels_and_decode_runs_as_the_account_kserve_creates() {
    let d = of(
        &service(json!({
            "router": {"scheduler": {}},
            "labels": {"identity.kleym.sonda.red/variant": "decode"},
            "prefill": {"labels": {"identity.kleym.sonda.red/variant": "prefill"}},
        })),
        &[],
    );
    let t = templates(&d);
    assert_eq!((t[0].0.as_str(), t[0].1.as_str()), ("(decode)", "llama-kserve"));
    assert!(t[0].2.contains(&"llm-d.ai/role=decode".to_string()));
    assert!(t[0].2.contains(&"identity.kleym.sonda.red/variant=decode".to_string()));
    assert_eq!((t[1].0.as_str(), t[1].1.as_str()), ("(prefill)", "default"));
    assert!(t[1].2.contains(&"llm-d.ai/role=prefill".to_string()));
    assert!(t[1].2.contains(&"identity.kleym.sonda.red/variant=prefill".to_string()));
    assert!(t[1].2.contains(&"app.kubernetes.io/component=llminferenceservice-workload-prefill".to_string()));
}

#[test]
fn named_accounts_win_and_spec_labels_override_kserves_own() {
    let d = of(
        &service(json!({
            "template": {"serviceAccountName": "decoder", "containers": [{"name": "main"}]},
            "labels": {"llm-d.ai/role": "custom"},
            "prefill": {"template": {"serviceAccountName": "{{ .ObjectMeta.Name }}-prefill", "containers": []}},
        })),
        &[],
    );
    let t = templates(&d);
    assert_eq!((t[0].1.as_str(), t[1].1.as_str()), ("decoder", "llama-prefill"));
    assert!(t[0].2.contains(&"llm-d.ai/role=custom".to_string()));
    assert_eq!(d.pool, Pool::None(NO_SCHEDULER), "no scheduler, no pool");
}

#[test]
fn a_multi_node_service_makes_a_leader_and_workers_of_its_set() {
    let spec = json!({"router": {"scheduler": {}}, "worker": {"containers": []}, "parallelism": {"data": 2},
                      "labels": {"identity.kleym.sonda.red/variant": "decode"}});
    let t = templates(&of(&service(spec), &[]));
    let roles: Vec<(&str, &str)> = t.iter().map(|(r, a, _)| (r.as_str(), a.as_str())).collect();
    assert_eq!(roles, [("(decode leader)", "llama-kserve-mn"), ("(decode worker)", "llama-kserve-mn")]);
    assert!(t[0].2.contains(&"kserve.io/component=workload".to_string()), "the leader is selected");
    assert!(!t[1].2.iter().any(|l| l.starts_with("kserve.io/component")), "workers beside a leader are not");
    assert!(t[1].2.contains(&"identity.kleym.sonda.red/variant=decode".to_string()));
    // Pipeline parallelism needs a preset KServe does not ship: it refuses the service.
    let pipeline = json!({"worker": {"containers": []}, "parallelism": {"pipeline": 2}});
    let d = of(&service(pipeline.clone()), &[]);
    assert!(d.templates.is_empty());
    let Pool::Refused(why) = &d.pool else { panic!("{:?}", d.pool) };
    assert!(
        why.contains("\"kserve-config-llm-worker-pipeline-parallel\"") && why.contains("ConfigNotFound"),
        "{why}"
    );
    assert!(d.notes.iter().all(|n| n.refuses && n.warning));
    // With the preset in the input, KServe accepts it: no template in the preset, so the
    // workers alone are selected, in groups of two.
    let preset = json!({"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceServiceConfig",
        "metadata": {"name": "kserve-config-llm-worker-pipeline-parallel", "namespace": "kserve"},
        "spec": {"worker": {"containers": [{"name": "main"}]}}});
    let d = of(&service(pipeline), &[preset]);
    let t = templates(&d);
    assert_eq!(t.len(), 1, "{t:?}");
    assert!(t[0].2.contains(&"llm-d.ai/role=decode".to_string()));
    let MakerKind::LeaderWorkerSet { leader: false, shape } = &d.templates[0].maker.kind else { panic!() };
    assert_eq!(shape.size, Some(2));
}

#[test]
fn a_pool_ref_makes_no_pool_and_a_custom_selector_is_laid_over_the_presets() {
    let d = of(&service(json!({"router": {"scheduler": {"pool": {"ref": {"name": "shared"}}}}})), &[]);
    assert_eq!(d.pool, Pool::Uses("shared".into()));
    let custom =
        json!({"router": {"scheduler": {"pool": {"spec": {"selector": {"matchLabels": {"tier": "gold"}}}}}}});
    let d = of(&service(custom), &[]);
    let mut want = SELECTOR.to_vec();
    want.push("tier=gold");
    assert_eq!(selector(&d), want);
    assert!(d.notes[0].warning && d.notes[0].message.contains("none of the pods"), "{:?}", d.notes);
    // v1alpha1's flat selector reads the same.
    let mut old = service(json!({"labels": {"tier": "gold"},
        "router": {"scheduler": {"pool": {"spec": {"selector": {"tier": "gold"}}}}}}));
    old["apiVersion"] = json!("serving.kserve.io/v1alpha1");
    let d = of(&old, &[]);
    assert_eq!(selector(&d), want);
    assert!(!d.notes[0].warning, "the pods carry it: {:?}", d.notes);
}

#[test]
fn base_refs_of_the_input_apply_and_a_missing_one_is_said() {
    let preset = json!({"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceServiceConfig",
        "metadata": {"name": "team-defaults", "namespace": "kserve"},
        "spec": {"labels": {"team": "ml"}, "router": {"scheduler": {}}, "template": {"serviceAccountName": "ml"}}});
    let item = service(json!({"baseRefs": [{"name": "team-defaults"}]}));
    let d = of(&item, &[preset]);
    assert_eq!(selector(&d), SELECTOR, "the preset's scheduler brings the pool");
    assert_eq!(d.templates[0].account, "ml");
    assert_eq!(d.templates[0].labels.iter().find(|(k, _)| k == "team").map(|(_, v)| v.as_str()), Some("ml"));
    // A preset found nowhere stops KServe: no pool, no pods.
    let d = of(&item, &[]);
    assert!(matches!(d.pool, Pool::Refused(_)) && d.templates.is_empty());
    assert!(d.notes[0].refuses);
    assert!(
        d.notes[0].message.contains("spec.baseRefs[0] names LLMInferenceServiceConfig \"team-defaults\""),
        "{}",
        d.notes[0].message
    );
}

#[test]
fn what_only_kserve_evaluates_and_names_it_hashes_are_said_not_guessed() {
    let d = of(
        &service(
            json!({"router": {"scheduler": {}}, "labels": {"zone": "{{ .GlobalConfig.SystemNamespace }}"}}),
        ),
        &[],
    );
    assert!(d.templates[0].open && !d.templates[0].labels.iter().any(|(k, _)| k == "zone"));
    assert!(
        d.notes[0].message.starts_with("spec.labels[\"zone\"] holds {{ .GlobalConfig.SystemNamespace }}")
    );
    assert!(d.notes[0].message.contains("inferenceservice-config"), "{}", d.notes[0].message);
    // A long name is hashed as kmeta.ChildName hashes it.
    let mut long = service(json!({"router": {"scheduler": {}}}));
    long["metadata"]["name"] = json!("a".repeat(50));
    let d = of(&long, &[]);
    let Pool::Creates { name, .. } = &d.pool else { panic!("{:?}", d.pool) };
    assert_eq!(name, &child_name(&"a".repeat(50), "-inference-pool"));
    assert_eq!(name.len(), 63);
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    let mut stopped = service(json!({"router": {"scheduler": {}}}));
    stopped["metadata"]["annotations"] = json!({"serving.kserve.io/stop": "True"});
    let d = of(&stopped, &[]);
    assert!(d.templates.is_empty() && matches!(d.pool, Pool::None(_)));
}

#[test]
fn merging_follows_a_strategic_merge_patch() {
    let mut base = json!({"a": {"x": 1, "y": 2}, "list": [1, 2], "c": [{"name": "m", "image": "i"}]});
    merge::merge(
        &mut base,
        &json!({"a": {"y": 3}, "list": [9], "c": [{"name": "s"}, {"name": "m", "tag": "t"}], "n": null}),
    )
    .unwrap();
    assert_eq!(
        base,
        json!({"a": {"x": 1, "y": 3}, "list": [9], "c": [{"name": "m", "image": "i", "tag": "t"}, {"name": "s"}]})
    );
    // A list is merged by name only when both sides are lists of named entries; else replaced.
    let mut base = json!({"named": [{"name": "m", "image": "i"}], "plain": ["--a"]});
    merge::merge(&mut base, &json!({"named": [{"image": "j"}], "plain": [{"name": "m"}]})).unwrap();
    assert_eq!(base, json!({"named": [{"image": "j"}], "plain": [{"name": "m"}]}));
}

/// A `$patch` directive in a free-form map that meets one set before: `replace` puts it in
/// place, `delete` empties it, another value fails the merge. Where nothing was set before,
/// or in a struct's field (which the API server prunes), it is a key like any other.
#[test]
fn a_directive_in_a_free_form_map_replaces_or_empties_the_one_before() {
    let base = || json!({"labels": {"a": "1", "b": "2"}, "router": {"x": "1"}});
    let laid = |over: Value| {
        let mut merged = base();
        merge::merge(&mut merged, &over).map(|()| merged)
    };
    let replaced = laid(json!({"labels": {"$patch": "replace", "c": "3"}})).unwrap();
    assert_eq!(replaced["labels"], json!({"c": "3"}));
    assert_eq!(laid(json!({"labels": {"$patch": "delete", "c": "3"}})).unwrap()["labels"], json!({}));
    assert!(laid(json!({"labels": {"$patch": "merge"}})).unwrap_err().contains("$patch: \"merge\""));
    let fresh = laid(json!({"annotations": {"$patch": "replace", "c": "3"}})).unwrap();
    assert_eq!(fresh["annotations"], json!({"$patch": "replace", "c": "3"}), "nothing set before");
    let pruned = laid(json!({"router": {"$patch": "replace", "y": "2"}})).unwrap();
    assert_eq!(pruned["router"], json!({"x": "1", "$patch": "replace", "y": "2"}), "a struct's field");
}

impl Pool {
    fn with(self, labels: &[&str]) -> Pool {
        let Pool::Creates { name, custom, .. } = self else { return self };
        let selector = labels
            .iter()
            .map(|l| l.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).unwrap())
            .collect();
        Pool::Creates { name, selector, custom }
    }
}

#[test]
fn a_fix_names_the_fields_that_set_the_labels_and_account_of_each_role() {
    let single = ("spec.labels", "spec.template.serviceAccountName");
    assert_eq!(fields_of("(decode)", false), Some(single));
    assert_eq!(fields_of("(decode leader)", true), Some(single));
    assert_eq!(fields_of("(decode worker)", true), Some(single), "the template's account wins");
    assert_eq!(fields_of("(decode worker)", false), Some(("spec.labels", "spec.worker.serviceAccountName")));
    let prefill = ("spec.prefill.labels", "spec.prefill.template.serviceAccountName");
    assert_eq!(fields_of("(prefill)", false), Some(prefill));
    assert_eq!(fields_of("(prefill leader)", true), Some(prefill));
    assert_eq!(
        fields_of("(prefill worker)", false).map(|f| f.1),
        Some("spec.prefill.worker.serviceAccountName")
    );
    for other in ["spec.template", "(router)", "(decode helper)", "decode"] {
        assert_eq!(fields_of(other, false), None, "{other}");
    }
}

#[test]
fn data_parallel_workers_on_both_sides_take_the_shipped_decode_and_prefill_worker_presets() {
    let workers = json!({"worker": {"containers": []}, "parallelism": {"data": 2}});
    let mut spec = workers.clone();
    spec["router"] = json!({"scheduler": {}});
    spec["prefill"] = workers;
    let d = of(&service(spec), &[]);
    let roles: Vec<(String, String)> = templates(&d).into_iter().map(|(r, a, _)| (r, a)).collect();
    let want = [
        ("(decode leader)", "llama-kserve-mn"),
        ("(decode worker)", "llama-kserve-mn"),
        ("(prefill leader)", "llama-kserve-mn-prefill"),
        ("(prefill worker)", "llama-kserve-mn-prefill"),
    ]
    .map(|(r, a)| (r.to_string(), a.to_string()));
    assert_eq!(roles, want, "each side's preset gives it a template, so a leader");
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    assert!(d.templates.iter().all(|t| !t.open));
}

#[test]
fn a_well_known_preset_that_touches_no_pod_is_shipped_and_says_nothing() {
    let d = of(
        &service(
            json!({"router": {"scheduler": {}}, "baseRefs": [{"name": "kserve-config-llm-router-route"}]}),
        ),
        &[],
    );
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    assert!(!d.templates[0].open);
    assert_eq!(selector(&d), SELECTOR);
}

#[test]
fn a_pool_ref_without_a_name_is_no_ref() {
    let d = of(&service(json!({"router": {"scheduler": {"pool": {"ref": {"name": ""}}}}})), &[]);
    assert_eq!(selector(&d), SELECTOR, "the scheduler preset applies and KServe creates the pool");
}

#[test]
fn a_worker_without_positive_parallelism_takes_no_worker_preset() {
    // KServe's IsDataParallel and IsPipelineParallel ask for more than zero.
    let spec =
        json!({"worker": {"containers": []}, "parallelism": {"data": 0, "dataLocal": 0, "pipeline": 0}});
    let t = templates(&of(&service(spec), &[]));
    assert_eq!(t.len(), 1, "no preset gives a template, so no leader: {t:?}");
    assert_eq!((t[0].0.as_str(), t[0].1.as_str()), ("(decode worker)", "llama-kserve-mn"));
    assert!(t[0].2.contains(&"llm-d.ai/role=decode".to_string()), "the workers are selected");
}

#[test]
fn a_preset_is_a_config_of_kserves_group_only() {
    let config = |api_version: &str| {
        json!({"apiVersion": api_version, "kind": "LLMInferenceServiceConfig",
            "metadata": {"name": "team-defaults", "namespace": "kserve"},
            "spec": {"template": {"serviceAccountName": "ml"}}})
    };
    let item = service(json!({"baseRefs": [{"name": "team-defaults"}]}));
    let d = of(&item, &[config("example.com/v1")]);
    assert!(matches!(d.pool, Pool::Refused(_)) && d.templates.is_empty(), "another group's is no preset");
    assert!(d.notes[0].message.contains("is in neither namespace serving nor kserve"), "{:?}", d.notes);
    let d = of(&item, &[config("serving.kserve.io/v1alpha1")]);
    assert_eq!(d.templates[0].account, "ml");
}

#[test]
fn the_accounts_kserve_creates_are_the_services_name_and_its_three_suffixes() {
    for account in ["llama-kserve", "llama-kserve-mn", "llama-kserve-mn-prefill"] {
        assert!(creates_account("llama", account), "{account}");
    }
    for account in ["default", "llama", "llama-kserve-prefill", "mistral-kserve", "llama-kserve-mn-x"] {
        assert!(!creates_account("llama", account), "{account}");
    }
}

fn config(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceServiceConfig",
        "metadata": {"name": name, "namespace": "kserve"}, "spec": spec})
}

#[test]
fn every_shipped_preset_is_read_for_what_it_sets() {
    for name in presets::SHIPPED {
        assert!(presets::shipped(name).is_some(), "{name}");
    }
    // Two besides the scheduler's set router.scheduler: named in baseRefs, they make KServe
    // lay the scheduler's preset and create the pool.
    for preset in [presets::TOKENIZER, presets::LATENCY_PREDICTOR] {
        let d = of(&service(json!({"baseRefs": [{"name": preset}]})), &[]);
        assert_eq!(selector(&d), SELECTOR, "{preset}");
        assert!(d.templates.iter().any(|t| t.role == "(scheduler)"), "{preset}");
    }
    let tokenizer = of(&service(json!({"baseRefs": [{"name": presets::TOKENIZER}]})), &[]);
    let t = tokenizer.templates.iter().find(|t| t.role == "(tokenizer)").expect("the tokenizer's pods");
    assert_eq!(t.account, "default");
    assert!(t.labels.contains(&("app.kubernetes.io/component".into(), "tokenizer".into())));
    assert_eq!(t.maker.name, "llama-tokenizer");
    // The route and tracing presets set no scheduler.
    for preset in [presets::ROUTE, presets::TRACING] {
        let d = of(&service(json!({"baseRefs": [{"name": preset}]})), &[]);
        assert_eq!(d.pool, Pool::None(NO_SCHEDULER), "{preset}");
    }
}

#[test]
fn the_scheduler_runs_as_the_account_kserve_creates_with_its_labels() {
    let d = of(
        &service(json!({"router": {"scheduler": {"labels": {"identity.kleym.sonda.red/variant": "epp"}}}})),
        &[],
    );
    let t = d.templates.iter().find(|t| t.role == "(scheduler)").expect("the scheduler's pods");
    assert_eq!(t.account, "llama-epp-sa");
    assert!(creates_account("llama", &t.account));
    assert_eq!(
        (t.maker.name.as_str(), &t.maker.kind),
        ("llama-kserve-router-scheduler", &MakerKind::Deployment)
    );
    let labels: Vec<String> = t.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    assert_eq!(
        labels,
        [
            "app.kubernetes.io/component=llminferenceservice-router-scheduler",
            "app.kubernetes.io/name=llama",
            "app.kubernetes.io/part-of=llminferenceservice",
            "identity.kleym.sonda.red/variant=epp",
        ]
    );
    // A named account wins; a pool ref runs no scheduler.
    let named =
        json!({"router": {"scheduler": {"template": {"serviceAccountName": "epp", "containers": []}}}});
    assert_eq!(
        of(&service(named), &[]).templates.iter().find(|t| t.role == "(scheduler)").unwrap().account,
        "epp"
    );
    let reference = json!({"router": {"scheduler": {"pool": {"ref": {"name": "shared"}}}}});
    assert!(of(&service(reference), &[]).templates.iter().all(|t| t.role != "(scheduler)"));
}

#[test]
fn a_preset_that_calls_child_name_is_evaluated_and_a_double_quote_is_refused() {
    let preset = |account: &str| {
        config(
            "runtime",
            json!({"template": {"serviceAccountName": account, "containers": [{"name": "main"}]}}),
        )
    };
    let item = service(json!({"baseRefs": [{"name": "runtime"}]}));
    let d = of(&item, &[preset("{{ ChildName .ObjectMeta.Name `-runtime` }}")]);
    assert_eq!(templates(&d)[0].1, "llama-runtime");
    let mut long = item.clone();
    long["metadata"]["name"] = json!("l".repeat(60));
    let d = of(&long, &[preset("{{ ChildName .ObjectMeta.Name `-runtime` }}")]);
    assert_eq!(d.templates[0].account, child_name(&"l".repeat(60), "-runtime"));
    // JSON escapes the quotes, and Go's parser refuses the backslash.
    let d = of(&item, &[preset("{{ ChildName .ObjectMeta.Name \"-runtime\" }}")]);
    assert!(d.templates.is_empty());
    let Pool::Refused(why) = &d.pool else { panic!("{:?}", d.pool) };
    assert!(why.contains("spec.template.serviceAccountName") && why.contains("in operand"), "{why}");
}

#[test]
fn leader_worker_groups_are_sized_as_kserve_sizes_them() {
    let lws = |parallelism: Value| {
        let d = of(
            &service(
                json!({"router": {"scheduler": {}}, "worker": {"containers": []}, "parallelism": parallelism}),
            ),
            &[],
        );
        d.templates
            .iter()
            .filter_map(|t| match &t.maker.kind {
                MakerKind::LeaderWorkerSet { leader, shape } => Some((t.role.clone(), *leader, shape.size)),
                MakerKind::Deployment => None,
            })
            .collect::<Vec<_>>()
    };
    // data / dataLocal pods a group.
    assert_eq!(
        lws(json!({"data": 32, "dataLocal": 8})),
        [("(decode leader)".into(), true, Some(4)), ("(decode worker)".into(), false, Some(4))]
    );
    // A group of one has no workers.
    assert_eq!(lws(json!({"data": 8, "dataLocal": 8})), [("(decode leader)".into(), true, Some(1))]);
}
