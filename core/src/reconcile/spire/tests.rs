//! The manager's behaviour, one rule per test, as read in spiffe/spire-controller-manager
//! at commit 430567cc024fb0a2c07d2a1972128e68d1c1f54d (`pkg/spireentry/reconciler.go`:
//! `reconcileClass`, `addClusterSPIFFEIDEntriesState`, `makeEntryKey`; `entries.go`:
//! `renderPodEntry`; `api/v1alpha1/clusterspiffeid_webhook.go`: `ParseClusterSPIFFEIDSpec`;
//! `pkg/namespace/namespace.go`: `IsIgnored`).

use super::*;
use crate::api::labels::Labels;
use crate::api::value::{Value, item_json as json};
use crate::config::{SelectorScope, SpireManager};
use crate::reconcile::cluster::selector::{Lookup, Selector};
use crate::reconcile::cluster::workload::workload_of;
use std::borrow::Cow;

mod server;

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
        let labels =
            labels.as_object().unwrap().iter().map(|(k, v)| (k.to_string(), v.as_str().unwrap().into()));
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
    let output_labels = crate::api::cluster_spiffe_id::OutputLabels {
        binding_name: variant.to_string(),
        binding_namespace: namespace.to_string(),
        class_name: None,
    };
    let id = format!("spiffe://{TD}/ns/{namespace}/sa/{account}/inference/pool/llama/variant/{variant}");
    let out = RenderedOutput {
        name: &name,
        namespace,
        variant,
        pool_labels: &labels,
        spiffe_id: &id,
        selectors: &selectors,
        class_name: None,
        labels: Some(&output_labels),
        hint: String::new(),
    };
    Source::rendered(binding, out, scope)
}

fn foreign(item: usize, name: &str, template: &str, fallback: bool) -> Source {
    Source {
        origin: Origin::Input { item },
        fallback,
        pods: Some(Selector::default()),
        namespaces: Some(Selector::default()),
        spiffe_id_template: template.to_string(),
        ..Source::bare(name)
    }
}

fn patterns(list: &[&str]) -> Vec<crate::pattern::IgnorePattern> {
    list.iter().map(|p| crate::pattern::IgnorePattern::new(p).unwrap()).collect()
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
    let manager = SpireManager { class_name: Some("mine".into()), ..SpireManager::default() };
    let model = simulate(vec![source], &seen(&items, &[]), &manager, Some(TD));
    assert_eq!(model.ignored, vec![true]);
    assert!(model.held[0].entries.is_empty());
}

#[test]
fn a_manager_with_a_label_selector_reads_only_objects_carrying_every_label() {
    let items = [prefill("serving")];
    let class = crate::api::cluster_spiffe_id::LABEL_CLASS_NAME;
    let manager = SpireManager {
        label_selector: [(class.to_string(), "mine".to_string()), ("tier".to_string(), String::new())].into(),
        ..SpireManager::default()
    };
    let with = |labels: &[(&str, &str)]| {
        let mut source = foreign(9, "all", HELM_DEFAULT, false);
        source.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let model = simulate(vec![source], &seen(&items, &[]), &manager, Some(TD));
        (model.ignored[0], model.held[0].entries.len(), missing_labels(&manager, &model.sources[0]))
    };
    assert_eq!(with(&[]), (true, 0, vec![(class, "mine"), ("tier", "")]), "no label: no entry");
    assert_eq!(with(&[(class, "other"), ("tier", "")]), (true, 0, vec![(class, "mine")]), "another value");
    assert_eq!(with(&[(class, "mine")]), (true, 0, vec![("tier", "")]), "the labels are ANDed");
    assert_eq!(with(&[(class, "mine"), ("tier", ""), ("x", "y")]), (false, 1, vec![]), "every label: read");
    let mut static_entry = foreign(9, "static", "spiffe://example.org/x", false);
    static_entry.static_parent = Some("spiffe://example.org/node".into());
    assert!(missing_labels(&manager, &static_entry).is_empty(), "static entries are not filtered");
}

#[test]
fn ignore_namespaces_are_patterns_matched_anywhere_in_the_name() {
    let items = [prefill("kube-system"), prefill("team-a"), prefill("serving")];
    let seen = seen(&items, &[]);
    let sources = || vec![foreign(9, "all", HELM_DEFAULT, false)];
    // Not given: kube-system may be ignored (by the manager's defaults and the SPIRE Helm
    // chart's alike, but not by a manager started without a configuration file).
    let model = simulate(sources(), &seen, &SpireManager::default(), Some(TD));
    let may: Vec<Option<Unsure>> = model.held.iter().map(|h| h.entries[0].unsure).collect();
    assert_eq!(may, [Some(Unsure::NamespaceMayBeIgnored), None, None]);
    let known = |p: &[&str]| SpireManager {
        ignore_namespaces: patterns(p),
        may_ignore: Vec::new(),
        ..SpireManager::default()
    };
    let model = simulate(sources(), &seen, &known(&["^kube-system$"]), Some(TD));
    let held: Vec<bool> = model.held.iter().map(|h| h.entries.is_empty()).collect();
    assert_eq!(held, vec![true, false, false], "kube-system is ignored when the config says so");
    let manager = SpireManager { ignore_namespaces: patterns(&["^team-"]), ..SpireManager::default() };
    let model = simulate(sources(), &seen, &manager, Some(TD));
    let held: Vec<bool> = model.held.iter().map(|h| h.entries.is_empty()).collect();
    assert_eq!(held, vec![false, true, false]);
    let manager = SpireManager { ignore_namespaces: patterns(&["ving"]), ..SpireManager::default() };
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
    assert_eq!(names(&model, model.without_identity(&model.held[1]).into_iter()), vec!["kleym-prod-prefill"]);
    assert_eq!(model.misses(&seen(&items, &[]), &model.held[1], 0), vec!["k8s:ns:prod"]);
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
    assert!(model.held.iter().all(|h| model.without_identity(h).is_empty()));
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
        assert_eq!((held.svids().count(), model.without_identity(held).len()), (1, 1));
    }
    let scoped = vec![
        rendered(8, "serving", "llama", "prefill", SelectorScope::Binding),
        rendered(9, "serving", "llama", "decode", SelectorScope::Binding),
    ];
    let model = simulate(scoped, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    for held in &model.held {
        assert_eq!((held.svids().count(), model.without_identity(held).len()), (1, 0));
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
    assert_eq!(names(&model, held.failed.iter().map(|f| f.source)), vec!["broken", "elsewhere"]);
    assert!(
        held.failed[0].why.contains("is not valid"),
        "<no value> of a missing label: {:?}",
        held.failed[0]
    );
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
    // `NotIn` on the name label names the namespaces it leaves out, not those it selects.
    let not_in = json!({"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": ["serving"]}]});
    let mut source = foreign(9, "gpu", HELM_DEFAULT, false);
    source.namespaces = Selector::read(Some(&not_in));
    let model = simulate(vec![source], &seen(&items, &ns), &SpireManager::default(), Some(TD));
    let selected: Vec<Vec<Answer>> =
        model.held.iter().map(|h| h.entries.iter().map(|e| e.selected).collect()).collect();
    assert_eq!(selected, vec![vec![], vec![Answer::Yes], vec![Answer::Yes]]);
}

fn kinds(
    model: &Model,
    seen: &Seen<'_>,
    scope: SelectorScope,
) -> Vec<(crate::reconcile::findings::Kind, String)> {
    let refs = |b: usize| crate::reconcile::findings::binding_ref(b, Some("prod"), "llama-prefill");
    let cx = findings::Context { seen, scope, binding_refs: &refs };
    let without = findings::Without::of(model);
    findings::findings(model, &without, &cx).into_iter().map(|f| (f.kind, f.about.describe())).collect()
}

