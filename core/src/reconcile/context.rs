//! What the reconcile needs beside the items: the configuration and what the environment
//! adds to it.

use crate::config::Config;
use k8s_openapi::jiff::Timestamp;

/// What the reconcile needs beside the items.
pub struct Context<'c> {
    pub config: &'c Config,
    /// Served APIs listed by the environment (`KUBE_API_VERSIONS`), beside the config's.
    pub env_api_versions: Vec<String>,
    /// `lastTransitionTime` of conditions that change.
    pub transition_time: Timestamp,
}
