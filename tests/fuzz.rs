//! Proptest-based fuzzing of the input path, a quick companion of the coverage-guided
//! target in `fuzz/`: bytes and mutated golden inputs go through `krm::run` and the
//! kustomize plugin entry. Whatever comes in, the function answers with exit 0 or 1, a
//! readable ResourceList (KRM mode), and never panics; and the reader holds to the full
//! reader on it (`io::read::check`), as a ResourceList and as a stream, and the lexer to
//! the parser. Lines of the block shape the lexer reads, and near misses, test the lexer.

use proptest::prelude::*;
use render_inference_identity::io::read::Reader;
use render_inference_identity::io::read::check;
use render_inference_identity::io::{self as krm, Env, RunOutput};
use render_inference_identity::yaml;
use std::path::Path;

fn golden_inputs() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut inputs: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path().join("input.yaml")).ok())
        .filter(|text| text.len() < 20_000)
        .collect();
    inputs.sort();
    inputs
}

/// Pieces of YAML syntax that a mutation splices in.
const SPLICES: [&str; 16] =
    ["\n- ", ": ", "---\n", "&a ", "*a", "!!str ", "{", "[", "\t", "\"", "'", "|\n", "? ", "\0", "#", "\n  "];

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    Delete(usize, usize),
    Splice(usize, usize),
    Duplicate(usize, usize),
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for m in mutations {
        let len = bytes.len().max(1);
        match *m {
            Mutation::Truncate(at) => bytes.truncate(at % len),
            Mutation::Delete(at, n) => {
                let at = at % len;
                let end = (at + n % 16).min(bytes.len());
                bytes.drain(at.min(end)..end);
            }
            Mutation::Splice(at, which) => {
                let at = (at % len).min(bytes.len());
                bytes.splice(at..at, SPLICES[which % SPLICES.len()].bytes());
            }
            Mutation::Duplicate(at, n) => {
                let at = at % len;
                let end = (at + n % 200).min(bytes.len());
                let piece: Vec<u8> = bytes[at.min(end)..end].to_vec();
                bytes.splice(end..end, piece);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, w)| Mutation::Splice(a, w)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
    ]
}