#[test]
fn fallback_shadowed_and_entries_without_identity_under_pool_neither_under_binding() {
    use crate::reconcile::findings::Kind;
    let items = [prefill("prod"), prefill("staging")];
    let seen = seen(&items, &[]);
    let manager =
        SpireManager { class_name: Some(String::new()), watch_classless: true, ..SpireManager::default() };
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

/// A foreign object with `spec` fields over the default one.
fn foreign_with(
    item: usize,
    name: &str,
    template: &str,
    fallback: bool,
    edit: impl FnOnce(&mut Source),
) -> Source {
    let mut source = foreign(item, name, template, fallback);
    edit(&mut source);
    source
}

#[test]
fn a_template_that_fails_to_execute_gives_no_entry_and_the_fallback_still_applies() {
    // entries.go:99-102 and reconciler.go:517-527: an error, no entry, no mark.
    let items = [prefill("serving")];
    let sources = vec![
        foreign(8, "typo", "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namspace }}", false),
        foreign(9, "fallback", HELM_DEFAULT, true),
    ];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    let held = &model.held[0];
    assert_eq!(names(&model, held.failed.iter().map(|f| f.source)), vec!["typo"]);
    assert!(held.failed[0].why.contains("can't evaluate field Namspace"), "{}", held.failed[0].why);
    assert_eq!(svids(&model, 0), vec![format!("spiffe://{TD}/ns/serving/sa/llama")]);
    // Node data is only unknown: that entry is made and the fallback skipped.
    let sources = vec![
        foreign(8, "by-node", "spiffe://{{ .TrustDomain }}/{{ .NodeMeta.Name }}", false),
        foreign(9, "fallback", HELM_DEFAULT, true),
    ];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(names(&model, model.held[0].skipped.iter().map(|k| k.source)), vec!["fallback"]);
}

#[test]
fn a_partly_known_id_that_is_already_invalid_gives_no_entry() {
    // entries.go:148-151: `<no value>` can never parse, whatever the node's name.
    let items = [prefill("serving")];
    let sources = vec![
        foreign(
            7,
            "no-value",
            "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.tier }}/{{ .NodeMeta.Name }}",
            false,
        ),
        foreign(8, "other-domain", "spiffe://other.org/{{ .NodeMeta.Name }}", false),
        foreign(
            9,
            "by-node",
            "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.app }}/{{ .NodeMeta.Name }}",
            false,
        ),
    ];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    let held = &model.held[0];
    assert_eq!(names(&model, held.failed.iter().map(|f| f.source)), vec!["no-value", "other-domain"]);
    assert!(held.failed.iter().all(|f| f.why.contains("can never be valid")), "{:?}", held.failed);
    assert_eq!(names(&model, held.entries.iter().map(|e| e.source)), vec!["by-node"]);
}

#[test]
fn objects_whose_spec_does_not_parse_are_skipped_whole() {
    // reconciler.go:464-470, ParseClusterSPIFFEIDSpec.
    let items = [prefill("serving")];
    let selector = |v: Value| Selector::read(Some(&v));
    let bad = vec![
        foreign(1, "dash", "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.app-name }}", false),
        foreign_with(2, "not-in", HELM_DEFAULT, false, |s| {
            s.pods =
                selector(json!({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": []}]}))
        }),
        foreign_with(3, "exists", HELM_DEFAULT, false, |s| {
            s.namespaces =
                selector(json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}))
        }),
        foreign_with(4, "federates", HELM_DEFAULT, false, |s| s.federates_with = vec!["not a domain".into()]),
        foreign_with(5, "dns", HELM_DEFAULT, false, |s| {
            s.dns_name_templates = vec!["{{ .PodMeta.Name".into()]
        }),
        foreign(6, "empty", "", false),
    ];
    let mut sources = bad;
    sources.push(foreign(9, "fallback", HELM_DEFAULT, true));
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    let refused: Vec<String> = model
        .sources
        .iter()
        .zip(&model.refused)
        .filter(|(_, r)| r.is_some())
        .map(|(s, _)| s.name.clone())
        .collect();
    assert_eq!(refused, vec!["dash", "dns", "empty", "exists", "federates", "not-in"]);
    assert!(model.held[0].failed.is_empty(), "they select no pod at all");
    assert_eq!(
        svids(&model, 0),
        vec![format!("spiffe://{TD}/ns/serving/sa/llama")],
        "no fallback is skipped"
    );
    let seen = seen(&items, &[]);
    let found = kinds(&model, &seen, SelectorScope::Pool);
    assert_eq!(
        found.iter().filter(|(k, _)| *k == crate::reconcile::findings::Kind::IgnoredBySpire).count(),
        6
    );
}

#[test]
fn a_dns_name_template_that_fails_for_a_pod_gives_it_no_entry() {
    // entries.go:104-108.
    let items = [prefill("serving")];
    let sources = vec![foreign_with(1, "dns", HELM_DEFAULT, false, |s| {
        s.dns_name_templates = vec!["{{ .PodMeta.Nme }}.svc".into(), "{{ .PodMeta.Name }}".into()]
    })];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(model.refused, vec![None]);
    assert!(model.held[0].failed[0].why.contains("dnsNameTemplates"), "{:?}", model.held[0].failed);
}

#[test]
fn identical_entries_are_one_entry_and_one_svid() {
    // reconciler.go:213-224 and makeEntryKey (702-712): same SPIFFE ID, parent, sorted selectors.
    let items = [prefill("serving")];
    let id = format!("spiffe://{TD}/ns/serving/sa/llama/inference/pool/llama/variant/prefill");
    let copy = foreign_with(8, "a-copy", &id, false, |s| {
        s.selector_templates = vec![
            "k8s:sa:llama".into(),
            "k8s:ns:serving".into(),
            "k8s:pod-label:identity.kleym.sonda.red/variant:prefill".into(),
            "k8s:pod-label:app:llama".into(),
        ]
    });
    let sources = vec![copy, rendered(9, "serving", "llama", "prefill", SelectorScope::Pool)];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(svids(&model, 0), vec![id.clone()]);
    assert_eq!(
        names(&model, model.held[0].entries[0].same_as.iter().copied()),
        vec!["kleym-serving-prefill"]
    );
    let seen = seen(&items, &[]);
    let several = crate::reconcile::findings::Kind::WorkloadMatchesSeveralIdentities;
    assert!(!kinds(&model, &seen, SelectorScope::Pool).iter().any(|(k, _)| *k == several), "one SVID");
    // Another selector set is another entry.
    let other = foreign_with(8, "a-copy", &id, false, |s| s.selector_templates = vec!["k8s:sa:llama".into()]);
    let sources = vec![other, rendered(9, "serving", "llama", "prefill", SelectorScope::Pool)];
    let model = simulate(sources, &seen, &SpireManager::default(), Some(TD));
    assert_eq!(svids(&model, 0), vec![id.clone(), id]);
}

#[test]
fn labels_controllers_add_are_settled_by_the_kind_that_makes_the_pods() {
    use crate::reconcile::cluster::controllers::{self, Owner};
    let api = |kind| match kind {
        "Pod" => "v1",
        "Job" | "CronJob" => "batch/v1",
        "LeaderWorkerSet" => "leaderworkerset.x-k8s.io/v1",
        "Rollout" => "argoproj.io/v1alpha1",
        "InferenceService" => "serving.kserve.io/v1beta1",
        _ => "apps/v1",
    };
    let owner = |kind, pod_name, detail| Owner {
        controller: controllers::of(api(kind), kind),
        name: "w",
        pod_name,
        detail,
        template: "",
    };
    type Case<'a> = (Owner<'a>, &'a str, Option<&'a str>, Option<Lookup<'a>>);
    const ISVC: &str =
        "labels KServe leaves off its pods where its serviceLabelDisallowedList names them: tier";
    let cases: [Case; 37] = [
        (owner("Deployment", None, ""), "pod-template-hash", None, Some(Lookup::Present)),
        (owner("Deployment", None, ""), "job-name", None, None),
        (owner("Deployment", None, ""), "controller-revision-hash", None, None),
        // A bare ReplicaSet's pods carry its template's labels, and nothing else.
        (owner("ReplicaSet", None, ""), "pod-template-hash", Some("h"), None),
        (
            owner("StatefulSet", Some("w-0"), "0"),
            "statefulset.kubernetes.io/pod-name",
            None,
            Some(Lookup::Value("w-0")),
        ),
        (
            owner("StatefulSet", Some("w-0"), "0"),
            "apps.kubernetes.io/pod-index",
            None,
            Some(Lookup::Value("0")),
        ),
        (
            owner("StatefulSet", Some("w-5"), "5"),
            "apps.kubernetes.io/pod-index",
            None,
            Some(Lookup::Value("5")),
        ),
        (owner("StatefulSet", None, ""), "statefulset.kubernetes.io/pod-name", None, Some(Lookup::Present)),
        (owner("StatefulSet", None, ""), "controller-revision-hash", None, Some(Lookup::Present)),
        (owner("StatefulSet", None, ""), "pod-template-hash", None, None),
        (owner("DaemonSet", None, ""), "pod-template-generation", None, Some(Lookup::Present)),
        (owner("Job", None, ""), "batch.kubernetes.io/job-name", None, Some(Lookup::Value("w"))),
        // generateSelector keeps a job-name the template gives.
        (owner("Job", None, ""), "job-name", Some("mine"), Some(Lookup::Value("mine"))),
        (owner("Job", None, "generated name"), "job-name", None, Some(Lookup::Present)),
        (owner("Job", None, ""), "controller-uid", None, Some(Lookup::Present)),
        // With manualSelector the API server adds none of them.
        (owner("Job", None, "manualSelector"), "job-name", None, None),
        (owner("Job", None, "manualSelector"), "batch.kubernetes.io/controller-uid", None, None),
        (owner("Job", None, ""), "batch.kubernetes.io/job-completion-index", None, None),
        (
            owner("Job", None, "manualSelector; Indexed; completions 3"),
            "batch.kubernetes.io/job-completion-index",
            None,
            Some(Lookup::Present),
        ),
        (owner("Job", None, ""), "batch.kubernetes.io/later-key", None, Some(Lookup::Unknown)),
        (
            owner("CronJob", None, "Indexed; completions 2; generated name"),
            "job-name",
            None,
            Some(Lookup::Present),
        ),
        (owner("Pod", Some("w"), ""), "pod-template-hash", None, None),
        // A LeaderWorkerSet's detail (its GroupShape) of an unset size: a group of one,
        // whose only pods are leaders.
        (
            owner("LeaderWorkerSet", None, ""),
            "leaderworkerset.sigs.k8s.io/worker-index",
            None,
            Some(Lookup::Value("0")),
        ),
        (
            owner("LeaderWorkerSet", None, "groups of 4; groups the cluster counts"),
            "leaderworkerset.sigs.k8s.io/worker-index",
            None,
            Some(Lookup::Present),
        ),
        (
            owner("LeaderWorkerSet", None, ""),
            "leaderworkerset.sigs.k8s.io/name",
            None,
            Some(Lookup::Value("w")),
        ),
        // A Rollout's stable pods lose, on promotion, a key its canary metadata recorded,
        // the template's own value with it; a key the template does not set stays unset.
        (
            owner("Rollout", None, "labels a promotion deletes: tier, zone"),
            "zone",
            Some("a"),
            Some(Lookup::Unknown),
        ),
        (owner("Rollout", None, "labels a promotion deletes: tier, zone"), "zone", None, None),
        (owner("Rollout", None, "labels a promotion deletes: tier"), "zone", Some("a"), None),
        (owner("Rollout", None, ""), "rollouts-pod-template-hash", None, Some(Lookup::Present)),
        // Kueue's webhook writes its keys into any workload's template.
        (owner("Deployment", None, ""), "kueue.x-k8s.io/queue-name", Some("gpu"), Some(Lookup::Unknown)),
        // A mesh's injector and the node's topology write theirs, over the template's too.
        (owner("Deployment", None, ""), "security.istio.io/tlsMode", None, Some(Lookup::Unknown)),
        (owner("Pod", None, ""), "topology.kubernetes.io/zone", Some("a"), Some(Lookup::Unknown)),
        // A controller the build does not know: any webhook's, whatever the template says.
        (
            Owner { controller: None, ..owner("Pod", None, "") },
            "kueue.x-k8s.io/queue-name",
            None,
            Some(Lookup::Unknown),
        ),
        (
            Owner { controller: None, ..owner("Pod", None, "") },
            "jobset.sigs.k8s.io/priority",
            None,
            Some(Lookup::Unknown),
        ),
        // KServe may leave a label of the service off its pods; its own stand.
        (owner("InferenceService", None, ISVC), "tier", Some("gold"), Some(Lookup::Unknown)),
        (owner("InferenceService", None, ISVC), "component", Some("predictor"), None),
        (owner("InferenceService", None, ""), "tier", Some("gold"), None),
    ];
    for (owner, key, template, expected) in cases {
        let kind = owner.controller.map_or("?", |c| c.kinds[0]);
        assert_eq!(owner.label(key, template), expected, "{kind} {key} {}", owner.detail);
    }
    // LeaderWorkerSet's and JobSet's pod webhooks write their keys into any pod that carries
    // their mark: unknown there, whoever made it, but on a LeaderWorkerSet's own pods, whose
    // declaration settles them; the template's elsewhere.
    let lws_mark = |mark: &str| mark == "leaderworkerset.sigs.k8s.io/name";
    let jobset_mark = |mark: &str| mark == "jobset.sigs.k8s.io/jobset-name";
    let worker_index = "leaderworkerset.sigs.k8s.io/worker-index";
    let set = owner("StatefulSet", None, "");
    assert_eq!(set.label_of(worker_index, Some("0"), &lws_mark), Some(Lookup::Unknown));
    assert_eq!(set.label_of(worker_index, Some("0"), &jobset_mark), None);
    assert_eq!(set.label_of(worker_index, Some("0"), &|_| false), None);
    let job = owner("Job", None, "");
    assert_eq!(job.label_of("jobset.sigs.k8s.io/priority", Some("0"), &jobset_mark), Some(Lookup::Unknown));
    assert_eq!(job.label_of("jobset.sigs.k8s.io/priority", Some("0"), &lws_mark), None);
    let leaders = owner("LeaderWorkerSet", None, "");
    assert_eq!(leaders.label_of(worker_index, None, &lws_mark), leaders.label(worker_index, None));
    assert_eq!(
        owner("Deployment", None, "").label_of("kueue.x-k8s.io/queue-name", None, &|_| false),
        Some(Lookup::Unknown),
        "an unmarked webhook writes into every pod"
    );
    // LeaderWorkerSet's pod webhook keeps a leader's group index and any pod's subgroup
    // index its template sets; a worker whose template says worker index 0 is a leader to it;
    // the workers copy the leader's group index, which its template may pin.
    let lws = |detail, template| Owner { template, ..owner("LeaderWorkerSet", None, detail) };
    let (leader, worker) = (controllers::LEADER_TEMPLATE, controllers::WORKER_TEMPLATE);
    let group = "leaderworkerset.sigs.k8s.io/group-index";
    assert_eq!(
        lws("groups of 2; 1 group; a leader template; group index set by the template", leader)
            .label(group, Some("2")),
        None
    );
    assert_eq!(
        lws("groups of 2; 1 group; a leader template", leader).label(group, None),
        Some(Lookup::Value("0"))
    );
    assert_eq!(
        lws("groups of 2; 1 group; a leader template; group index set by the template", worker)
            .label(group, Some("5")),
        Some(Lookup::Unknown)
    );
    assert_eq!(
        lws("groups of 2; 1 group; a leader template", worker).label(group, Some("5")),
        Some(Lookup::Value("0"))
    );
    let index = "leaderworkerset.sigs.k8s.io/worker-index";
    assert_eq!(
        lws("groups of 2; 1 group; a leader template", worker).label(index, Some("0")),
        Some(Lookup::Value("0"))
    );
    assert_eq!(
        lws("groups of 2; 1 group; a leader template", worker).label(index, Some("7")),
        Some(Lookup::Value("1"))
    );
    assert_eq!(
        lws("groups of 2; 1 group; a leader template", leader).label(index, Some("7")),
        Some(Lookup::Value("0"))
    );
    let subgroup = "leaderworkerset.sigs.k8s.io/subgroup-index";
    assert_eq!(lws("groups of 2; 1 group; a leader template; subgroups of 1; subgroup index set by the leader template", leader).label(subgroup, Some("3")), None);
    let key = "leaderworkerset.sigs.k8s.io/subgroup-key";
    assert_eq!(lws("groups of 2; 1 group; a leader template; subgroups of 1; subgroup index set by the leader template", leader).label(key, None), None, "the webhook sets neither");
    assert_eq!(lws("groups of 2; 1 group; a leader template; subgroups of 1; subgroup index set by the leader template", worker).label(key, None), Some(Lookup::Present), "the workers' it sets");
    // One template for leaders and workers: its group index stands on all of them.
    assert_eq!(
        lws("groups of 2; 1 group; group index set by the template", worker).label(group, Some("2")),
        None
    );
    assert_eq!(
        lws("groups of 2; 1 group; a leader template; subgroups of 1", leader).label(subgroup, None),
        Some(Lookup::Value("0"))
    );
    // A kind no declaration names may set any key a known controller sets.
    // A shape's detail reads back as the same shape, in the words a finding shows.
    for shape in [
        controllers::GroupShape { size: None, replicas: None, ..Default::default() },
        controllers::GroupShape {
            size: Some(3),
            replicas: Some(1),
            leader_template: true,
            subgroup: Some((2, true)),
            pins_group_index: true,
            pins_subgroup_index: (true, false),
        },
        controllers::GroupShape {
            replicas: Some(4),
            subgroup: Some((1, false)),
            pins_subgroup_index: (false, true),
            ..Default::default()
        },
    ] {
        assert_eq!(controllers::GroupShape::parse(&shape.detail()), shape, "{}", shape.detail());
    }
    let unknown = Owner { controller: None, name: "w", pod_name: None, detail: "", template: "" };
    assert_eq!(unknown.label("pod-template-hash", None), Some(Lookup::Unknown));
    assert_eq!(unknown.label("app", None), None);
    // In the model: a Deployment's pods carry pod-template-hash, a bare Pod's do not, and a
    // template that reads a StatefulSet's pod name of one replica knows it.
    let by_hash = || {
        foreign_with(1, "by-hash", HELM_DEFAULT, false, |s| {
            s.pods = Selector::read(Some(
                &json!({"matchExpressions": [{"key": "pod-template-hash", "operator": "Exists"}]}),
            ))
        })
    };
    let model =
        simulate(vec![by_hash()], &seen(&[prefill("serving")], &[]), &SpireManager::default(), Some(TD));
    assert_eq!((model.held[0].entries[0].selected, model.held[0].entries[0].unsure), (Answer::Yes, None));
    let mut pod = prefill("serving");
    pod["kind"] = json!("Pod");
    pod["apiVersion"] = json!("v1");
    pod["spec"] = pod["spec"]["template"]["spec"].clone();
    pod["metadata"]["labels"] = json!({"app": "llama"});
    let model = simulate(vec![by_hash()], &seen(&[pod], &[]), &SpireManager::default(), Some(TD));
    assert!(model.held[0].entries.is_empty());
    let mut set = prefill("serving");
    set["kind"] = json!("StatefulSet");
    let named = foreign(2, "named", "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}", false);
    let model = simulate(vec![named.clone()], &seen(&[set.clone()], &[]), &SpireManager::default(), Some(TD));
    assert_eq!(svids(&model, 0), ["spiffe://example.org/prefill-0"]);
    set["spec"]["replicas"] = json!(3);
    let model = simulate(vec![named], &seen(&[set], &[]), &SpireManager::default(), Some(TD));
    assert!(!model.held[0].entries[0].spiffe_id.is_known(), "three pods, three names");
}

#[test]
fn a_selection_on_an_unknown_namespace_makes_the_fallback_a_maybe() {
    use crate::reconcile::findings::Kind;
    // The input holds no Namespace object for prod: `tier: gpu` is unknown there.
    let items = [prefill("prod"), prefill("staging")];
    let seen = seen(&items, &[]);
    let gpu = foreign_with(7, "gpu-only", "spiffe://{{ .TrustDomain }}/gpu", false, |s| {
        s.namespaces = Selector::read(Some(&json!({"matchLabels": {"tier": "gpu"}})));
        s.selector_templates = vec!["k8s:ns:nowhere".into()];
    });
    let sources = vec![gpu, foreign(8, "default-fallback", HELM_DEFAULT, true)];
    let model = simulate(sources, &seen, &SpireManager::default(), Some(TD));
    let held = &model.held[0];
    assert!(held.svids().next().is_none(), "the fallback is no certain SVID");
    let fallback = &held.entries[0];
    assert_eq!((fallback.selected, fallback.unsure), (Answer::Unknown, Some(Unsure::FallbackSkipped)));
    // With a rendered identity that selects staging without attesting, FallbackShadowed says "may".
    let gpu = foreign_with(7, "gpu-only", "spiffe://{{ .TrustDomain }}/gpu", false, |s| {
        s.namespaces = Selector::read(Some(&json!({"matchLabels": {"tier": "gpu"}})));
    });
    let sources = vec![
        gpu,
        foreign(8, "default-fallback", HELM_DEFAULT, true),
        rendered(9, "prod", "llama", "prefill", SelectorScope::Pool),
    ];
    let model = simulate(sources, &seen, &SpireManager::default(), Some(TD));
    let refs = |b: usize| crate::reconcile::findings::binding_ref(b, Some("prod"), "llama-prefill");
    let cx = findings::Context { seen: &seen, scope: SelectorScope::Pool, binding_refs: &refs };
    let found = findings::findings(&model, &findings::Without::of(&model), &cx);
    let shadowed = found.iter().find(|f| f.kind == Kind::FallbackShadowed).expect("FallbackShadowed");
    assert!(shadowed.message.contains("may get no SVID"), "{}", shadowed.message);
    assert_eq!(shadowed.level, crate::reconcile::findings::Level::Info);
}

#[test]
fn a_manager_with_an_empty_class_reads_the_classless_objects() {
    use crate::reconcile::findings::Kind;
    let items = [prefill("prod")];
    let seen = seen(&items, &[]);
    let manager = SpireManager { class_name: Some(String::new()), ..SpireManager::default() };
    let mut classed = rendered(9, "prod", "llama", "prefill", SelectorScope::Pool);
    classed.class_name = "spire-system-spire".into();
    let model = simulate(
        vec![classed, rendered(10, "prod", "llama", "prefill", SelectorScope::Pool)],
        &seen,
        &manager,
        Some(TD),
    );
    assert_eq!(model.ignored.iter().filter(|i| **i).count(), 1);
    let refs = |b: usize| crate::reconcile::findings::binding_ref(b, Some("prod"), "llama-prefill");
    let cx = findings::Context { seen: &seen, scope: SelectorScope::Pool, binding_refs: &refs };
    let found = findings::findings(&model, &findings::Without::of(&model), &cx);
    let ignored = found.iter().find(|f| f.kind == Kind::IgnoredBySpire).unwrap();
    assert!(ignored.message.contains("reads only ClusterSPIFFEIDs without a class"), "{}", ignored.message);
    // No className matches a manager without a class: the advice is to drop it.
    assert!(
        ignored.message.ends_with("render it without className, as the manager has no class"),
        "{}",
        ignored.message
    );
}

#[test]
fn an_object_looks_only_at_the_namespaces_its_selector_names() {
    // Many namespaces with the same pool labels: a binding-scoped object sees its own only.
    let items: Vec<Value> = (0..50).map(|i| prefill(&format!("ns-{i}"))).collect();
    let seen = seen(&items, &[]);
    let index = PodIndex::build(&seen, &[], true);
    let source = rendered(9, "ns-7", "llama", "prefill", SelectorScope::Binding);
    let (pods, namespaces) = (source.pods.clone().unwrap(), source.namespaces.clone().unwrap());
    let candidates = index.candidates(&pods, pinned(&namespaces).as_deref());
    assert_eq!(candidates.iter().map(|(l, _)| l.len()).sum::<usize>(), 1);
    let pool = rendered(9, "ns-7", "llama", "prefill", SelectorScope::Pool);
    let candidates = index.candidates(pool.pods.as_ref().unwrap(), None);
    assert_eq!(candidates.iter().map(|(l, _)| l.len()).sum::<usize>(), 50);
}

#[test]
fn an_entry_that_may_not_be_made_and_never_attests_is_not_said_to_be_made() {
    // reconciler.go:448-532 makes an entry only for a pod of a namespace the
    // namespaceSelector selects; with no Namespace object for staging, `tier: prod` is
    // unknown there, so the entry may not exist at all.
    let items = [prefill("staging"), prefill("prod")];
    let ns = [("prod", json!({"tier": "prod"}))];
    let prod_only = foreign_with(7, "prod-only", "spiffe://{{ .TrustDomain }}/prod/app", false, |s| {
        s.namespaces = Selector::read(Some(&json!({"matchLabels": {"tier": "prod"}})));
        s.selector_templates = vec!["k8s:sa:vllm".into()];
    });
    let model = simulate(vec![prod_only], &seen(&items, &ns), &SpireManager::default(), Some(TD));
    assert_eq!(model.held[0].without, Vec::<u32>::new(), "staging: the entry may not be made");
    assert_eq!(model.held[1].without, vec![0], "prod: made for sure, and it never attests");
}

#[test]
fn an_entry_carries_its_objects_powers_with_dns_names_rendered_for_the_pods() {
    // entries.go:72-131: admin, downstream and federatesWith are copied from the spec, the
    // DNS names rendered per pod.
    let items = [prefill("serving")];
    let powerful = foreign_with(1, "powerful", HELM_DEFAULT, false, |s| {
        s.admin = true;
        s.downstream = true;
        s.federates_with = vec!["partner.org".into()];
        s.dns_name_templates = vec!["{{ .PodMeta.Namespace }}.example.org".into()];
    });
    let model = simulate(vec![powerful], &seen(&items, &[]), &SpireManager::default(), Some(TD));
    let powers = &model.held[0].entries[0].powers;
    assert_eq!(
        powers,
        &Powers {
            admin: true,
            downstream: true,
            federates_with: vec!["partner.org".into()],
            dns_names: vec!["serving.example.org".into()],
            ttls: [None, None],
            store_svid: false,
        }
    );
    let plain = foreign(1, "plain", HELM_DEFAULT, false);
    let model = simulate(vec![plain], &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert!(model.held[0].entries[0].powers.is_empty());
}

fn static_entry(item: usize, name: &str, id: &str, selectors: &[&str]) -> Source {
    let mut source = foreign(item, name, id, false);
    source.selector_templates = selectors.iter().map(|s| s.to_string()).collect();
    source.static_parent = Some("spiffe://example.org/spire/agent/k8s_psat/c/node-uid-1".into());
    source
}

#[test]
fn a_static_entry_may_reach_every_pod_its_selectors_hold_for_in_any_namespace() {
    // The manager makes one entry for a ClusterStaticEntry, with no pod-uid selector: which
    // pods get it depends on the node they run on, which only the cluster settles.
    let items = [prefill("serving"), prefill("kube-system"), prefill("batch")];
    let entry =
        static_entry(9, "backdoor", "spiffe://example.org/backdoor", &["k8s:sa:llama", "k8s:ns:serving"]);
    let fallback = foreign(8, "default-fallback", HELM_DEFAULT, true);
    let manager = SpireManager { ignore_namespaces: patterns(&["^kube-system$"]), ..SpireManager::default() };
    let mut items = items.to_vec();
    items[1] = deployment("serving", "in-ignored", json!({"app": "x"}), "llama");
    items[1]["metadata"]["namespace"] = json!("kube-system");
    let model = simulate(vec![entry, fallback], &seen(&items, &[]), &manager, Some(TD));
    let serving = &model.held[0];
    let backdoor: Vec<_> =
        serving.entries.iter().filter(|e| model.sources[e.source].name == "backdoor").collect();
    assert_eq!(backdoor.len(), 1);
    assert_eq!((backdoor[0].selected, backdoor[0].unsure), (Answer::Unknown, Some(Unsure::ParentNode)));
    assert_eq!(svids(&model, 0), ["spiffe://example.org/ns/serving/sa/llama"], "the fallback still applies");
    // kube-system is ignored for ClusterSPIFFEIDs, not for the static entry; its k8s:ns does not hold there.
    assert!(model.held[1].entries.iter().all(|e| model.sources[e.source].name != "backdoor"));
    assert!(
        model.held[2].entries.iter().all(|e| model.sources[e.source].name != "backdoor"),
        "batch: k8s:ns fails"
    );
    let anywhere = static_entry(9, "anywhere", "spiffe://example.org/any", &["k8s:sa:llama"]);
    let model = simulate(vec![anywhere], &seen(&items, &[]), &manager, Some(TD));
    assert_eq!(model.held[1].entries.len(), 1, "ignoreNamespaces does not apply to a static entry");
    // Refused whole: a selector that is not type:value, an ID of another trust domain.
    for (id, selector) in [("spiffe://example.org/x", "k8s"), ("spiffe://other.org/x", "k8s:sa:llama")] {
        let broken = static_entry(9, "broken", id, &[selector]);
        let model = simulate(vec![broken], &seen(&items, &[]), &manager, Some(TD));
        assert!(model.refused[0].is_some(), "{id} {selector}");
        assert!(model.held.iter().all(|h| h.entries.is_empty() && h.failed.is_empty()));
    }
}

#[test]
fn static_entries_of_one_parent_id_and_selectors_are_one_entry_declared_twice() {
    // makeEntryKey (reconciler.go) hashes a static entry's parent with its SPIFFE ID and
    // selectors: two ClusterStaticEntries that agree on all three declare one entry, and the
    // manager keeps one of them (sortDeclaredEntriesByPreference), with its powers.
    let items = [prefill("serving")];
    let id = "spiffe://example.org/tools";
    let plain = static_entry(8, "plain", id, &["k8s:ns:serving", "k8s:sa:llama"]);
    let mut admin = static_entry(9, "admin", id, &["k8s:sa:llama", "k8s:ns:serving"]);
    admin.admin = true;
    let model =
        simulate(vec![plain.clone(), admin.clone()], &seen(&items, &[]), &SpireManager::default(), Some(TD));
    let entries = &model.held[0].entries;
    assert_eq!(entries.len(), 1, "one key, one entry");
    let declared: Vec<(&str, bool)> =
        entries[0].declared().map(|(s, p)| (model.sources[s].name.as_str(), p.admin)).collect();
    assert_eq!(declared, [("admin", true), ("plain", false)]);
    // Another parent is another entry, each with its own powers.
    admin.static_parent = Some("spiffe://example.org/spire/agent/k8s_psat/c/node-uid-2".into());
    let model = simulate(vec![plain, admin], &seen(&items, &[]), &SpireManager::default(), Some(TD));
    assert_eq!(model.held[0].entries.len(), 2);
    assert!(model.held[0].entries.iter().all(|e| e.same_as.is_empty()));
}

#[test]
fn a_template_without_a_namespace_may_hold_what_it_would_in_each_namespace_it_may_land_in() {
    // kubectl apply -n, or an Argo CD destination, decides where it lands: the binding's
    // namespace (named by its k8s:ns selector) is one.
    let mut copy = prefill("serving");
    copy["metadata"].as_object_mut().unwrap().remove("namespace");
    let items = [copy, deployment("batch", "other", json!({"app": "x"}), "x")];
    let sources = vec![rendered(9, "serving", "llama", "prefill", SelectorScope::Pool)];
    let model = simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD));
    let held = &model.held[0];
    assert_eq!(model.held.len(), 2, "one held per template, however many namespaces it may land in");
    assert!(held.svids().next().is_none());
    let may: Vec<(&str, Option<Unsure>)> =
        held.entries.iter().map(|e| (e.spiffe_id.text.as_str(), e.unsure)).collect();
    assert_eq!(
        may,
        [(
            "spiffe://example.org/ns/serving/sa/llama/inference/pool/llama/variant/prefill",
            Some(Unsure::NamespaceUnset)
        )],
        "the binding's SVID once, as one it may hold"
    );
    assert!(held.without.is_empty(), "no entry is said to be made for sure");
}

#[test]
fn an_objects_failure_is_listed_once_per_template_and_each_failing_object_is_listed() {
    // A template without a namespace is judged in each namespace it may land in; the same
    // object failing there with the same reason is one failure, two objects are two.
    let mut copy = prefill("serving");
    copy["metadata"].as_object_mut().unwrap().remove("namespace");
    let broken = |item, name: &str| {
        foreign(item, name, "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.tier }}", false)
    };
    let sources = vec![
        broken(1, "broken-a"),
        broken(2, "broken-b"),
        rendered(8, "serving", "llama", "prefill", SelectorScope::Pool),
        rendered(9, "batch", "llama", "prefill", SelectorScope::Pool),
    ];
    let model = simulate(sources, &seen(&[copy], &[]), &SpireManager::default(), Some(TD));
    let held = &model.held[0];
    assert_eq!(names(&model, held.failed.iter().map(|f| f.source)), vec!["broken-a", "broken-b"]);
}

#[test]
fn the_same_objects_unsure_entries_from_several_namespaces_fold_into_one() {
    // push_entry: an object whose ID does not depend on the namespace gives the template one
    // entry it may hold, however many namespaces it may land in; no object is its own copy.
    let mut copy = prefill("serving");
    copy["metadata"].as_object_mut().unwrap().remove("namespace");
    let constant = foreign_with(1, "constant", "spiffe://example.org/constant", false, |s| s.admin = true);
    let sources = vec![
        constant,
        rendered(8, "serving", "llama", "prefill", SelectorScope::Pool),
        rendered(9, "batch", "llama", "decode", SelectorScope::Pool),
    ];
    let model = simulate(sources, &seen(&[copy], &[]), &SpireManager::default(), Some(TD));
    let constant: Vec<&Entry> = model.held[0]
        .entries
        .iter()
        .filter(|e| e.spiffe_id.text == "spiffe://example.org/constant")
        .collect();
    assert_eq!(constant.len(), 1, "{:?}", model.held[0].entries);
    assert_eq!(constant[0].unsure, Some(Unsure::NamespaceUnset));
    assert!(constant[0].same_as.is_empty(), "{:?}", constant[0].same_as);
    assert!(constant[0].powers.admin);
}

fn federation(class: &str, trust_domain: &str, url: &str, profile: &str) -> Federation {
    Federation {
        item: 0,
        name: "partner".into(),
        class_name: class.into(),
        trust_domain: trust_domain.into(),
        bundle_endpoint_url: url.into(),
        bundle_endpoint_profile: profile.into(),
        trust_domain_bundle: None,
        refusal: None,
        may_not_be_kept: None,
    }
}

#[test]
fn a_federation_counts_only_when_the_manager_reads_its_class_and_parses_its_spec() {
    // clusterfederatedtrustdomain_webhook.go, ParseClusterFederatedTrustDomainSpec: a trust
    // domain, an https URL, a known profile.
    let good =
        ("partner.org", "https://partner.org/bundle", "https_spiffe spiffe://partner.org/spire/server");
    let cases = [
        (federation("mine", good.0, good.1, good.2), true),
        (federation("mine", good.0, good.1, "https_web"), true),
        (federation("other", good.0, good.1, good.2), false),
        (federation("mine", "not a domain", good.1, good.2), false),
        (federation("mine", good.0, "http://partner.org/bundle", good.2), false),
        (federation("mine", good.0, good.1, "https_spiffe not-an-id"), false),
        (federation("mine", good.0, good.1, "ftp"), false),
    ];
    let manager = SpireManager { class_name: Some("mine".into()), ..SpireManager::default() };
    for (f, read) in cases {
        let mut seen = seen(&[], &[]);
        seen.federations.push(f.clone());
        let model = simulate(Vec::new(), &seen, &manager, Some(TD));
        assert_eq!(model.federations[0].1, read, "{f:?}");
    }
}

/// go-spiffe's TrustDomainFromString (spiffeid/trustdomain.go) takes a name or a SPIFFE ID:
/// the model holds the name, so `spiffe://partner.org` and `partner.org` are one trust domain
/// (a ClusterSPIFFEID's or static entry's `federatesWith`, a federation's `trustDomain`).
#[test]
fn a_trust_domain_written_as_a_spiffe_id_is_held_by_its_name() {
    use crate::reconcile::cluster::seen::Other;
    let other = |federates_with: &[&str]| Other {
        item: 0,
        name: "o".into(),
        fallback: false,
        pods: Some(Selector::default()),
        namespaces: Some(Selector::default()),
        class_name: String::new(),
        labels: Default::default(),
        spiffe_id_template: HELM_DEFAULT.into(),
        selector_templates: Vec::new(),
        dns_name_templates: Vec::new(),
        federates_with: federates_with.iter().map(|s| s.to_string()).collect(),
        admin: false,
        downstream: false,
        static_parent: None,
        ttls: [None, None],
        committed: false,
        may_not_be_kept: None,
        auto_dns: false,
        store_svid: false,
        hint: String::new(),
        refusal: None,
    };
    let id_form = Source::of_input(&other(&["spiffe://partner.org", "spiffe://vendor.example/x"]));
    assert_eq!(id_form.federates_with, ["partner.org", "vendor.example"]);
    assert_eq!(Source::of_input(&other(&["partner.org"])).federates_with, ["partner.org"]);
    // One go-spiffe refuses is kept as written, and the object refused for it.
    let refused = Source::of_input(&other(&["SPIFFE://partner.org"]));
    assert_eq!(refused.federates_with, ["SPIFFE://partner.org"]);
    assert!(
        source::Prepared::of(&refused, Some(TD)).is_err_and(|e| e.contains("scheme is missing or invalid"))
    );
    let manager = SpireManager::default();
    let mut seen = seen(&[], &[]);
    seen.federations.push(federation("", "spiffe://partner.org", "https://partner.org/bundle", "https_web"));
    let model = simulate(Vec::new(), &seen, &manager, Some(TD));
    assert_eq!((model.federations[0].0.trust_domain.as_str(), model.federations[0].1), ("partner.org", true));
}

/// Everything a view reads off a model, in order.
fn view(model: &Model, seen: &Seen<'_>, scope: SelectorScope) -> Vec<String> {
    let mut out = Vec::new();
    for held in &model.held {
        let entries: Vec<String> = held
            .entries
            .iter()
            .map(|e| {
                format!(
                    "{} {:?} {:?} {:?} {} {:?} {:?} {:?}",
                    e.source,
                    e.selected,
                    e.unsure,
                    e.attests,
                    e.spiffe_id.text,
                    e.misses,
                    e.same_as,
                    e.powers
                )
            })
            .collect();
        let skipped: Vec<String> = held
            .skipped
            .iter()
            .map(|k| format!("{} {:?} {}", k.source, k.would_attest, k.spiffe_id.text))
            .collect();
        let failed: Vec<String> = held.failed.iter().map(|f| format!("{} {}", f.source, f.why)).collect();
        out.push(format!(
            "{}/{} {} entries {entries:?} without {:?} skipped {skipped:?} failed {failed:?}",
            held.item,
            held.template,
            held.ignored_namespace,
            model.without_identity(held)
        ));
        let first = model.first_without(held, |s| s % 2 == 1);
        out.push(format!("first odd without: {first:?}"));
    }
    out.push(format!("{:?} {:?}", model.ignored, model.refused));
    out.push(format!("{:?}", model.by_source()));
    let without = findings::Without::of(model);
    out.push(format!("{:?} {:?} {:?}", without.count, without.first, without.gives));
    let refs = |b: usize| crate::reconcile::findings::binding_ref(b, Some("prod"), "llama-prefill");
    let cx = findings::Context { seen, scope, binding_refs: &refs };
    out.extend(
        findings::findings(model, &without, &cx).into_iter().map(|f| format!("{:?} {}", f.kind, f.message)),
    );
    out
}

#[test]
fn objects_made_as_a_group_give_what_they_give_one_by_one() {
    // One chart in several namespaces: each binding's object selects every namespace's pods
    // (Pool), and the model makes their never-attesting entries once per group. Around it,
    // what changes the answers: a template without a namespace, a wrong service account,
    // an ignored namespace, a Namespace object, a fallback, a foreign object with a constant
    // ID and a k8s:ns selector (a member too), one of another class, an unselected variant.
    let namespaces = ["ns-0", "ns-1", "ns-2", "kube-system", "ns-4"];
    let mut items = Vec::new();
    for ns in namespaces {
        items.push(prefill(ns));
        items.push(deployment(
            ns,
            "decode",
            json!({"app": "llama", "identity.kleym.sonda.red/variant": "decode"}),
            "llama",
        ));
    }
    items.push(deployment(
        "ns-1",
        "other-sa",
        json!({"app": "llama", "identity.kleym.sonda.red/variant": "prefill"}),
        "other",
    ));
    let mut unset = prefill("x");
    unset["metadata"].as_object_mut().unwrap().remove("namespace");
    items.push(unset);
    items.push(deployment("ns-2", "unlabelled", json!({"app": "llama"}), "llama"));
    let seen = seen(&items, &[("ns-4", json!({"team": "a"}))]);
    for scope in [SelectorScope::Pool, SelectorScope::Binding] {
        for (fallback, ignore) in [(false, false), (true, false), (true, true)] {
            let mut sources = Vec::new();
            for (b, ns) in namespaces.iter().enumerate() {
                for variant in ["prefill", "decode"] {
                    sources.push(rendered(
                        2 * b + usize::from(variant == "decode"),
                        ns,
                        "llama",
                        variant,
                        scope,
                    ));
                }
            }
            sources.push(rendered(20, "ns-9", "llama", "prefill", scope));
            let mut other_class = rendered(21, "ns-0", "llama", "decode", scope);
            other_class.name = "kleym-other-class".into();
            other_class.class_name = "other".into();
            sources.push(other_class);
            sources.push(foreign_with(30, "constant", "spiffe://example.org/constant", false, |s| {
                s.pods = Some(Selector {
                    match_labels: vec![("app".into(), "llama".into())],
                    expressions: Vec::new(),
                });
                s.selector_templates = vec!["k8s:ns:ns-1".into(), "k8s:sa:llama".into()];
                s.admin = true;
            }));
            if fallback {
                sources.push(foreign(31, "default-fallback", HELM_DEFAULT, true));
            }
            let manager = SpireManager {
                class_name: Some(String::new()),
                watch_classless: true,
                ignore_namespaces: if ignore { patterns(&["^kube-system$"]) } else { Vec::new() },
                ..SpireManager::default()
            };
            let grouped = simulate_with(sources.clone(), &seen, &manager, Some(TD), true);
            let plain = simulate_with(sources, &seen, &manager, Some(TD), false);
            if scope == SelectorScope::Pool {
                // The pool's selector: every binding's object, ns-9's and the constant one.
                assert_eq!(grouped.groups.len(), 1, "{:?}", grouped.groups);
                assert_eq!(grouped.groups[0].members.len(), 12, "{:?}", grouped.groups);
            } else {
                assert!(grouped.groups.is_empty(), "each object names its namespace");
            }
            assert!(plain.groups.is_empty());
            let (grouped, plain) = (view(&grouped, &seen, scope), view(&plain, &seen, scope));
            for (g, p) in grouped.iter().zip(&plain) {
                assert_eq!(g, p, "{scope:?}, fallback {fallback}, ignore {ignore}");
            }
            assert_eq!(grouped.len(), plain.len());
        }
    }
}

#[test]
fn the_runs_entries_are_counted_and_many_that_never_attest_are_a_warning() {
    // One chart in 72 namespaces, two variants: 144 objects each select all 144 templates
    // under Pool, and attest for one. Past 10,000 entries that never attest, a warning that
    // names Binding's figure; the groups' counts are those of the plain model.
    let chart = |n: usize| -> (Vec<Value>, Vec<Source>) {
        let mut items = Vec::new();
        let mut sources = Vec::new();
        for i in 0..n {
            let ns = format!("tenant-{i}");
            for variant in ["prefill", "decode"] {
                let labels = json!({"app": "llama", "identity.kleym.sonda.red/variant": variant});
                items.push(deployment(&ns, variant, labels, "llama"));
                sources.push(rendered(items.len(), &ns, "llama", variant, SelectorScope::Pool));
            }
        }
        (items, sources)
    };
    let (items, sources) = chart(72);
    let seen = seen(&items, &[]);
    let grouped = simulate_with(sources.clone(), &seen, &SpireManager::default(), Some(TD), true);
    let plain = simulate_with(sources, &seen, &SpireManager::default(), Some(TD), false);
    let want = Totals { made: 144 * 144, never: 144 * 143, pool_only: 144 * 143 };
    assert_eq!((grouped.totals, plain.totals), (want, want));
    assert_eq!(view(&grouped, &seen, SelectorScope::Pool), view(&plain, &seen, SelectorScope::Pool));
    let volume = |model: &Model, seen: &Seen<'_>| {
        let refs = |b: usize| crate::reconcile::findings::binding_ref(b, Some("tenant-0"), "llama");
        let cx = findings::Context { seen, scope: SelectorScope::Pool, binding_refs: &refs };
        let without = findings::Without::of(model);
        let all = findings::findings(model, &without, &cx);
        all.into_iter()
            .filter(|f| f.kind == crate::reconcile::findings::Kind::EntryVolume)
            .collect::<Vec<_>>()
    };
    let found = volume(&grouped, &seen);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].level, crate::reconcile::findings::Level::Warning);
    assert!(found[0].message.contains("makes 20736 entries"), "{}", found[0].message);
    assert!(found[0].message.contains("20592 of which never attest"), "{}", found[0].message);
    assert!(found[0].message.contains("would make 144: set selectorScope: Binding"), "{}", found[0].message);
    // Seven namespaces: 196 entries, 182 never attest: a note. Three: 36, 30: none.
    for (n, level) in [(7, Some(crate::reconcile::findings::Level::Info)), (3, None)] {
        let (items, sources) = chart(n);
        let seen = self::seen(&items, &[]);
        let model = simulate(sources, &seen, &SpireManager::default(), Some(TD));
        assert_eq!(volume(&model, &seen).first().map(|f| f.level), level, "{n} namespaces");
    }
}

