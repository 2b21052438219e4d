//! The fast reading of a ResourceList (`Reading::CopyUnowned`, items the function does not own
//! copied from the input text) against the reference reading (`Reading::BuildAll`, every item
//! built and written back): the same exit code, stderr and output values, key order included,
//! on the golden inputs, on generated inputs, on inputs the fast path must leave to the full
//! reader, and at the reader's limits; and clean unowned entries really leave as their bytes.
//!
//! The full-size limit cases are ignored in the default run (slow in debug builds); run them
//! with `cargo test --release --test passthrough -- --ignored`.

mod common;

use common::golden;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::BoxedStrategy;
use proptest::test_runner::FileFailurePersistence;
use render_inference_identity::io::{self as krm, Env, Reading, RunOutput};
use render_inference_identity::yaml;
use std::fs;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Both readings of one input: (fast, reference).
fn both(input: &str, env: &Env) -> (RunOutput, RunOutput) {
    (krm::run(input, env), krm::run_with(input, env, Reading::BuildAll))
}

/// An output's value as JSON text: key order counts (serde_json `Map` equality ignores it).
fn canonical(stdout: &str) -> Result<String, String> {
    let value = yaml::parse(stdout).map_err(|e| format!("stdout does not read back: {e}\n{stdout}"))?;
    Ok(serde_json::to_string(&value).expect("a JSON value serializes"))
}

/// The fast reading's output when both readings of `input` agree (exit code, stderr,
/// output value); otherwise how they differ.
fn compare(input: &str, env: &Env) -> Result<RunOutput, String> {
    let (fast, reference) = both(input, env);
    let mut problems = Vec::new();
    if fast.exit_code != reference.exit_code {
        problems.push(format!("exit code: fast {} reference {}", fast.exit_code, reference.exit_code));
    }
    if fast.stderr != reference.stderr {
        problems.push(format!(
            "stderr:\n  fast:      {:?}\n  reference: {:?}",
            shorten(&fast.stderr),
            shorten(&reference.stderr)
        ));
    }
    match (canonical(&fast.stdout), canonical(&reference.stdout)) {
        (Ok(f), Ok(r)) if f == r => {}
        (f, r) => problems.push(format!(
            "stdout values differ {}\n--- fast ---\n{}--- reference ---\n{}",
            first_difference(&f.unwrap_or_else(|e| e), &r.unwrap_or_else(|e| e)),
            shorten(&fast.stdout),
            shorten(&reference.stdout)
        )),
    }
    if problems.is_empty() {
        Ok(fast)
    } else {
        Err(format!("{}\n--- input ---\n{}", problems.join("\n"), shorten(input)))
    }
}

/// Where two one-line texts first differ, with some context.
fn first_difference(fast: &str, reference: &str) -> String {
    let at = fast.chars().zip(reference.chars()).take_while(|(f, r)| f == r).count();
    let around = |s: &str| s.chars().skip(at.saturating_sub(60)).take(120).collect::<String>();
    format!("at character {at}:\n  fast:      …{}…\n  reference: …{}…", around(fast), around(reference))
}

/// `text`, or its start and end when it is too long for a message.
fn shorten(text: &str) -> String {
    const KEEP: usize = 3_000;
    if text.len() <= 2 * KEEP {
        return text.to_string();
    }
    let head: String = text.chars().take(KEEP).collect();
    let tail: String = text.chars().skip(text.chars().count() - KEEP).collect();
    format!("{head}\n[… {} bytes …]\n{tail}", text.len() - 2 * KEEP)
}

/// Asserts both readings agree on `input`, and returns the fast reading's output.
fn assert_equivalent(input: &str, env: &Env) -> RunOutput {
    compare(input, env).unwrap_or_else(|problem| panic!("the readings differ: {problem}"))
}

/// Asserts both readings reach the same verdict (exit code and stderr) on `input`: for
/// inputs at the limits, too large to compare whole outputs cheaply.
fn assert_same_verdict(input: &str) {
    let (fast, reference) = both(input, &Env::default());
    assert_eq!(
        (fast.exit_code, fast.stderr.as_str()),
        (reference.exit_code, reference.stderr.as_str()),
        "(exit code, stderr) of the fast reading, left, and the reference, right; input of {} bytes",
        input.len()
    );
}

/// Asserts the fast reading gives exactly the reference's bytes, and returns them.
fn assert_same_bytes(input: &str) -> RunOutput {
    let (fast, reference) = both(input, &Env::default());
    assert_eq!(fast.exit_code, reference.exit_code, "exit code\n--- input ---\n{input}");
    assert_eq!(fast.stderr, reference.stderr, "stderr\n--- input ---\n{input}");
    assert_eq!(
        fast.stdout, reference.stdout,
        "stdout bytes differ\n--- fast ---\n{}--- reference ---\n{}--- input ---\n{input}",
        fast.stdout, reference.stdout
    );
    reference
}

/// The `items:` section of an output: the lines after `items:` up to the next top-level key.
fn items_section(stdout: &str) -> &str {
    let start = stdout.find("\nitems:\n").map(|i| i + "\nitems:\n".len()).expect("an items: key");
    let mut end = start;
    for line in stdout[start..].split_inclusive('\n') {
        if line.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) {
            break;
        }
        end += line.len();
    }
    &stdout[start..end]
}

const FUNCTION_CONFIG: &str = "functionConfig: {apiVersion: fn.kleym.sonda.red/v1alpha1, \
     kind: RenderInferenceIdentity, metadata: {name: x}, spec: {trustDomain: example.org}}\n";

/// A ResourceList with `items` (entries at column 0, each ending in a newline).
fn list(items: &str) -> String {
    format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}{FUNCTION_CONFIG}")
}

// ---------------------------------------------------------------------------------------
// 1. Golden inputs
// ---------------------------------------------------------------------------------------

