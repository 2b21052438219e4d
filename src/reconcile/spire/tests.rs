//! The manager's behaviour, one rule per test, as read in spiffe/spire-controller-manager
//! at commit 430567cc024fb0a2c07d2a1972128e68d1c1f54d (`pkg/spireentry/reconciler.go`:
//! `reconcileClass`, `addClusterSPIFFEIDEntriesState`; `entries.go`: `renderPodEntry`;
//! `pkg/namespace/namespace.go`: `IsIgnored`).

use super::*;
use crate::api::labels::Labels;
use crate::config::{SelectorScope, SpireManager};
use crate::reconcile::coverage::workload::workload_of;
use serde_json::{Value, json};
use std::borrow::Cow;

const TD: &str = "example.org";
const HELM_DEFAULT: &str =
    "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}";

fn deployment(namespace: &str, name: &str, labels: Value, account: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"template": {"metadata": {"labels": labels},
                 "spec": {"serviceAccountName": account, "containers": [{"name": "c"}]}}}
    })
}

fn seen(items: &[Value], namespaces: &[(&str, Value)]) -> Seen<'static> {
    let mut seen = Seen::default();
    for (i, item) in items.iter().enumerate() {
        seen.workloads.push((i, Cow::Owned(workload_of(item).unwrap())));
    }
    for (name, labels) in namespaces {
        let labels = labels.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().into()));
        seen.namespaces.insert(name.to_string(), labels.collect());
    }
    seen
}

/// A binding's object: pool `app: llama`, the operator's selectors.
fn rendered(binding: usize, namespace: &str, account: &str, variant: &str, scope: SelectorScope) -> Source {
    let labels: Labels = [("app".to_string(), "llama".to_string())].into_iter().collect();
    let selectors = vec![
        format!("k8s:ns:{namespace}"),
        "k8s:pod-label:app:llama".to_string(),
        format!("k8s:pod-label:identity.kleym.sonda.red/variant:{variant}"),
        format!("k8s:sa:{account}"),
    ];
    let name = format!("kleym-{namespace}-{variant}");
    let id = format!("spiffe://{TD}/ns/{namespace}/sa/{account}/inference/pool/llama/variant/{variant}");
    let out = RenderedOutput {
        name: &name,
        namespace,
        variant,
        pool_labels: &labels,
        spiffe_id: &id,
        selectors: &selectors,
        class_name: None,
    };
    Source::rendered(binding, out, scope)
}

fn foreign(item: usize, name: &str, template: &str, fallback: bool) -> Source {
    Source {
        name: name.to_string(),
        origin: Origin::Input { item },
        class_name: String::new(),
        fallback,
        pods: Some(Selector::default()),
        namespaces: Some(Selector::default()),
        spiffe_id_template: template.to_string(),
        selector_templates: Vec::new(),
    }
}

fn svids(model: &Model, held: usize) -> Vec<String> {
    model.held[held].svids().map(|e| e.spiffe_id.text.clone()).collect()
}

fn names(model: &Model, sources: impl Iterator<Item = usize>) -> Vec<String> {
    sources.map(|s| model.sources[s].name.clone()).collect()
}

fn prefill(ns: &str) -> Value {
    deployment(ns, "prefill", json!({"app": "llama", "identity.kleym.sonda.red/variant": "prefill"}), "llama")
}

#[test]
fn class_rules_read_the_own_class_and_classless_only_with_watch_classless() {
    let manager = |class: &str, classless| SpireManager {
        class_name: Some(class.to_string()),
        watch_classless: classless,
        configured: true,
        ..SpireManager::default()
    };
    assert!(reads(&manager("spire-system-spire", false), "spire-system-spire"));
    assert!(!reads(&manager("spire-system-spire", false), ""));
    assert!(reads(&manager("spire-system-spire", true), ""));
    assert!(!reads(&manager("spire-system-spire", true), "other"));
    assert!(reads(&manager("", false), ""), "an empty class equals an empty className");
    assert!(reads(&SpireManager::default(), "anything"), "not configured: every object counts as read");
}

#[test]
fn an_ignored_object_gives_no_entry() {
    let items = [prefill("serving")];
    let mut source = rendered(9, "serving", "llama", "prefill", SelectorScope::Pool);
    source.class_name = "other".into();
    let manager =
        SpireManager { class_name: Some("mine".into()), configured: true, ..SpireManager::default() };
    let model = simulate(vec![source], &seen(&items, &[]), &manager, Some(TD));
    assert_eq!(model.ignored, vec![true]);
    assert!(model.held[0].entries.is_empty());
}