#[test]
fn entry_volume_is_a_note_from_some_entries_that_never_attest_and_a_warning_past_many() {
    // docs/reference.md#findings: at least SOME_NEVER_ATTEST entries that never attest make a
    // note, more than MANY_NEVER_ATTEST a warning; the fix names selectorScope: Binding only
    // when the rendered objects make entries under Pool that Binding would not.
    use crate::reconcile::findings::{Kind, Level};
    let items = [prefill("prod")];
    let seen = seen(&items, &[]);
    let sources = vec![rendered(1, "prod", "llama", "prefill", SelectorScope::Pool)];
    let model = simulate(sources, &seen, &SpireManager::default(), Some(TD));
    let volume = |never: u64, pool_only: u64| {
        let mut model = model.clone();
        model.totals = Totals { made: never + 1, never, pool_only };
        let refs = |b: usize| crate::reconcile::findings::binding_ref(b, Some("prod"), "llama-prefill");
        let cx = findings::Context { seen: &seen, scope: SelectorScope::Pool, binding_refs: &refs };
        let without = findings::Without::of(&model);
        let mut found = findings::findings(&model, &without, &cx);
        found.retain(|f| f.kind == Kind::EntryVolume);
        assert!(found.len() <= 1, "one per run: {found:?}");
        found.pop().map(|f| (f.level, f.message))
    };
    let (some, many) = (findings::SOME_NEVER_ATTEST, findings::MANY_NEVER_ATTEST);
    let level = |never| volume(never, 0).map(|(level, _)| level);
    assert_eq!(level(some - 1), None);
    assert_eq!(level(some), Some(Level::Info));
    assert_eq!(level(many), Some(Level::Info));
    assert_eq!(level(many + 1), Some(Level::Warning));
    let (_, narrow) = volume(some, 0).unwrap();
    assert!(
        narrow.ends_with(
            "; make the objects that select these pod templates select only the pods they attest for"
        ),
        "no entry is Pool's alone: {narrow}"
    );
    assert!(!narrow.contains("selectorScope"), "{narrow}");
    let (_, binding) = volume(some, 40).unwrap();
    let fewer = format!("under selectorScope: Binding the rendered objects would make {}:", some + 1 - 40);
    assert!(binding.contains(&fewer), "{binding}");
}

