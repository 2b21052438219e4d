//! Property tests: generated ResourceLists go through the KRM mode (`io::krm::run`) and the
//! output is checked against the invariants of docs/reference.md (statuses, ownership,
//! idempotency, byte stability) and against the vendored upstream CRD schemas in
//! `tests/crds/`.
//!
//! The generator draws namespaces, pool names, service accounts and variants from small
//! sets so that conflicts, shared pools and name collisions happen often, and mixes in
//! broken pools and bindings, managed and foreign ClusterSPIFFEIDs, and passthrough items
//! full of strings a YAML 1.1 reader would misread. It only builds usable input
//! (docs/reference.md#bindings: bindings unique by namespace and name; pools and
//! ClusterSPIFFEIDs unique too), so every run reconciles and every binding gets a status.

mod common;

use jsonschema::Validator;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::BoxedStrategy;
use render_inference_identity::api::binding::InferenceIdentityBinding;
use render_inference_identity::api::cluster_spiffe_id as csid;
use render_inference_identity::io::{self as krm, Env};
use render_inference_identity::reconcile::file_slots::file_of;
use render_inference_identity::reconcile::identity;
use render_inference_identity::yaml;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::sync::LazyLock;

const BINDING_API: &str = "kleym.sonda.red/v1alpha1";
const BINDING_KIND: &str = "InferenceIdentityBinding";
const CSID_API: &str = "spire.spiffe.io/v1alpha1";
const CSID_KIND: &str = "ClusterSPIFFEID";
const POOL_V1: &str = "inference.networking.k8s.io/v1";
const POOL_V1ALPHA2: &str = "inference.networking.x-k8s.io/v1alpha2";
const ANNOTATION_RENDERED_BY: &str = "kleym.sonda.red/rendered-by";
const RENDERED_BY: &str = "render-inference-identity";
const LABEL_BINDING_NAME: &str = "kleym.sonda.red/binding-name";
const LABEL_BINDING_NAMESPACE: &str = "kleym.sonda.red/binding-namespace";
const PATH: &str = "internal.config.kubernetes.io/path";
const INDEX: &str = "internal.config.kubernetes.io/index";
const LEGACY_PATH: &str = "config.kubernetes.io/path";
const LEGACY_INDEX: &str = "config.kubernetes.io/index";

const CONDITION_TYPES: [&str; 5] = ["Ready", "InvalidRef", "UnsafeSelector", "Conflict", "RenderFailure"];

/// docs/reference.md#conditions: the `True` reasons of each failure condition.
fn true_reasons(condition: &str) -> &'static [&'static str] {
    match condition {
        "InvalidRef" => &["InvalidPoolRef", "TargetPoolNotFound", "InferencePoolCRDMissing"],
        "UnsafeSelector" => &["InvalidPoolSelector", "UnsafeSelector", "InvalidIdentityBoundary"],
        "Conflict" => &["VariantConflict", "DuplicateSPIFFEID"],
        "RenderFailure" => &[
            "MissingTrustDomain",
            "InvalidServiceAccountName",
            "InvalidSPIFFEID",
            "ClusterSPIFFEIDCRDMissing",
            "ManagedOutputApplyFailed",
        ],
        _ => &[],
    }
}

// Small value pools: collisions are the point. Several valid names are YAML 1.1 booleans,
// nulls, numbers or timestamps, so rendered labels, hints and SPIFFE IDs must be quoted.
/// The longest DNS-1123 label: output names are cut inside it.
const LONG_NS: &str = "ns-that-is-exactly-sixty-three-characters-long-for-name-cutting";
const NAMESPACES: &[&str] = &["ns-a", "null", LONG_NS];
const POOL_NAMES: &[&str] = &["pool-a", "2001-12-14"];
const SERVICE_ACCOUNTS: &[&str] = &["sa-a", "true"];
const VARIANTS: &[&str] = &["decode", "on", "1.0"];
const TRUST_DOMAINS: &[&str] = &["example.org", "td.local", "prod_1.example"];
/// 64 characters: a valid binding name that cannot be a label value.
const LONG_NAME: &str = "long-binding-name-that-does-not-fit-in-a-label-value-0123456789x";
const BINDING_NAMES: &[&str] = &["web", "yes", "Web-Upper", "web.v2", "web-v2", "wéb", LONG_NAME];
const LABEL_KEYS: &[&str] = &["app", "app.kubernetes.io/name", "tier"];
const VARIANT_LABEL: &str = "identity.kleym.sonda.red/variant";
const LABEL_VALUES: &[&str] = &["model", "decode", "on", "1.0", "true", "n", "2001-12-14", "0x1F", "1_000"];
/// Strings that YAML 1.1 or 1.2 readers take for something else, or that need care.
const TRICKY: &[&str] = &[
    "on",
    "yes",
    "n",
    "Off",
    "NO",
    "Y",
    "1.0",
    "null",
    "Null",
    "true",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "0x1F",
    "0o17",
    "010",
    "1_000",
    "1e3",
    ".inf",
    "-.inf",
    ".NaN",
    "12:30:00",
    "~",
    "",
    " ",
    " padded ",
    "a: b",
    "#x",
    "x #y",
    "- dash",
    "[x]",
    "{y}",
    "'q'",
    "\"dq\"",
    "@at",
    "%pct",
    "*star",
    "&amp",
    "!bang",
    "|pipe",
    ">gt",
    "? q",
    "---",
    "...",
    "=",
    "<<",
    "tab\there",
    "back\\slash",
    "é ünïcode ✓",
    "line one\nline two\n",
    "no final newline\nsecond",
    "  indented first line\nsecond\n",
    "trailing newlines\n\n\n",
    "\nleading newline",
    "trailing space \nline",
];
const KEYS: &[&str] =
    &["a", "b", "on", "null", "1", "y", "<<", "a: b", "#k", "", "key with space", "~", "true"];
const FLOATS: &[f64] = &[0.5, -2.25, 1.0, 1e300, 3.0e-5, 100.0];

// ---------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------

fn string(s: &str) -> Value {
    Value::String(s.to_string())
}

fn pick(list: &'static [&'static str]) -> BoxedStrategy<Value> {
    select(list).prop_map(string).boxed()
}

/// A field drawn mostly from `valid`, sometimes an invalid value, sometimes absent.
fn field(valid: BoxedStrategy<Value>, invalid: Vec<Value>) -> BoxedStrategy<Option<Value>> {
    prop_oneof![
        40 => valid.prop_map(Some),
        2 => select(invalid).prop_map(Some),
        1 => Just(None),
    ]
    .boxed()
}