#[test]
fn ignore_namespaces_are_patterns_matched_anywhere_in_the_name() {
    let items = [prefill("kube-system"), prefill("team-a"), prefill("serving")];
    let seen = seen(&items, &[]);
    let sources = || vec![foreign(9, "all", HELM_DEFAULT, false)];
    let model = simulate(sources(), &seen, &SpireManager::default(), Some(TD));
    let held: Vec<bool> = model.held.iter().map(|h| h.entries.is_empty()).collect();
    assert_eq!(held, vec![true, false, false], "kube-system is ignored by default");
    let manager = SpireManager { ignore_namespaces: vec!["^team-".into()], ..SpireManager::default() };
    let model = simulate(sources(), &seen, &manager, Some(TD));
    let held: Vec<bool> = model.held.iter().map(|h| h.entries.is_empty()).collect();
    assert_eq!(held, vec![false, true, false]);
    let manager = SpireManager { ignore_namespaces: vec!["ving".into()], ..SpireManager::default() };
    let model = simulate(sources(), &seen, &manager, Some(TD));
    assert!(model.held[2].entries.is_empty(), "unanchored: `ving` matches serving");
}

#[test]
fn a_non_fallback_entry_that_never_attests_still_skips_the_fallback() {
    // A staging copy of prod's pods: prod's object selects them across namespaces.
    let items = [prefill("prod"), prefill("staging")];
    let sources = vec![
        foreign(8, "default-fallback", HELM_DEFAULT, true),
        rendered(9, "prod", "llama", "prefill", SelectorScope::Pool),
    ];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(model.sources[0].name, "kleym-prod-prefill", "non-fallback objects come first");
    assert_eq!(
        svids(&model, 0),
        vec![format!("spiffe://{TD}/ns/prod/sa/llama/inference/pool/llama/variant/prefill")]
    );
    assert!(svids(&model, 1).is_empty(), "staging gets no SVID at all");
    assert_eq!(names(&model, model.held[1].skipped.iter().map(|k| k.source)), vec!["default-fallback"]);
    assert_eq!(model.held[1].entries[0].misses, vec!["k8s:ns:prod"]);
}

#[test]
fn binding_scope_selects_only_the_bindings_namespace_and_variant() {
    let unlabelled = deployment("prod", "canary", json!({"app": "llama"}), "llama");
    let items = [prefill("prod"), prefill("staging"), unlabelled];
    let sources = vec![
        foreign(8, "default-fallback", HELM_DEFAULT, true),
        rendered(9, "prod", "llama", "prefill", SelectorScope::Binding),
    ];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(svids(&model, 1), vec![format!("spiffe://{TD}/ns/staging/sa/llama")]);
    assert_eq!(svids(&model, 2), vec![format!("spiffe://{TD}/ns/prod/sa/llama")], "no variant: the fallback");
    assert!(model.held.iter().all(|h| h.without_identity().next().is_none()));
}

