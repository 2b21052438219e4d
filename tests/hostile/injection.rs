//! Identity injection: a trust domain, binding or pool value that would add a path segment
//! or a selector, input that would forge a stderr line or leak library internals, and YAML
//! 1.1 readers downstream (every string the function writes that kubectl would retype is
//! quoted).

use super::*;
use crate::yaml_limits::alias_bomb;

// ---------------------------------------------------------------------------------------
// Injection: trust domain
// ---------------------------------------------------------------------------------------

const BAD_TRUST_DOMAINS: [(&str, &[&str]); 10] = [
    ("evil.org/ns/kube-system", &["path"]),
    ("spiffe://example.org", &["scheme"]),
    ("example.org:8443", &["':'"]),
    ("EXAMPLE.org", &["'E'"]),
    ("example .org", &["' '"]),
    ("example.org\nns/kube-system", &["path", "'\\n'"]),
    ("example.org\nevil", &["'\\n'"]),
    ("example%2Forg", &["'%'"]),
    ("ex\u{430}mple.org", &["'\u{430}'"]),
    ("example.org/", &["path"]),
];

/// Surrounding whitespace: docs/reference.md#function-configuration allows none in a trust
/// domain.
const PADDED_TRUST_DOMAINS: [&str; 4] = ["example.org ", " example.org", "example.org\n", "\texample.org"];

fn typed_config_with_trust_domain(td: &str) -> String {
    TYPED_CONFIG.replace("trustDomain: example.org", &format!("trustDomain: {}", q(td)))
}

fn config_map_config_with_trust_domain(td: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn\ndata:\n  trustDomain: {}\n", q(td))
}

/// Runs a pool and a binding under `config` (a functionConfig document).
fn run_with_config(case: &str, config: &str) -> Run {
    let (pool, binding) = pool_and_binding(&Params::default());
    run(case, &[], resource_list(config, &[pool.as_bytes(), binding.as_bytes()]))
}

/// Runs `render` on a pool and a binding, with the trust domain from the flag or from
/// `ARGOCD_ENV_TRUST_DOMAIN`.
fn run_render_with_trust_domain(case: &str, td: &str, from_env: bool) -> Run {
    let (pool, binding) = pool_and_binding(&Params::default());
    let scratch = Scratch::new("td");
    scratch.write("m/input.yaml", &stream(&[pool.as_bytes(), binding.as_bytes()]));
    let mut args = os(&["render"]);
    args.push(scratch.path().join("m").into_os_string());
    if from_env {
        run_env(
            &format!("{case} (ARGOCD_ENV_TRUST_DOMAIN)"),
            &args,
            Vec::new(),
            &[("ARGOCD_ENV_TRUST_DOMAIN", td)],
        )
    } else {
        args.extend(os(&["--trust-domain", td]));
        run(&format!("{case} (render flag)"), &args, Vec::new())
    }
}

#[test]
fn a_trust_domain_with_a_path_scheme_port_or_odd_characters_is_refused() {
    for (td, why) in BAD_TRUST_DOMAINS {
        let case = format!("trustDomain {td:?}");
        let out = run_with_config(&case, &typed_config_with_trust_domain(td));
        out.assert_refused(&[&["spec.trustDomain"], why]);
        assert_no_cluster_spiffe_id(&out);

        let out =
            run_with_config(&format!("{case} (ConfigMap form)"), &config_map_config_with_trust_domain(td));
        out.assert_refused(&[&["data.trustDomain"], why]);
        assert_no_cluster_spiffe_id(&out);

        for from_env in [false, true] {
            let out = run_render_with_trust_domain(&case, td, from_env);
            out.assert_refused(&[&["--trust-domain"], why]);
            assert!(out.stdout.is_empty(), "{}", out.describe());
        }
    }
    for td in PADDED_TRUST_DOMAINS {
        let out = run_with_config(&format!("trustDomain {td:?}"), &typed_config_with_trust_domain(td));
        out.assert_refused(&[&["spec.trustDomain"], &["' '", "'\\n'", "'\\t'", "whitespace"]]);
        assert_no_cluster_spiffe_id(&out);
    }
}