/// A namespace; the long one is rarer, so that pools and bindings meet often.
fn namespace() -> BoxedStrategy<&'static str> {
    prop_oneof![4 => Just(NAMESPACES[0]), 4 => Just(NAMESPACES[1]), 1 => Just(LONG_NS)].boxed()
}

fn object(pairs: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(pairs.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect())
}

fn labels_value(labels: &BTreeMap<&str, &str>) -> Value {
    Value::Object(labels.iter().map(|(k, v)| (k.to_string(), string(v))).collect())
}

/// An InferencePool, and whether it is meant to be valid (canonical shape, valid labels).
fn pool() -> impl Strategy<Value = (Value, bool)> {
    // The variant key is rare: a pool selecting another variant fails every binding.
    let key = prop_oneof![12 => select(LABEL_KEYS), 1 => Just(VARIANT_LABEL)];
    let labels = prop::collection::btree_map(key, select(LABEL_VALUES), 1..4);
    let broken_selector = prop_oneof![
        Just(json!({"matchExpressions": []})),
        Just(json!({"matchLabels": {"app": "model"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["a"]}]})),
        Just(json!({"app": true})),
        Just(json!({"app": 1})),
        Just(json!({"app": null})),
        Just(json!({"matchLabels": {"app": false}})),
        Just(json!({})),
        Just(json!({"matchLabels": {}})),
        Just(Value::Null),
        Just(json!("app")),
        Just(json!({"matchLabels": ["app"]})),
        Just(json!({"matchLabels": {"app": "m"}, "extra": "x"})),
        Just(json!({"bad key": "m"})),
        Just(json!({"app": " padded "})),
        Just(json!({"app": ""})),
        Just(json!({"app": "a:b"})),
        Just(json!({"matchLabels": {"app": "x".repeat(64)}})),
    ];
    // Valid labels (Some(canonical)) are wrapped per version below; broken selectors go as they are.
    let selector = prop_oneof![
        // The canonical shape of the pool's own version.
        8 => labels.clone().prop_map(|l| (labels_value(&l), Some(true))),
        // The other version's shape: accepted by the function, not by the CRD.
        1 => labels.prop_map(|l| (labels_value(&l), Some(false))),
        3 => broken_selector.prop_map(|s| (s, None)),
    ];
    (any::<bool>(), namespace(), pick(POOL_NAMES), selector, prop::bool::weighted(0.1)).prop_map(
        |(v1, ns, name, (selector, canonical), no_spec)| {
            let selector = match canonical {
                // v1 canonical or v1alpha2 swapped: matchLabels; otherwise flat.
                Some(canonical) if v1 == canonical => json!({ "matchLabels": selector }),
                _ => selector,
            };
            let valid = canonical == Some(true);
            let metadata = json!({"name": name, "namespace": ns});
            let mut pool = if v1 {
                json!({"apiVersion": POOL_V1, "kind": "InferencePool", "metadata": metadata,
                       "spec": {"targetPorts": [{"number": 8000}],
                                "endpointPickerRef": {"name": "epp", "port": {"number": 9002}}}})
            } else {
                json!({"apiVersion": POOL_V1ALPHA2, "kind": "InferencePool", "metadata": metadata,
                       "spec": {"targetPortNumber": 8000, "extensionRef": {"name": "epp"}}})
            };
            if !selector.is_null() {
                pool["spec"]["selector"] = selector;
            }
            if no_spec && !valid {
                pool.as_object_mut().unwrap().remove("spec");
            }
            (pool, valid)
        },
    )
}

fn previous_status() -> BoxedStrategy<Option<Value>> {
    prop_oneof![
        6 => Just(None),
        1 => Just(Some(json!({"conditions": "oops"}))),
        1 => Just(Some(json!({"computedSpiffeIDs": [{"spiffeID": "spiffe://old.example/x"}],
                              "unknownField": 1}))),
        1 => Just(Some(json!({"pendingClusterSPIFFEID": {"name": "kleym-ns-a-web-pool-00000000",
                                                         "claimID": "0123"}}))),
        1 => Just(Some(json!({"ownedClusterSPIFFEID": {"uid": "1e3", "name": "kleym-ns-a-web-pool-11111111"},
                              "renderedClusterSPIFFEID": {"name": "old", "spiffeID": "spiffe://old.example/x",
                                                          "selectorFingerprint": "sha256:00",
                                                          "observedGeneration": 2}}))),
        2 => (select(&["True", "False"][..]), select(&["True", "False"][..])).prop_map(
            |(ready, conflict)| Some(json!({"conditions": [
                {"type": "Ready", "status": ready, "reason": "Old", "message": "old",
                 "lastTransitionTime": "2020-01-01T00:00:00Z"},
                {"type": "Conflict", "status": conflict, "reason": "Old", "message": "old",
                 "lastTransitionTime": "2021-02-03T04:05:06Z"},
                {"type": "Bogus", "status": "True"},
            ]}))
        ),
    ]
    .boxed()
}

/// An InferenceIdentityBinding; name always a usable string (docs/reference.md#bindings).
fn binding() -> impl Strategy<Value = Value> {
    let namespace = field(
        namespace().prop_map(string).boxed(),
        vec![json!(7), string("Bad_NS"), string(""), string("team.b")],
    );
    let pool_name = prop_oneof![
        30 => pick(POOL_NAMES).prop_map(Some),
        1 => Just(Some(string("ghost"))),
        2 => Just(Some(string(" pool-a "))),
        1 => select(vec![string("Pool_A"), json!(5), json!(["pool-a"])]).prop_map(Some),
        1 => Just(None),
    ];
    let group = prop_oneof![
        30 => Just(None),
        2 => Just(Some(string("inference.networking.k8s.io"))),
        2 => Just(Some(string("inference.networking.x-k8s.io"))),
        1 => select(vec![string(""), string("bogus.example"), json!(true)]).prop_map(Some),
    ];
    let service_account = field(
        pick(SERVICE_ACCOUNTS),
        vec![string("UPPER"), json!(42), string(&"a".repeat(254)), string("sa_x")],
    );
    let variant = field(
        pick(VARIANTS),
        vec![
            string("has space"),
            string(" padded"),
            string(""),
            string(&"v".repeat(64)),
            json!(true),
            string("a/b"),
        ],
    );
    let spec_shape = prop_oneof![60 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8), 1 => Just(3u8)];
    (
        select(BINDING_NAMES),
        namespace,
        pool_name,
        group,
        service_account,
        variant,
        spec_shape,
        prop::option::weighted(0.5, 1i64..5),
        previous_status(),
    )
        .prop_map(|(name, ns, pool, group, sa, variant, spec_shape, generation, status)| {
            let metadata = object(vec![
                ("name", Some(string(name))),
                ("namespace", ns),
                ("generation", generation.map(Value::from)),
            ]);
            let spec = match spec_shape {
                0 => Some(object(vec![
                    ("poolRef", Some(object(vec![("name", pool), ("group", group)]))),
                    ("serviceAccountName", sa),
                    ("identityBoundary", Some(object(vec![("variant", variant)]))),
                ])),
                1 => None,
                2 => Some(string("not a mapping")),
                _ => Some(object(vec![
                    ("poolRef", Some(string("pool-a"))),
                    ("serviceAccountName", sa),
                    ("identityBoundary", Some(json!(["not", "a", "mapping"]))),
                ])),
            };
            object(vec![
                ("apiVersion", Some(string(BINDING_API))),
                ("kind", Some(string(BINDING_KIND))),
                ("metadata", Some(metadata)),
                ("spec", spec),
                ("status", status),
            ])
        })
}