/// Every golden input, and every golden output read again as input (it holds managed
/// ClusterSPIFFEIDs and results), reads the same both ways.
#[test]
fn golden_inputs_and_outputs_read_the_same_both_ways() {
    let cases = golden::cases();
    assert!(cases.len() > 1, "no golden cases found under testdata/");
    let mut problems = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let env = golden::env_of(dir);
        for file in ["input.yaml", "expected.yaml"] {
            let Ok(text) = fs::read_to_string(dir.join(file)) else { continue };
            if let Err(problem) = compare(&text, &env) {
                problems.push(format!("{name}/{file}: {problem}"));
            }
        }
    }
    assert!(problems.is_empty(), "{} golden difference(s):\n{}", problems.len(), problems.join("\n\n"));
}

/// The golden inputs with their entries indented under `items:` read the same both ways
/// too, and the same as at column 0.
#[test]
fn golden_inputs_indented_read_the_same_both_ways() {
    let mut problems = Vec::new();
    for dir in &golden::cases() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let input = fs::read_to_string(dir.join("input.yaml")).unwrap();
        let env = golden::env_of(dir);
        let flat = krm::run(&input, &env);
        for indent in [2, 4] {
            let Some(indented) = indent_items(&input, indent) else { continue };
            match compare(&indented, &env) {
                Err(problem) => problems.push(format!("{name} indented by {indent}: {problem}")),
                Ok(deep)
                    if canonical(&flat.stdout) != canonical(&deep.stdout) || flat.stderr != deep.stderr =>
                {
                    problems.push(format!("{name} indented by {indent}: not the same as at column 0"))
                }
                Ok(_) => {}
            }
        }
    }
    assert!(problems.is_empty(), "{} difference(s):\n{}", problems.len(), problems.join("\n\n"));
}

/// `input` with every line between `items:` (at column 0) and the next top-level key
/// indented by `n`; `None` when the input has no such section.
fn indent_items(input: &str, n: usize) -> Option<String> {
    let start = input.find("\nitems:\n")? + "\nitems:\n".len();
    let mut out = input[..start].to_string();
    let mut inside = true;
    for line in input[start..].split_inclusive('\n') {
        if inside && line.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) {
            inside = false;
        }
        if inside && line.trim() != "" {
            out.push_str(&" ".repeat(n));
        }
        out.push_str(line);
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------
// 2. Generated inputs
// ---------------------------------------------------------------------------------------

/// One line of an entry as written at column 0.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    kind: LineKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Content,
    /// A comment line.
    Comment,
    /// A comment line at column 0, where it stays when the entries are indented.
    PinnedComment,
    /// Content ending in [`TRAILING`].
    Trailing,
}

/// The comment some lines end in.
const TRAILING: &str = "  # trailing";

impl Line {
    fn new(text: impl Into<String>) -> Line {
        Line { text: text.into(), kind: LineKind::Content }
    }

    fn comment(text: impl Into<String>) -> Line {
        Line { text: text.into(), kind: LineKind::Comment }
    }

    fn pinned(text: impl Into<String>) -> Line {
        Line { text: text.into(), kind: LineKind::PinnedComment }
    }

    /// A line of text read back: comments recognized.
    fn parsed(text: &str) -> Line {
        let kind = if text.trim_start().starts_with('#') {
            LineKind::Comment
        } else if text.ends_with(TRAILING) {
            LineKind::Trailing
        } else {
            LineKind::Content
        };
        Line { text: text.to_string(), kind }
    }

    /// The line moved right by `n` columns (blank and pinned lines stay).
    fn shifted(&self, n: usize) -> Line {
        if self.kind == LineKind::PinnedComment || self.text.is_empty() {
            self.clone()
        } else {
            Line { text: format!("{}{}", " ".repeat(n), self.text), kind: self.kind }
        }
    }

    /// The line without its comment; `None` for a comment line.
    fn without_comment(&self) -> Option<Line> {
        match self.kind {
            LineKind::Content => Some(self.clone()),
            LineKind::Comment | LineKind::PinnedComment => None,
            LineKind::Trailing => {
                Some(Line::new(self.text.strip_suffix(TRAILING).expect("a trailing comment")))
            }
        }
    }
}

/// The text after `key:` and the lines under it (relative to the key's column). `clean`:
/// the fast reader takes it as it stands (no YAML 1.1 lookalike, no tag).
#[derive(Debug, Clone)]
struct Node {
    first: String,
    rest: Vec<Line>,
    clean: bool,
}

impl Node {
    fn inline(text: &str, clean: bool) -> Node {
        Node { first: format!(" {text}"), rest: Vec::new(), clean }
    }

    fn with_rest(first: &str, rest: &[&str], clean: bool) -> Node {
        Node { first: first.to_string(), rest: rest.iter().map(|l| Line::new(*l)).collect(), clean }
    }
}

/// Plain scalars every reader takes the same way.
const CLEAN_PLAIN: &[&str] = &[
    "web",
    "nginx:1.25",
    "hello world",
    "/var/run/x",
    "_private",
    "$HOME",
    "é-ünïcode ✓",
    "a-b.c",
    "name=value",
    "k8s:ns:serving",
    "InferencePool",
    "true",
    "false",
    "null",
    "~",
    "0",
    "42",
    "-7",
    "1.5",
    "-0.25",
    "3000000000",
];
/// Plain scalars a YAML 1.1 reader takes differently from a YAML 1.2 one, or that need care.
const LOOKALIKES: &[&str] = &[
    "on",
    "yes",
    "y",
    "n",
    "no",
    "off",
    "True",
    "NO",
    "Off",
    "Null",
    "010",
    "0o10",
    "0x1F",
    "1_000",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "1:20",
    "12:30:00",
    "1e3",
    "1.0e3",
    "+1",
    "-x",
    "1.2.3",
    "=",
];
/// Plain scalars that are not finite numbers: the whole input is refused, both ways.
const NON_FINITE: &[&str] = &[".inf", "-.inf", ".NaN"];
/// Texts written quoted (single or double).
const QUOTABLE: &[&str] = &[
    "on",
    "yes",
    "y",
    "no",
    "off",
    "010",
    "0o10",
    "1_000",
    "2001-12-14",
    "1:20",
    ".inf",
    "1e3",
    "True",
    "null",
    "~",
    "",
    "42",
    "plain",
    " padded ",
    "with # hash",
    "a: b",
    "- dash",
    "it's",
    "say \"hi\"",
];
/// Flow collections and whether they are clean.
const FLOWS: &[(&str, bool)] = &[
    ("[]", true),
    ("{}", true),
    ("[a, 1, \"on\", {x: web}]", true),
    ("{a: 1, b: [x, '2001-12-14'], c: null}", true),
    ("[web, 'it''s', -1.5, true]", true),
    ("{\"on\": 'off', '1': x}", true),
    ("[on, off]", false),
    ("{x: yes}", false),
    ("[1, 010]", false),
];
/// Block scalar headers: literal and folded, clip, strip and keep.
const BLOCK_HEADERS: &[&str] = &["|", "|-", "|+", ">", ">-", ">+"];
/// Lines of block scalars (at the block's indentation; "" is a blank line).
const BLOCK_LINES: &[&str] =
    &["line one", "key: on", "- not an entry", "# not a comment", "  more indented", "", "010", "\"quoted\""];

