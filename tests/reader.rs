//! The fast reader against the exact one, which reads with the full reader and finds each
//! item's text with one pass of the parser's events: on the golden inputs and outputs, on
//! generated ResourceLists and streams with comments and every style, on inputs the fast
//! reader leaves to the exact one, and at the reader's limits, both give the same bytes;
//! and items the function does not own leave as the exact text they came in.
//!
//! The full-size limit cases are ignored in the default run (slow in debug builds); run them
//! with `cargo test --release --test reader -- --ignored`.

mod common;

use common::golden;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::BoxedStrategy;
use render_inference_identity::io::read::walk::{self, Build, Counts, Limits};
use render_inference_identity::io::read::{self, Options, Reader, check};
use render_inference_identity::io::{Env, RunOutput};
use render_inference_identity::yaml;
use std::fs;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Both readings of one input: (fast, exact).
fn both(input: &str, env: &Env) -> (RunOutput, RunOutput) {
    (common::krm(input, env), common::krm_with(input, env, Reader::Exact))
}

/// The fast reading's output when both readings of `input` give the same bytes (exit code,
/// stderr, stdout) and read the same parts; otherwise how they differ.
fn compare(input: &str, env: &Env) -> Result<RunOutput, String> {
    let (fast, exact) = both(input, env);
    let mut problems = Vec::new();
    if fast.exit_code != exact.exit_code {
        problems.push(format!("exit code: fast {} exact {}", fast.exit_code, exact.exit_code));
    }
    if fast.stderr != exact.stderr {
        problems.push(format!(
            "stderr:\n  fast:  {:?}\n  exact: {:?}",
            shorten(&fast.stderr),
            shorten(&exact.stderr)
        ));
    }
    if fast.stdout != exact.stdout {
        problems.push(format!(
            "stdout differs {}\n--- fast ---\n{}--- exact ---\n{}",
            first_difference(&fast.stdout, &exact.stdout),
            shorten(&fast.stdout),
            shorten(&exact.stdout)
        ));
    }
    if let (Ok(f), Ok(e)) = (
        read::list(input.to_string(), Options { reader: Reader::Fast }),
        read::list(input.to_string(), Options { reader: Reader::Exact }),
    ) && (f.parts != e.parts || f.indent != e.indent || f.function_config != e.function_config)
    {
        problems.push(format!("the parts read differ:\n  fast:  {:?}\n  exact: {:?}", f.parts, e.parts));
    }
    if problems.is_empty() {
        Ok(fast)
    } else {
        Err(format!("{}\n--- input ---\n{}", problems.join("\n"), shorten(input)))
    }
}

/// Where two texts first differ, with some context.
fn first_difference(fast: &str, exact: &str) -> String {
    let at = fast.chars().zip(exact.chars()).take_while(|(f, r)| f == r).count();
    let around = |s: &str| s.chars().skip(at.saturating_sub(60)).take(120).collect::<String>();
    format!("at character {at}:\n  fast:  …{}…\n  exact: …{}…", around(fast), around(exact))
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
    let (fast, exact) = both(input, &Env::default());
    assert_eq!(
        (fast.exit_code, fast.stderr.as_str()),
        (exact.exit_code, exact.stderr.as_str()),
        "(exit code, stderr) of the fast reading, left, and the exact one, right; input of {} bytes",
        input.len()
    );
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

/// The output up to its top-level `results` key, which is written last.
fn without_results(stdout: &str) -> &str {
    stdout.split_once("\nresults:\n").map_or(stdout, |(items, _)| items)
}

const FUNCTION_CONFIG: &str = "functionConfig: {apiVersion: fn.kleym.sonda.red/v1alpha1, \
     kind: RenderInferenceIdentity, metadata: {name: x}, spec: {trustDomain: example.org}}\n";

/// A ResourceList with `items` (entries at column 0, each ending in a newline).
fn list(items: &str) -> String {
    format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}{FUNCTION_CONFIG}")
}

