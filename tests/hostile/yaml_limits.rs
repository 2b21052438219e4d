//! Hostile input against the YAML layer's limits: alias bombs, nesting, bytes, duplicate
//! keys and tabs, sizes.

use super::*;

// ---------------------------------------------------------------------------------------
// YAML layer: alias bombs
// ---------------------------------------------------------------------------------------

/// `levels` levels of `width` aliases of the level below, as flow sequences (or flow
/// mappings), under `data` of a ConfigMap; `leaf` is the YAML of level 0.
pub(crate) fn alias_bomb(levels: usize, width: usize, leaf: &str, mappings: bool) -> String {
    let mut data = format!("  a0: &a0 {leaf}\n");
    for level in 1..=levels {
        let entries: Vec<String> = (0..width)
            .map(|i| if mappings { format!("k{i}: *a{}", level - 1) } else { format!("*a{}", level - 1) })
            .collect();
        let (open, close) = if mappings { ("{", "}") } else { ("[", "]") };
        data.push_str(&format!("  a{level}: &a{level} {open}{}{close}\n", entries.join(", ")));
    }
    config_map("bomb", &data)
}

const ALIAS_NEEDLES: &[&[&str]] = &[&["alias", "anchor"]];

#[test]
fn alias_bomb_with_a_fat_leaf_is_refused_in_every_mode() {
    // 9 levels of 9 aliases; the leaf is a 100 KB double-quoted (so owned) string, which
    // trips the budget after a few hundred copies: the debug-sized billion laughs.
    let leaf = format!("\"{}\\n\"", "x".repeat(100_000));
    let item = alias_bomb(9, 9, &leaf, false);
    for mode in ALL_MODES {
        run_items("alias bomb 9x9, 100 KB leaf", mode, &[item.as_bytes()]).assert_refused(ALIAS_NEEDLES);
    }
}

#[test]
#[ignore = "full size, ~5 s in debug builds (0.9 s in release): run with --release --ignored"]
fn alias_bomb_billion_laughs_sequences_is_refused() {
    let item = alias_bomb(9, 9, "\"lol\"", false);
    for mode in ALL_MODES {
        run_items("billion laughs 9x9 sequences", mode, &[item.as_bytes()]).assert_refused(ALIAS_NEEDLES);
    }
}