fn quote(text: &str, double: bool) -> String {
    if double {
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        format!("'{}'", text.replace('\'', "''"))
    }
}

/// A scalar or flow collection written on the key's line.
fn inline_node() -> BoxedStrategy<Node> {
    prop_oneof![
        40 => select(CLEAN_PLAIN).prop_map(|s| Node::inline(s, true)),
        30 => select(LOOKALIKES).prop_map(|s| Node::inline(s, false)),
        1 => select(NON_FINITE).prop_map(|s| Node::inline(s, false)),
        40 => (select(QUOTABLE), any::<bool>()).prop_map(|(s, double)| Node::inline(&quote(s, double), true)),
        10 => Just(Node::inline("\"tab\\there \\u00e9\"", true)),
        20 => select(FLOWS).prop_map(|(s, clean)| Node::inline(s, clean)),
    ]
    .boxed()
}

/// Any value of a mapping key: inline, empty, block scalars, multi-line scalars, flow
/// collections over lines, block sequences, and (when `depth` allows) nested mappings.
fn node(depth: u32) -> BoxedStrategy<Node> {
    let block = (select(BLOCK_HEADERS), prop::collection::vec(select(BLOCK_LINES), 1..5), 0..3usize)
        .prop_map(|(header, lines, trailing_blanks)| {
            // A first line starting with a space would need an indentation indicator.
            let mut rest: Vec<Line> = std::iter::once("text")
                .chain(lines)
                .map(|l| Line::new(if l.is_empty() { String::new() } else { format!("  {l}") }))
                .collect();
            rest.extend((0..trailing_blanks).map(|_| Line::new("")));
            Node { first: format!(" {header}"), rest, clean: true }
        });
    let sequence =
        (prop::collection::vec(inline_node(), 1..4), any::<bool>()).prop_map(|(entries, compact)| {
            let pad = if compact { "" } else { "  " };
            let clean = entries.iter().all(|e| e.clean);
            let rest = entries.iter().map(|e| Line::new(format!("{pad}-{}", e.first))).collect();
            Node { first: String::new(), rest, clean }
        });
    let mut options = vec![
        (12, inline_node()),
        (1, Just(Node { first: String::new(), rest: Vec::new(), clean: true }).boxed()),
        (3, block.boxed()),
        (2, sequence.boxed()),
        (1, Just(Node::with_rest(" word one", &["  word two", "  word three"], true)).boxed()),
        (1, Just(Node::with_rest(" on", &["  off"], true)).boxed()),
        (1, Just(Node::with_rest(" 1", &["  2"], false)).boxed()),
        (1, Just(Node::with_rest(" \"first", &["  second", "", "  third \\\"q\\\"\""], true)).boxed()),
        (1, Just(Node::with_rest(" 'first", &["  it''s", "  last'"], true)).boxed()),
        (1, Just(Node::with_rest(" [a,", &["  \"on\",", "  {x: 1}]"], true)).boxed()),
        (1, Just(Node::with_rest(" {a: on,", &["  b: 2}"], false)).boxed()),
        (
            1,
            Just(Node::with_rest(
                "",
                &["- name: vllm", "  image: vllm/vllm-openai:v0.8.5", "  args: [\"--port\", '8000']"],
                true,
            ))
            .boxed(),
        ),
    ];
    if depth > 0 {
        let nested = fields(depth - 1).prop_map(|fields| {
            let clean = fields.iter().all(Field::clean);
            Node { first: String::new(), rest: render_fields(&fields, 2), clean }
        });
        options.push((3, nested.boxed()));
    }
    proptest::strategy::Union::new_weighted(options).boxed()
}