fn check_krm(input: &str) -> Result<(), TestCaseError> {
    let out = RunOutput::from(krm::krm::run(input.to_string(), &Env::default(), Reader::Fast));
    prop_assert!(out.exit_code == 0 || out.exit_code == 1, "exit {}", out.exit_code);
    let list =
        yaml::parse(&out.stdout).map_err(|e| TestCaseError::fail(format!("unreadable output: {e}")))?;
    prop_assert_eq!(list.get("kind").and_then(|k| k.as_str()), Some("ResourceList"));
    if out.exit_code == 1 {
        prop_assert!(!out.stderr.is_empty(), "exit 1 without a message");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn mutated_golden_inputs_never_crash(which in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..6)) {
        let inputs = golden_inputs();
        let input = apply(&inputs[which % inputs.len()], &mutations);
        check_krm(&input)?;
        check::list(&input).map_err(TestCaseError::fail)?;
        check::stream(&input).map_err(TestCaseError::fail)?;
        check::events(&input).map_err(TestCaseError::fail)?;
        let plugin = krm::plugin::run("apiVersion: fn.kleym.sonda.red/v1alpha1\nkind: RenderInferenceIdentity\nmetadata: {name: x}\nspec: {trustDomain: example.org}\n", input.clone(), &Env::default());
        prop_assert!(plugin.exit_code == 0 || plugin.exit_code == 1);
    }

    #[test]
    fn arbitrary_text_never_crashes(input in ".{0,400}") {
        check_krm(&input)?;
        check::list(&input).map_err(TestCaseError::fail)?;
        check::stream(&input).map_err(TestCaseError::fail)?;
        check::events(&input).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn the_lexer_gives_the_parsers_events_for_block_trees(tree in tree(), step in 1..4usize, compact in prop::bool::ANY) {
        let mut text = String::new();
        render(&tree, 0, step, compact, &mut text);
        check::events(&text).map_err(TestCaseError::fail)?;
        check::stream(&text).map_err(TestCaseError::fail)?;
        let mut items = String::new();
        render(&Tree::Seq(vec![tree]), 0, step, compact, &mut items);
        check::events(&items).map_err(TestCaseError::fail)?;
        check::list(&format!("kind: ResourceList\nitems:\n{items}")).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn the_lexer_gives_the_parsers_events(lines in prop::collection::vec(line(), 0..12), end in prop::bool::ANY) {
        let mut text = lines.join("\n");
        if end {
            text.push('\n');
        }
        check::events(&text).map_err(TestCaseError::fail)?;
        check::list(&format!("kind: ResourceList\nitems:\n{text}")).map_err(TestCaseError::fail)?;
        check::stream(&text).map_err(TestCaseError::fail)?;
    }
}

/// A line of the block shape the lexer reads, or a near miss.
fn line() -> impl Strategy<Value = String> {
    use prop::sample::select;
    let dash = select(vec!["", "", "- ", "-  ", "-", "- - "]);
    let key = select(vec![
        "a", "b", "b c", "\"k\"", "'k''s'", "-x", "ü", "<<", "1", "a:b", "? a", "a #b", "", "status",
    ]);
    let colon = select(vec![": ", ": ", ":", " : ", ":  ", ""]);
    let value = select(vec![
        "", "1", "x y", "'q'", "\"d\"", "{}", "[]", "[1]", "{a: b}", "x # c", "a: b", "|", "&a x", "*a",
        "!t x", "~", "on", "- x", "\"x\\y\"", "'open", "x:", "#c", "é", "---", "'a''b'", "\"\"", "x  ",
        "{} # c", "[a, 'b']", "[ x ]", "[a,]", "[a b, c]", "[x]: y", "[a, [b]]", "[a:b]", "[x] # c", "[,]",
        "[x, #c",
    ]);
    let flow =
        select(vec!["[\"--model\", \"m/x\", --port, \"8000\"]", "[ 'it''s' , \"a, b\" ] # c", "[-x,\"y\"]"]);
    let value = prop_oneof![8 => value, 1 => flow];
    let content = (0..7usize, dash, key, colon, value)
        .prop_map(|(i, d, k, c, v)| format!("{}{d}{k}{c}{v}", " ".repeat(i)));
    let comment = (0..5usize).prop_map(|i| format!("{}# c", " ".repeat(i)));
    prop_oneof![8 => content, 1 => Just(String::new()), 1 => comment]
}

/// A YAML node of the block shape.
#[derive(Debug, Clone)]
enum Tree {
    Scalar(&'static str),
    Map(Vec<(&'static str, Tree)>),
    Seq(Vec<Tree>),
}

fn tree() -> impl Strategy<Value = Tree> {
    use prop::sample::select;
    let leaf = select(vec![
        "",
        "1",
        "x y",
        "'q'",
        "\"d\"",
        "{}",
        "[]",
        "~",
        "on",
        "é ü",
        "'a''b'",
        "x # c",
        "-1",
        "a:b",
        "http://x/y#z",
        "1.5",
        "null",
        "\"\"",
        "''",
        "x  # c",
        "010",
        "[\"--model\", \"m/x\", --port, \"8000\"]",
        "[ a , 'b''c' ]",
        "[1, ~, on]",
        "[a: b]",
    ])
    .prop_map(Tree::Scalar);
    let keys = vec!["a", "b", "status", "\"k\"", "'k'", "1", "x y", "ü", "a"];
    leaf.prop_recursive(5, 48, 4, move |inner| {
        prop_oneof![
            prop::collection::vec((select(keys.clone()), inner.clone()), 1..4).prop_map(Tree::Map),
            prop::collection::vec(inner, 1..4).prop_map(Tree::Seq),
        ]
    })
}

/// Writes `tree` in block style at `column`, nested `step` deeper; sequences under a key
/// at the key's column when `compact`.
fn render(tree: &Tree, column: usize, step: usize, compact: bool, out: &mut String) {
    let pad = " ".repeat(column);
    match tree {
        Tree::Scalar(s) => {
            out.push_str(&pad);
            out.push_str(s);
            out.push('\n');
        }
        Tree::Map(pairs) => {
            for (i, (key, value)) in pairs.iter().enumerate() {
                // The first pair of an entry's mapping stands on the entry's line.
                if !(i == 0 && out.ends_with("- ")) {
                    out.push_str(&pad);
                }
                out.push_str(key);
                out.push(':');
                match value {
                    Tree::Scalar(s) => {
                        if !s.is_empty() {
                            out.push(' ');
                            out.push_str(s);
                        }
                        out.push('\n');
                    }
                    Tree::Map(_) => {
                        out.push('\n');
                        render(value, column + step, step, compact, out);
                    }
                    Tree::Seq(_) => {
                        out.push('\n');
                        render(value, if compact { column } else { column + step }, step, compact, out);
                    }
                }
            }
        }
        Tree::Seq(entries) => {
            for entry in entries {
                out.push_str(&pad);
                out.push_str("- ");
                match entry {
                    Tree::Scalar(s) => {
                        out.push_str(s);
                        out.push('\n');
                    }
                    Tree::Map(_) => render(entry, column + 2, step, compact, out),
                    Tree::Seq(_) => {
                        out.push('\n');
                        render(entry, column + step, step, compact, out);
                    }
                }
            }
        }
    }
}