#[test]
#[ignore = "full size, ~8 s in debug builds (1 s in release): run with --release --ignored"]
fn alias_bomb_billion_laughs_mappings_is_refused() {
    let item = alias_bomb(9, 9, "{k: lol}", true);
    run_items("billion laughs 9x9 mappings", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(ALIAS_NEEDLES);
}

#[test]
fn alias_bomb_in_the_function_config_is_refused() {
    let leaf = format!("\"{}\\n\"", "x".repeat(100_000));
    let bomb = alias_bomb(9, 9, &leaf, false);
    // The ConfigMap body (minus its header) as extra, unknown functionConfig fields.
    let data = bomb.split("\ndata:\n").nth(1).unwrap();
    let config = format!("{TYPED_CONFIG}bomb:\n{data}");
    let out = run("alias bomb in functionConfig", &[], resource_list(&config, &[]));
    out.assert_refused(ALIAS_NEEDLES);
}

#[test]
fn small_alias_expansion_is_legal_and_expanded() {
    // 5 levels of 7: 16,807 leaves, below every budget; Kubernetes expands aliases too.
    let item = alias_bomb(5, 7, "lol", false);
    let out = run_items("alias expansion 5x7", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_success();
    // The item leaves as its text, aliases and all; read back, they expand as before.
    let text = out.stdout_text();
    for line in item.lines() {
        assert!(text.contains(line), "the item's line {line:?} was not kept\n{}", out.summary());
    }
    let expanded = yaml::write(&yaml::parse(text).expect("the output reads")).expect("writes");
    assert_eq!(expanded.matches("lol").count(), 1 + 7 + 49 + 343 + 2_401 + 16_807, "{}", out.summary());
}

// ---------------------------------------------------------------------------------------
// YAML layer: nesting
// ---------------------------------------------------------------------------------------

const DEPTH_NEEDLES: &[&[&str]] = &[&["depth", "nesting", "recursion"]];
const DEEP: usize = 20_000;

#[test]
fn deep_flow_sequences_are_refused_in_every_mode() {
    let item = config_map_with_value("deep", &format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)));
    for mode in ALL_MODES {
        run_items("20,000 nested [", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

#[test]
fn deep_flow_mappings_are_refused_in_every_mode() {
    let item = config_map_with_value("deep", &format!("{}b{}", "{a: ".repeat(DEEP), "}".repeat(DEEP)));
    for mode in ALL_MODES {
        run_items("20,000 nested {a:", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

#[test]
fn deep_block_sequences_are_refused_in_every_mode() {
    // Compact block sequences: `- - - ... x`, one level per two columns.
    let item = config_map_with_value("deep", &format!("\n    {}x", "- ".repeat(DEEP)));
    for mode in ALL_MODES {
        run_items("20,000 nested block sequences", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

/// Block mappings nested `levels` deep, one more space of indentation per level.
fn deep_block_mappings(levels: usize) -> String {
    let mut data = String::with_capacity(levels * (levels / 2 + 4));
    for level in 0..levels {
        data.push_str(&" ".repeat(level + 2));
        data.push_str("a:\n");
    }
    data.push_str(&" ".repeat(levels + 2));
    data.push_str("b\n");
    config_map("deep", &data)
}

#[test]
fn deep_block_mappings_are_refused_in_every_mode() {
    // 2,000 levels (2 MB of indentation), eight times the limit of 256.
    let item = deep_block_mappings(2_000);
    for mode in ALL_MODES {
        run_items("2,000 nested block mappings", mode, &[item.as_bytes()]).assert_refused(DEPTH_NEEDLES);
    }
}

#[test]
#[ignore = "full size (200 MB of indentation), slow to generate and pipe in debug builds: run with --release --ignored"]
fn deep_block_mappings_full_size_are_refused() {
    // 200 MB is past the input limit: refused for its size before any nesting is read.
    let item = deep_block_mappings(DEEP);
    run_items("20,000 nested block mappings", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(&[&["standard input holds more than the limit"]]);
}

#[test]
fn deep_nesting_in_the_function_config_is_refused() {
    let config = format!("{TYPED_CONFIG}deep: {}{}\n", "[".repeat(DEEP), "]".repeat(DEEP));
    run("deep functionConfig", &[], resource_list(&config, &[])).assert_refused(DEPTH_NEEDLES);
    let scratch = Scratch::new("plugin-deep");
    let file = scratch.write("config.yaml", config.as_bytes());
    run("deep plugin config", &[file.into_os_string()], Vec::new()).assert_refused(DEPTH_NEEDLES);
}

#[test]
fn nesting_well_within_the_limit_is_kept() {
    // 200 levels below `data.value`: legal, passed through unchanged.
    let value = format!("{}x{}", "[".repeat(200), "]".repeat(200));
    let item = config_map_with_value("nested", &value);
    for mode in ALL_MODES {
        let out = run_items("200 nested [", mode, &[item.as_bytes()]);
        out.assert_success();
        let text = out.stdout_text();
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        assert!(
            compact.contains(&value) || text.matches("- ").count() >= 200,
            "the nested value must be kept\n{}",
            out.describe()
        );
    }
}

// ---------------------------------------------------------------------------------------
// YAML layer: bytes
// ---------------------------------------------------------------------------------------

#[test]
fn invalid_utf8_is_refused_in_every_mode() {
    let cases: [(&str, &[u8]); 4] = [
        ("lone continuation byte", b"\x80"),
        ("invalid 2-byte sequence", b"\xc3\x28"),
        ("UTF-16 surrogate encoded in UTF-8", b"\xed\xa0\x80"),
        ("overlong '/'", b"\xc0\xaf"),
    ];
    for (what, bytes) in cases {
        let mut item =
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  value: \"a".to_vec();
        item.extend_from_slice(bytes);
        item.extend_from_slice(b"b\"\n");
        for mode in ALL_MODES {
            run_items(&format!("invalid UTF-8: {what}"), mode, &[&item]).assert_refused(&[&["UTF-8"]]);
        }
    }
    // Truncated at the very end of the input.
    let mut input = resource_list(TYPED_CONFIG, &[]);
    input.extend_from_slice(b"# \xe2\x82");
    run("invalid UTF-8: truncated at the end", &[], input).assert_refused(&[&["UTF-8"]]);
}

#[test]
fn raw_nul_bytes_are_refused_in_every_mode() {
    let inside_value = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  value: \"a\0b\"\n";
    let inside_name = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\0\n";
    let at_start = b"\0apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n";
    for (what, item) in
        [("in a value", &inside_value[..]), ("in a name", &inside_name[..]), ("first", &at_start[..])]
    {
        for mode in ALL_MODES {
            run_items(&format!("NUL byte {what}"), mode, &[item]).assert_refused(&[&[
                "\\u{0}",
                "NUL",
                "null byte",
                "\\0",
                "U+0000",
            ]]);
        }
    }
}

#[test]
fn escaped_control_characters_are_legal_and_stay_escaped() {
    // NUL, BEL, ESC, LINE SEPARATOR and a BOM inside a value, written as escapes.
    let item = config_map_with_value("ctrl", r#""a\0b\x07c\e[31md\u2028e\uFEFFf""#);
    let want = "a\u{0}b\u{7}c\u{1b}[31md\u{2028}e\u{feff}f";
    for mode in [Mode::ResourceList, Mode::Plugin] {
        let out = run_items("escaped control characters", mode, &[item.as_bytes()]);
        out.assert_success();
        assert!(
            !out.stdout.iter().any(|&b| b == 0 || b == 0x07 || b == 0x1b),
            "raw control bytes in the output\n{}",
            out.describe()
        );
        let text = out.stdout_text();
        let doc = match mode {
            Mode::ResourceList => out.resource_list()["items"][0].clone(),
            _ => serde_saphyr::from_str::<Value>(text).unwrap(),
        };
        assert_eq!(doc["data"]["value"], want, "{}", out.describe());
    }
}

#[test]
fn a_byte_order_mark_at_the_start_is_accepted() {
    let mut input = "\u{feff}".as_bytes().to_vec();
    input.extend_from_slice(&resource_list(TYPED_CONFIG, &[config_map("cm", "  k: v\n").as_bytes()]));
    run("BOM before the ResourceList", &[], input).assert_success();
}

// ---------------------------------------------------------------------------------------
// YAML layer: duplicate keys, tabs, shapes
// ---------------------------------------------------------------------------------------

#[test]
fn duplicate_key_inside_an_item_is_refused_in_every_mode() {
    let item =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  dupkey: first\n  dupkey: second\n";
    for mode in ALL_MODES {
        run_items("duplicate data key", mode, &[item.as_bytes()])
            .assert_refused(&[&["duplicate"], &["dupkey"]]);
    }
    // In a flow mapping, and with the two spellings `a` and `'a'` of one string key.
    for (what, data) in [("flow", "  m: {a: 1, a: 2}\n"), ("quoted", "  m:\n    a: x\n    'a': z\n")] {
        let item = config_map("cm", data);
        run_items(&format!("duplicate key, {what}"), Mode::ResourceList, &[item.as_bytes()])
            .assert_refused(&[&["duplicate"]]);
    }
}

#[test]
fn duplicate_identity_fields_of_a_binding_are_refused() {
    // Taking either value silently would choose the identity: refuse, as strict decoding does.
    let (pool, binding) = pool_and_binding(&Params::default());
    for (field, from, to) in [
        (
            "serviceAccountName",
            "  serviceAccountName: \"sa-a\"\n",
            "  serviceAccountName: \"sa-a\"\n  serviceAccountName: kube-admin\n",
        ),
        ("variant", "    variant: \"v1\"\n", "    variant: \"v1\"\n    variant: v2\n"),
        ("namespace", "  namespace: \"team-a\"\n", "  namespace: \"team-a\"\n  namespace: kube-system\n"),
    ] {
        let twice = binding.replacen(from, to, 1);
        assert_ne!(twice, binding, "the fixture must hold {from:?}");
        for mode in ALL_MODES {
            run_items(&format!("duplicate binding {field}"), mode, &[pool.as_bytes(), twice.as_bytes()])
                .assert_refused(&[&["duplicate"], &[field]]);
        }
    }
    let two_values = pool.replace("        app: \"model\"\n", "        app: \"model\"\n        app: other\n");
    assert_ne!(two_values, pool);
    run_items("duplicate pool label", Mode::ResourceList, &[two_values.as_bytes(), binding.as_bytes()])
        .assert_refused(&[&["duplicate"], &["app"]]);
}

#[test]
fn duplicate_key_inside_the_function_config_is_refused() {
    let config = TYPED_CONFIG
        .replace("  trustDomain: example.org\n", "  trustDomain: example.org\n  trustDomain: evil.org\n");
    let out = run("duplicate trustDomain in functionConfig", &[], resource_list(&config, &[]));
    out.assert_refused(&[&["duplicate"], &["trustDomain"]]);
    assert!(!out.stdout_text().contains("evil.org/"), "{}", out.describe());

    let scratch = Scratch::new("dup-config");
    let file = scratch.write("config.yaml", config.as_bytes());
    run("duplicate trustDomain in plugin config", &[file.clone().into_os_string()], Vec::new())
        .assert_refused(&[&["duplicate"], &["trustDomain"]]);
    let manifests = scratch.write("m/cm.yaml", config_map("cm", "  k: v\n").as_bytes());
    let mut args = os(&["render", "--config"]);
    args.push(file.into_os_string());
    args.push(manifests.into_os_string());
    run("duplicate trustDomain in render --config", &args, Vec::new())
        .assert_refused(&[&["duplicate"], &["trustDomain"]]);

    let config_map_form = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn\ndata:\n  trustDomain: example.org\n  trustDomain: evil.org\n";
    run("duplicate trustDomain in ConfigMap functionConfig", &[], resource_list(config_map_form, &[]))
        .assert_refused(&[&["duplicate"], &["trustDomain"]]);
}

#[test]
fn duplicate_key_at_the_resource_list_top_level_is_refused() {
    let cm = config_map("cm", "  k: v\n");
    let mut input = resource_list(TYPED_CONFIG, &[cm.as_bytes()]);
    input.extend_from_slice(b"items: []\n");
    run("duplicate items key", &[], input).assert_refused(&[&["duplicate"], &["items"]]);

    let mut input = resource_list(TYPED_CONFIG, &[]);
    input.extend_from_slice(
        b"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data: {trustDomain: evil.org}\n",
    );
    run("duplicate functionConfig key", &[], input).assert_refused(&[&["duplicate"], &["functionConfig"]]);

    let input = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nkind: List\nitems: []\n".to_vec();
    run("duplicate kind key", &[], input).assert_refused(&[&["duplicate"], &["kind"]]);
}

#[test]
fn duplicate_keys_that_differ_only_in_yaml_type_are_refused() {
    let item = config_map("cm", "  1: first\n  \"1\": second\n");
    run_items("duplicate keys 1 and \"1\"", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(&[&["duplicate"]]);
    let (pool, binding) = pool_and_binding(&Params::default());
    let pool =
        pool.replace("        app: \"model\"\n", "        app: \"model\"\n        1: a\n        \"1\": b\n");
    run_items("pool selector keys 1 and \"1\"", Mode::ResourceList, &[pool.as_bytes(), binding.as_bytes()])
        .assert_refused(&[&["duplicate"]]);
}

#[test]
fn tabs_as_indentation_are_refused_in_every_mode() {
    let items: [(&str, &str); 3] = [
        ("tab-indented mapping", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: cm\n"),
        ("tab then spaces", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n\t  k: v\n"),
        ("tab-indented top level", "apiVersion: v1\n\tkind: ConfigMap\n"),
    ];
    for (what, item) in items {
        for mode in ALL_MODES {
            run_items(what, mode, &[item.as_bytes()]).assert_refused(&[&["tab"]]);
        }
    }
}

#[test]
fn tabs_as_separators_are_legal() {
    let item =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a:\tb\n  c: \"x\ty\"\t# comment\n";
    let out = run_items("tabs as separators", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_success();
    let doc = out.resource_list();
    assert_eq!(doc["items"][0]["data"]["a"], "b");
    assert_eq!(doc["items"][0]["data"]["c"], "x\ty");
}

#[test]
fn items_that_are_not_mappings_are_refused() {
    let cm = config_map("cm", "  k: v\n");
    for (what, entry, type_name) in [
        ("string", "just a string", "string"),
        ("number", "42", "number"),
        ("sequence", "[a, b]", "sequence"),
        ("null", "~", "null"),
        ("boolean", "true", "boolean"),
    ] {
        let out = run(
            &format!("items[1] is a {what}"),
            &[],
            resource_list(TYPED_CONFIG, &[cm.as_bytes(), entry.as_bytes()]),
        );
        out.assert_refused(&[&["items[1]"], &["mapping"], &[type_name]]);
        for mode in [Mode::Plugin, Mode::Render] {
            let out = run_items(&format!("document 1 is a {what}"), mode, &[cm.as_bytes(), entry.as_bytes()]);
            if what == "null" {
                // An empty document in a stream is skipped (it holds no object).
                out.assert_success();
            } else {
                out.assert_refused(&[&["document 1"], &["mapping"], &[type_name]]);
            }
        }
    }
    let input = format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  a: {cm:?}\n");
    run("items is a mapping", &[], input.into_bytes()).assert_refused(&[&["items"], &["sequence"]]);
    run("ResourceList is a sequence", &[], b"- apiVersion: v1\n- kind: ResourceList\n".to_vec())
        .assert_refused(&[&["ResourceList"], &["sequence"]]);
    run("empty stdin", &[], Vec::new()).assert_refused(&[&["ResourceList", "mapping", "empty"]]);
}

#[test]
fn a_function_config_that_is_not_a_mapping_is_refused() {
    for (what, fc, type_name) in [
        ("sequence", "[a, b]", "sequence"),
        ("string", "trustDomain=example.org", "string"),
        ("number", "1", "number"),
    ] {
        let input = format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {fc}\nitems: []\n"
        );
        run(&format!("functionConfig is a {what}"), &[], input.into_bytes()).assert_refused(&[
            &["functionConfig"],
            &["mapping"],
            &[type_name],
        ]);
        let scratch = Scratch::new("plugin-config");
        let file = scratch.write("config.yaml", format!("{fc}\n").as_bytes());
        run(&format!("plugin config is a {what}"), &[file.into_os_string()], Vec::new())
            .assert_refused(&[&["mapping"], &[type_name]]);
    }
}

#[test]
fn several_documents_where_one_resource_list_is_expected_are_refused() {
    let one = resource_list(TYPED_CONFIG, &[config_map("cm", "  k: v\n").as_bytes()]);
    let mut two = one.clone();
    two.extend_from_slice(b"---\n");
    two.extend_from_slice(&one);
    run("two ResourceLists", &[], two)
        .assert_refused(&[&["multiple", "several", "more than one"], &["document"]]);

    let mut list_and_item = one.clone();
    list_and_item.extend_from_slice(b"---\n");
    list_and_item.extend_from_slice(config_map("extra", "  k: v\n").as_bytes());
    run("ResourceList then an item", &[], list_and_item)
        .assert_refused(&[&["multiple", "several", "more than one"], &["document"]]);

    // A plain stream of items on stdin without the ResourceList wrapper.
    let items = stream(&[config_map("a", "  k: v\n").as_bytes(), config_map("b", "  k: v\n").as_bytes()]);
    run("plain stream in ResourceList mode", &[], items).assert_refused(&[&["document", "ResourceList"]]);

    // A leading `---` and a trailing `...` mark one document: legal.
    let mut framed = b"---\n".to_vec();
    framed.extend_from_slice(&one);
    framed.extend_from_slice(b"...\n");
    run("one framed ResourceList", &[], framed).assert_success();
}

// ---------------------------------------------------------------------------------------
// Size
// ---------------------------------------------------------------------------------------

fn assert_big_value_kept(out: &Run, len: usize) {
    out.assert_success();
    let text = out.stdout_text();
    let longest = text.split(['\n', '"']).map(str::len).max().unwrap_or(0);
    assert!(longest >= len, "the {len}-byte value must come back whole (longest line {longest})");
}

fn big_scalar_cases(len: usize) {
    let plain = config_map_with_value("big", &"x".repeat(len));
    let quoted = config_map_with_value("big", &format!("\"{}\"", "y".repeat(len)));
    for (what, item) in [("plain", &plain), ("double-quoted", &quoted)] {
        for mode in [Mode::ResourceList, Mode::Plugin] {
            let out = run_items(&format!("{} MB {what} scalar", len / 1_000_000), mode, &[item.as_bytes()]);
            assert_big_value_kept(&out, len);
        }
    }
}

#[test]
fn large_scalars_are_kept() {
    // Debug-sized: the debug binary scans a 50 MB scalar in ~3.5 s per mode.
    big_scalar_cases(10_000_000);
}

#[test]
#[ignore = "full size (50 MB), ~3.5 s per run in debug builds: run with --release --ignored"]
fn large_scalars_full_size_are_kept() {
    big_scalar_cases(50_000_000);
    let mut block = String::from("  value: |\n");
    let line = format!("    {}\n", "z".repeat(99));
    for _ in 0..500_000 {
        block.push_str(&line);
    }
    let item = config_map("block", &block);
    let out = run_items("50 MB block scalar", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_success();
}

#[test]
fn an_overlong_key_is_refused() {
    // YAML limits implicit keys to 1024 characters; Kubernetes keys are far shorter.
    let item = config_map("cm", &format!("  {}: v\n", "k".repeat(1_000_000)));
    run_items("1 MB key", Mode::ResourceList, &[item.as_bytes()])
        .assert_refused(&[&["line 18"], &["column"]]);
}

fn many_config_maps(count: usize) -> Vec<u8> {
    let mut out = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n".to_vec();
    for line in TYPED_CONFIG.lines() {
        out.extend_from_slice(format!("  {line}\n").as_bytes());
    }
    out.extend_from_slice(b"items:\n");
    for i in 0..count {
        out.extend_from_slice(
            format!(
                "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n    namespace: default\n  data:\n    key: value-{i}\n"
            )
            .as_bytes(),
        );
    }
    out
}

fn assert_many_config_maps(count: usize) {
    let out = run(&format!("{count} ConfigMaps"), &[], many_config_maps(count));
    out.assert_success();
    let text = out.stdout_text();
    assert_eq!(text.matches("  kind: ConfigMap\n").count(), count, "every item comes back");
    let first = text.find("name: cm-0\n").expect("the first item");
    let last = text.find(&format!("name: cm-{}\n", count - 1)).expect("the last item");
    assert!(first < last, "items keep their order");
    assert!(text.contains("0 binding(s)"), "the summary result is written\n{}", out.describe());
}

#[test]
fn many_config_maps_succeed() {
    // Debug-sized: the debug binary needs ~0.3-0.6 ms per ConfigMap.
    assert_many_config_maps(2_000);
}

#[test]
#[ignore = "full size (100,000 ConfigMaps, 12 MB), slow in debug builds: run with --release --ignored"]
fn many_config_maps_full_size_succeed() {
    // 100,000 ConfigMaps (12 MB): many small items, each copied as text.
    assert_many_config_maps(100_000);
}

#[test]
#[ignore = "full size (20,000,000 scalars, 40 MB), slow to generate in debug builds: run with --release --ignored"]
fn many_nodes_within_the_node_budget_stay_bounded() {
    let value = format!("[{}0]", "0,".repeat(20_000_000));
    let item = config_map_with_value("nodes", &value);
    let out = run_items("20,000,000 scalars", Mode::ResourceList, &[item.as_bytes()]);
    out.assert_bounded();
    assert!(out.code == Some(0) || out.code == Some(1), "{}", out.describe());
}

#[test]
fn many_empty_documents_in_a_stream_are_skipped() {
    let input = "---\n".repeat(50_000);
    let scratch = Scratch::new("empty-docs");
    let config = scratch.write("config.yaml", TYPED_CONFIG.as_bytes());
    let out = run("50,000 empty documents [Plugin]", &[config.into_os_string()], input.into_bytes());
    out.assert_success();
    assert!(out.stdout.is_empty(), "{}", out.describe());
}

fn conflicting_bindings(count: usize) -> Vec<u8> {
    let pool = "apiVersion: inference.networking.k8s.io/v1\nkind: InferencePool\nmetadata: {name: p, namespace: ns}\nspec: {selector: {matchLabels: {app: m}}}\n";
    let bindings: Vec<String> = (0..count)
        .map(|i| {
            format!(
                "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\nmetadata: {{name: b{i}, namespace: ns}}\nspec: {{poolRef: {{name: p}}, serviceAccountName: sa, identityBoundary: {{variant: v}}}}\n"
            )
        })
        .collect();
    let mut items: Vec<&[u8]> = vec![pool.as_bytes()];
    items.extend(bindings.iter().map(|b| b.as_bytes()));
    resource_list(TYPED_CONFIG, &items)
}

#[test]
fn many_bindings_claiming_one_identity_are_bounded() {
    // Debug-sized. Every binding conflicts with every other: the status lists at most 32
    // peers and the message gives the total.
    let count = 300;
    let out = run(&format!("{count} conflicting bindings"), &[], conflicting_bindings(count));
    out.assert_success();
    let doc = out.resource_list();
    assert!(!out.stdout_text().contains("kind: ClusterSPIFFEID"), "a conflict member has no output");
    for item in doc["items"].as_array().unwrap().iter().skip(1) {
        let conflicts = item["status"]["conflicts"].as_array().expect("status.conflicts");
        assert_eq!(conflicts.len(), 32, "{item}");
        let condition = condition(item, "Conflict");
        assert_eq!(condition["status"], "True");
        assert_eq!(condition["reason"], "DuplicateSPIFFEID");
        assert!(condition["message"].as_str().unwrap().contains(&(count - 1).to_string()), "{condition}");
    }
}

#[test]
#[ignore = "full size (10,000 bindings in one conflict), slow in debug builds: run with --release --ignored"]
fn many_bindings_claiming_one_identity_full_size_are_bounded() {
    // Each member lists 32 peers (docs/reference.md#conflicts), so the output grows
    // 33-fold: 10,000 members write 67 MB. 25,000 (167 MB) take about 7 s and 1 GiB: a
    // documented limit.
    let out = run("10,000 conflicting bindings", &[], conflicting_bindings(10_000));
    out.assert_success();
}