/// One line of a block mapping.
#[derive(Debug, Clone)]
enum Field {
    Pair { key: String, key_clean: bool, node: Node, comment: bool },
    Comment { text: &'static str, pinned: bool },
    Blank,
}

impl Field {
    fn clean(&self) -> bool {
        match self {
            Field::Pair { key_clean, node, .. } => *key_clean && node.clean,
            _ => true,
        }
    }
}

const KEY_BASES: &[&str] =
    &["name", "image", "replicas", "x-unknown", "app.kubernetes.io/name", "with space"];
/// Keys that replace one generated key of a mapping, and whether they are clean.
const SPECIAL_KEYS: &[(&str, bool)] = &[
    ("\"on\"", true),
    ("'yes'", true),
    ("\"1\"", true),
    ("1", true),
    ("42", true),
    ("\"a b\"", true),
    ("on", false),
    ("yes", false),
    ("010", false),
    ("Off", false),
    ("1.0", false),
];
const COMMENTS: &[&str] = &["# a comment", "# items: not a key", "#- not an entry", "#"];

/// The fields of a block mapping: unique keys, comments and blank lines between them.
fn fields(depth: u32) -> BoxedStrategy<Vec<Field>> {
    #[derive(Debug, Clone)]
    enum Draft {
        Pair(&'static str, Node, bool),
        Comment(&'static str, bool),
        Blank,
    }
    let draft = prop_oneof![
        8 => (select(KEY_BASES), node(depth), prop::bool::weighted(0.15))
            .prop_map(|(base, node, comment)| Draft::Pair(base, node, comment)),
        1 => (select(COMMENTS), prop::bool::weighted(0.3)).prop_map(|(c, pinned)| Draft::Comment(c, pinned)),
        1 => Just(Draft::Blank),
    ];
    let special = prop::option::weighted(0.3, (any::<prop::sample::Index>(), select(SPECIAL_KEYS)));
    (prop::collection::vec(draft, 1..6), special)
        .prop_map(|(drafts, special)| {
            let pairs = drafts.iter().filter(|d| matches!(d, Draft::Pair(..))).count();
            let special_at = special.filter(|_| pairs > 0).map(|(i, key)| (i.index(pairs), key));
            let mut seen = 0;
            drafts
                .into_iter()
                .map(|draft| match draft {
                    Draft::Pair(base, node, comment) => {
                        let (key, key_clean) = match special_at {
                            Some((i, (key, clean))) if i == seen => (key.to_string(), clean),
                            _ => (format!("{base}{seen}"), true),
                        };
                        seen += 1;
                        // A trailing comment only where it cannot land inside a value.
                        let comment = comment && (node.rest.is_empty() || node.first.starts_with(" |"));
                        Field::Pair { key, key_clean, node, comment }
                    }
                    Draft::Comment(text, pinned) => Field::Comment { text, pinned },
                    Draft::Blank => Field::Blank,
                })
                .collect()
        })
        .boxed()
}

/// Fields as lines at column `col`.
fn render_fields(fields: &[Field], col: usize) -> Vec<Line> {
    let pad = " ".repeat(col);
    let mut lines = Vec::new();
    for field in fields {
        match field {
            Field::Pair { key, node, comment, .. } => {
                let text = format!("{pad}{key}:{}", node.first);
                lines.push(if *comment {
                    Line::parsed(&format!("{text}{TRAILING}"))
                } else {
                    Line::new(text)
                });
                lines.extend(node.rest.iter().map(|l| l.shifted(col)));
            }
            Field::Comment { text, pinned: true } => lines.push(Line::pinned(*text)),
            Field::Comment { text, pinned: false } => lines.push(Line::comment(format!("{pad}{text}"))),
            Field::Blank => lines.push(Line::new("")),
        }
    }
    lines
}

/// One `items:` entry at column 0, with what follows it up to the next entry.
#[derive(Debug, Clone)]
struct Entry {
    lines: Vec<Line>,
    /// Read by the fast reader as it stands (so copied, when unowned).
    clean: bool,
}

impl Entry {
    /// An entry from the lines of its mapping at column 2 (the first one the `- ` line).
    fn from_mapping(mut lines: Vec<Line>, clean: bool) -> Entry {
        let first = lines.first_mut().expect("a mapping has a first line");
        first.text = format!("- {}", &first.text[2..]);
        Entry { lines, clean }
    }

    fn from_text(text: &str, clean: bool) -> Entry {
        Entry { lines: text.lines().map(Line::parsed).collect(), clean }
    }

    /// The entry with its comment lines and trailing comments taken out.
    fn without_comments(self) -> Entry {
        Entry { lines: self.lines.iter().filter_map(Line::without_comment).collect(), ..self }
    }

    /// The entry as the output must show it when copied.
    fn at_column_0(&self) -> String {
        self.lines.iter().map(|l| format!("{}\n", l.text)).collect()
    }

    /// The entry as written in the input, indented by `n`.
    fn indented(&self, n: usize) -> String {
        self.lines.iter().map(|l| format!("{}\n", l.shifted(n).text)).collect()
    }
}

/// Values of the `metadata.annotations` kpt and kustomize read, and whether they are clean.
const ANNOTATIONS: &[(&str, bool)] = &[
    ("config.kubernetes.io/path: apps/web.yaml\n config.kubernetes.io/index: '0'", true),
    (
        "internal.config.kubernetes.io/path: \"apps/web.yaml\"\n internal.config.kubernetes.io/index: \"1\"",
        true,
    ),
    ("config.kubernetes.io/index: 0", true),
    ("config.kubernetes.io/path: clusterspiffeids/kleym-serving-llama-prefill-pool-ec7eebba.yaml", true),
    ("kustomize.config.k8s.io/id: |\n   kind: ConfigMap\n   name: web", true),
    ("config.kubernetes.io/local-config: on", false),
    ("{a: b, c: '010'}", true),
];

/// A Deployment, ConfigMap or Service with generated content.
fn unowned_entry() -> BoxedStrategy<Entry> {
    let kind = select(
        &[("apps/v1", "Deployment", "spec"), ("v1", "ConfigMap", "data"), ("v1", "Service", "spec")][..],
    );
    let annotations = prop::option::weighted(0.5, select(ANNOTATIONS));
    let block = (kind, 0..100u32, annotations, any::<bool>(), prop::bool::weighted(0.2), fields(1)).prop_map(
        |((api, kind, body), n, annotations, kind_first, comment, fields)| {
            let head = [format!("  apiVersion: {api}"), format!("  kind: {kind}")];
            let head = if kind_first { [head[1].clone(), head[0].clone()] } else { head };
            let mut lines: Vec<Line> = head.into_iter().map(Line::new).collect();
            lines.extend(
                ["  metadata:".to_string(), format!("    name: web-{n}"), "    namespace: serving".into()]
                    .map(Line::new),
            );
            let mut clean = fields.iter().all(Field::clean);
            if let Some((text, annotations_clean)) = annotations {
                clean &= annotations_clean;
                if text.starts_with('{') {
                    lines.push(Line::new(format!("    annotations: {text}")));
                } else {
                    lines.push(Line::new("    annotations:"));
                    lines.extend(text.split("\n ").map(|l| Line::new(format!("      {l}"))));
                }
            }
            if comment {
                lines.push(Line::comment("  # between the head and the body"));
            }
            lines.push(Line::new(format!("  {body}:")));
            lines.extend(render_fields(&fields, 4));
            Entry::from_mapping(lines, clean)
        },
    );
    let flow = select(&[
        ("- {apiVersion: v1, kind: ConfigMap, metadata: {name: flow}, data: {a: \"on\", b: x}}", true),
        ("- {apiVersion: v1, kind: ConfigMap, metadata: {name: flow}, data: {a: on}}", false),
        ("- apiVersion: v1\n  kind: \"ConfigMap\"\n  metadata: {name: quoted-kind}\n  data: {}", true),
        ("- kind: Secret\n  apiVersion: v1\n  metadata:\n    name: s\n  stringData:\n    pw: |-\n      hunter2", true),
    ][..])
    .prop_map(|(text, clean)| Entry::from_text(text, clean));
    prop_oneof![8 => block, 1 => flow].boxed()
}

/// The binding and pool names of generated owned items: collisions are the point.
const POOLS: &[&str] = &["llama", "other", "'2001-12-14'"];
const BINDINGS: &[&str] = &["llama-prefill", "web", "\"yes\""];
/// Variants: valid, quoted lookalikes, and a plain `on` (a boolean: an invalid boundary).
const VARIANTS: &[&str] = &["prefill", "decode", "\"on\"", "on", "'1.0'"];
/// Pool selector values.
const APP_LABELS: &[&str] = &["llama", "\"on\"", "on", "other"];

/// Text the function owns: pools, bindings, ClusterSPIFFEIDs, a CRD.
fn owned_entry() -> BoxedStrategy<Entry> {
    let pool = (select(POOLS), select(APP_LABELS), any::<bool>(), prop::bool::weighted(0.2)).prop_map(
        |(name, app, v1, comment)| {
            let comment = if comment { "  # the pool\n" } else { "" };
            let text = if v1 {
                format!(
                    "- apiVersion: inference.networking.k8s.io/v1\n  kind: InferencePool\n{comment}  \
                     metadata:\n    name: {name}\n    namespace: serving\n  spec:\n    selector:\n      \
                     matchLabels:\n        app: {app}\n    targetPorts:\n    - number: 8000\n"
                )
            } else {
                format!(
                    "- apiVersion: inference.networking.x-k8s.io/v1alpha2\n  kind: InferencePool\n{comment}  \
                     metadata: {{name: {name}, namespace: serving}}\n  spec:\n    selector: {{app: {app}}}\n    \
                     targetPortNumber: 8000\n    extensionRef: {{name: epp}}\n"
                )
            };
            Entry::from_text(&text, true)
        },
    );
    let binding = (select(BINDINGS), select(POOLS), select(VARIANTS), prop::bool::weighted(0.2)).prop_map(
        |(name, pool, variant, generation)| {
            let generation = if generation { "    generation: 3\n" } else { "" };
            let text = format!(
                "- apiVersion: kleym.sonda.red/v1alpha1\n  kind: InferenceIdentityBinding\n  metadata:\n    \
                 name: {name}\n    namespace: serving\n{generation}  spec:\n    poolRef:\n      name: {pool}\n    \
                 serviceAccountName: llama\n    identityBoundary:\n      variant: {variant}{TRAILING}\n"
            );
            Entry::from_text(&text, true)
        },
    );
    let other = select(&[
        // Managed: replaced when its binding renders to this name, else pruned.
        "- apiVersion: spire.spiffe.io/v1alpha1\n  kind: ClusterSPIFFEID\n  metadata:\n    \
         name: kleym-serving-llama-prefill-pool-ec7eebba\n    labels:\n      \
         kleym.sonda.red/binding-name: llama-prefill\n      kleym.sonda.red/binding-namespace: serving\n      \
         kleym.sonda.red/managed-by: kleym\n    annotations:\n      \
         kleym.sonda.red/rendered-by: render-inference-identity\n      config.kubernetes.io/index: '3'\n  \
         spec:\n    spiffeIDTemplate: spiffe://old.example/x\n    fallback: false\n",
        // Foreign: left alone.
        "- apiVersion: spire.spiffe.io/v1alpha1\n  kind: ClusterSPIFFEID\n  metadata:\n    name: gateway\n  \
         spec:\n    spiffeIDTemplate: spiffe://example.org/ns/{{ .PodMeta.Namespace }}\n    \
         podSelector: {matchLabels: {app: gateway}}\n",
        // Kinds spelled with escapes, so that only their value says what they are.
        "- apiVersion: kleym.sonda.red/v1alpha1\n  kind: \"InferenceIdentity\\u0042inding\"\n  \
         metadata: {name: escaped, namespace: serving}\n  \
         spec: {poolRef: {name: llama}, serviceAccountName: llama, identityBoundary: {variant: decode}}\n",
        "- apiVersion: inference.networking.k8s.io/v1\n  kind: \"Inference\\\n    Pool\"\n  \
         metadata: {name: llama, namespace: serving}\n  \
         spec: {selector: {matchLabels: {app: llama}}, targetPorts: [{number: 8000}]}\n",
        // A CRD: it says which APIs are served.
        "- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n    \
         name: clusterspiffeids.spire.spiffe.io\n  spec:\n    group: spire.spiffe.io\n    names:\n      \
         kind: ClusterSPIFFEID\n      plural: clusterspiffeids\n    scope: Cluster\n    versions:\n    \
         - name: v1alpha1\n      served: true\n      storage: true\n",
    ][..])
    .prop_map(|text| Entry::from_text(text, true));
    prop_oneof![3 => pool, 4 => binding, 1 => other].boxed()
}

/// Lines after an entry and before the next: comments (some at column 0) and blank lines.
fn between() -> BoxedStrategy<Vec<Line>> {
    let line = prop_oneof![
        2 => select(COMMENTS).prop_map(Line::comment),
        1 => select(COMMENTS).prop_map(|c| Line::comment(format!("  {c}"))),
        1 => select(COMMENTS).prop_map(Line::pinned),
        2 => Just(Line::new("")),
    ];
    prop::collection::vec(line, 0..3).boxed()
}

const FUNCTION_CONFIGS: &[&str] = &[
    FUNCTION_CONFIG,
    "functionConfig:\n  apiVersion: fn.kleym.sonda.red/v1alpha1\n  kind: RenderInferenceIdentity\n  \
     metadata:\n    name: x\n  spec:\n    trustDomain: example.org\n    transitionTime: \"2026-01-01T00:00:00Z\"\n",
    "functionConfig:\n  apiVersion: fn.kleym.sonda.red/v1alpha1\n  kind: RenderInferenceIdentity\n  \
     metadata: {name: x}\n  spec:\n    trustDomain: example.org\n    prune: false\n    failurePolicy: Fail\n",
    "functionConfig:\n  apiVersion: fn.kleym.sonda.red/v1alpha1\n  kind: RenderInferenceIdentity\n  \
     metadata: {name: x}\n  spec: {trustDomain: example.org, outputPath: 'spire/{name}.yaml'}\n",
    // No trust domain: an error after the reconcile.
    "functionConfig: {apiVersion: fn.kleym.sonda.red/v1alpha1, kind: RenderInferenceIdentity, metadata: {name: x}}\n",
];

/// A generated ResourceList: its entries, and its text.
#[derive(Debug, Clone)]
struct Case {
    entries: Vec<Entry>,
    input: String,
}

/// A ResourceList whose entries are drawn from `entry`, all indented by 0, 2 or 4; with
/// comments (in and between entries, and around them) when `comments` says so.
fn case(
    entry: BoxedStrategy<Entry>,
    min_items: usize,
    comments: impl Strategy<Value = bool>,
) -> impl Strategy<Value = Case> {
    let entries = prop::collection::vec((entry, between()), min_items..8);
    (entries, select(&[0usize, 2, 4][..]), select(FUNCTION_CONFIGS), any::<bool>(), comments).prop_map(
        |(entries, indent, function_config, config_first, comments)| {
            let entries: Vec<Entry> = entries
                .into_iter()
                .map(|(mut entry, after)| {
                    entry.lines.extend(after);
                    if comments { entry } else { entry.without_comments() }
                })
                .collect();
            let mut input = String::new();
            if comments {
                input.push_str("# A generated ResourceList.\n");
            }
            input.push_str("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n");
            if config_first {
                input.push_str(function_config);
            }
            input.push_str("items:\n");
            if comments {
                input.push_str(&format!("{}# before the first entry\n", " ".repeat(indent)));
            }
            input.extend(entries.iter().map(|e| e.indented(indent)));
            if !config_first {
                input.push_str(function_config);
            }
            Case { entries, input }
        },
    )
}

/// Unowned entries and owned ones, clean or not, with comments or without, the input
/// sometimes without its final line break.
fn mixed_case() -> impl Strategy<Value = Case> {
    let entry = prop_oneof![3 => unowned_entry(), 2 => owned_entry()].boxed();
    (case(entry, 0, any::<bool>()), prop::bool::weighted(0.2)).prop_map(|(mut case, no_final_newline)| {
        if no_final_newline {
            case.input.pop();
        }
        case
    })
}

/// Only unowned entries the fast reader takes as they stand, with comments or without.
fn clean_unowned_case(comments: bool) -> impl Strategy<Value = Case> {
    case(unowned_entry().prop_filter("clean", |e| e.clean).boxed(), 1, Just(comments))
}

/// 64 cases per property keeps the file at a few seconds in debug builds; `PROPTEST_CASES`
/// overrides it for a longer hunt.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Generated mixed ResourceLists read the same both ways.
    #[test]
    fn generated_lists_read_the_same_both_ways(case in mixed_case()) {
        compare(&case.input, &Env::default()).map_err(TestCaseError::fail)?;
    }

    /// Clean unowned entries without comments leave as their input bytes, re-indented to
    /// column 0; and the output still means what the reference output means.
    #[test]
    fn clean_unowned_entries_are_copied_byte_for_byte(case in clean_unowned_case(false)) {
        check_copied(&case)?;
    }

    /// With comments in and between the entries, the entries holding them are written from
    /// their values, as the reference writes them: kpt puts comments back itself, and finds
    /// copied ones at other nodes than it expects, so it would write them twice.
    #[test]
    fn unowned_entries_with_comments_are_written_without_them(case in clean_unowned_case(true)) {
        let out = compare(&case.input, &Env::default()).map_err(TestCaseError::fail)?;
        let items = items_section(&out.stdout);
        prop_assert!(!has_comment(items), "a comment was copied:\n{}", out.stdout);
    }
}

/// The mixed generator does exercise copying: in a fixed sample, a good share of the
/// outputs differ in bytes from the reference's (a copied entry keeps its input's layout),
/// so the property above compares real copies, not only fallbacks.
#[test]
fn generated_lists_do_copy_items() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = mixed_case();
    let sample = 48;
    let mut copied = 0;
    for _ in 0..sample {
        let case = strategy.new_tree(&mut runner).expect("a generated case").current();
        let (fast, reference) = both(&case.input, &Env::default());
        copied += usize::from(fast.stdout != reference.stdout);
    }
    assert!(copied * 4 >= sample, "only {copied} of {sample} generated inputs had an item copied");
}

/// Both readings agree on a case of clean unowned entries, and the output's items section
/// is the entries' text at column 0.
fn check_copied(case: &Case) -> Result<(), TestCaseError> {
    let out = compare(&case.input, &Env::default()).map_err(TestCaseError::fail)?;
    let items = items_section(&out.stdout);
    for (n, entry) in case.entries.iter().enumerate() {
        let text = entry.at_column_0();
        prop_assert!(
            items.contains(&text),
            "entry {} not copied:\n{}--- output ---\n{}",
            n,
            text,
            out.stdout
        );
    }
    let all: String = case.entries.iter().map(Entry::at_column_0).collect();
    prop_assert_eq!(items, all.as_str(), "the items section is not the entries' text");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// 3. Byte preservation, and what is not copied
// ---------------------------------------------------------------------------------------

/// An unowned item whose copy differs from its serialization (flow style, single quotes).
const COPYABLE: &str =
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {a: 'copied only'}\n";
/// What only a copy of [`COPYABLE`] writes.
const COPY_MARK: &str = "'copied only'";

/// [`COPYABLE`] is copied when nothing stops the fast path, and the reference never writes
/// it so: the fallback tests below, which expect the reference's bytes, can fail.
#[test]
fn the_copyable_item_is_copied_on_its_own() {
    let input = list(&format!("{COPYABLE}{COPYABLE}"));
    let (fast, reference) = both(&input, &Env::default());
    assert_eq!(items_section(&fast.stdout), format!("{COPYABLE}{COPYABLE}"), "{}", fast.stdout);
    assert!(!reference.stdout.contains(COPY_MARK), "{}", reference.stdout);
    assert_equivalent(&input, &Env::default());
}

/// Indented entries come out at column 0 as they were written, quoting and layout kept.
#[test]
fn indented_unowned_entries_are_copied_to_column_0() {
    let entries = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: flags}\n  data:\n    \
                   a: \"on\"\n    b: 'yes'\n    c: |+\n      kept\n\n        more\n\n\
                   - apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    \
                   replicas: 2\n    template: {spec: {containers: [{name: c, image: \"nginx:1.25\"}]}}\n";
    for indent in [0, 2, 4] {
        let input = indent_items(&list(entries), indent).unwrap();
        let out = assert_equivalent(&input, &Env::default());
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
        assert_eq!(items_section(&out.stdout), entries, "indent {indent}\n{}", out.stdout);
    }
}

/// Whether YAML text holds a comment, as the parser reads it.
fn has_comment(text: &str) -> bool {
    use serde_saphyr::granit_parser::{Event, Parser};
    Parser::new_from_str(text).any(|event| matches!(event.expect("readable YAML").0, Event::Comment(..)))
}

/// An unowned entry with a comment (at the end of a line, on a line of its own, or after
/// it, before the next entry) is written from its value, without the comment; the next
/// entry, without one, is still copied.
#[test]
fn comments_in_unowned_entries_are_left_to_kpt() {
    let secret = "- apiVersion: v1\n  kind: Secret\n  data: {b: 'y'}\n";
    for commented in [
        "- apiVersion: v1\n  kind: ConfigMap\n  data: {a: 'x'}  # c\n",
        "- apiVersion: v1\n  # c\n  kind: ConfigMap\n  data: {a: 'x'}\n",
        "- apiVersion: v1\n  kind: ConfigMap\n  data: {a: 'x'}\n# c\n",
    ] {
        let out = assert_equivalent(&list(&format!("{commented}{secret}")), &Env::default());
        let items = items_section(&out.stdout);
        assert!(!has_comment(items), "a comment was copied:\n{}", out.stdout);
        assert!(items.ends_with(secret), "the entry without a comment was not copied:\n{}", out.stdout);
    }
}

/// A plain `on` in an unowned item is the boolean true, as kubectl reads it: that item is
/// written by the serializer, exactly as the reference writes it, never copied.
#[test]
fn an_unowned_item_with_a_plain_on_is_not_copied() {
    let input = list("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: flags}\n  data:\n    a: on\n");
    let out = assert_same_bytes(&input);
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains(": on"), "a plain `on` was copied:\n{}", out.stdout);
    assert!(!out.stdout.contains("{name: flags}"), "the item was copied:\n{}", out.stdout);
    let value = yaml::parse(&out.stdout).unwrap();
    assert_eq!(value["items"][0]["data"]["a"], true, "{}", out.stdout);
}