#[test]
fn a_static_entry_the_manager_skips_or_refuses_issues_nothing_outside_a_binding() {
    use crate::reconcile::findings::Kind;
    let items = [prefill("prod")];
    let seen = seen(&items, &[]);
    let manager =
        SpireManager { class_name: Some("mine".into()), watch_classless: true, ..SpireManager::default() };
    let issued = |class: &str, selector: &str| {
        let id = "spiffe://example.org/ns/prod/sa/other";
        let mut entry = static_entry(9, "backdoor", id, &[selector, "k8s:ns:prod"]);
        entry.class_name = class.into();
        let sources = vec![rendered(1, "prod", "llama", "prefill", SelectorScope::Pool), entry];
        let model = simulate(sources, &seen, &manager, Some(TD));
        let found = kinds(&model, &seen, SelectorScope::Pool);
        found.iter().filter(|(kind, _)| *kind == Kind::IssuedOutsideBinding).count()
    };
    assert_eq!(issued("mine", "k8s:sa:llama"), 1, "read and parsed: an ID in the binding's namespace path");
    assert_eq!(issued("other", "k8s:sa:llama"), 0, "of another class, the manager does not read it");
    assert_eq!(issued("mine", "k8s"), 0, "a selector that is not type:value: the manager refuses it whole");
}