#[test]
fn a_padded_trust_domain_is_refused_in_the_string_forms_too() {
    for td in PADDED_TRUST_DOMAINS {
        let case = format!("trustDomain {td:?}");
        let out =
            run_with_config(&format!("{case} (ConfigMap form)"), &config_map_config_with_trust_domain(td));
        out.assert_refused(&[&["data.trustDomain"], &["whitespace", "' '", "'\\n'", "'\\t'"]]);
        for from_env in [false, true] {
            let out = run_render_with_trust_domain(&case, td, from_env);
            out.assert_refused(&[&["--trust-domain"], &["whitespace", "' '", "'\\n'", "'\\t'"]]);
        }
    }
}

#[test]
fn an_empty_trust_domain_fails_the_run() {
    for (what, config) in [
        ("typed", typed_config_with_trust_domain("")),
        ("ConfigMap", config_map_config_with_trust_domain("")),
    ] {
        let out = run_with_config(&format!("empty trustDomain ({what})"), &config);
        out.assert_refused(&[&["trustDomain"], &["required", "missing"]]);
        assert_no_cluster_spiffe_id(&out);
        assert!(out.stderr.contains("RenderFailure/MissingTrustDomain"), "{}", out.describe());
    }
}

// ---------------------------------------------------------------------------------------
// Injection: binding and pool values
// ---------------------------------------------------------------------------------------

fn run_binding(case: &str, p: &Params) -> Run {
    let (pool, binding) = pool_and_binding(p);
    let config = format!("{TYPED_CONFIG}  failurePolicy: {}\n", p.failure_policy);
    run(case, &[], resource_list(&config, &[pool.as_bytes(), binding.as_bytes()]))
}

fn cluster_spiffe_ids(doc: &Value) -> Vec<&Value> {
    doc["items"]
        .as_array()
        .map(|items| items.iter().filter(|i| i["kind"] == "ClusterSPIFFEID").collect())
        .unwrap_or_default()
}

fn assert_no_cluster_spiffe_id(out: &Run) {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("kind: ClusterSPIFFEID"),
        "no ClusterSPIFFEID may be rendered\n{}",
        out.describe()
    );
    assert!(!text.contains("spiffeIDTemplate"), "no ClusterSPIFFEID may be rendered\n{}", out.describe());
}

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns_label)
}

fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

fn is_qualified_key(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => is_dns_subdomain(prefix) && is_label_value(name),
        None => is_label_value(s),
    }
}

/// Every ClusterSPIFFEID in the output is built from validated parts only: a bare trust
/// domain and exactly the ten path segments of the layout, and selectors of the three
/// allowed shapes with exactly one namespace and one service-account selector.
fn assert_identities_well_formed(out: &Run, doc: &Value) {
    for csid in cluster_spiffe_ids(doc) {
        let id = csid["spec"]["spiffeIDTemplate"].as_str().expect("spiffeIDTemplate");
        let rest = id.strip_prefix("spiffe://").unwrap_or_else(|| panic!("{id:?}\n{}", out.describe()));
        let segments: Vec<&str> = rest.split('/').collect();
        assert_eq!(segments.len(), 10, "{id:?} must have the layout's segments\n{}", out.describe());
        let td = segments[0];
        assert!(
            !td.is_empty()
                && td.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b)),
            "trust domain of {id:?}"
        );
        for (i, word) in [(1, "ns"), (3, "sa"), (5, "inference"), (6, "pool"), (8, "variant")] {
            assert_eq!(segments[i], word, "{id:?}");
        }
        assert!(is_dns_label(segments[2]), "namespace of {id:?}");
        assert!(is_dns_subdomain(segments[4]), "service account of {id:?}");
        assert!(is_dns_subdomain(segments[7]), "pool of {id:?}");
        assert!(is_label_value(segments[9]), "variant of {id:?}");

        let selectors: Vec<&str> = csid["spec"]["workloadSelectorTemplates"]
            .as_array()
            .expect("workloadSelectorTemplates")
            .iter()
            .map(|s| s.as_str().expect("a selector string"))
            .collect();
        let (mut ns, mut sa) = (0, 0);
        for s in &selectors {
            if let Some(v) = s.strip_prefix("k8s:ns:") {
                assert_eq!(v, segments[2], "{s:?}");
                ns += 1;
            } else if let Some(v) = s.strip_prefix("k8s:sa:") {
                assert_eq!(v, segments[4], "{s:?}");
                sa += 1;
            } else if let Some(v) = s.strip_prefix("k8s:pod-label:") {
                let (key, value) = v.rsplit_once(':').unwrap_or_else(|| panic!("{s:?}"));
                assert!(is_qualified_key(key) && is_label_value(value), "selector {s:?}\n{}", out.describe());
            } else {
                panic!("selector {s:?} has no allowed shape\n{}", out.describe());
            }
        }
        assert_eq!((ns, sa), (1, 1), "exactly one namespace and one service-account selector: {selectors:?}");
        assert!(
            selectors.contains(
                &format!("k8s:pod-label:identity.kleym.sonda.red/variant:{}", segments[9]).as_str()
            ),
            "the variant selector names the variant: {selectors:?}"
        );
    }
}