/// Beside an item that must be serialized, a clean one is still copied; both readings agree.
#[test]
fn a_clean_item_beside_a_plain_on_is_still_copied() {
    let dirty = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: dirty}\n  data: {a: on}\n";
    let out = assert_equivalent(&list(&format!("{COPYABLE}{dirty}{COPYABLE}")), &Env::default());
    let items = items_section(&out.stdout);
    assert_eq!(items.matches(COPYABLE).count(), 2, "{items}");
    assert!(!items.contains("{name: dirty}") && !items.contains(": on"), "{items}");
}

// ---------------------------------------------------------------------------------------
// 4. Input the fast path leaves to the full reader
// ---------------------------------------------------------------------------------------

/// Asserts a successful fallback: the reference's bytes, which a copy would not give.
fn assert_falls_back(input: &str) -> RunOutput {
    let out = assert_same_bytes(input);
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains(COPY_MARK), "the reference copies?\n{}", out.stdout);
    out
}

/// Asserts a failing fallback: the reference's bytes, exit 1, and stderr saying `what`.
fn assert_fails_like_the_reference(input: &str, what: &str) {
    let out = assert_same_bytes(input);
    assert_eq!(out.exit_code, 1, "{}", out.stdout);
    assert!(out.stderr.contains(what), "stderr does not say {what:?}:\n{}", out.stderr);
}