/// A managed ClusterSPIFFEID seed: which binding's render name it takes (if any), the
/// binding its labels name, and whether it has labels at all.
#[derive(Debug, Clone)]
struct ManagedSeed {
    target: Option<usize>,
    label_ns: &'static str,
    label_name: &'static str,
    suffix: u8,
    labelled: bool,
}

fn managed_seed() -> impl Strategy<Value = ManagedSeed> {
    (
        prop::option::weighted(0.6, 0usize..12),
        namespace(),
        select(BINDING_NAMES),
        0u8..4,
        prop::bool::weighted(0.9),
    )
        .prop_map(|(target, label_ns, label_name, suffix, labelled)| ManagedSeed {
            target,
            label_ns,
            label_name,
            suffix,
            labelled,
        })
}

/// A foreign ClusterSPIFFEID seed: which binding's render name it takes (if any), and the
/// value of a look-alike `rendered-by` annotation, if any.
#[derive(Debug, Clone)]
struct ForeignSeed {
    target: Option<usize>,
    suffix: u8,
    rendered_by: Option<&'static str>,
}

fn foreign_seed() -> impl Strategy<Value = ForeignSeed> {
    (
        prop::option::weighted(0.7, 0usize..12),
        0u8..4,
        prop::option::weighted(0.3, select(&["someone-else", "render-inference-identity ", ""][..])),
    )
        .prop_map(|(target, suffix, rendered_by)| ForeignSeed { target, suffix, rendered_by })
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => pick(TRICKY),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => Just(Value::Null),
        1 => select(FLOATS).prop_map(|f| json!(f)),
        1 => "[a-z ]{0,8}".prop_map(Value::String),
    ]
}

fn nested() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(select(KEYS), inner, 0..4)
                .prop_map(|m| { Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()) }),
        ]
    })
}

/// Items the function must pass through untouched.
fn passthrough() -> impl Strategy<Value = Value> {
    let config_map = (
        0u8..6,
        prop::option::of(pick(NAMESPACES)),
        prop::collection::btree_map(select(KEYS), pick(TRICKY), 0..6),
    )
        .prop_map(|(n, ns, data)| {
            let metadata = object(vec![("name", Some(json!(format!("cm-{n}")))), ("namespace", ns)]);
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata,
                   "data": Value::Object(data.into_iter().map(|(k, v)| (k.to_string(), v)).collect())})
        });
    let deployment = (0u8..6, any::<i32>(), nested(), nested(), pick(TRICKY)).prop_map(
        |(n, replicas, template, extra, note)| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": format!("deploy-{n}"), "namespace": "ns-a",
                                "labels": {"app": "on"}, "annotations": {"note": note}},
                   "spec": {"replicas": replicas, "template": template, "x-extra": extra}})
        },
    );
    let crd = (
        select(
            &[
                "inference.networking.k8s.io",
                "inference.networking.x-k8s.io",
                "spire.spiffe.io",
                "other.example",
            ][..],
        ),
        select(&["v1", "v1alpha1", "v1alpha2"][..]),
        any::<bool>(),
        prop::option::of(select(&["InferencePool", "ClusterSPIFFEID", "Other"][..])),
    )
        .prop_map(|(group, version, served, kind)| {
            let names = object(vec![("kind", kind.map(string))]);
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": {"name": format!("things.{group}")},
                   "spec": {"group": group, "names": names,
                            "versions": [{"name": version, "served": served}]}})
        });
    // Odd shapes the function has no reason to touch: no metadata, null annotations.
    let odd = (nested(), pick(TRICKY)).prop_map(|(spec, name)| {
        json!({"apiVersion": "example.com/v1", "kind": "Thing", "spec": spec,
               "status": {"name": name}})
    });
    let secret = pick(TRICKY).prop_map(|value| {
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "s", "annotations": null, "labels": null},
               "stringData": {"k": value}})
    });
    prop_oneof![10 => config_map, 10 => deployment, 1 => crd, 1 => odd, 1 => secret]
}

/// The functionConfig, in either form, and what it says.
#[derive(Debug, Clone)]
struct FnConfig {
    value: Value,
    trust_domain: Option<&'static str>,
    fail: bool,
    prune: bool,
    output_path: &'static str,
}