/// Whether the fast reader answers for `input` itself.
fn fast_reads(input: &str) -> bool {
    read::fast::list(&read::text::normalize(input.to_string()), read::fast::FULL).is_some()
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

/// Every text under testdata/ (ResourceLists, their expected outputs, rendered files,
/// plugin streams) holds to the full reader, read as a ResourceList and as a stream: the
/// seeds of the coverage-guided target in `fuzz/`, checked on every test run.
#[test]
fn every_golden_text_holds_to_the_full_reader() {
    fn texts(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                texts(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "json") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    texts(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata"), &mut files);
    assert!(files.len() > 100, "{} files", files.len());
    let mut problems = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        for (what, result) in
            [("as a ResourceList", check::list(&text)), ("as a stream", check::stream(&text))]
        {
            if let Err(problem) = result {
                problems.push(format!("{} {what}: {problem}", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The golden inputs with their entries indented under `items:` read the same both ways
/// too; the entries come out at the input's indentation.
#[test]
fn golden_inputs_indented_read_the_same_both_ways() {
    let mut problems = Vec::new();
    for dir in &golden::cases() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let input = fs::read_to_string(dir.join("input.yaml")).unwrap();
        let env = golden::env_of(dir);
        let flat = common::krm(&input, &env);
        for indent in [2, 4] {
            let Some(indented) = indent_items(&input, indent) else { continue };
            match compare(&indented, &env) {
                Err(problem) => problems.push(format!("{name} indented by {indent}: {problem}")),
                Ok(deep)
                    if flat.exit_code == 0
                        && indent_items(&flat.stdout, indent).as_deref() != Some(&deep.stdout) =>
                {
                    problems
                        .push(format!("{name} indented by {indent}: not the output at column 0, indented"))
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
        (1, Just(Node::with_rest(" {a: 0o10,", &["  b: 2}"], false)).boxed()),
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
    /// Read by the fast reader as it stands, without the full reader's help.
    clean: bool,
    /// An item the function neither owns nor changes.
    unowned: bool,
}

impl Entry {
    /// An entry from the lines of its mapping at column 2 (the first one the `- ` line).
    fn from_mapping(mut lines: Vec<Line>, clean: bool) -> Entry {
        let first = lines.first_mut().expect("a mapping has a first line");
        first.text = format!("- {}", &first.text[2..]);
        Entry { lines, clean, unowned: true }
    }

    fn from_text(text: &str, clean: bool) -> Entry {
        Entry { lines: text.lines().map(Line::parsed).collect(), clean, unowned: true }
    }

    fn owned(self) -> Entry {
        Entry { unowned: false, ..self }
    }

    /// The entry with its comment lines and trailing comments taken out.
    fn without_comments(self) -> Entry {
        Entry { lines: self.lines.iter().filter_map(Line::without_comment).collect(), ..self }
    }

    /// The entry as the output must show it when copied.
    fn at_column_0(&self) -> String {
        self.lines.iter().map(|l| format!("{}\n", l.text)).collect()
    }

    /// The entry as a document of a stream: its mapping moved to column 0.
    fn as_document(&self) -> String {
        let text = self.indented(0);
        text.lines()
            .map(|l| {
                if l.starts_with("- ") || l.starts_with("  ") {
                    format!("{}\n", &l[2..])
                } else {
                    format!("{l}\n")
                }
            })
            .collect()
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
        ("- {apiVersion: v1, kind: ConfigMap, metadata: {name: flow}, data: {a: 0o10}}", false),
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
    prop_oneof![3 => pool, 4 => binding.prop_map(Entry::owned), 1 => other.prop_map(Entry::owned)].boxed()
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
    /// Spaces before each entry's `-`.
    indent: usize,
    /// The lines between `items:` and the first entry.
    leading: String,
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
            let leading = if comments {
                format!("{}# before the first entry\n", " ".repeat(indent))
            } else {
                String::new()
            };
            input.push_str(&leading);
            input.extend(entries.iter().map(|e| e.indented(indent)));
            if !config_first {
                input.push_str(function_config);
            }
            Case { entries, input, indent, leading }
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

/// Only unowned entries, with comments or without.
fn unowned_case() -> impl Strategy<Value = Case> {
    case(unowned_entry(), 1, any::<bool>())
}

proptest! {
    #![proptest_config(common::proptest_config(64))]

    /// Generated mixed ResourceLists read the same both ways, and hold to the full reader;
    /// so do their entries turned into the documents of a stream.
    #[test]
    fn generated_lists_read_the_same_both_ways(case in mixed_case()) {
        compare(&case.input, &Env::default()).map_err(TestCaseError::fail)?;
        check::list(&case.input).map_err(TestCaseError::fail)?;
        let stream: Vec<String> = case.entries.iter().map(Entry::as_document).collect();
        check::stream(&stream.join("---\n")).map_err(TestCaseError::fail)?;
    }

    /// Every entry the function does not own leaves as the exact text it came in (its
    /// comments, the lines after it, its indentation), whatever its style; and running the
    /// function on its own output gives the same bytes.
    #[test]
    fn unowned_entries_leave_as_their_text_and_a_rerun_changes_nothing(case in mixed_case()) {
        let out = compare(&case.input, &Env::default()).map_err(TestCaseError::fail)?;
        if out.stdout.contains("\nitems:\n") {
            let items = items_section(&out.stdout);
            for (n, entry) in case.entries.iter().enumerate().filter(|(_, e)| e.unowned) {
                // Blank lines at the end may have gone with an input's missing final line break.
                let text = entry.indented(case.indent);
                let text = text.trim_end_matches('\n');
                prop_assert!(items.contains(text), "entry {} not copied:\n{}--- output ---\n{}", n, text, out.stdout);
            }
        }
        if out.exit_code == 0 {
            let again = common::krm(&out.stdout, &Env::default());
            prop_assert_eq!(without_results(&again.stdout), without_results(&out.stdout), "not a fixed point");
        }
    }

    /// Only entries the function does not own: the items section is their text, byte for byte.
    #[test]
    fn unowned_entries_alone_are_the_items_section(case in unowned_case()) {
        let out = compare(&case.input, &Env::default()).map_err(TestCaseError::fail)?;
        // Non-finite numbers (`.inf`) make the whole input unreadable, both ways, and a key
        // kubectl reads otherwise (`1.0`) refuses it.
        prop_assume!(yaml::parse(&case.input).is_ok() && read::divergence(&case.input).is_none());
        let all: String = case.entries.iter().map(|e| e.indented(case.indent)).collect();
        let items = items_section(&out.stdout);
        let leading = case.leading.clone();
        prop_assert_eq!(items, format!("{leading}{all}"), "the items section is not the entries' text");
    }
}

proptest! {
    #![proptest_config(common::proptest_config(64))]

    /// The walker vouches for exactly the entries the generator calls clean: no YAML 1.1
    /// lookalike, tag or non-finite number, which it leaves to the full reader.
    #[test]
    fn the_walker_vouches_for_clean_entries_only(entry in unowned_entry()) {
        let limits = Limits { depth: 64, counts: Counts { nodes: 100_000, events: 100_000, comment_bytes: 100_000 } };
        let walked = walk::entry(&entry.at_column_0(), 0, Build::Head, limits).map(|(node, _)| node.exact);
        prop_assert_eq!(walked, Ok(entry.clean), "{}", entry.at_column_0());
    }
}

/// The generator does exercise the fast reader: in a fixed sample, most generated inputs
/// are read by it rather than left to the exact one.
#[test]
fn generated_lists_are_mostly_read_by_the_fast_reader() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = mixed_case();
    let sample = 48;
    let fast = (0..sample)
        .filter(|_| fast_reads(&strategy.new_tree(&mut runner).expect("a generated case").current().input))
        .count();
    assert!(fast * 2 >= sample, "only {fast} of {sample} generated inputs were read by the fast reader");
}

// ---------------------------------------------------------------------------------------
// 3. Text kept
// ---------------------------------------------------------------------------------------

/// YAML 1.1 lookalikes every reader reads alike, comments and flow style in an item the
/// function does not own leave as they came: kubectl reads the copy exactly as it read the
/// input.
#[test]
fn lookalikes_and_comments_are_copied_as_they_stand() {
    let entries = "# before\n- apiVersion: v1   # the version\n  kind: ConfigMap\n  metadata: {name: flags}\n  data:\n    \
                   a: True\n    b: 010\n    c: 1e3\n    e: [\"get\", 'list']\n    z: |\n      - x\n      ---\n  \
                   # foot\n# between\n- {apiVersion: v1, kind: Secret, metadata: {name: s}}  # flow\n";
    for indent in [0, 2] {
        let input = indent_items(&list(entries), indent).unwrap();
        let out = assert_equivalent(&input, &Env::default());
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
        assert_eq!(
            items_section(&out.stdout),
            &input[input.find("items:\n").unwrap() + 7..input.find("functionConfig").unwrap()]
        );
    }
}

/// A tab after an entry's `-` starts the entry as a space does to YAML 1.2, and is a token
/// kubectl (go-yaml v2) refuses: both readings refuse it, and a tab after a scalar, which
/// both read as a space, stays.
#[test]
fn an_entry_after_a_tab_is_refused_as_kubectl_refuses_it() {
    let entries = "-\tapiVersion: v1\n  kind: ConfigMap  # tabbed\n  metadata: {name: a}\n";
    let input = list(entries);
    assert!(!fast_reads(&input));
    let out = assert_equivalent(&input, &Env::default());
    assert_eq!(out.exit_code, 1, "{}", out.stdout);
    assert!(out.stderr.contains("line 4 column 2: a tab where kubectl"), "{}", out.stderr);
    let tabbed = "- apiVersion: v1\n  kind: ConfigMap\t# tabbed\n  metadata: {name: a}\n";
    let out = assert_equivalent(&list(tabbed), &Env::default());
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    assert_eq!(items_section(&out.stdout), tabbed);
}

/// A binding's status is replaced where it stands, or put after its last line, and every
/// other byte of the binding stays; a binding in flow style is rebuilt, alone.
#[test]
fn a_binding_changes_only_in_its_status() {
    let pool = "- apiVersion: inference.networking.k8s.io/v1\n  kind: InferencePool\n  metadata: {name: llama, namespace: serving}\n  spec: {selector: {matchLabels: {app: llama}}}\n";
    let stale = "- apiVersion: kleym.sonda.red/v1alpha1  # v1alpha1\n  kind: InferenceIdentityBinding\n  status:\n    conditions: []   # stale\n  \
                 metadata: {name: a, namespace: serving}\n  spec:\n    poolRef: {name: llama}\n    serviceAccountName: \"vllm\"\n    identityBoundary:\n      variant: prefill # prefill\n";
    let fresh = "- apiVersion: kleym.sonda.red/v1alpha1\n  kind: InferenceIdentityBinding\n  metadata: {name: b, namespace: serving}\n  \
                 spec: {poolRef: {name: llama}, serviceAccountName: vllm, identityBoundary: {variant: decode}}  # last\n  # foot of b\n";
    let flow = "- {apiVersion: kleym.sonda.red/v1alpha1, kind: InferenceIdentityBinding, metadata: {name: c, namespace: serving}, \
                spec: {poolRef: {name: llama}, serviceAccountName: vllm, identityBoundary: {variant: other}}}\n";
    let input = list(&format!("{pool}{stale}{fresh}{flow}"));
    let out = assert_equivalent(&input, &Env::default());
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    assert!(items.starts_with(pool), "{items}");
    let head = "- apiVersion: kleym.sonda.red/v1alpha1  # v1alpha1\n  kind: InferenceIdentityBinding\n  status:\n    conditions:\n";
    assert!(items.contains(head), "the old status is replaced where it stood:\n{items}");
    assert!(!items.contains("# stale"), "{items}");
    let rest = "  metadata: {name: a, namespace: serving}\n  spec:\n    poolRef: {name: llama}\n    serviceAccountName: \"vllm\"\n    identityBoundary:\n      variant: prefill # prefill\n";
    assert!(items.contains(rest), "{items}");
    let b_head = "  spec: {poolRef: {name: llama}, serviceAccountName: vllm, identityBoundary: {variant: decode}}  # last\n  status:\n";
    assert!(items.contains(b_head), "a new status goes after the last line:\n{items}");
    assert!(items.contains("  # foot of b\n- apiVersion: kleym.sonda.red/v1alpha1\n  kind: InferenceIdentityBinding\n  metadata:\n    name: c\n"), "the flow binding is rebuilt:\n{items}");
    let value = yaml::parse(&out.stdout).unwrap();
    for i in 1..4 {
        assert_eq!(value["items"][i]["status"]["conditions"][0]["type"], "Ready", "{}", out.stdout);
    }
}

// ---------------------------------------------------------------------------------------
// 4. Input the fast reader leaves to the exact one
// ---------------------------------------------------------------------------------------

/// An unowned item whose copy differs from its serialization (flow style, single quotes).
const COPYABLE: &str =
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {a: 'copied only'}\n";

/// Asserts both readings agree and succeed, the fast one leaving the input to the exact one.
fn assert_left_to_the_exact_reader(input: &str) -> RunOutput {
    assert!(!fast_reads(input), "the fast reader read it:\n{input}");
    let out = assert_equivalent(input, &Env::default());
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    out
}

/// Asserts a refused input: the full reader's own message, both ways.
fn assert_refused_like_the_full_reader(input: &str, what: &str) {
    let out = assert_equivalent(input, &Env::default());
    assert_eq!(out.exit_code, 1, "{}", out.stdout);
    assert!(out.stderr.contains(what), "stderr does not say {what:?}:\n{}", out.stderr);
    if let Err(full) = yaml::parse(input) {
        assert!(out.stderr.contains(&full), "not the full reader's words:\n{}\n{full}", out.stderr);
    }
}

#[test]
fn crlf_line_ends_are_read_as_line_ends_and_written_as_newlines() {
    let input = list(&format!("{COPYABLE}{COPYABLE}")).replace('\n', "\r\n");
    assert!(fast_reads(&input));
    let out = assert_equivalent(&input, &Env::default());
    assert!(!out.stdout.contains('\r'));
    assert_eq!(items_section(&out.stdout), format!("{COPYABLE}{COPYABLE}"));
}

#[test]
fn an_alias_across_items_rebuilds_the_item_that_uses_it() {
    let items = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: &meta {name: c}\n  data: {a: 'copied only'}\n\
                 - apiVersion: v1\n  kind: Secret\n  metadata: *meta\n";
    let out = assert_left_to_the_exact_reader(&list(items));
    let section = items_section(&out.stdout);
    assert!(
        section.starts_with("- apiVersion: v1\n  kind: ConfigMap\n  metadata: &meta {name: c}\n"),
        "{section}"
    );
    assert!(!section.contains("*meta"), "{section}");
    let value = yaml::parse(&out.stdout).unwrap();
    assert_eq!(value["items"][1]["metadata"]["name"], "c", "{}", out.stdout);
}

#[test]
fn an_alias_inside_one_item_is_copied() {
    let items = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: &meta {name: c}\n  data: {copy: *meta}\n";
    let out = assert_left_to_the_exact_reader(&list(items));
    assert_eq!(items_section(&out.stdout), items);
}

#[test]
fn items_twice_is_refused() {
    let input = format!("{}items:\n{COPYABLE}", list(COPYABLE));
    assert_refused_like_the_full_reader(&input, "duplicate");
}

#[test]
fn a_duplicate_key_in_an_unowned_item_is_refused() {
    for data in ["a: 1\n    \"a\": 2", "1: x\n    \"1\": z", "y: 1\n    \"true\": 2"] {
        let input =
            list(&format!("{COPYABLE}- apiVersion: v1\n  kind: ConfigMap\n  data:\n    {data}\n{COPYABLE}"));
        assert_refused_like_the_full_reader(&input, "duplicate");
    }
}

#[test]
fn a_quote_spanning_entries_reads_as_the_full_reader_reads_it() {
    // Closed in the next entry's text.
    let closed = list(&format!(
        "{COPYABLE}- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"open\n- b: close\"\n{COPYABLE}"
    ));
    assert!(!fast_reads(&closed));
    assert_equivalent(&closed, &Env::default());
    // Never closed.
    let open =
        list(&format!("{COPYABLE}- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"open\n{COPYABLE}"));
    assert_refused_like_the_full_reader(&open, "not a readable YAML document");
}

#[test]
fn a_second_document_is_refused() {
    let input = format!("{}---\n{}", list(COPYABLE), list(COPYABLE));
    assert_refused_like_the_full_reader(&input, "several YAML documents");
}

#[test]
fn a_byte_order_mark_is_dropped() {
    let out = assert_equivalent(&format!("\u{feff}{}", list(COPYABLE)), &Env::default());
    assert_eq!(items_section(&out.stdout), COPYABLE);
}

/// kubectl cuts a directive from its document and refuses the file: so does every reading.
#[test]
fn a_yaml_directive_is_refused_both_ways() {
    let input = format!("%YAML 1.2\n---\n{}", list(COPYABLE));
    assert!(!fast_reads(&input));
    let out = assert_equivalent(&input, &Env::default());
    assert_eq!(out.exit_code, 1, "{}", out.stdout);
    assert!(out.stderr.contains("line 1 column 1: a `%` directive"), "{}", out.stderr);
}

/// What coverage-guided fuzzing found the old reader took where the full reader does not:
/// a header indented past column 0 (its keys would be lost), and the wrong error.
#[test]
fn a_header_not_at_column_0_is_left_to_the_full_reader() {
    for input in ["# c\n    a: b\nitems:\n- a: 1\n", " t:\nitems:\n- a:"] {
        assert!(!fast_reads(input), "{input:?}");
        let out = assert_equivalent(input, &Env::default());
        assert_eq!(out.exit_code, 1, "{input:?}: {}", out.stdout);
        let full = yaml::parse(input).unwrap_err();
        assert!(out.stderr.contains(&full), "{input:?}:\n{}\n{full}", out.stderr);
    }
}

// ---------------------------------------------------------------------------------------
// 5. Streams: the plain-stream modes read through the same reader
// ---------------------------------------------------------------------------------------

/// A stream's documents read the same both ways, and each keeps its text.
#[test]
fn streams_read_the_same_both_ways_and_keep_each_document() {
    let documents = [
        "# head of the first\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}  # flow\ndata:\n  a: 0o10\n  b: |\n    ---\n    - x\n# after a\n",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: b\nstringData: {pw: 'it''s'}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: é\ndata: {note: \"ünïcode ✓\"}\n",
    ];
    let stream = format!(
        "# file head\n---\n{}--- # second\n{}---\n\n---\n{}",
        documents[0], documents[1], documents[2]
    );
    let fast = read::stream(stream.clone(), Options::default()).unwrap();
    let exact = read::stream(stream.clone(), Options { reader: Reader::Exact }).unwrap();
    assert_eq!(fast.parts, exact.parts);
    let texts: Vec<&str> = fast.parts.iter().map(|p| &fast.text[p.text.chunk.clone()]).collect();
    assert_eq!(texts, documents);
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
/// (`a: 0o10`, read by the full reader).
#[test]
fn nesting_around_the_depth_limit_reads_the_same_both_ways() {
    on_a_big_stack(|| {
        for levels in 250..=256 {
            assert_equivalent(&nested("x", levels), &Env::default());
            assert_equivalent(&nested("0o10", levels), &Env::default());
        }
    });
}

#[test]
fn a_deferred_entry_one_level_past_the_depth_limit_is_refused() {
    on_a_big_stack(|| assert_same_verdict(&nested("0o10", 254)));
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

/// Found by the coverage-guided target: a NUL in the comment of a document marker line,
/// which the full reader refuses, was accepted when the line was cut out of every part.
#[test]
fn a_refused_character_in_a_comment_left_out_of_the_parts_is_refused() {
    for stream in ["a: 1\n--- # NUL \0 here\nb: 2\n", "a: 1\n--- # DEL \u{7f}\nb: 2\n"] {
        check::stream(stream).unwrap();
        assert!(read::stream(stream.to_string(), Options::default()).is_err(), "{stream:?}");
    }
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: # NUL \0\n- a: 1\n";
    check::list(list).unwrap();
    assert!(read::list(list.to_string(), Options::default()).is_err());
}

/// Found by the coverage-guided target: a document that is only a tag (`!x`) holds a null,
/// which the stream reader once skipped as it skips every empty document; the tag, which
/// kubectl resolves otherwise, and the `---` line carrying it, which kubectl refuses, now
/// refuse it, both ways.
#[test]
fn a_document_that_is_only_a_tag_is_refused() {
    for (stream, words) in
        [("!piVersionitems:#:", "the tag `!piVersionitems:#:`"), ("a: 1\n--- !x\n", "opening with `---`")]
    {
        check::stream(stream).unwrap();
        let Err(refused) = read::stream(stream.to_string(), Options::default()) else {
            panic!("{stream:?} is read")
        };
        assert!(refused.contains(words), "{stream:?}: {refused}");
    }
}

/// Found by the coverage-guided target: comment lines under an `items:` without entries
/// belonged to no part, so a character the full reader refuses there went unread.
#[test]
fn comments_under_an_items_without_entries_are_read() {
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n# a vertical tab \u{b} here\nfunctionConfig: {}\n";
    check::list(list).unwrap();
    assert!(read::list(list.to_string(), Options::default()).is_err());
    let fine = list.replace('\u{b}', "");
    check::list(&fine).unwrap();
    assert!(read::list(fine, Options::default()).is_ok());
}

/// Found by the coverage-guided target: a byte-order mark at the start of a document after
/// a `---` line, or after its first comment lines, which the full reader refuses inside a
/// document, was accepted when the document was read on its own, where it stands before
/// the document starts.
#[test]
fn a_byte_order_mark_where_a_cut_begins_is_refused_as_the_full_reader_refuses_it() {
    for stream in [
        "a: 1\n---\n\u{feff}b: 2\n",
        "a: 1\n--- # c\n\u{feff}b: 2\n",
        "a: 1\n---\n# c\n\u{feff}b: 2\n",
        "a: 1\n---\n\n# c\n\n\u{feff}# d\nb: 2\n",
    ] {
        check::stream(stream).unwrap();
        assert!(read::stream(stream.to_string(), Options::default()).is_err(), "{stream:?}");
    }
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: 1\n\u{feff}functionConfig: {}\n";
    check::list(list).unwrap();
    assert!(read::list(list.to_string(), Options::default()).is_err());
    // At the very start of the text a byte-order mark is allowed, and dropped.
    check::stream("\u{feff}a: 1\n---\nb: 2\n").unwrap();
    assert_eq!(
        read::stream("\u{feff}a: 1\n---\nb: 2\n".to_string(), Options::default()).unwrap().parts.len(),
        2
    );
}

/// Found by the coverage-guided target: a pod template under an item's `metadata` (or in
/// any place the skeleton of a passed item did not probe) was found in the whole item and
/// missed by the fast reader, which built only the metadata fields it reads.
#[test]
fn pod_templates_anywhere_in_a_passed_item_are_found_by_both_readers() {
    let template = "spec: {serviceAccountName: sa, containers: [{name: c}]}";
    for (place, expected_path) in [
        (
            format!(
                "  metadata:\n    name: d\n    template:\n      metadata: {{labels: {{a: b}}}}\n      {template}\n"
            ),
            "metadata.template",
        ),
        (
            format!("  metadata: {{name: d}}\n  spec:\n    containers:\n    - x:\n        {template}\n"),
            "spec.containers[0].x",
        ),
        (
            format!("  metadata: {{name: d}}\n  spec:\n    containers: {{x: {{{template}}}}}\n"),
            "spec.containers.x",
        ),
        (
            format!(
                "  metadata:\n    name: d\n    extra:\n    - {{metadata: {{labels: {{a: b}}}}, {template}}}\n"
            ),
            "metadata.extra[0]",
        ),
        (
            format!(
                "  metadata: {{name: d}}\n  spec:\n    template:\n      metadata:\n        other: [{{{template}}}]\n"
            ),
            "spec.template.metadata.other[0]",
        ),
    ] {
        let list = format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n{place}"
        );
        check::list(&list).unwrap_or_else(|e| panic!("{e}\n{list}"));
        let read = read::list(list.clone(), Options::default()).unwrap();
        let workload = read.parts[0].input.workload().unwrap_or_else(|| panic!("no workload in\n{list}"));
        assert!(format!("{workload:?}").contains(expected_path), "{workload:?}\n{list}");
    }
}