#[test]
fn crlf_line_ends_fall_back() {
    let input = list(&format!("{COPYABLE}{COPYABLE}")).replace('\n', "\r\n");
    let out = assert_falls_back(&input);
    assert!(!out.stdout.contains('\r'));
}

#[test]
fn an_alias_across_items_falls_back() {
    let items = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: &meta {name: c}\n  data: {a: 'copied only'}\n\
                 - apiVersion: v1\n  kind: Secret\n  metadata: *meta\n";
    let out = assert_falls_back(&list(items));
    let value = yaml::parse(&out.stdout).unwrap();
    assert_eq!(value["items"][1]["metadata"]["name"], "c", "{}", out.stdout);
}

#[test]
fn items_twice_falls_back() {
    let input = format!("{}items:\n{COPYABLE}", list(COPYABLE));
    assert_fails_like_the_reference(&input, "duplicate");
}

#[test]
fn a_duplicate_key_in_an_unowned_item_falls_back() {
    for data in ["a: 1\n    \"a\": 2", "1: x\n    \"1\": y"] {
        let input =
            list(&format!("{COPYABLE}- apiVersion: v1\n  kind: ConfigMap\n  data:\n    {data}\n{COPYABLE}"));
        assert_fails_like_the_reference(&input, "duplicate");
    }
}