fn function_config() -> impl Strategy<Value = FnConfig> {
    let api_versions = prop::option::weighted(
        0.15,
        prop::sample::subsequence(
            vec![
                "inference.networking.k8s.io/v1",
                "inference.networking.x-k8s.io/v1alpha2",
                "spire.spiffe.io/v1alpha1",
                "spire.spiffe.io/v1alpha1/ClusterSPIFFEID",
                "inference.networking.k8s.io/v1/InferencePool",
                "apps/v1",
                "v1",
            ],
            0..=7,
        ),
    );
    (
        prop::option::weighted(0.9, select(TRUST_DOMAINS)),
        prop::option::of(select(&["Report", "Fail"][..])),
        prop::option::of(any::<bool>()),
        api_versions,
        prop::option::of(Just("2026-01-01T00:00:00Z")),
        prop::option::weighted(0.2, select(&["cls", "on"][..])),
        prop::option::weighted(0.2, Just("out/{name}.yaml")),
        prop::bool::weighted(0.25),
    )
        .prop_map(|(td, policy, prune, apis, time, class, output, as_config_map)| {
            let value = if as_config_map {
                let data = object(vec![
                    ("trustDomain", td.map(string)),
                    ("failurePolicy", policy.map(string)),
                    ("prune", prune.map(|p| string(&p.to_string()))),
                    ("apiVersions", apis.as_ref().map(|a| string(&a.join(",")))),
                    ("transitionTime", time.map(string)),
                    ("className", class.map(string)),
                    ("outputPath", output.map(string)),
                ]);
                json!({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "render-config"}, "data": data})
            } else {
                let spec = object(vec![
                    ("trustDomain", td.map(string)),
                    ("failurePolicy", policy.map(string)),
                    ("prune", prune.map(Value::Bool)),
                    ("apiVersions", apis.as_ref().map(|a| json!(a))),
                    ("transitionTime", time.map(string)),
                    ("className", class.map(string)),
                    ("outputPath", output.map(string)),
                ]);
                json!({"apiVersion": "fn.kleym.sonda.red/v1alpha1",
                           "kind": "RenderInferenceIdentity",
                           "metadata": {"name": "render"}, "spec": spec})
            };
            FnConfig {
                value,
                trust_domain: td,
                fail: policy == Some("Fail"),
                prune: prune.unwrap_or(true),
                output_path: output.unwrap_or("clusterspiffeids/{name}.yaml"),
            }
        })
}

fn env() -> impl Strategy<Value = Env> {
    (
        prop::option::weighted(0.1, Just("spire.spiffe.io/v1alpha1,inference.networking.k8s.io/v1")),
        prop::option::weighted(0.2, Just("1700000000")),
    )
        .prop_map(|(apis, epoch)| Env {
            kube_api_versions: apis.map(String::from),
            source_date_epoch: epoch.map(String::from),
        })
}

/// One generated run: the input text and what the generator knows about it.
#[derive(Clone)]
struct Case {
    input: String,
    list: Value,
    items: Vec<Value>,
    env: Env,
    trust_domain: Option<&'static str>,
    fail: bool,
    prune: bool,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "env: {:?}", self.env)?;
        f.write_str(&self.input)
    }
}

/// The name the binding would render under, when its fields are strings.
fn render_name(binding: &Value, trust_domain: &str) -> Option<String> {
    let s = |p: &str| binding.pointer(p).and_then(Value::as_str);
    let ns = s("/metadata/namespace")?;
    let id = identity::spiffe_id(
        trust_domain,
        ns,
        s("/spec/serviceAccountName")?,
        s("/spec/poolRef/name")?.trim(),
        s("/spec/identityBoundary/variant")?,
    );
    Some(identity::output_name(ns, s("/metadata/name")?, &id))
}

fn managed_object(name: &str, seed: &ManagedSeed) -> Value {
    let mut metadata = json!({
        "name": name,
        "annotations": {ANNOTATION_RENDERED_BY: RENDERED_BY, "config.k8s.io/id": "7"},
    });
    if seed.labelled {
        metadata["labels"] = json!({
            "kleym.sonda.red/managed-by": "kleym",
            LABEL_BINDING_NAME: seed.label_name,
            LABEL_BINDING_NAMESPACE: seed.label_ns,
        });
    }
    json!({"apiVersion": CSID_API, "kind": CSID_KIND, "metadata": metadata,
           "spec": {"spiffeIDTemplate": "spiffe://old.example/stale",
                    "podSelector": {"matchLabels": {"app": "old"}},
                    "workloadSelectorTemplates": ["k8s:ns:old"],
                    "fallback": false, "hint": "old/hint"}})
}

fn foreign_object(name: &str, seed: &ForeignSeed) -> Value {
    let mut metadata = json!({"name": name, "labels": {"team": "platform"}});
    if let Some(by) = seed.rendered_by {
        metadata["annotations"] = json!({ANNOTATION_RENDERED_BY: by});
    }
    json!({"apiVersion": CSID_API, "kind": CSID_KIND, "metadata": metadata,
           "spec": {"spiffeIDTemplate": "spiffe://example.org/hand/made", "ttl": "1h"}})
}

/// How an item names its file (kpt writes both forms, older tools the legacy one).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FileForm {
    Both,
    InternalOnly,
    LegacyOnly,
    /// Both paths, no index (the index is then 0).
    PathOnly,
}

