//! The integration suite: the tests that drive a real tool (kpt, kubectl's kustomize in two
//! versions, Helm 4, podman, util-linux's `script`, Microsoft's SARIF validator, git,
//! pre-commit, Go, Kubernetes' admission plugin built with Go) or read the corpus of real
//! manifests (the folder named by `RII_CORPUS`). Built only with the `integration` feature:
//! `cargo test --locked --features integration --test integration`. A missing tool or
//! corpus fails its tests with what to install or set (tests/tools.txt), never skips them.

#[path = "../common/mod.rs"]
mod common;
#[path = "../../benches/synthetic/mod.rs"]
mod synthetic;

mod admission;
mod examples;
mod explain_corpus;
mod git_diff;
mod gotypes;
mod helm;
mod image;
mod kpt;
mod kserve_names;
mod kustomize;
mod pre_commit;
mod release;
mod review_docs;
mod sarif;
mod terminal;
mod tools;
mod yaml_oracle;
