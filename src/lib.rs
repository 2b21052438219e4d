//! render-inference-identity: the identity reconcile of the kleym operator, run at build
//! time. `reconcile` is the behaviour of docs/reference.md, pure: items and configuration
//! in, items, statuses, outputs and results out. `io` holds the edges that read and write
//! it (the KRM ResourceList, the kustomize plugin stream, files and folders); they depend
//! on the reconcile, never the reverse.

pub mod allocator;
pub mod io;
pub mod yaml;

pub use render_inference_identity_core::{Context, Outcome, api, config, parallel, reconcile};