#[test]
fn objects_alike_are_grouped_two_at_least_and_one_whose_like_cannot_join_stands_alone() {
    // Grouping is a plan, not an answer (objects_made_as_a_group_give_what_they_give_one_by_one):
    // two objects with the same selectors, each attesting in one namespace, are one group; one
    // whose like is refused whole has no other to share a group with.
    let pair = vec![
        rendered(0, "ns-a", "llama", "prefill", SelectorScope::Pool),
        rendered(1, "ns-b", "llama", "prefill", SelectorScope::Pool),
    ];
    let groups = group::found(&pair, &[false, false], Some(TD));
    assert_eq!(groups, vec![(vec![0, 1], vec!["ns-a".to_string(), "ns-b".to_string()])]);
    let mut lone = pair;
    lone[1].spiffe_id_template = String::new();
    let model = simulate(lone.clone(), &seen(&[prefill("ns-a")], &[]), &SpireManager::default(), Some(TD));
    assert_eq!(model.refused.iter().filter(|r| r.is_some()).count(), 1, "an empty SPIFFE ID is refused");
    assert_eq!(group::found(&lone, &[false, false], Some(TD)), vec![]);
}

#[test]
fn the_entries_only_pool_makes_are_those_binding_scope_does_not() {
    // Totals.pool_only: a binding's object under Pool surely makes entries for the pool's
    // pods of other namespaces and of other variants, which under Binding it does not make.
    let decode = |name: &str| {
        let labels = json!({"app": "llama", "identity.kleym.sonda.red/variant": "decode"});
        deployment("ns-a", name, labels, "llama")
    };
    let items = [prefill("ns-a"), decode("decode-1"), decode("decode-2"), prefill("ns-b")];
    let seen = seen(&items, &[]);
    let made = |scope| {
        let sources = vec![rendered(0, "ns-a", "llama", "prefill", scope)];
        simulate(sources, &seen, &SpireManager::default(), Some(TD)).totals
    };
    let (pool, binding) = (made(SelectorScope::Pool), made(SelectorScope::Binding));
    assert_eq!((pool.made, binding.made, binding.pool_only), (4, 1, 0));
    assert_eq!(pool.made - pool.pool_only, binding.made, "{pool:?}");
}