#[test]
fn a_quote_spanning_entries_falls_back() {
    // Closed in the next entry's text.
    let closed = list(&format!(
        "{COPYABLE}- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"open\n- b: close\"\n{COPYABLE}"
    ));
    let (fast, reference) = both(&closed, &Env::default());
    assert_eq!(
        (fast.stdout, fast.stderr, fast.exit_code),
        (reference.stdout, reference.stderr, reference.exit_code)
    );
    // Never closed.
    let open =
        list(&format!("{COPYABLE}- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"open\n{COPYABLE}"));
    assert_fails_like_the_reference(&open, "not a readable YAML document");
}

#[test]
fn a_second_document_falls_back() {
    let input = format!("{}---\n{}", list(COPYABLE), list(COPYABLE));
    assert_fails_like_the_reference(&input, "several YAML documents");
}

#[test]
fn a_byte_order_mark_falls_back() {
    assert_falls_back(&format!("\u{feff}{}", list(COPYABLE)));
}

#[test]
fn a_yaml_directive_falls_back() {
    assert_falls_back(&format!("%YAML 1.2\n---\n{}", list(COPYABLE)));
}

// ---------------------------------------------------------------------------------------
// 5. Limits: what the reference refuses, the fast path must refuse
// ---------------------------------------------------------------------------------------

/// Runs `f` on a thread with room for deep recursion (debug builds, 256 levels).
fn on_a_big_stack(f: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(256 << 20).spawn(f).expect("a thread starts");
    thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

/// A ConfigMap with `a: <first>` and then `b` holding `levels` nested flow sequences: the
/// deepest at level `levels + 3` of the whole input (the list, `items`, the item).
fn nested(first: &str, levels: usize) -> String {
    let b = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    list(&format!("- apiVersion: v1\n  kind: ConfigMap\n  a: {first}\n  b: {b}\n"))
}

/// Around the depth limit (256 levels: the deepest sequence at 253 to 259), an entry that is
/// copied (`a: x`) or scanned and refused reads the same both ways; so does a deferred one
/// (`a: on`, read by the full reader).
#[test]
fn nesting_around_the_depth_limit_reads_the_same_both_ways() {
    on_a_big_stack(|| {
        for levels in 250..=256 {
            assert_equivalent(&nested("x", levels), &Env::default());
            assert_equivalent(&nested("on", levels), &Env::default());
        }
    });
}

#[test]
fn a_deferred_entry_one_level_past_the_depth_limit_is_refused() {
    on_a_big_stack(|| assert_same_verdict(&nested("on", 254)));
}

/// YAML nodes (scalars, sequences, mappings) in `text`, as the reader's budget counts them.
fn node_count(text: &str) -> usize {
    use serde_saphyr::granit_parser::{Event, Parser};
    Parser::new_from_str(text)
        .map(|event| event.expect("readable YAML").0)
        .filter(|event| {
            matches!(event, Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..))
        })
        .count()
}

#[test]
#[ignore = "full size (4,000,001 nodes): run with --release --ignored"]
fn one_node_past_the_node_limit_is_refused() {
    let head = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n{FUNCTION_CONFIG}items:\n\
         - apiVersion: v1\n  kind: ConfigMap\n  data: ["
    );
    let scalars = yaml::MAX_NODES + 1 - node_count(&format!("{head}]\n"));
    let input = format!("{head}{}]\n", vec!["1"; scalars].join(","));
    assert_same_verdict(&input);
}

/// Anchors without aliases leave the fast path on, so their limit must hold there too.
#[test]
fn anchors_up_to_their_limit_read_the_same_both_ways() {
    let data = vec!["&a x"; 50_000].join(", ");
    assert_equivalent(
        &list(&format!("- apiVersion: v1\n  kind: ConfigMap\n  data: [{data}]\n")),
        &Env::default(),
    );
}

#[test]
#[ignore = "full size (50,001 anchors): run with --release --ignored"]
fn one_anchor_past_the_anchor_limit_is_refused() {
    let data = vec!["&a x"; 50_001].join(", ");
    assert_same_verdict(&list(&format!("- apiVersion: v1\n  kind: ConfigMap\n  data: [{data}]\n")));
}

#[test]
#[ignore = "full size (10,001 merge keys): run with --release --ignored"]
fn one_merge_key_past_the_merge_key_limit_is_refused() {
    let entry = "- apiVersion: v1\n  kind: ConfigMap\n  <<: {a: 1}\n";
    assert_same_verdict(&list(&entry.repeat(10_001)));
}

#[test]
#[ignore = "full size (128 MiB): run with --release --ignored"]
fn an_input_past_the_size_limit_is_refused() {
    let block = format!("      {}\n", "x".repeat(1017)).repeat(1024);
    let entry = format!("- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: |\n{block}");
    let copies = yaml::MAX_INPUT_BYTES / entry.len() + 1;
    assert_same_verdict(&list(&entry.repeat(copies)));
}

#[test]
#[ignore = "full size (65 MiB of comments): run with --release --ignored"]
fn comments_past_the_comment_limit_are_refused() {
    let entry = format!("- apiVersion: v1\n  #{}\n  kind: ConfigMap\n", "x".repeat(1 << 20));
    assert_same_verdict(&list(&entry.repeat(65)));
}

#[test]
#[ignore = "full size (12 million events): run with --release --ignored"]
fn events_past_the_event_limit_are_refused() {
    let entry = format!("- apiVersion: v1\n{}  kind: ConfigMap\n", "  #\n".repeat(100_000));
    assert_same_verdict(&list(&entry.repeat(121)));
}