#[test]
fn prefill_and_decode_on_one_pool_give_every_pod_an_entry_that_never_attests() {
    let decode = deployment(
        "serving",
        "decode",
        json!({"app": "llama", "identity.kleym.sonda.red/variant": "decode"}),
        "llama",
    );
    let items = [prefill("serving"), decode];
    let pool = vec![
        rendered(8, "serving", "llama", "prefill", SelectorScope::Pool),
        rendered(9, "serving", "llama", "decode", SelectorScope::Pool),
    ];
    let model = simulate(pool, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    for held in &model.held {
        assert_eq!((held.svids().count(), held.without_identity().count()), (1, 1));
    }
    let scoped = vec![
        rendered(8, "serving", "llama", "prefill", SelectorScope::Binding),
        rendered(9, "serving", "llama", "decode", SelectorScope::Binding),
    ];
    let model = simulate(scoped, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    for held in &model.held {
        assert_eq!((held.svids().count(), held.without_identity().count()), (1, 0));
    }
}

#[test]
fn the_helm_charts_default_identity_is_a_second_svid_evaluated_per_pod_template() {
    let items = [prefill("serving")];
    let sources = vec![
        foreign(8, "spire-default", HELM_DEFAULT, false),
        rendered(9, "serving", "llama", "prefill", SelectorScope::Pool),
    ];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(
        svids(&model, 0),
        vec![
            format!("spiffe://{TD}/ns/serving/sa/llama/inference/pool/llama/variant/prefill"),
            format!("spiffe://{TD}/ns/serving/sa/llama"),
        ]
    );
}

#[test]
fn node_and_cluster_fields_stay_unknown_and_a_bad_or_foreign_id_gives_no_entry() {
    let items = [prefill("serving")];
    let sources = |by_node: bool| {
        let mut all = vec![
            foreign(8, "elsewhere", "spiffe://other.org/x", false),
            foreign(9, "broken", "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.tier }}", false),
            foreign(10, "fallback", HELM_DEFAULT, true),
        ];
        if by_node {
            all.push(foreign(7, "by-node", "spiffe://{{ .TrustDomain }}/node/{{ .NodeMeta.Name }}", false));
        }
        all
    };
    let model = simulate(sources(true), &seen(&items, &[]), &SpireManager::default(), Some(TD));
    let held = &model.held[0];
    assert_eq!(names(&model, held.entries.iter().map(|e| e.source)), vec!["by-node"]);
    assert_eq!(held.entries[0].spiffe_id.unknown, vec!["{{ .NodeMeta.Name }}"]);
    assert_eq!(names(&model, held.failed.iter().map(|(s, _)| *s)), vec!["broken", "elsewhere"]);
    assert_eq!(names(&model, held.skipped.iter().map(|k| k.source)), vec!["fallback"]);
    // Entries that cannot be made do not count: the fallback gives its SVID.
    let model = simulate(sources(false), &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(svids(&model, 0), vec![format!("spiffe://{TD}/ns/serving/sa/llama")]);
}

#[test]
fn namespace_selectors_are_judged_by_namespace_objects_and_the_name_label() {
    let items = [prefill("serving"), prefill("batch"), prefill("unknown")];
    let ns = [("serving", json!({"tier": "gpu"})), ("batch", json!({"tier": "cpu"}))];
    let mut source = foreign(9, "gpu", HELM_DEFAULT, false);
    source.namespaces = Selector::read(Some(
        &json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gpu"]}]}),
    ));
    let model = simulate(vec![source.clone()], &seen(&items, &ns), &SpireManager::default(), Some(TD));
    let selected: Vec<Vec<Answer>> =
        model.held.iter().map(|h| h.entries.iter().map(|e| e.selected).collect()).collect();
    assert_eq!(selected, vec![vec![Answer::Yes], vec![], vec![Answer::Unknown]]);
    source.namespaces = Selector::read(Some(&json!({"matchLabels": {NAMESPACE_NAME_LABEL: "unknown"}})));
    let model = simulate(vec![source], &seen(&items, &ns), &SpireManager::default(), Some(TD));
    let selected: Vec<Vec<Answer>> =
        model.held.iter().map(|h| h.entries.iter().map(|e| e.selected).collect()).collect();
    assert_eq!(selected, vec![vec![], vec![], vec![Answer::Yes]], "every namespace carries its name label");
}

fn kinds(
    model: &Model,
    seen: &Seen<'_>,
    scope: SelectorScope,
) -> Vec<(crate::reconcile::findings::Kind, String)> {
    let refs = |b: usize| crate::reconcile::findings::binding_ref(b, Some("prod"), "llama-prefill");
    let cx = findings::Context { seen, scope, binding_refs: &refs };
    findings::findings(model, &cx).into_iter().map(|f| (f.kind, f.about.describe())).collect()
}

#[test]
fn fallback_shadowed_and_entries_without_identity_under_pool_neither_under_binding() {
    use crate::reconcile::findings::Kind;
    let items = [prefill("prod"), prefill("staging")];
    let seen = seen(&items, &[]);
    let manager = SpireManager {
        class_name: Some(String::new()),
        watch_classless: true,
        configured: true,
        ..SpireManager::default()
    };
    let sources = |scope| {
        vec![
            foreign(8, "default-fallback", HELM_DEFAULT, true),
            rendered(9, "prod", "llama", "prefill", scope),
        ]
    };
    let model = simulate(sources(SelectorScope::Pool), &seen, &manager, Some(TD));
    assert_eq!(
        kinds(&model, &seen, SelectorScope::Pool),
        vec![
            (Kind::FallbackShadowed, "Deployment staging/prefill (spec.template)".to_string()),
            (Kind::EntriesWithoutIdentity, "InferenceIdentityBinding prod/llama-prefill".to_string()),
        ]
    );
    let model = simulate(sources(SelectorScope::Binding), &seen, &manager, Some(TD));
    assert_eq!(kinds(&model, &seen, SelectorScope::Binding), vec![]);
}

#[test]
fn without_a_configured_manager_classless_outputs_get_one_note() {
    use crate::reconcile::findings::Kind;
    let items = [prefill("prod")];
    let seen = seen(&items, &[]);
    let two = vec![
        rendered(9, "prod", "llama", "prefill", SelectorScope::Pool),
        rendered(10, "prod", "other", "prefill", SelectorScope::Pool),
    ];
    let model = simulate(two, &seen, &SpireManager::default(), Some(TD));
    let found = kinds(&model, &seen, SelectorScope::Pool);
    assert_eq!(found.iter().filter(|(k, _)| *k == Kind::IgnoredBySpire).count(), 1, "{found:?}");
    let mut classed = rendered(9, "prod", "llama", "prefill", SelectorScope::Pool);
    classed.class_name = "spire-system-spire".into();
    let model = simulate(vec![classed], &seen, &SpireManager::default(), Some(TD));
    assert!(kinds(&model, &seen, SelectorScope::Pool).is_empty());
}