/// The binding fails with `kind`/`reason` (and `field`, when given): no output, the
/// condition, the result and the stderr summary say so; `Fail` turns it into exit 1.
fn assert_binding_fails(case: &str, p: &Params, kind: &str, reason: &str, field: Option<&str>) {
    for policy in ["Report", "Fail"] {
        let p = Params { failure_policy: policy, ..p.clone() };
        let out = run_binding(&format!("{case} ({policy})"), &p);
        out.assert_bounded();
        assert_eq!(out.code, Some(i32::from(policy == "Fail")), "{}", out.describe());
        assert_no_cluster_spiffe_id(&out);
        let doc = out.resource_list();
        assert_identities_well_formed(&out, &doc);
        let binding = &doc["items"][1];
        assert_eq!(binding["kind"], "InferenceIdentityBinding");
        let failed = condition(binding, kind);
        assert!(
            failed["status"] == "True" && failed["reason"] == reason,
            "{kind}: {failed}\n{}",
            out.describe()
        );
        let ready = condition(binding, "Ready");
        assert!(
            ready["status"] == "False" && ready["reason"] == reason,
            "Ready: {ready}\n{}",
            out.describe()
        );
        assert!(binding["status"].get("computedSpiffeIDs").is_none(), "{}", out.describe());
        let results = doc["results"].as_array().expect("results");
        let result = results
            .iter()
            .find(|r| r["message"].as_str().is_some_and(|m| m.starts_with(&format!("{kind}/{reason}: "))))
            .unwrap_or_else(|| panic!("no {kind}/{reason} result\n{}", out.describe()));
        assert_eq!(result["severity"], if policy == "Fail" { "error" } else { "warning" });
        if let Some(field) = field {
            assert_eq!(result["field"]["path"], field, "{}", out.describe());
        }
        assert!(out.stderr.contains(&format!("{kind}/{reason}")), "{}", out.describe());
    }
}

#[test]
fn service_account_names_that_would_add_segments_or_selectors_are_refused() {
    for sa in [
        "a/ns/kube-system",
        "a:b",
        "k8s:ns:kube-system",
        "a%2Fb",
        "s\u{430}-a",
        "sa-a\n",
        " sa-a",
        "..",
        "a..b",
        ".",
        "SA",
        "sa\u{0}",
        &"a".repeat(254),
    ] {
        let p = Params { service_account: sa.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("serviceAccountName {sa:?}"),
            &p,
            "RenderFailure",
            "InvalidServiceAccountName",
            Some("spec.serviceAccountName"),
        );
    }
}

#[test]
fn variants_that_would_add_segments_or_selectors_are_refused() {
    for variant in [
        "x:y",
        "x/y",
        "x/../y",
        "x%2Fy",
        "v1\n",
        " v1",
        "..",
        ".",
        "v\u{430}riant",
        "a b",
        "",
        &"v".repeat(64),
    ] {
        let p = Params { variant: variant.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("variant {variant:?}"),
            &p,
            "UnsafeSelector",
            "InvalidIdentityBoundary",
            Some("spec.identityBoundary.variant"),
        );
    }
}

#[test]
fn pool_names_that_would_add_segments_are_refused() {
    for pool in ["p/../q", "p:q", "pool-a\n", "P", "p%2Fq", "\u{440}ool", "..", "p/q"] {
        // The pool exists under that very name in the input, yet no pool a cluster admits
        // can have it (and "pool-a\n" is trimmed to a name no pool has): nothing renders.
        let p = Params { pool_ref: pool.to_string(), pool_name: pool.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("poolRef.name {pool:?}"),
            &p,
            "InvalidRef",
            "TargetPoolNotFound",
            Some("spec.poolRef.name"),
        );
    }
}

