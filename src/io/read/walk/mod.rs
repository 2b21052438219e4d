//! One node read from the YAML parser's events (serde-saphyr's own parser), without the
//! generic deserializer: built whole, built as far as the reconcile needs of an item it only
//! passes on, or not built at all; and where it stands in the text, so the writer can copy
//! it or replace its `status`. Every scalar is classified: a plain scalar this reader cannot
//! vouch it reads as the full reader does (a YAML 1.1 lookalike such as `on` or `010`), a
//! tag or a repeated key clears [`Node::exact`], and the caller takes that item's value from
//! the full reader. Walks count what the full reader's budget counts (but aliases: only
//! the exact reader's walk allows them, and it reads no counts). An item's walk reads
//! the lexer's events when the lexer reads its text ([`super::lex`]), the parser's otherwise.
//!
//! Here the entry points ([`entry`], [`document`], [`count`]) and what a walk gives; the
//! walker itself in `walker.rs`, what it builds in `build.rs`, what it counts in
//! `budget.rs`, how a scalar reads in `scalar.rs` and a mapping's keys in `keys.rs`.

mod budget;
mod build;
mod keys;
mod scalar;
mod walker;

pub use budget::{Abandon, Counts, Limits};
pub use build::Build;
pub use walker::Walker;

use crate::api::value::Value;
use crate::io::read::diverge::Divergence;
use serde_saphyr::granit_parser::{Event, ScalarStyle, StructureStyle};
use std::ops::Range;

/// Where a mapping's top-level `status` entry stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusAt {
    /// There is none.
    Absent,
    /// From the key to where the text after its value may be cut.
    At(Range<usize>),
    /// The entry cannot be cut out cleanly (an explicit `? status` key, say).
    Unusable,
}

/// One node, walked.
#[derive(Debug)]
pub struct Node {
    /// The value as far as built; for [`Build::Nothing`], `None`.
    pub value: Option<Value>,
    /// Whether every scalar, key and tag reads here as the full reader reads it, so the
    /// built value is the full reader's.
    pub exact: bool,
    /// Where its first event starts, and where the text after its last content may be cut.
    pub span: Range<usize>,
    /// A block mapping's key column, or `None` for any other node.
    pub block_column: Option<usize>,
    /// For a block mapping, its top-level `status` entry.
    pub status: StatusAt,
    /// Whether it uses an alias to an anchor it does not itself define.
    pub outside_alias: bool,
    /// Whether kubectl reads something in it otherwise ([`Divergence`]): only the exact
    /// reader, which words the error, reads it.
    pub divergent: bool,
}

/// The first place of `text`, any YAML stream, where kubectl reads it otherwise than this
/// function ([`Divergence`]: a tag, an escape, a merge key, a plain scalar typed otherwise,
/// a label key or value YAML 1.1 and 1.2 readers spell otherwise); `None` when there is
/// none, or when the text does not read (the full reader words that).
pub fn divergence(text: &str) -> Option<Divergence> {
    let mut walker = Walker::new(text, 0, Limits::NONE, true);
    walker.expect(|e| matches!(e, Event::StreamStart)).ok()?;
    loop {
        match walker.event().ok()? {
            (Event::StreamEnd, _) => return None,
            (Event::DocumentStart(..), _) => {}
            _ => return None,
        }
        let (event, span) = walker.event().ok()?;
        if !matches!(event, Event::DocumentEnd) {
            walker.node(event, span, 1, Build::Nothing).ok()?;
            if walker.divergence.is_some() {
                return walker.divergence;
            }
            walker.expect(|e| matches!(e, Event::DocumentEnd)).ok()?;
        }
    }
}