/// Gives an item annotations for its file, never a (path, index) pair that another item
/// already has. Some managed outputs take the path the first new output would get, so the
/// function must find another index for it. (Any other item there makes the run refuse
/// `outputPath`, which testdata/config-error-output-path-* hold.)
fn annotate(item: &mut Value, mode: u8, n: usize, used: &mut HashSet<(String, u64)>, clash: &str) {
    let managed = is_managed_csid(item);
    let (form, path, index) = match mode % 8 {
        0..=2 => return,
        3 if managed => (FileForm::Both, clash.to_string(), 0),
        4 if managed => (FileForm::PathOnly, clash.to_string(), 0),
        3 | 5 => (FileForm::InternalOnly, format!("in/file-{}.yaml", n % 3), n as u64),
        4 | 6 => (FileForm::LegacyOnly, format!("in/file-{}.yaml", n % 3), n as u64),
        _ => (FileForm::Both, format!("in/file-{}.yaml", n % 3), n as u64),
    };
    if !used.insert((path.clone(), index)) {
        return;
    }
    let Some(meta) = item.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let annotations = meta.entry("annotations").or_insert_with(|| Value::Object(Map::new()));
    let Some(annotations) = annotations.as_object_mut() else {
        return;
    };
    let index = Value::String(index.to_string());
    if form != FileForm::LegacyOnly {
        annotations.insert(PATH.into(), Value::String(path.clone()));
        if form != FileForm::PathOnly {
            annotations.insert(INDEX.into(), index.clone());
        }
    }
    if form != FileForm::InternalOnly {
        annotations.insert(LEGACY_PATH.into(), Value::String(path));
        if form != FileForm::PathOnly {
            annotations.insert(LEGACY_INDEX.into(), index);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    config: FnConfig,
    pools: Vec<(Value, bool)>,
    bindings: Vec<Value>,
    managed: Vec<ManagedSeed>,
    foreign: Vec<ForeignSeed>,
    others: Vec<Value>,
    modes: Vec<u8>,
    order: Vec<u16>,
    env: Env,
) -> Case {
    let td = config.trust_domain.unwrap_or("example.org");
    // Bindings unique by namespace and name; a missing or non-string namespace counts as "".
    let mut seen = HashSet::new();
    let bindings: Vec<Value> = bindings
        .into_iter()
        .filter(|b| {
            let ns = b.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
            let name = b.pointer("/metadata/name").and_then(Value::as_str);
            seen.insert((ns.to_string(), name.map(String::from)))
        })
        .collect();
    let render_names: Vec<Option<String>> = bindings.iter().map(|b| render_name(b, td)).collect();
    let target_name = |target: Option<usize>| {
        target.filter(|_| !bindings.is_empty()).and_then(|t| render_names[t % bindings.len()].clone())
    };
    // Pools unique by API, namespace and name; ClusterSPIFFEIDs unique by name.
    let mut pool_keys = HashSet::new();
    let mut items: Vec<Value> = pools
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| {
            pool_keys.insert((
                p["apiVersion"].clone(),
                p["metadata"]["namespace"].clone(),
                p["metadata"]["name"].clone(),
            ))
        })
        .collect();
    items.extend(bindings.iter().cloned());
    let mut csid_names = HashSet::new();
    for seed in &managed {
        let name = target_name(seed.target)
            .unwrap_or_else(|| format!("kleym-{}-stale-{}", seed.label_ns, seed.suffix));
        if csid_names.insert(name.clone()) {
            items.push(managed_object(&name, seed));
        }
    }
    for seed in &foreign {
        let name = target_name(seed.target).unwrap_or_else(|| format!("foreign-{}", seed.suffix));
        if csid_names.insert(name.clone()) {
            items.push(foreign_object(&name, seed));
        }
    }
    items.extend(others);
    // A stable shuffle: sort by generated keys (shrinks to the generation order).
    let mut keyed: Vec<(u16, usize, Value)> = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| (order.get(i).copied().unwrap_or(0), i, item))
        .collect();
    keyed.sort_by_key(|(k, i, _)| (*k, *i));
    let mut items: Vec<Value> = keyed.into_iter().map(|(_, _, item)| item).collect();
    let clash = render_names
        .iter()
        .flatten()
        .next()
        .map_or("clusterspiffeids/x.yaml".to_string(), |n| config.output_path.replace("{name}", n));
    let mut used = HashSet::new();
    for (n, item) in items.iter_mut().enumerate() {
        let mode = modes.get(n).copied().unwrap_or(0);
        annotate(item, mode, n, &mut used, &clash);
    }
    let list = json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": items,
        "functionConfig": config.value,
    });
    let input = yaml::write(&list).expect("a generated list writes as YAML");
    Case {
        input,
        items: list["items"].as_array().cloned().unwrap_or_default(),
        list,
        env,
        trust_domain: config.trust_domain,
        fail: config.fail,
        prune: config.prune,
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        function_config(),
        // Mostly many pools (of 12 possible keys), so that bindings find theirs.
        prop_oneof![1 => prop::collection::vec(pool(), 0..4), 3 => prop::collection::vec(pool(), 4..12)],
        prop::collection::vec(binding(), 0..12),
        prop::collection::vec(managed_seed(), 0..4),
        prop::collection::vec(foreign_seed(), 0..3),
        prop::collection::vec(passthrough(), 0..5),
        prop::collection::vec(any::<u8>(), 0..48),
        prop::collection::vec(0u16..8, 0..48),
        env(),
    )
        .prop_map(|(config, pools, bindings, managed, foreign, others, modes, order, env)| {
            assemble(config, pools, bindings, managed, foreign, others, modes, order, env)
        })
}

// ---------------------------------------------------------------------------------------
// Helpers on the output
// ---------------------------------------------------------------------------------------

fn is_binding(item: &Value) -> bool {
    item["apiVersion"] == BINDING_API && item["kind"] == BINDING_KIND
}

fn is_csid(item: &Value) -> bool {
    item["kind"] == CSID_KIND
        && item["apiVersion"].as_str().is_some_and(|v| v.split('/').next() == Some("spire.spiffe.io"))
}

fn is_managed_csid(item: &Value) -> bool {
    is_csid(item)
        && item
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(ANNOTATION_RENDERED_BY))
            .and_then(Value::as_str)
            == Some(RENDERED_BY)
}

fn name_of(item: &Value) -> Option<&str> {
    item.pointer("/metadata/name").and_then(Value::as_str)
}

/// Parses stdout back as a ResourceList and returns it.
fn parse_list(stdout: &str) -> Result<Value, TestCaseError> {
    let list = yaml::parse(stdout)
        .map_err(|e| TestCaseError::fail(format!("stdout does not parse: {e}\n{stdout}")))?;
    prop_assert_eq!(&list["apiVersion"], "config.kubernetes.io/v1");
    prop_assert_eq!(&list["kind"], "ResourceList");
    let items = list["items"].as_array();
    prop_assert!(
        items.is_some_and(|items| items.iter().all(Value::is_object)),
        "items is not a sequence of mappings:\n{}",
        stdout
    );
    Ok(list)
}

fn items_of(list: &Value) -> &[Value] {
    list["items"].as_array().map_or(&[], Vec::as_slice)
}

/// The output up to its top-level `results` key, which is written last.
fn without_results(stdout: &str) -> &str {
    stdout.split_once("\nresults:\n").map_or(stdout, |(items, _)| items)
}

fn show(v: &Value) -> String {
    yaml::write(v).unwrap_or_else(|e| format!("<unwritable: {e}>"))
}

/// Runs the case once and parses the output.
fn run(case: &Case) -> Result<(krm::RunOutput, Value), TestCaseError> {
    let out = common::krm(&case.input, &case.env);
    let list = parse_list(&out.stdout)?;
    Ok((out, list))
}

fn condition<'a>(status: &'a Value, kind: &str) -> Option<&'a Value> {
    status["conditions"].as_array()?.iter().find(|c| c["type"] == kind)
}

fn is_ready(binding: &Value) -> bool {
    condition(&binding["status"], "Ready").is_some_and(|c| c["status"] == "True")
}

fn annotation<'a>(item: &'a Value, key: &str) -> Option<&'a str> {
    item.pointer("/metadata/annotations")?.get(key)?.as_str()
}