#[test]
fn only_an_object_without_actions_attests_in_one_namespace_alone() {
    // Prepared::only_namespace: the objects that can share a group.
    let prepared = |edit: fn(&mut Source)| {
        let mut source = rendered(0, "ns-a", "llama", "prefill", SelectorScope::Pool);
        edit(&mut source);
        let prepared = source::Prepared::of(&source, Some(TD)).unwrap();
        prepared.only_namespace().map(str::to_string)
    };
    assert_eq!(prepared(|_| {}), Some("ns-a".to_string()));
    assert_eq!(prepared(|s| s.spiffe_id_template = HELM_DEFAULT.into()), None, "an ID with actions");
    assert_eq!(prepared(|s| s.dns_name_templates = vec!["{{ .PodMeta.Name }}".into()]), None, "a DNS name");
}

#[test]
fn a_selector_that_misses_spares_no_later_failure_and_no_later_unknown_makes_the_entry_attest() {
    // renderPodEntry renders every workload selector: one that fails after one that misses
    // still leaves the pods without that entry, and the entry that misses never attests.
    let items = [prefill("serving")];
    let seen = seen(&items, &[]);
    let model_of = |selectors: [&str; 2], fallback: bool| {
        let object = foreign_with(7, "object", "spiffe://example.org/x", fallback, |s| {
            s.selector_templates = selectors.map(str::to_string).to_vec()
        });
        let other = foreign(8, "other", HELM_DEFAULT, !fallback);
        simulate(vec![object, other], &seen, &SpireManager::default(), Some(TD))
    };
    let failing = ["k8s:ns:elsewhere", "k8s:pod-label:app:{{ .PodMeta.Namspace }}"];
    let model = model_of(failing, false);
    assert_eq!(names(&model, model.held[0].failed.iter().map(|f| f.source)), ["object"]);
    assert_eq!(svids(&model, 0), [format!("spiffe://{TD}/ns/serving/sa/llama")], "the fallback applies");
    let model = model_of(failing, true);
    assert!(model.held[0].skipped.is_empty(), "a fallback it cannot render is not one it skips");
    let model = model_of(["k8s:ns:elsewhere", "k8s:node-name:n1"], false);
    assert_eq!(names(&model, model.held[0].without.iter().map(|&s| s as usize)), ["object"]);
    assert!(model.held[0].entries.iter().all(|e| model.sources[e.source].name != "object"));
}

