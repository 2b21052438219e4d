//! The corpus of real upstream manifests (GAIE conformance, llm-d prefill/decode, the kleym
//! operator's reference environment; see its SOURCES.md) in the folder named by
//! `RII_CORPUS`, for tests on input nobody here wrote. Tests copy them into temporary
//! packages.

use std::path::PathBuf;

/// The message of a test that needs the corpus when `RII_CORPUS` does not name it.
pub const MISSING: &str = "the corpus of real manifests is missing: set RII_CORPUS to the folder of real manifests (the one holding SOURCES.md)";

/// The corpus folder, from `RII_CORPUS` only. Panics with [`MISSING`] when it is unset or
/// names a folder without SOURCES.md: a test that needs the corpus never passes without it.
pub fn dir() -> PathBuf {
    match std::env::var_os("RII_CORPUS").map(PathBuf::from) {
        Some(dir) if dir.join("SOURCES.md").is_file() => dir,
        Some(dir) => panic!("{MISSING}; RII_CORPUS={} has no SOURCES.md", dir.display()),
        None => panic!("{MISSING}; RII_CORPUS is unset"),
    }
}

/// Values for the llm-d templates' `${...}` placeholders (they are `envsubst` templates).
const LLM_D_VALUES: [(&str, &str); 11] = [
    ("${POOL_NAME}", "llama"),
    ("${EPP_NAME}", "llama-epp"),
    ("${TARGET_PORTS}", "\n  - number: 8000"),
    ("${DECODE_ROLE}", "decode"),
    ("${MODEL_NAME}", "meta-llama/Llama-3.1-8B-Instruct"),
    ("${SIDECAR_IMAGE}", "ghcr.io/llm-d/llm-d-routing-sidecar:v0.2.0"),
    ("${VLLM_DATA_PARALLEL_SIZE}", "1"),
    ("${VLLM_EXTRA_ARGS_P}", "--enforce-eager"),
    ("${VLLM_EXTRA_ARGS_D}", "--enforce-eager"),
    ("${VLLM_IMAGE}", "vllm/vllm-openai:v0.16.0"),
    ("${VLLM_REPLICA_COUNT_P}", "1"),
];

/// A corpus file as text; the llm-d templates with their placeholders filled in.
pub fn file(relative: &str) -> String {
    let path = dir().join(relative);
    let mut text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    if relative.starts_with("llm-d-pd/") {
        for (placeholder, value) in LLM_D_VALUES {
            text = text.replace(placeholder, value);
        }
        text = text.replace("${VLLM_REPLICA_COUNT_D}", "1");
    }
    text
}

/// The corpus manifests a render reads, by a file name for a package: all of GAIE's and
/// llm-d's, and the operator's reference environment without its kustomization and without
/// the end-to-end test's expected objects (the `-ready` bindings and ClusterSPIFFEIDs).
pub fn manifests() -> Vec<(String, String)> {
    let mut out = vec![("gaie-base.yaml".to_string(), file("gaie-conformance/base.yaml"))];
    for folder in ["llm-d-pd", "kleym-reference"] {
        let mut names: Vec<String> = std::fs::read_dir(dir().join(folder))
            .unwrap_or_else(|e| panic!("listing the corpus: {e}"))
            .map(|e| e.expect("a folder entry").file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".yaml") && n != "kustomization.yaml")
            .filter(|n| !(n.ends_with("-ready.yaml") || n.ends_with("clusterspiffeid.yaml")))
            .collect();
        names.sort();
        for name in names {
            out.push((format!("{folder}-{name}"), file(&format!("{folder}/{name}"))));
        }
    }
    out
}
