//! The cluster the input describes, as the SPIRE model and coverage read it: the workloads
//! and their pod templates (`workload.rs`, with what other controllers make in
//! `controllers.rs`, and the pool and pods KServe makes of an `LLMInferenceService` in
//! `kserve/`), what a label selector selects (`selector.rs`), and the rest of what they read
//! beside the bindings (`seen.rs`).

mod controllers;
pub mod kserve;
pub mod seen;
pub mod selector;
pub mod workload;
