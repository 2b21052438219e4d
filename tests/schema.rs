//! The functionConfig's JSON schema (`render-inference-identity schema`): it accepts what
//! the validation accepts, the copy checked in for editors is current, and every shipped
//! sample of the typed form is valid against it and names it on its
//! `# yaml-language-server: $schema=` line.

mod common;

use common::*;
use render_inference_identity::config;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The checked-in copy, relative to the repository.
const SCHEMA_FILE: &str = "fn-config/schema.json";

/// The line that points an editor at the schema.
const MODELINE: &str = "# yaml-language-server: $schema=";

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&config::json_schema()).expect("the schema compiles")
}

/// Whether the function runs with `document` as its functionConfig: it reads, validates,
/// and has a trust domain (without one every run fails).
fn function_accepts(document: &Value) -> bool {
    config::from_function_config(Some(document)).is_ok_and(|c| c.trust_domain.is_some())
}

/// A change to a whole functionConfig document.
type Change = fn(&mut Value);

fn valid_config() -> Value {
    json!({
        "apiVersion": config::API_VERSION,
        "kind": config::KIND,
        "metadata": {"name": "render-inference-identity"},
        "spec": {"trustDomain": "example.org"},
    })
}

#[test]
fn the_schema_accepts_exactly_what_the_validation_accepts() {
    let spec_values: Vec<(&str, Vec<Value>)> = vec![
        (
            "trustDomain",
            vec![
                json!("example.org"),
                json!("a_b-c.d9"),
                json!("a".repeat(255)),
                json!("a".repeat(256)),
                json!("Example.org"),
                json!("spiffe://example.org"),
                json!("example.org/path"),
                json!("example org"),
                json!(""),
                Value::Null,
                json!(3),
            ],
        ),
        ("className", vec![json!(""), json!("spire"), json!(" spire"), json!("a b"), Value::Null, json!(3)]),
        ("classNameLabel", vec![json!(true), json!(false), json!("true"), Value::Null]),
        (
            "spireControllerManager",
            vec![
                json!({"filterByClassName": true}),
                json!({"filterByClassName": true, "className": ""}),
                json!({"filterByClassName": true, "className": "spire-system-spire"}),
                json!({"filterByClassName": false}),
                json!({"filterByClassName": "true"}),
                json!({"clusterSPIFFEIDLabelSelector": {"tier": "child", "example.com/x": ""}}),
                json!({"clusterSPIFFEIDLabelSelector": "tier=child"}),
                json!({"clusterSPIFFEIDLabelSelector": {"tier": 1}}),
                json!({"clusterSPIFFEIDLabelSelector": null}),
            ],
        ),
        ("failurePolicy", vec![json!("Report"), json!("Fail"), json!("fail"), json!(true), Value::Null]),
        (
            "workloadPolicy",
            vec![json!("Report"), json!("Fail"), json!("Ignore"), json!("ignore"), json!(true), Value::Null],
        ),
        ("prune", vec![json!(true), json!(false), json!("true"), Value::Null]),
        (
            "apiVersions",
            vec![
                json!([]),
                json!(["v1", "apps/v1", "spire.spiffe.io/v1alpha1/ClusterSPIFFEID"]),
                json!(["a/b/c/d"]),
                json!(["a b/v1"]),
                json!(["/v1"]),
                json!(["v1/"]),
                json!(["apps//v1"]),
                json!([""]),
                json!([3]),
                json!("v1"),
                Value::Null,
            ],
        ),
        (
            "transitionTime",
            vec![
                json!("2026-01-01T00:00:00Z"),
                json!("2026-01-01T00:00:00.123+02:00"),
                json!(""),
                json!("yesterday"),
                json!("2026-01-01"),
                json!("2026-01-01T00:00:00"),
                Value::Null,
            ],
        ),
        (
            "outputPath",
            vec![
                json!("clusterspiffeids/{name}.yaml"),
                json!("all.yaml"),
                json!(".hidden/{name}.yaml"),
                json!("..x/y.yaml"),
                json!("a.../b"),
                json!("a..b/{name}.yaml"),
                json!("..{name}.yaml"),
                json!("{name}..yaml"),
                json!("a./b.yaml"),
                json!("Kptfile"),
                json!("pkg/Kptfile"),
                json!("Kptfile.yaml"),
                json!(""),
                json!("/abs/{name}.yaml"),
                json!("a/../b.yaml"),
                json!("./a.yaml"),
                json!("a//b.yaml"),
                json!("a\\b.yaml"),
                json!("a/"),
                json!("README.md"),
                json!("schema.json"),
                json!(".krmignore"),
                json!(".git/config"),
                json!("a/.b.yaml"),
                json!("Kptfile/{name}.yaml"),
                json!("kptfile/{name}.yaml"),
                json!("a/KPTFILE/b.yml"),
                json!("x.yml"),
                json!("x.YAML"),
                json!("my outputs/{name}.yaml"),
                json!("ünï/{name}.yaml"),
                json!("{nam}.yaml"),
                json!("{name}/id.yaml"),
                json!("A_b-C.9/{name}.v1.yaml"),
                Value::Null,
            ],
        ),
        ("noSuchField", vec![json!("x")]),
    ];
    let mut documents: Vec<(String, Value)> = Vec::new();
    for (field, values) in spec_values {
        for value in values {
            let mut doc = valid_config();
            doc["spec"][field] = value.clone();
            documents.push((format!("spec.{field}: {value}"), doc));
        }
    }
    let whole: [(&str, Change); 8] = [
        ("as shipped", |_| {}),
        ("apiVersion fn.kleym.sonda.red/v1", |d| d["apiVersion"] = json!("fn.kleym.sonda.red/v1")),
        ("kind SetLabels", |d| d["kind"] = json!("SetLabels")),
        ("no spec", |d| {
            d.as_object_mut().unwrap().remove("spec");
        }),
        ("spec null", |d| d["spec"] = Value::Null),
        ("metadata null", |d| d["metadata"] = Value::Null),
        ("no metadata", |d| {
            d.as_object_mut().unwrap().remove("metadata");
        }),
        ("an unknown top-level field", |d| d["data"] = json!({})),
    ];
    for (name, change) in whole {
        let mut doc = valid_config();
        change(&mut doc);
        documents.push((name.to_string(), doc));
    }

    let validator = validator();
    let disagreements: Vec<String> = documents
        .iter()
        .filter_map(|(name, doc)| {
            let (function, schema) = (function_accepts(doc), validator.is_valid(doc));
            (function != schema).then(|| {
                let verdict = |ok| if ok { "accepts" } else { "refuses" };
                format!("{name}: the function {}, the schema {}", verdict(function), verdict(schema))
            })
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "schema and validation disagree (fix the schemars attributes in core/src/config.rs):\n{}",
        disagreements.join("\n")
    );
}

#[test]
fn the_checked_in_schema_is_the_one_the_binary_prints() {
    let out = Command::new(BIN).arg("schema").output().expect("the binary runs");
    assert_success(&out);
    assert!(
        stdout(&out) == repo_file(SCHEMA_FILE),
        "{SCHEMA_FILE} is stale: run `cargo run -- schema > {SCHEMA_FILE}`"
    );
}

/// The `.yaml` files under `dir`, recursively.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("listing {}: {e}", dir.display())) {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            files.extend(yaml_files(&path));
        } else if path.extension().is_some_and(|e| e == "yaml") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The documents of the typed form in `text`.
