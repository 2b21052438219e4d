//! render-inference-identity: the identity reconcile of the kleym operator, run at build
//! time as a KRM function. `reconcile::reconcile` is the pure entry point; `krm::run` wraps
//! it in the ResourceList exchange.

pub mod api;
pub mod checks;
pub mod config;
pub mod conflict;
pub mod identity;
pub mod item;
pub mod krm;
pub mod names;
pub mod ownership;
pub mod parallel;
pub mod reason;
pub mod reconcile;
pub mod render;
pub mod resolve;
pub mod served;
pub mod status;
pub mod yaml;

pub use reconcile::{Context, Outcome, reconcile};