/// Reads `text` as one block sequence entry (`- ...`, a chunk of a ResourceList's items),
/// which stands at `base` in the whole input; the entry is at nesting level 2.
pub fn entry(text: &str, base: usize, build: Build, limits: Limits) -> Result<(Node, Counts), Abandon> {
    let mut walker = Walker::plain(text, base, limits);
    walker.expect(|e| matches!(e, Event::StreamStart))?;
    walker.expect(|e| matches!(e, Event::DocumentStart(false, None)))?;
    walker.expect(|e| matches!(e, Event::SequenceStart(StructureStyle::Block, 0, None)))?;
    walker.counts.nodes += 1;
    let (event, span) = walker.event()?;
    if !matches!(event, Event::MappingStart(..)) {
        return Err(Abandon);
    }
    let node = walker.node(event, span, 2, build)?;
    walker.expect(|e| matches!(e, Event::SequenceEnd))?;
    walker.expect(|e| matches!(e, Event::DocumentEnd))?;
    walker.expect(|e| matches!(e, Event::StreamEnd))?;
    Ok((node, walker.counts))
}

/// Reads `text` as one document of a stream holding a mapping, or nothing but comments
/// (`None`).
pub fn document(
    text: &str,
    base: usize,
    build: Build,
    limits: Limits,
) -> Result<(Option<Node>, Counts), Abandon> {
    let mut walker = Walker::plain(text, base, limits);
    walker.expect(|e| matches!(e, Event::StreamStart))?;
    match walker.event()? {
        (Event::StreamEnd, _) => return Ok((None, walker.counts)),
        (Event::DocumentStart(false, None), _) => {}
        _ => return Err(Abandon),
    }
    let (event, span) = walker.event()?;
    if !matches!(event, Event::MappingStart(..)) {
        return Err(Abandon);
    }
    let node = walker.node(event, span, 1, build)?;
    walker.expect(|e| matches!(e, Event::DocumentEnd))?;
    walker.expect(|e| matches!(e, Event::StreamEnd))?;
    Ok((Some(node), walker.counts))
}

/// How the root of a text stands, as [`count`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// No node at all (empty, or only comments).
    Empty,
    /// A block mapping whose keys stand at this column.
    BlockMapping(usize),
    Other,
}

