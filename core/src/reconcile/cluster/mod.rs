//! The cluster the input describes, as the SPIRE model and coverage read it: the workloads
//! and their pod templates (`workload.rs`, with each controller that makes pods declared in
//! `controllers/`, and the pool and pods KServe makes of an `LLMInferenceService` in
//! `kserve/`), what a label selector selects (`selector.rs`), and the rest of what they read
//! beside the bindings (`seen.rs`).

pub mod controllers;
pub mod kserve;
pub mod seen;
pub mod selector;
pub mod workload;