#[test]
fn namespaces_that_would_add_segments_or_selectors_are_refused() {
    for ns in ["a:b", "a/b", "a/ns/kube-system", "a%2Fb", "team-a\n", "t\u{435}am-a", "Team", "a.b", "..", ""]
    {
        let p = Params { namespace: ns.to_string(), ..Params::default() };
        assert_binding_fails(
            &format!("namespace {ns:?}"),
            &p,
            "UnsafeSelector",
            "UnsafeSelector",
            Some("metadata.namespace"),
        );
    }
}

#[test]
fn pool_labels_that_would_add_selectors_are_refused() {
    let cases: [(&str, &str, &str); 8] = [
        ("value with ':'", "app: \"x:y\"", "InvalidPoolSelector"),
        ("value with '/'", "app: \"x/y\"", "InvalidPoolSelector"),
        ("value with a newline", "app: \"model\\n\"", "InvalidPoolSelector"),
        ("key with ':'", "\"a:b\": x", "InvalidPoolSelector"),
        ("key k8s:ns:kube-system", "\"k8s:ns:kube-system\": x", "InvalidPoolSelector"),
        ("key k8s:sa:admin", "\"k8s:sa:admin\": x", "InvalidPoolSelector"),
        ("unquoted boolean", "app: true", "InvalidPoolSelector"),
        ("another variant", "identity.kleym.sonda.red/variant: \"other\"", "UnsafeSelector"),
    ];
    for (what, label, reason) in cases {
        let p = Params { labels: vec!["app2: \"model\"".into(), label.to_string()], ..Params::default() };
        assert_binding_fails(&format!("pool label {what}"), &p, "UnsafeSelector", reason, None);
    }
}

#[test]
fn unquoted_yaml11_scalars_in_identity_fields_are_not_strings() {
    // Kubernetes reads `010` as a number: the wrong YAML type, whoever applies it.
    let (pool, binding) = pool_and_binding(&Params::default());
    let binding = binding.replace("variant: \"v1\"", "variant: 010");
    let out =
        run("unquoted variant 010", &[], resource_list(TYPED_CONFIG, &[pool.as_bytes(), binding.as_bytes()]));
    out.assert_success();
    assert_no_cluster_spiffe_id(&out);
    let doc = out.resource_list();
    assert_eq!(
        condition(&doc["items"][1], "UnsafeSelector")["reason"],
        "InvalidIdentityBoundary",
        "{}",
        out.describe()
    );
    assert!(out.stderr.contains("must be a string"), "{}", out.describe());
    // A service account name that YAML 1.1 and 1.2 read apart (`yes`: a boolean to kubectl,
    // the string "yes" to `kpt live apply`) is refused where it stands, as a label value is.
    let (pool, binding) = pool_and_binding(&Params::default());
    let binding = binding.replace("serviceAccountName: \"sa-a\"", "serviceAccountName: yes");
    let out = run(
        "unquoted serviceAccountName yes",
        &[],
        resource_list(TYPED_CONFIG, &[pool.as_bytes(), binding.as_bytes()]),
    );
    out.assert_refused(&[&["service account `yes` is unquoted"], &["line"]]);
    // So is any value YAML 1.1 and 1.2 read apart (`on`: a boolean to kubectl, the string
    // "on" to `kpt live apply`), wherever it stands.
    let (pool, binding) = pool_and_binding(&Params::default());
    let binding = binding.replace("variant: \"v1\"", "variant: on");
    let out =
        run("unquoted variant on", &[], resource_list(TYPED_CONFIG, &[pool.as_bytes(), binding.as_bytes()]));
    out.assert_refused(&[&["value `on` is unquoted"], &["line"]]);
}

#[test]
fn legal_lookalike_values_render_exactly() {
    let p = Params {
        namespace: "a-1".into(),
        binding: "A_b.c".into(),
        service_account: "a.b-c".into(),
        pool_ref: "p.q".into(),
        pool_name: "p.q".into(),
        variant: "A_b.c-1".into(),
        labels: vec!["example.com/app: \"m_1.x\"".into()],
        failure_policy: "Fail",
    };
    let out = run_binding("legal dotted and underscored values", &p);
    out.assert_success();
    let doc = out.resource_list();
    assert_identities_well_formed(&out, &doc);
    let csids = cluster_spiffe_ids(&doc);
    assert_eq!(csids.len(), 1, "{}", out.describe());
    let spec = &csids[0]["spec"];
    assert_eq!(
        spec["spiffeIDTemplate"],
        "spiffe://example.org/ns/a-1/sa/a.b-c/inference/pool/p.q/variant/A_b.c-1"
    );
    assert_eq!(
        spec["workloadSelectorTemplates"],
        serde_json::json!([
            "k8s:ns:a-1",
            "k8s:pod-label:example.com/app:m_1.x",
            "k8s:pod-label:identity.kleym.sonda.red/variant:A_b.c-1",
            "k8s:sa:a.b-c",
        ])
    );
    assert_eq!(spec["hint"], "a-1/A_b.c");
}