/// The (path, index) pairs an item claims, in either annotation form.
fn slots(item: &Value) -> HashSet<(String, u64)> {
    let mut out: HashSet<(String, u64)> = file_of(item).into_iter().collect();
    if let Some(path) = annotation(item, LEGACY_PATH) {
        let index = annotation(item, LEGACY_INDEX).and_then(|i| i.parse().ok()).unwrap_or(0);
        out.insert((path.to_string(), index));
    }
    out
}

fn crd_schema(file: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crds").join(file);
    let text = std::fs::read_to_string(&path).expect("vendored CRD is readable");
    let crd = yaml::parse(&text).expect("vendored CRD parses");
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema").cloned().expect("CRD has an openAPIV3Schema")
}

/// A validator for an OpenAPI v3 structural schema. Its `x-kubernetes-*` keywords (and
/// `nullable`, `default`) are unknown to JSON Schema and ignored as annotations.
fn validator(schema: &Value) -> Validator {
    jsonschema::validator_for(schema).expect("schema compiles")
}

fn schema_errors(validator: &Validator, instance: &Value) -> Vec<String> {
    validator.iter_errors(instance).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

static CSID_SCHEMA: LazyLock<Validator> =
    LazyLock::new(|| validator(&crd_schema("spire.spiffe.io_clusterspiffeids.yaml")));
/// The `status` schema of the operator's own binding CRD.
static OPERATOR_STATUS_SCHEMA: LazyLock<Validator> = LazyLock::new(|| {
    let schema = crd_schema("kleym.sonda.red_inferenceidentitybindings.yaml");
    validator(schema.pointer("/properties/status").expect("the operator's CRD has a status schema"))
});
static POOL_V1_SCHEMA: LazyLock<Validator> =
    LazyLock::new(|| validator(&crd_schema("inference.networking.k8s.io_inferencepools.yaml")));
static POOL_V1ALPHA2_SCHEMA: LazyLock<Validator> =
    LazyLock::new(|| validator(&crd_schema("inference.networking.x-k8s.io_inferencepools.yaml")));

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(common::proptest_config(128))]

    /// 1. No panic; exit 0 or 1; stdout is a ResourceList.
    #[test]
    fn never_panics_and_always_writes_a_resource_list(case in case()) {
        let out = common::krm(&case.input, &case.env);
        prop_assert!(
            out.exit_code == 0 || out.exit_code == 1,
            "exit code {}", out.exit_code
        );
        parse_list(&out.stdout)?;
    }

    /// 2. Every item but bindings and managed ClusterSPIFFEIDs comes back unchanged, in
    /// order; every binding comes back, unchanged except its status.
    #[test]
    fn no_item_is_lost_or_changed(case in case()) {
        let reread = yaml::parse(&case.input).map_err(TestCaseError::fail)?;
        prop_assert!(reread == case.list, "the YAML writer does not round-trip the input");
        let (_, list) = run(&case)?;
        let kept = |items: &[Value]| -> Vec<Value> {
            items
                .iter()
                .filter(|i| !is_managed_csid(i))
                .map(|i| {
                    let mut i = i.clone();
                    if is_binding(&i) {
                        i.as_object_mut().unwrap().remove("status");
                    }
                    i
                })
                .collect()
        };
        let (want, got) = (kept(&case.items), kept(items_of(&list)));
        for (n, (w, g)) in want.iter().zip(&got).enumerate() {
            prop_assert!(w == g, "item {} changed:\nwant:\n{}got:\n{}", n, show(w), show(g));
        }
        prop_assert_eq!(want.len(), got.len(), "items lost or added");
    }

    /// 3. Five conditions in order, Ready mirroring the one failure, rendered fields iff
    /// Ready, conflicts iff Conflict; the exit code and results agree with the statuses.
    #[test]
    fn every_binding_has_a_consistent_status(case in case()) {
        let (out, list) = run(&case)?;
        let bindings: Vec<&Value> = items_of(&list).iter().filter(|i| is_binding(i)).collect();
        let mut failed = 0;
        for b in &bindings {
            let who = format!("{}/{}", b["metadata"]["namespace"], b["metadata"]["name"]);
            let status = &b["status"];
            let conditions = status["conditions"].as_array();
            prop_assert!(conditions.is_some(), "{}: no conditions:\n{}", who, show(b));
            let conditions = conditions.unwrap();
            let types: Vec<&str> = conditions.iter().filter_map(|c| c["type"].as_str()).collect();
            prop_assert_eq!(&types, &CONDITION_TYPES, "{}: condition types", who);
            let generation = b.pointer("/metadata/generation").and_then(Value::as_i64);
            for c in conditions {
                for key in ["status", "reason", "message", "lastTransitionTime"] {
                    prop_assert!(c[key].is_string(), "{}: {} has no {}", who, c["type"], key);
                }
                prop_assert_eq!(c.get("observedGeneration").and_then(Value::as_i64), generation);
            }
            let ready = &conditions[0];
            let failing: Vec<&Value> = conditions[1..].iter().filter(|c| c["status"] == "True").collect();
            for c in conditions[1..].iter().filter(|c| c["status"] != "True") {
                prop_assert!(c["status"] == "False" && c["reason"] == "Resolved",
                    "{}: {} is neither True nor False/Resolved", who, c);
            }
            if ready["status"] == "True" {
                prop_assert_eq!(&ready["reason"], "Reconciled", "{}", who);
                prop_assert!(failing.is_empty(), "{}: Ready=True beside {:?}", who, failing);
            } else {
                failed += 1;
                prop_assert_eq!(&ready["status"], "False", "{}", who);
                prop_assert_eq!(failing.len(), 1, "{}: not exactly one failure: {:?}", who, conditions);
                let f = failing[0];
                let kind = f["type"].as_str().unwrap_or_default();
                prop_assert!(true_reasons(kind).contains(&f["reason"].as_str().unwrap_or_default()),
                    "{}: {} has reason {}", who, kind, f["reason"]);
                prop_assert_eq!(&ready["reason"], &f["reason"], "{}", who);
                prop_assert_eq!(&ready["message"], &f["message"], "{}", who);
            }
            let ready = ready["status"] == "True";
            for key in ["computedSpiffeIDs", "renderedSelectors", "renderedClusterSPIFFEID"] {
                prop_assert_eq!(status.get(key).is_some(), ready, "{}: {} vs Ready", who, key);
            }
            let conflict = conditions[3]["status"] == "True";
            prop_assert_eq!(status.get("conflicts").is_some(), conflict, "{}: conflicts vs Conflict", who);
            if let Some(conflicts) = status.get("conflicts") {
                let conflicts = conflicts.as_array().cloned().unwrap_or_default();
                prop_assert!((1..=32).contains(&conflicts.len()), "{}: {} conflicts", who, conflicts.len());
                let key = |e: &Value| ["bindingName", "cause", "spiffeID", "variant"]
                    .map(|k| e[k].as_str().unwrap_or_default().to_string());
                prop_assert!(conflicts.windows(2).all(|w| key(&w[0]) <= key(&w[1])),
                    "{}: conflicts not sorted", who);
                for e in &conflicts {
                    prop_assert!(e["bindingName"] != b["metadata"]["name"], "{}: own peer", who);
                    let peer = bindings.iter().find(|p| {
                        p["metadata"]["namespace"] == b["metadata"]["namespace"]
                            && p["metadata"]["name"] == e["bindingName"]
                    });
                    prop_assert!(
                        peer.is_some_and(|p| condition(&p["status"], "Conflict")
                            .is_some_and(|c| c["status"] == "True")),
                        "{}: peer {} is not in Conflict", who, e["bindingName"]
                    );
                }
            }
            if let Some(td) = case.trust_domain {
                prop_assert_eq!(&status["trustDomain"], td, "{}", who);
            }
        }
        // docs/reference.md#conflicts: two bindings that render never share a SPIFFE ID or a
        // (namespace, service account, variant).
        let mut ids = HashSet::new();
        let mut triples = HashSet::new();
        for b in bindings.iter().filter(|b| is_ready(b)) {
            let id = &b["status"]["renderedClusterSPIFFEID"]["spiffeID"];
            prop_assert!(ids.insert(id.to_string()), "two Ready bindings render {}", id);
            let triple = (
                b["metadata"]["namespace"].to_string(),
                b["spec"]["serviceAccountName"].to_string(),
                b["spec"]["identityBoundary"]["variant"].to_string(),
            );
            prop_assert!(triples.insert(triple.clone()), "two Ready bindings share {:?}", triple);
        }
        // docs/reference.md#results-and-exit-codes: one result per failing binding, the
        // exit code from the policy.
        let results = list["results"].as_array().cloned().unwrap_or_default();
        // Workload coverage findings about a binding are results too, of their own kind.
        let findings =
            ["NoMatchingWorkload:", "ServiceAccountNotDeclared:", "EntriesWithoutIdentity:", "IgnoredBySpire:"];
        let per_binding: Vec<&Value> = results
            .iter()
            .filter(|r| r.pointer("/resourceRef/kind") == Some(&json!(BINDING_KIND)))
            .filter(|r| !findings.iter().any(|f| r["message"].as_str().is_some_and(|m| m.starts_with(f))))
            .collect();
        prop_assert_eq!(per_binding.len(), failed, "results per failing binding");
        let severity = if case.fail { "error" } else { "warning" };
        for b in bindings.iter().filter(|b| !is_ready(b)) {
            let (name, ns) = (&b["metadata"]["name"], b["metadata"]["namespace"].as_str());
            let mine: Vec<&&Value> = per_binding
                .iter()
                .filter(|r| {
                    r["resourceRef"]["name"] == *name
                        && r.pointer("/resourceRef/namespace").and_then(Value::as_str) == ns
                })
                .collect();
            prop_assert_eq!(mine.len(), 1, "results for {:?}/{}", ns, name);
            let r = mine[0];
            prop_assert_eq!(&r["severity"], severity);
            let failure = b["status"]["conditions"].as_array().unwrap()[1..]
                .iter()
                .find(|c| c["status"] == "True")
                .unwrap();
            // The result names each managed output of this binding that its failure removes
            // (one no other binding renders a new object of the same name for).
            let rendered: HashSet<&str> = bindings
                .iter()
                .filter_map(|b| b.pointer("/status/renderedClusterSPIFFEID/name")?.as_str())
                .collect();
            let removes: String = case
                .items
                .iter()
                .filter(|i| i["kind"] == CSID_KIND && csid::is_managed(*i))
                .filter(|i| ns.is_some() && csid::binding_of(*i) == ns.zip(name.as_str()))
                .filter(|i| !rendered.contains(i["metadata"]["name"].as_str().unwrap_or_default()))
                .map(|i| format!(
                    "; this removes ClusterSPIFFEID {} of the input, and its pods lose SPIFFE ID {} on the next apply",
                    i["metadata"]["name"].as_str().unwrap_or_default(),
                    i["spec"]["spiffeIDTemplate"].as_str().unwrap_or_default()
                ))
                .collect();
            let want = format!(
                "{}/{}: {}{removes}",
                failure["type"].as_str().unwrap_or_default(),
                failure["reason"].as_str().unwrap_or_default(),
                failure["message"].as_str().unwrap_or_default()
            );
            prop_assert_eq!(r["message"].as_str(), Some(want.as_str()));
            let file = file_of(*b).map(|(path, index)| json!({"path": path, "index": index}));
            prop_assert_eq!(r.get("file"), file.as_ref(), "file of the result for {:?}/{}", ns, name);
        }
        let summaries = results.iter().filter(|r| r["severity"] == "info" && r.get("resourceRef").is_none());
        prop_assert_eq!(summaries.count(), 1);
        let want_exit = i32::from(case.trust_domain.is_none() || (case.fail && failed > 0));
        prop_assert_eq!(out.exit_code, want_exit, "exit code; stderr:\n{}", out.stderr);
    }

    /// 4. The output is a fixed point up to its results.
    #[test]
    fn output_is_a_fixed_point(case in case()) {
        let first = common::krm(&case.input, &case.env);
        let second = common::krm(&first.stdout, &case.env);
        let (a, b) = (without_results(&first.stdout), without_results(&second.stdout));
        if a != b {
            let line = a.lines().zip(b.lines()).position(|(x, y)| x != y);
            prop_assert!(false, "not a fixed point at line {:?}:\nfirst:\n{}\nsecond:\n{}", line, a, b);
        }
        prop_assert_eq!(first.exit_code, second.exit_code);
    }

    /// 5. The same input gives the same bytes.
    #[test]
    fn output_is_byte_stable(case in case()) {
        let first = common::krm(&case.input, &case.env);
        let second = common::krm(&case.input, &case.env);
        prop_assert_eq!(&first.stdout, &second.stdout);
        prop_assert_eq!(&first.stderr, &second.stderr);
        prop_assert_eq!(first.exit_code, second.exit_code);
    }

    /// 6. Managed outputs validate against the upstream ClusterSPIFFEID CRD; every Ready
    /// binding has its one output; no stale output survives; no two items share a
    /// (path, index).
    #[test]
    fn outputs_are_valid_owned_and_placed(case in case()) {
        let (_, list) = run(&case)?;
        let items = items_of(&list);
        for item in items.iter().filter(|i| is_managed_csid(i)) {
            let errors = schema_errors(&CSID_SCHEMA, item);
            prop_assert!(errors.is_empty(), "invalid ClusterSPIFFEID {:?}:\n{}", errors, show(item));
        }
        let bindings: Vec<&Value> = items.iter().filter(|i| is_binding(i)).collect();
        let mut ready_names = HashSet::new();
        for b in bindings.iter().filter(|b| is_ready(b)) {
            let rendered = &b["status"]["renderedClusterSPIFFEID"];
            let name = rendered["name"].as_str().unwrap_or_default();
            ready_names.insert(name.to_string());
            let outputs: Vec<&Value> = items
                .iter()
                .filter(|i| is_csid(i) && name_of(i) == Some(name))
                .collect();
            prop_assert_eq!(outputs.len(), 1, "outputs named {}", name);
            let o = outputs[0];
            prop_assert!(is_managed_csid(o), "{} is not managed", name);
            prop_assert!(o["metadata"].get("namespace").is_none(), "{} has a namespace", name);
            prop_assert_eq!(&o["spec"]["spiffeIDTemplate"], &rendered["spiffeID"]);
            prop_assert_eq!(&o["spec"]["workloadSelectorTemplates"],
                &b["status"]["renderedSelectors"][0]["selectors"]);
            prop_assert_eq!(&o["metadata"]["labels"][LABEL_BINDING_NAME], &b["metadata"]["name"]);
            prop_assert_eq!(&o["metadata"]["labels"][LABEL_BINDING_NAMESPACE], &b["metadata"]["namespace"]);
        }
        // docs/reference.md#output-and-ownership: a managed output in the output is a fresh
        // render, or (prune off) one whose binding is not in the input.
        for o in items.iter().filter(|i| is_managed_csid(i)) {
            let name = name_of(o).unwrap_or_default();
            if ready_names.contains(name) {
                continue;
            }
            let labels = &o["metadata"]["labels"];
            let owner_present = bindings.iter().any(|b| {
                b["metadata"]["namespace"].is_string()
                    && b["metadata"]["namespace"] == labels[LABEL_BINDING_NAMESPACE]
                    && b["metadata"]["name"] == labels[LABEL_BINDING_NAME]
            });
            prop_assert!(!case.prune && !owner_present,
                "stale managed ClusterSPIFFEID {} kept (prune {}, owner present {})",
                name, case.prune, owner_present);
        }
        let mut claimed: HashMap<(String, u64), usize> = HashMap::new();
        for (n, item) in items.iter().enumerate() {
            for slot in slots(item) {
                if let Some(other) = claimed.insert(slot.clone(), n) {
                    prop_assert!(false, "items {} and {} share {:?}", other, n, slot);
                }
            }
        }
    }

    /// 7. Every status written is one the operator's CRD admits, and keeps the operator's
    /// ownership records exactly as the input had them.
    #[test]
    fn statuses_fit_the_operators_crd_and_keep_its_records(case in case()) {
        let (_, list) = run(&case)?;
        let inputs: Vec<&Value> = case.items.iter().filter(|i| is_binding(i)).collect();
        let outputs: Vec<&Value> = items_of(&list).iter().filter(|i| is_binding(i)).collect();
        prop_assert_eq!(inputs.len(), outputs.len());
        for (input, output) in inputs.iter().zip(&outputs) {
            let errors = schema_errors(&OPERATOR_STATUS_SCHEMA, &output["status"]);
            prop_assert!(errors.is_empty(), "status the operator's CRD refuses {:?}:\n{}", errors, show(output));
            for record in ["pendingClusterSPIFFEID", "ownedClusterSPIFFEID"] {
                let kept = input.pointer("/status").filter(|s| s.is_object()).and_then(|s| s.get(record));
                prop_assert_eq!(output["status"].get(record), kept, "{} of\n{}", record, show(output));
            }
            prop_assert!(output.pointer("/status/renderedClusterSPIFFEID/observedGeneration").is_none());
        }
    }

    /// 8. The pools the generator means to be valid are valid for their own CRD.
    #[test]
    fn generated_valid_pools_match_their_crd((pool, valid) in pool()) {
        if valid {
            let schema = if pool["apiVersion"] == POOL_V1 {
                &*POOL_V1_SCHEMA
            } else {
                &*POOL_V1ALPHA2_SCHEMA
            };
            let errors = schema_errors(schema, &pool);
            prop_assert!(errors.is_empty(), "{:?}:\n{}", errors, show(&pool));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The binding CRD
// ---------------------------------------------------------------------------------------

fn sample_binding(service_account: &str, variant: &str) -> Value {
    json!({
        "apiVersion": BINDING_API,
        "kind": BINDING_KIND,
        "metadata": {"name": "web", "namespace": "ns-a"},
        "spec": {
            "poolRef": {"name": "pool-a", "group": "inference.networking.k8s.io"},
            "serviceAccountName": service_account,
            "identityBoundary": {"variant": variant},
        },
    })
}

#[test]
fn binding_crd_has_columns_status_and_a_strict_schema() {
    use kube_core::CustomResourceExt;
    let crd = serde_json::to_value(InferenceIdentityBinding::crd()).expect("CRD serializes");
    let version = &crd["spec"]["versions"][0];
    let columns: Vec<&str> = version["additionalPrinterColumns"]
        .as_array()
        .expect("printer columns")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(columns, ["POOL", "BOUNDARY", "READY", "REASON", "SPIFFE ID"]);
    assert!(
        version["subresources"]["status"].is_object(),
        "no status subresource: {}",
        version["subresources"]
    );
    let schema = validator(&version["schema"]["openAPIV3Schema"]);
    let valid = sample_binding("sa-a", "prefill");
    assert!(schema_errors(&schema, &valid).is_empty(), "{:?}", schema_errors(&schema, &valid));
    for bad in [sample_binding("sa-a", "has space"), sample_binding("UPPER", "prefill")] {
        assert!(!schema.is_valid(&bad), "accepted by the CRD schema:\n{}", show(&bad));
    }
}
