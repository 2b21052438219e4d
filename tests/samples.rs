//! The shipped fn-config/ samples agree with each other: the two functionConfig forms carry
//! the same settings, a sample whose failurePolicy departs from the default says why, and
//! every sample that sets the trust domain says className (as the README's quick start does).

mod common;

use common::*;
use render_inference_identity::config::{self, Config, FailurePolicy, WorkloadPolicy};
use std::path::Path;

fn config_of(relative: &str) -> Config {
    let value = render_inference_identity::yaml::parse(&repo_file(relative))
        .unwrap_or_else(|e| panic!("{relative} is not YAML: {e}"));
    config::from_function_config(Some(&value)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

#[test]
fn both_function_config_forms_carry_the_same_settings() {
    let typed = config_of("fn-config/render-inference-identity.yaml");
    let config_map = config_of("fn-config/configmap.yaml");
    assert_eq!(typed, config_map, "fn-config/configmap.yaml says otherwise than the typed form");
    assert_eq!(typed.failure_policy, FailurePolicy::default(), "the general samples keep the default");
}

#[test]
fn a_policy_other_than_the_default_says_why() {
    let samples = [
        "fn-config/render-inference-identity.yaml",
        "fn-config/configmap.yaml",
        "fn-config/kpt/identity-config.yaml",
        "fn-config/kustomize/exec-plugin/RenderInferenceIdentity.yaml",
        "fn-config/kustomize/krm-exec/render-inference-identity.yaml",
    ];
    let mut departures = 0;
    for sample in samples {
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(sample).is_file(), "{sample} moved");
        let config = config_of(sample);
        let policies = [
            ("failurePolicy:", config.failure_policy != FailurePolicy::default()),
            ("workloadPolicy:", config.workload_policy != WorkloadPolicy::default()),
        ];
        for (key, departs) in policies.into_iter().filter(|(_, departs)| *departs) {
            departures += usize::from(departs);
            let text = repo_file(sample);
            let lines: Vec<&str> = text.lines().collect();
            let at = lines
                .iter()
                .position(|l| l.trim_start().starts_with(key))
                .unwrap_or_else(|| panic!("{sample} departs from the default {key} without a {key} line"));
            let comment: Vec<&str> =
                lines[..at].iter().rev().take_while(|l| l.trim_start().starts_with('#')).copied().collect();
            assert!(
                comment.iter().any(|l| l.contains("Report")),
                "{sample}: {key} departs from the default Report without a comment above it saying why"
            );
        }
    }
    // Both kustomize samples fail on failing bindings and on workload findings.
    assert_eq!(departures, 4, "the kustomize samples set failurePolicy and workloadPolicy to Fail");
}

#[test]
fn the_catalog_metadata_has_the_catalog_fields_and_the_crate_license() {
    let metadata =
        render_inference_identity::yaml::parse(&repo_file("metadata.yaml")).expect("metadata.yaml is YAML");
    for field in ["image", "description", "sourceURL", "license"] {
        assert!(metadata[field].as_str().is_some_and(|v| !v.is_empty()), "metadata.yaml has no {field}");
    }
    assert!(metadata["tags"].as_array().is_some_and(|tags| tags.iter().any(|t| t == "mutator")));
    let license = format!("license = \"{}\"", metadata["license"].as_str().unwrap());
    assert!(
        repo_file("Cargo.toml").contains(&license),
        "metadata.yaml and Cargo.toml name different licenses"
    );
    for url in metadata["examplePackageURLs"].as_array().expect("examplePackageURLs") {
        let folder = url.as_str().unwrap().rsplit_once("/tree/main/").expect("a folder URL").1;
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(folder).join("Kptfile").is_file(), "{url}");
    }
}

/// Every file of `fn-config/`, by path relative to the repository.
fn samples(folder: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            samples(&path, out);
        } else {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            out.push(path.strip_prefix(root).unwrap().to_string_lossy().into_owned());
        }
    }
}

#[test]
fn every_sample_that_sets_the_trust_domain_says_class_name() {
    let mut files = Vec::new();
    samples(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fn-config"), &mut files);
    // Helm's plugin, at the root where `helm plugin install <git URL>` reads it.
    files.push("plugin.yaml".to_string());
    files.sort();
    // The config's key, Argo CD's plugin env entry and parameter, the flag.
    let sets_trust_domain = ["trustDomain", "TRUST_DOMAIN", "trust-domain"];
    let sets_class_name = ["className", "CLASS_NAME", "class-name"];
    let mut setting = 0;
    for file in &files {
        let text = repo_file(file);
        if !sets_trust_domain.iter().any(|s| text.contains(s)) {
            continue;
        }
        setting += 1;
        assert!(
            sets_class_name.iter().any(|s| text.contains(s)),
            "{file} sets the trust domain and says nothing of className"
        );
        // Says why: a manager with a class ignores the classless.
        assert!(text.contains("ignore"), "{file} names className without saying that a manager ignores");
    }
    // The typed and ConfigMap configs, their schema twice, kpt's, both kustomize ones, Argo
    // CD's plugin, Helm's plugin.
    assert!(setting >= 9, "samples that set the trust domain: {setting} of {files:?}");
}

#[test]
fn the_quick_start_says_class_name() {
    let readme = repo_file("README.md");
    let start = readme.find("Quick start").expect("a quick start");
    let end = start + readme[start..].find("Run the tests").expect("the quick start ends");
    let quick_start = &readme[start..end];
    assert!(quick_start.contains("className"), "{quick_start}");
    assert!(quick_start.contains("IgnoredBySpire"), "{quick_start}");
}