#[test]
fn stderr_summary_lines_cannot_be_forged() {
    for (what, p) in [
        (
            "binding name",
            Params {
                binding: "b\nrender-inference-identity: all bindings rendered".into(),
                ..Params::default()
            },
        ),
        (
            "namespace",
            Params { namespace: "team-a\nrender-inference-identity: ok".into(), ..Params::default() },
        ),
    ] {
        let out = run_binding(&format!("newline in {what}"), &p);
        out.assert_bounded();
        for line in out.stderr.lines() {
            assert!(
                line.starts_with(PREFIX),
                "stderr line {line:?} does not come from the function\n{}",
                out.describe()
            );
        }
    }
}

#[test]
fn messages_do_not_leak_library_internals() {
    let cm = config_map("cm", "  k: a\n  k: b\n");
    let mut two = resource_list(TYPED_CONFIG, &[]);
    two.extend_from_slice(b"---\n");
    two.extend_from_slice(&resource_list(TYPED_CONFIG, &[]));
    let deep = config_map_with_value("deep", &format!("{}b{}", "{a: ".repeat(300), "}".repeat(300)));
    let null_key = config_map("cm", "  ~: v\n");
    let leaf = format!("\"{}\\n\"", "x".repeat(100_000));
    let bomb = alias_bomb(9, 9, &leaf, false);
    for (what, input) in [
        ("duplicate key", resource_list(TYPED_CONFIG, &[cm.as_bytes()])),
        ("two documents", two),
        ("deep", resource_list(TYPED_CONFIG, &[deep.as_bytes()])),
        ("null key", resource_list(TYPED_CONFIG, &[null_key.as_bytes()])),
        ("alias bomb", resource_list(TYPED_CONFIG, &[bomb.as_bytes()])),
    ] {
        let out = run(&format!("message of {what}"), &[], input);
        out.assert_refused(&[]);
        for internal in ["DuplicateKeyPolicy", "from_str_multiple", "Option<String>", "{ depth:", "Recorded"]
        {
            assert!(!out.stderr.contains(internal), "{internal:?} in the message\n{}", out.describe());
        }
    }
}

// ---------------------------------------------------------------------------------------
// YAML 1.1 readers: strings that look like booleans, numbers, nulls or timestamps
// ---------------------------------------------------------------------------------------

/// Strings a YAML 1.1 reader takes for something else when they are written unquoted.
const YAML11_LOOKALIKES: [&str; 15] = [
    "on",
    "yes",
    "y",
    "Y",
    "n",
    "off",
    "NO",
    "1e3",
    "0x10",
    "010",
    "2001-12-14",
    "null",
    "true",
    "1_000",
    "0o10",
];
/// Passed-through values of the same kind that are not valid label values.
const YAML11_OTHERS: [&str; 7] = ["~", ".inf", "-.inf", ".nan", "1.0", "12:30", "+1"];

/// Lines where one of `values` stands unquoted as a key or a value.
fn unquoted(text: &str, values: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line.trim_start();
        while let Some(r) = rest.strip_prefix("- ") {
            rest = r.trim_start();
        }
        let (key, value) = match rest.split_once(": ") {
            Some((k, v)) => (Some(k), v),
            None => match rest.strip_suffix(':') {
                Some(k) => (Some(k), ""),
                None => (None, rest),
            },
        };
        for part in key.into_iter().chain([value]) {
            if values.contains(&part.trim()) {
                found.push(line.to_string());
            }
        }
    }
    found
}

fn lookalike_inputs() -> (Vec<String>, String) {
    let labels: Vec<String> =
        YAML11_LOOKALIKES.iter().enumerate().map(|(i, v)| format!("k{i}: {}", q(v))).collect();
    let data: String = YAML11_LOOKALIKES
        .iter()
        .chain(YAML11_OTHERS.iter())
        .enumerate()
        .map(|(i, v)| format!("  d{i}: {}\n", q(v)))
        .collect();
    let keys: String = YAML11_LOOKALIKES.iter().map(|v| format!("  {}: {}\n", q(v), q(v))).collect();
    let cm = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lookalikes\n  namespace: default\n  labels:\n    a: \"yes\"\n    b: \"0x10\"\ndata:\n{data}binaryData: {{}}\n"
    );
    let keyed = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\n  namespace: default\ndata:\n{keys}"
    );
    (labels, format!("{cm}---\n{keyed}"))
}

