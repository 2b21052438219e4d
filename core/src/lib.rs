//! The identity reconcile of render-inference-identity, pure: items and configuration in,
//! items, statuses, outputs and results out (docs/architecture.md). It reads no file, runs no
//! process and words nothing for a mode: the crate above (`io`) does all of that, and this
//! crate cannot import it.
//!
//! Its rungs, from the ground up, each importing only those below: `api` (the wire types and
//! names), `pattern` (Go's regular expressions, as SPIRE Controller Manager compiles them) and
//! `parallel` (order-keeping work on all cores), `config` (the validated settings), then
//! `reconcile` (inputs, rules, outputs, coverage and the SPIRE model).

pub mod api;
pub mod config;
pub mod parallel;
pub mod pattern;
pub mod reconcile;

pub use reconcile::{Context, Outcome, reconcile};