/// One object with these workload selectors, over `items`: the SVIDs of each template, and
/// the may-holds of each with what they hang on.
fn by_containers(items: &[Value], selectors: &[&str]) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let object = foreign_with(9, "object", "spiffe://example.org/x", false, |s| {
        s.selector_templates = selectors.iter().map(|s| s.to_string()).collect()
    });
    let model = simulate(vec![object], &seen(items, &[]), &SpireManager::default(), Some(TD));
    (0..model.held.len())
        .map(|h| {
            let may = model.held[h].entries.iter().filter(|e| !e.is_sure());
            (svids(&model, h), may.map(|e| e.hangs_on.clone()).collect())
        })
        .collect()
}

fn with_containers(kind: &str, containers: Value, init: Value) -> Value {
    let api = if kind == "Deployment" { "apps/v1" } else { "example.com/v1" };
    json!({
        "apiVersion": api, "kind": kind, "metadata": {"name": "llama", "namespace": "serving"},
        "spec": {"template": {"metadata": {"labels": {"app": "llama"}},
                 "spec": {"containers": containers, "initContainers": init}}}
    })
}

#[test]
fn container_selectors_are_judged_by_the_templates_containers_for_one_container() {
    // spire k8s.go: getSelectorValuesFromWorkloadContainerStatus reports the calling
    // container's name and image (an init container's too, lookUpContainerInPod), and
    // getSelectorValuesFromPodInfo the pod's images and their counts.
    let vllm = json!({"name": "vllm", "image": "docker.io/vllm/vllm-openai:v0.6.0"});
    let tool = json!({"name": "admin-tool", "image": "busybox"});
    let fetch = json!([{"name": "fetch", "image": "ghcr.io/org/fetch:1"}]);
    let base = [with_containers("Deployment", json!([vllm]), json!([]))];
    let head = [with_containers("Deployment", json!([vllm, tool]), fetch.clone())];
    let sure = |items: &[Value], selectors: &[&str]| !by_containers(items, selectors)[0].0.is_empty();
    let none = |items: &[Value], selectors: &[&str]| {
        let (svids, may) = &by_containers(items, selectors)[0];
        svids.is_empty() && may.is_empty()
    };
    // The case of the attack: no container of that name, then one.
    assert!(none(&base, &["k8s:container-name:admin-tool"]));
    assert!(sure(&head, &["k8s:container-name:admin-tool"]));
    assert!(sure(&head, &["k8s:container-name:fetch"]), "an init container attests too");
    assert!(sure(&head, &["k8s:pod-image-count:2", "k8s:pod-init-image-count:1"]));
    assert!(none(&head, &["k8s:pod-image-count:1"]));
    assert!(none(&base, &["k8s:pod-init-image-count:01"]), "a count is compared as SPIRE prints it");
    // An image in the runtime's full form holds; of another repository, never.
    assert!(sure(&base, &["k8s:container-image:docker.io/vllm/vllm-openai:v0.6.0"]));
    assert!(sure(&head, &["k8s:pod-init-image:ghcr.io/org/fetch:1"]));
    assert!(none(&head, &["k8s:pod-image:ghcr.io/org/fetch:1"]), "an init image is no pod image");
    assert!(none(&base, &["k8s:pod-image:docker.io/library/busybox:latest"]));
    // Name and image of one and the same container.
    let crossed = ["k8s:container-name:admin-tool", "k8s:container-image:docker.io/vllm/vllm-openai:v0.6.0"];
    assert!(none(&head, &crossed));
    // busybox as written is reported as the runtime names it: may, hanging on that container.
    let (svids, may) = &by_containers(&head, &["k8s:container-image:docker.io/library/busybox:latest"])[0];
    assert!(svids.is_empty());
    assert_eq!(may, &[vec!["container admin-tool: busybox".to_string()]]);
}

#[test]
fn containers_a_controller_may_add_or_the_build_does_not_see_leave_container_selectors_unknown() {
    // A kind no declaration names may add containers (Knative's queue-proxy): may, hanging on
    // every container as written, so that another container is a change of what may hold.
    let vllm = json!({"name": "vllm", "image": "docker.io/vllm/vllm-openai:v0.6.0"});
    let items = [with_containers("Thing", json!([vllm]), json!([]))];
    let (svids, may) = &by_containers(&items, &["k8s:container-name:admin-tool"])[0];
    assert!(svids.is_empty());
    assert_eq!(may, &[vec!["container vllm: docker.io/vllm/vllm-openai:v0.6.0".to_string()]]);
    // Without container selectors, nothing changes.
    assert_eq!(by_containers(&items, &["k8s:ns:serving"])[0].0, ["spiffe://example.org/x"]);
}