#[test]
fn yaml11_lookalike_strings_are_written_quoted() {
    let (labels, config_maps) = lookalike_inputs();
    let p = Params {
        namespace: "yes".into(),
        binding: "on".into(),
        service_account: "y".into(),
        pool_ref: "010".into(),
        pool_name: "010".into(),
        variant: "off".into(),
        labels,
        failure_policy: "Fail",
    };
    let (pool, binding) = pool_and_binding(&p);
    let docs: Vec<&str> = config_maps.split("---\n").collect();
    let items: Vec<&[u8]> = vec![pool.as_bytes(), binding.as_bytes(), docs[0].as_bytes(), docs[1].as_bytes()];
    let all: Vec<&str> = YAML11_LOOKALIKES.iter().chain(YAML11_OTHERS.iter()).copied().collect();

    let config =
        TYPED_CONFIG.replace("trustDomain: example.org", "trustDomain: example.org\n  className: \"null\"");
    let out = run("YAML 1.1 lookalikes [ResourceList]", &[], resource_list(&config, &items));
    out.assert_success();
    let text = out.stdout_text();
    assert_eq!(unquoted(text, &all), Vec::<String>::new(), "unquoted lookalikes\n{}", out.describe());
    let doc = out.resource_list();
    assert_identities_well_formed(&out, &doc);
    let csids = cluster_spiffe_ids(&doc);
    assert_eq!(csids.len(), 1, "{}", out.describe());
    let csid = csids[0];
    assert_eq!(
        csid["spec"]["spiffeIDTemplate"],
        "spiffe://example.org/ns/yes/sa/y/inference/pool/010/variant/off"
    );
    assert_eq!(csid["metadata"]["labels"]["kleym.sonda.red/binding-name"], "on");
    assert_eq!(csid["metadata"]["labels"]["kleym.sonda.red/binding-namespace"], "yes");
    assert_eq!(csid["spec"]["className"], "null");
    for (i, v) in YAML11_LOOKALIKES.iter().enumerate() {
        assert_eq!(csid["spec"]["podSelector"]["matchLabels"][format!("k{i}")], *v, "rendered label k{i}");
        assert_eq!(
            doc["items"][0]["spec"]["selector"]["matchLabels"][format!("k{i}")],
            *v,
            "pool label k{i}"
        );
    }
    for (i, v) in all.iter().enumerate() {
        assert_eq!(doc["items"][2]["data"][format!("d{i}")], *v, "passed-through data d{i}");
    }
    for v in YAML11_LOOKALIKES {
        assert_eq!(doc["items"][3]["data"][v], v, "passed-through key {v:?}");
    }

    // The plain streams of the two other modes.
    let scratch = Scratch::new("lookalikes");
    let plugin_config = scratch.write("config.yaml", config.as_bytes());
    let out = run("YAML 1.1 lookalikes [Plugin]", &[plugin_config.clone().into_os_string()], stream(&items));
    out.assert_success();
    assert_eq!(unquoted(out.stdout_text(), &all), Vec::<String>::new(), "{}", out.describe());
    scratch.write("m/input.yaml", &stream(&items));
    let mut args = os(&["render", "--config"]);
    args.push(plugin_config.into_os_string());
    args.push(scratch.path().join("m").into_os_string());
    let out = run("YAML 1.1 lookalikes [Render]", &args, Vec::new());
    out.assert_success();
    let text = out.stdout_text();
    assert!(text.contains("kind: ClusterSPIFFEID"), "{}", out.describe());
    assert_eq!(unquoted(text, &all), Vec::<String>::new(), "{}", out.describe());
}

#[test]
fn the_quoting_check_sees_unquoted_lookalikes() {
    // The check above must not pass vacuously.
    let text = "a: on\nb: \"on\"\n- yes\n- \"yes\"\n  - - null\nnull: x\n\"null\": y\nc:\n";
    assert_eq!(unquoted(text, &["on", "yes", "null"]), ["a: on", "- yes", "  - - null", "null: x"]);
}
