//! Proptest-based fuzzing of the input path, a quick companion of the coverage-guided
//! target in `fuzz/`: bytes and mutated golden inputs go through `krm::run` and the
//! kustomize plugin entry. Whatever comes in, the function answers with exit 0 or 1, a
//! readable ResourceList (KRM mode), and never panics; and the reader holds to the full
//! reader on it (`io::read::check`), as a ResourceList and as a stream.

use proptest::prelude::*;
use render_inference_identity::io::read::check;
use render_inference_identity::io::{self as krm, Env};
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
    let out = krm::run(input, &Env::default());
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
        let plugin = krm::plugin::run("apiVersion: fn.kleym.sonda.red/v1alpha1\nkind: RenderInferenceIdentity\nmetadata: {name: x}\nspec: {trustDomain: example.org}\n", &input, &Env::default());
        prop_assert!(plugin.exit_code == 0 || plugin.exit_code == 1);
    }

    #[test]
    fn arbitrary_text_never_crashes(input in ".{0,400}") {
        check_krm(&input)?;
        check::list(&input).map_err(TestCaseError::fail)?;
        check::stream(&input).map_err(TestCaseError::fail)?;
    }
}