fn typed_configs(text: &str) -> Vec<Value> {
    documents(text).into_iter().filter(|d| d["kind"] == config::KIND).collect()
}

#[test]
fn every_shipped_sample_is_valid_and_names_the_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema_file = root.join(SCHEMA_FILE).canonicalize().expect("the schema file exists");
    let validator = validator();
    let mut checked = Vec::new();
    for file in yaml_files(&root.join("fn-config")) {
        let text = read(&file);
        let configs = typed_configs(&text);
        if configs.is_empty() {
            continue;
        }
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        for doc in &configs {
            let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{shown} is not valid against the schema: {errors:?}");
            assert!(function_accepts(doc), "{shown} is refused by the function");
        }
        let target = text
            .lines()
            .find_map(|line| line.strip_prefix(MODELINE))
            .unwrap_or_else(|| panic!("{shown} has no `{MODELINE}...` line"));
        // The schema itself, or a copy of it shipped beside the sample (the kpt package is
        // copied whole, so it carries its own), equal byte for byte.
        let resolved = file.parent().unwrap().join(target.trim()).canonicalize();
        let named = resolved.unwrap_or_else(|e| panic!("{shown}: {MODELINE}{target} names no file: {e}"));
        assert!(
            named == schema_file || read(&named) == read(&schema_file),
            "{shown}: {MODELINE}{target} is neither {SCHEMA_FILE} nor an equal copy of it"
        );
        checked.push(shown);
    }
    assert!(checked.len() >= 3, "only {checked:?} found: the typed samples moved?");

    // The README's samples of the typed form, and its modeline.
    let readme = repo_file("README.md");
    let blocks: Vec<&str> = readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("\n```").map(|(b, _)| b))
        .collect();
    let readme_configs: Vec<Value> = blocks.iter().flat_map(|b| typed_configs(b)).collect();
    assert!(!readme_configs.is_empty(), "the README shows no typed functionConfig");
    for doc in &readme_configs {
        let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "a README sample is not valid against the schema: {errors:?}\n{doc}");
    }
    assert!(blocks.iter().any(|b| b.contains(MODELINE)), "the README shows no {MODELINE} line");
}

/// The reference names every setting: each top-level key as a row of the function
/// configuration table, each nested key, and each flag with its variable's scheme.
#[test]
fn the_reference_names_every_setting_and_its_flag() {
    let reference =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md"))
            .unwrap();
    for setting in render_inference_identity::config::settings() {
        let top = setting.key.split('.').next().unwrap();
        assert!(reference.contains(&format!("| `{top}` |")), "no table row for {top}");
        assert!(reference.contains(&format!("`{}`", setting.key)), "{} is not named", setting.key);
        assert!(reference.contains(&format!("`--{}`", setting.flag)), "--{} is not named", setting.flag);
    }
}
