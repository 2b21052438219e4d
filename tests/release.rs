//! Where the project is published, written once: Cargo.toml's `repository`. Every address of
//! the project in the docs, samples and packaging files starts from it, the container image
//! is named after it (`ghcr.io/<owner>/<name>`), and no placeholder address is left.

mod common;

use common::*;
use std::path::{Path, PathBuf};

fn repository() -> String {
    package_field("repository")
}

/// The image the release publishes: `https://github.com/<owner>/<name>` as
/// `ghcr.io/<owner>/<name>`.
fn image() -> String {
    let repository = repository();
    let path = repository.strip_prefix("https://github.com/").expect("the repository is on GitHub");
    format!("ghcr.io/{}", path.to_ascii_lowercase())
}

/// The text files a reader or a tool takes addresses from: the docs, the samples and the
/// packaging files.
fn shipped_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for name in [
        "README.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
        "Cargo.toml",
        "Dockerfile",
        "metadata.yaml",
        "plugin.yaml",
        ".pre-commit-hooks.yaml",
    ] {
        if root.join(name).is_file() {
            files.push(root.join(name));
        }
    }
    for dir in ["docs", "fn-config", "examples", "image", ".github"] {
        if !root.join(dir).is_dir() {
            continue;
        }
        for path in snapshot(&root.join(dir)).keys() {
            files.push(root.join(dir).join(path));
        }
    }
    files
}

/// Each `http(s)://` address in `text`, to the first character that ends one in prose.
fn addresses(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("http") {
        let tail = &rest[at..];
        if tail.starts_with("https://") || tail.starts_with("http://") {
            let end =
                tail.find(|c: char| c.is_whitespace() || "\"'`<>)]},".contains(c)).unwrap_or(tail.len());
            found.push(&tail[..end]);
            rest = &tail[end..];
        } else {
            rest = &tail[4..];
        }
    }
    found
}

#[test]
fn every_address_of_the_project_starts_from_cargo_toml_s_repository() {
    let repository = repository();
    let image = image();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in shipped_files() {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for address in addresses(&text) {
            if address.contains("render-inference-identity") {
                seen += 1;
                if !address.starts_with(&repository) {
                    wrong.push(format!("{}: {address}", file.display()));
                }
            }
        }
        for (at, _) in text.match_indices("/render-inference-identity:") {
            let start =
                text[..at].rfind(|c: char| c.is_whitespace() || "`\"'=".contains(c)).map_or(0, |i| i + 1);
            let reference = text[start..at].trim_start_matches("oci://");
            if reference.contains('.') && !reference.starts_with("http") && !image.starts_with(reference) {
                wrong.push(format!("{}: image {reference}/render-inference-identity", file.display()));
            }
        }
        // The project's own placeholders; an address the reader fills in (their application's
        // repository) is theirs to write.
        let placeholders =
            [".example.com/render-inference-identity", ".example.org/render-inference-identity"];
        for placeholder in placeholders.into_iter().chain(["<your registry>", "your-org", "OWNER/", "<org>"])
        {
            if text.contains(placeholder) {
                wrong.push(format!("{}: placeholder {placeholder:?}", file.display()));
            }
        }
    }
    assert!(seen > 3, "found only {seen} addresses of the project: is the scan reading the files?");
    assert!(
        wrong.is_empty(),
        "addresses that do not start from {repository} or {image}:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_address_finder_reads_addresses_as_prose_ends_them() {
    assert_eq!(
        addresses("see (https://a.example/x), `http://b/y` and https://c/z.\nno"),
        ["https://a.example/x", "http://b/y", "https://c/z."]
    );
}

#[test]
fn the_dockerfile_s_label_defaults_are_cargo_toml_s() {
    let dockerfile = repo_file("Dockerfile");
    let arg = |name: &str| {
        let prefix = format!("ARG {name}=");
        dockerfile
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("the Dockerfile has no {prefix}"))
            .to_string()
    };
    assert_eq!(arg("VERSION"), package_field("version"));
    assert_eq!(arg("SOURCE"), repository());
    for (label, value) in [
        ("title", package_field("name")),
        ("description", package_field("description")),
        ("licenses", package_field("license")),
    ] {
        let line = format!("org.opencontainers.image.{label}=\"{value}\"");
        assert!(dockerfile.contains(&line), "the Dockerfile has no {line}");
    }
}

/// The fields the kpt functions catalog's metadata schema allows (kptdev/krm-functions-catalog
/// `scripts/generate_docs/metadata-schema.json` at 2dc54e94: no other field, the first three
/// required), and the tags it allows.
const CATALOG_FIELDS: [&str; 7] =
    ["image", "description", "tags", "sourceURL", "examplePackageURLs", "license", "hidden"];
const CATALOG_TAGS: [&str; 12] = [
    "mutator",
    "validator",
    "viewer",
    "generator",
    "test",
    "testing",
    "timing",
    "Config Sync",
    "GCP",
    "blueprints",
    "name prefix",
    "name suffix",
];

#[test]
fn the_kpt_catalog_entry_holds_only_what_the_catalog_s_schema_allows() {
    let metadata =
        render_inference_identity::yaml::parse(&repo_file("metadata.yaml")).expect("metadata.yaml is YAML");
    let fields = metadata.as_object().expect("metadata.yaml is a mapping");
    for field in fields.keys() {
        assert!(CATALOG_FIELDS.contains(&field.as_str()), "the catalog refuses the field {field:?}");
    }
    for field in &CATALOG_FIELDS[..3] {
        assert!(fields.contains_key(*field), "the catalog requires {field:?}");
    }
    assert!(metadata["image"].as_str().is_some_and(|i| i.starts_with("ghcr.io/")), "the image is on ghcr.io");
    let tags = metadata["tags"].as_array().expect("tags is a list");
    assert!(!tags.is_empty());
    for tag in tags {
        assert!(tag.as_str().is_some_and(|t| CATALOG_TAGS.contains(&t)), "the catalog refuses the tag {tag}");
    }
}

#[test]
fn the_kpt_catalog_entry_names_the_repository_and_the_image() {
    let metadata =
        render_inference_identity::yaml::parse(&repo_file("metadata.yaml")).expect("metadata.yaml is YAML");
    assert_eq!(metadata["image"], image());
    assert_eq!(metadata["sourceURL"], repository());
    assert_eq!(metadata["license"], package_field("license"));
    let examples = metadata["examplePackageURLs"].as_array().expect("examplePackageURLs is a list");
    assert!(!examples.is_empty());
    for url in examples {
        let url = url.as_str().unwrap();
        let folder = url
            .strip_prefix(&format!("{}/tree/main/", repository()))
            .unwrap_or_else(|| panic!("{url} is not a folder of the repository's main branch"));
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(folder).join("Kptfile").is_file(),
            "{url}: no kpt package"
        );
    }
}