/// Counts `text` (any YAML) without building anything, and says how its root stands;
/// `None` when it does not read, uses anchors, aliases or merge keys, or passes a limit.
pub fn count(text: &str, limits: Limits) -> Option<(Counts, Root)> {
    let mut walker = Walker::new(text, 0, limits, false);
    let mut depth = 0usize;
    let mut root = Root::Empty;
    loop {
        let (event, span) = walker.event().ok()?;
        if depth == 0 && event.is_node() && root == Root::Empty {
            root = match event {
                Event::MappingStart(StructureStyle::Block, ..) => Root::BlockMapping(span.start.col()),
                _ => Root::Other,
            };
        }
        match event {
            Event::StreamEnd => return Some((walker.counts, root)),
            Event::Alias(_) | Event::Scalar(_, _, 1.., _) => return None,
            Event::Scalar(text, ScalarStyle::Plain, ..) if text == "<<" => return None,
            Event::Scalar(..) => walker.counts.nodes += 1,
            Event::SequenceStart(_, 1.., _) | Event::MappingStart(_, 1.., _) => return None,
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                walker.counts.nodes += 1;
                depth += 1;
                if depth > limits.depth {
                    return None;
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !walker.counts.within(&limits.counts) {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits =
        Limits { depth: 64, counts: Counts { nodes: 1_000, events: 10_000, comment_bytes: 1_000 } };

    fn limits(depth: usize, nodes: usize) -> Limits {
        Limits { depth, counts: Counts { nodes, ..LIMITS.counts } }
    }

    fn walk(text: &str, build: Build) -> Result<Node, Abandon> {
        entry(text, 0, build, LIMITS).map(|(node, _)| node)
    }

    #[test]
    fn builds_what_the_full_reader_builds() {
        let text = "- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"on\"\n    b: |\n      x\n    c: [1, -2, 0.5, true, null, ~, x]\n    d:\n";
        let full = crate::yaml::parse(text).unwrap();
        let node = walk(text, Build::Whole).unwrap();
        assert!(node.exact);
        assert_eq!(node.value.unwrap(), full[0]);
    }

    #[test]
    fn head_builds_only_the_head() {
        let text = "- spec:\n    a: 1\n  kind: X\n  metadata:\n    name: web\n    annotations: {a: b}\n  apiVersion: v1\n";
        let (node, counts) = entry(text, 0, Build::Head, LIMITS).unwrap();
        assert_eq!(
            node.value.unwrap(),
            serde_json::json!({"kind": "X", "metadata": {"name": "web", "annotations": {"a": "b"}}, "apiVersion": "v1"})
        );
        assert_eq!(counts.nodes, 18);
    }

    /// A List's item of which nothing is built (no kind, no apiVersion, nothing a rule reads)
    /// takes the List's kind: it keeps its place, so that the head says the List is read
    /// whole, as the whole item says.
    #[test]
    fn a_list_entry_with_nothing_built_keeps_its_place() {
        let text = "- apiVersion: example.org/v1\n  kind: WidgetList\n  items:\n  - metadata: {name: w, namespace: serving}\n    spec: {a: 1}\n";
        let head = entry(text, 0, Build::Head, LIMITS).unwrap().0.value.unwrap();
        assert_eq!(head["items"], serde_json::json!([{}]));
        assert!(crate::reconcile::items::kinds::reads_value_whole(&head));
    }

    #[test]
    fn a_head_holds_the_pod_templates_the_whole_item_holds() {
        let text = "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: serving, labels: {app: web}}\n  \
                    spec:\n    replicas: 2\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata:\n        \
                    labels: {app: web, v: \"1\"}\n        annotations: {a: b}\n      spec:\n        serviceAccountName: sa\n        \
                    containers:\n        - name: c\n          env: [{name: A, value: b}]\n    extra:\n    - {}\n    - template:\n        \
                    spec: {containers: []}\n";
        let head = entry(text, 0, Build::Head, LIMITS).unwrap().0.value.unwrap();
        let whole = crate::api::value::Value::from(crate::yaml::parse(text).unwrap()[0].clone());
        let of = crate::reconcile::cluster::workload::workload_of;
        assert_eq!(of(&head), of(&whole));
        assert_eq!(of(&head).unwrap().templates().len(), 2);
        assert_eq!(
            head["spec"]["template"]["spec"]["containers"],
            serde_json::json!([{"name": "c"}]),
            "that it is a list, its entries' places kept, of their fields only name and image"
        );
        assert_eq!(
            head["spec"]["replicas"].as_i64(),
            Some(2),
            "a StatefulSet's replicas settle its pods' names"
        );
        assert_eq!(
            head["spec"]["selector"],
            serde_json::json!({"matchLabels": {"app": "web"}}),
            "a selector decides whether the API server takes the workload at all"
        );
    }

    #[test]
    fn a_head_holds_the_kind_of_each_item_of_a_list_in_its_place() {
        let text = "- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: ConfigMap, data: {a: b}}\n  \
                    - {kind: Secret, metadata: {name: s, labels: {a: b}}}\n  - 7\n  - {apiVersion: v1, kind: Namespace}\n  - kind: Deployment\n    spec: {template: {spec: {containers: []}}, replicas: 1}\n";
        let head = entry(text, 0, Build::Head, LIMITS).unwrap().0.value.unwrap();
        let whole = crate::api::value::Value::from(crate::yaml::parse(text).unwrap()[0].clone());
        assert_eq!(
            head["items"],
            serde_json::json!([
                {"apiVersion": "v1", "kind": "ConfigMap"},
                {"kind": "Secret", "metadata": {"labels": {"a": "b"}}},
                null,
                {"apiVersion": "v1", "kind": "Namespace"},
                {"kind": "Deployment", "spec": {"template": {"spec": {"containers": []}}, "replicas": 1}}
            ]),
            "of an item of a kind the reconcile does not read, with no pod template, no more than before"
        );
        let of = crate::reconcile::input::Input::of;
        let (head, whole) = (of(head), of(whole));
        assert_eq!(whole.list().map(|list| list.read.len()), Some(2), "the Namespace and the Deployment");
        assert_eq!(
            whole.list().map(|list| list.alone.len()),
            Some(2),
            "the ConfigMap and the Secret, which takes the List's apiVersion as kubectl gives it, judged alone"
        );
        assert_eq!(head.list(), whole.list());
    }

    #[test]
    fn yaml_1_1_lookalikes_tags_and_repeated_keys_are_left_to_the_full_reader() {
        for plain in [
            "on",
            "Yes",
            "N",
            "010",
            "0o10",
            "1_000",
            "2001-12-14",
            "1:20",
            ".inf",
            "1e3",
            "0x1F",
            "=",
            "-x",
            "True",
            "NaN",
            "1.2.3",
            "+1",
        ] {
            for text in [format!("- a: {plain}\n"), format!("- a:\n    {plain}: 1\n")] {
                let node = walk(&text, Build::Head).unwrap();
                assert!(!node.exact, "{text:?}");
            }
        }
        for text in
            ["- a: !!str 1\n", "- a: 1\n  a: 2\n", "- spec:\n    1: x\n    \"1\": y\n", "- ? [a]\n  : 1\n"]
        {
            assert!(!walk(text, Build::Head).unwrap().exact, "{text:?}");
        }
        assert!(walk("- spec:\n    a: {x: 1}\n    b: {x: 1}\n", Build::Head).unwrap().exact);
        // Past the few keys compared in a list, the set still finds a repeat, early or late.
        let many: String = (0..40).map(|i| format!("    k{i}: v\n")).collect();
        assert!(walk(&format!("- spec:\n{many}"), Build::Head).unwrap().exact);
        for repeat in ["k0", "k20", "k39"] {
            let text = format!("- spec:\n{many}    {repeat}: again\n");
            assert!(!walk(&text, Build::Head).unwrap().exact, "{repeat}");
        }
    }

    #[test]
    fn anchors_aliases_merges_limits_and_shape_abandon() {
        for text in [
            "- a: &x 1\n  b: *x\n",
            "- a: &x 1\n",
            "- a: 1\n  &x b: 2\n",
            "- <<: {a: 1}\n",
            "- x\n",
            "- a: 1\n- b: 2\n",
            "- a: \"open\n",
        ] {
            assert_eq!(walk(text, Build::Whole).unwrap_err(), Abandon, "{text:?}");
        }
        assert!(walk("- a: [[[[1]]]]\n", Build::Whole).is_ok());
        // A key's depth is its mapping's values': `a` below stands at 4.
        assert_eq!(entry("- ? [a]\n  : 1\n", 0, Build::Whole, limits(3, 64)).unwrap_err(), Abandon);
        assert!(entry("- ? [a]\n  : 1\n", 0, Build::Whole, limits(4, 64)).is_ok());
        assert_eq!(entry("- a: [[[[1]]]]\n", 0, Build::Whole, limits(5, 64)).unwrap_err(), Abandon);
        assert_eq!(entry("- a: [1, 2, 3, 4]\n", 0, Build::Whole, limits(64, 7)).unwrap_err(), Abandon);
        assert!(entry("- a: [1, 2, 3, 4]\n", 0, Build::Whole, limits(64, 8)).is_ok());
    }

    #[test]
    fn comments_are_counted() {
        let text = "- a: 1 # one\n  # two\n  b: 2\n# after\n";
        let (node, counts) = entry(text, 0, Build::Whole, LIMITS).unwrap();
        assert_eq!(node.value.unwrap(), serde_json::json!({"a": 1, "b": 2}));
        assert_eq!(counts.comment_bytes, " one".len() + " two".len() + " after".len());
        let tight = Limits { counts: Counts { comment_bytes: 5, ..LIMITS.counts }, ..LIMITS };
        assert_eq!(entry(text, 0, Build::Whole, tight).unwrap_err(), Abandon);
    }

    #[test]
    fn a_node_knows_where_it_stands_and_where_its_status_is() {
        let text = "- kind: B\n  status:\n    a: [1,\n      2]   # c\n  spec: {x: 1}  # end\n  # foot\n";
        let node = entry(text, 100, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(node.block_column, Some(2));
        let status = text.find("status").unwrap();
        let spec = text.find("  spec").unwrap();
        assert_eq!(node.status, StatusAt::At(100 + status..100 + spec), "to the line after the value");
        assert_eq!(node.span, 100 + 2..100 + text.find("  # foot").unwrap(), "to the line after the content");
        let first = entry("- status: {}\n  kind: B\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(first.status, StatusAt::At(2..13), "the first key, on the entry's line");
        let absent = entry("- kind: B\n  note: |+\n    kept\n\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(
            (absent.status, absent.span.end),
            (StatusAt::Absent, 31),
            "a kept block scalar's blank line is content"
        );
        let explicit = entry("- kind: B\n  ? status\n  : {}\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(explicit.status, StatusAt::Unusable);
        let flow = entry("- {kind: B, status: {}}\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(flow.block_column, None);
    }

    #[test]
    fn documents_hold_one_mapping_or_nothing() {
        assert!(document("# only a comment\n\n", 0, Build::Head, LIMITS).unwrap().0.is_none());
        assert!(document("a: 1\n", 0, Build::Head, LIMITS).unwrap().0.is_some());
        for text in ["- a\n", "x\n", "a: 1\n---\nb: 2\n", "--- a\n"] {
            assert!(document(text, 0, Build::Head, LIMITS).is_err(), "{text:?}");
        }
    }

    #[test]
    fn counting_sees_the_root_and_refuses_what_walking_abandons() {
        assert_eq!(
            count("a: [1, {b: 2}]\n", LIMITS).map(|(c, r)| (c.nodes, r)),
            Some((7, Root::BlockMapping(0)))
        );
        assert_eq!(count("# c\n    a: b\n", LIMITS).map(|(_, r)| r), Some(Root::BlockMapping(4)));
        assert_eq!(count("# c\n", LIMITS).map(|(_, r)| r), Some(Root::Empty));
        assert_eq!(count("[a]\n", LIMITS).map(|(_, r)| r), Some(Root::Other));
        for refused in ["a: &x 1\n", "a: &x [1]\n", "a: &x {b: 1}\n", "a:\n  <<: {b: 1}\n", "a: *x\n"] {
            assert!(count(refused, LIMITS).is_none(), "{refused:?}");
        }
        assert!(count("a: [[1]]\n", limits(2, 100)).is_none());
        assert!(count("a: [[1]]\n", limits(3, 100)).is_some());
        assert!(
            count("a: [1]\nb: [2]\nc: {d: [3]}\n", limits(3, 100)).is_some(),
            "depth is nesting, not a count"
        );
    }

    /// A label key or value is held to YAML 1.1 and 1.2 wherever it stands: a requirement's
    /// `key` and `values` in any `matchExpressions`, and any `...Selector` mapping, not only
    /// `labels`, `matchLabels` and `selector`.
    #[test]
    fn label_keys_and_values_are_held_in_expressions_and_every_selector() {
        let doubted = |text: &str| divergence(text).map(|d| d.message(text));
        let spec = |body: &str| format!("apiVersion: v1\nkind: X\nspec:\n{body}");
        for (body, words) in [
            (
                "  podSelector:\n    matchExpressions:\n    - {key: a, operator: In, values: [b, yes]}\n",
                "label value `yes`",
            ),
            (
                "  namespaceSelector:\n    matchExpressions:\n    - key: on\n      operator: Exists\n",
                "label key `on`",
            ),
            ("  template:\n    spec:\n      nodeSelector: {pool: No}\n", "label value `No`"),
            ("  objectSelector:\n    matchLabels: {y: a}\n", "label key `y`"),
            ("  clusterSPIFFEIDLabelSelector: {team: off}\n", "label value `off`"),
        ] {
            let message = doubted(&spec(body)).unwrap_or_else(|| panic!("{body:?} read as it stands"));
            assert!(message.contains(words), "{body:?}: {message}");
        }
        for body in [
            // Quoted, or a value that is no label (an operator, a key of another mapping).
            "  podSelector:\n    matchExpressions:\n    - {key: a, operator: In, values: [\"yes\", b]}\n",
            "  podSelector:\n    matchExpressions:\n    - {key: a, operator: NotIn, values: []}\n  on: x\n",
            "  options: {key: 1e3}\n",
            "  matchExpressions:\n  - {key: a, operator: Exists, other: {key: 1e3}}\n",
        ] {
            assert_eq!(doubted(&spec(body)), None, "{body:?}");
        }
    }

    /// go-yaml v2 ends a plain scalar inside a flow collection at `?` and reads a key there,
    /// and reads a `:` before a flow indicator into the scalar (`scannerc.go`,
    /// `yaml_parser_scan_plain_scalar`, `yaml_parser_fetch_next_token`), where YAML 1.2 reads
    /// one string and a value indicator: refused wherever it stands in a flow collection.
    #[test]
    fn a_question_mark_or_colon_in_a_flow_plain_scalar_is_refused() {
        use crate::io::read::diverge::Kind;
        let found = |text: &str| divergence(text).map(|d| (d.at, d.kind));
        let flow = |text: &str| Some(Kind::FlowIndicator { text: text.into(), colon: false });
        assert_eq!(found("labels: {app: rag, ?tier: gpu}\n").map(|d| d.1), flow("?tier"));
        assert_eq!(
            found("args: [a, rag?v1]\n"),
            Some((10, Kind::FlowIndicator { text: "rag?v1".into(), colon: false }))
        );
        assert_eq!(
            found("args: [a:, b]\n").map(|d| d.1),
            Some(Kind::FlowIndicator { text: "a".into(), colon: true })
        );
        let colon = "args: [--port=8000:, b]\n";
        assert!(divergence(colon).unwrap().message(colon).contains("quote the value (\"--port=8000:\")"));
        assert_eq!(found("a: {b: [c, {d: e}]:}\n"), None, "a collection before the colon");
        for alike in [
            "a: what?\n",
            "a: http://x\n",
            "args: [\"a?b\", 'c:d']\n",
            "a: {b: c}\n",
            "? a\n: b\n",
            "c: [{name: a, image: nginx:1.25}]\n",
            "args: [--url=http://x]\n",
            "a: {b: [c, {d: e:f}]}\n",
        ] {
            assert_eq!(found(alike), None, "{alike:?}");
        }
    }

    /// An alias in a label's or a service account's place is held to the rules of the
    /// scalar it names, as both readers resolve it to that node.
    #[test]
    fn an_alias_is_held_as_the_scalar_it_names_where_labels_and_accounts_stand() {
        let words = |text: &str| divergence(text).map(|d| d.message(text)).unwrap_or_default();
        let template = |labels: &str| {
            format!("metadata:\n  annotations: {{note: &u null, sidecar: &y yes}}\n  labels: {labels}\n")
        };
        let null = "metadata:\n  annotations: {note: &u null}\n  labels: {canary: *u}\n";
        assert!(words(null).contains("label value `null`"), "{}", words(null));
        // A word YAML 1.2 reads apart is refused where it is anchored already.
        assert!(words(&template("{sidecar: *y}")).contains("value `yes`"));
        let account = "a: &sa on\nspec:\n  serviceAccountName: *sa\n";
        assert!(words(account).contains("value `on`"), "{}", words(account));
        assert_eq!(divergence("a: &sa web\nspec:\n  serviceAccountName: *sa\n  labels: {app: *sa}\n"), None);
    }
}
