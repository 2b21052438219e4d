//! What the reconcile needs beside the items: the configuration, what the environment adds
//! to it, and what the caller will read of the run.

use crate::config::Config;
use k8s_openapi::jiff::Timestamp;

/// What the reconcile needs beside the items.
pub struct Context<'c> {
    pub config: &'c Config,
    /// Served APIs listed by the environment (`KUBE_API_VERSIONS`), beside the config's.
    pub env_api_versions: Vec<String>,
    /// `lastTransitionTime` of conditions that change.
    pub transition_time: Timestamp,
    /// Whether the run keeps the simulated SPIRE Controller Manager in its outcome.
    pub model: Model,
    /// Gives the memory freed so far back to the system. The reconcile calls it where a
    /// phase has freed its working sets and the next makes large new ones, so that both are
    /// never resident together; an edge passes its allocator's, a test [`keep_freed`].
    pub release_freed: fn(),
    /// By position, the items an applier of the input may leave unapplied, which another
    /// applies (an Argo CD hook no sync runs, say): their pods may or may not exist, so the
    /// SVIDs they would hold are held only as `may`.
    pub unapplied: std::collections::BTreeSet<usize>,
    /// By position, the text an item came from as written, where the caller reads files:
    /// copies of one object that differ only where the model reads nothing still differ.
    pub written: &'c (dyn Fn(usize) -> Option<&'c str> + Sync),
}

impl<'c> Context<'c> {
    /// A context that keeps the model and leaves freed memory to the allocator.
    pub fn new(config: &'c Config, env_api_versions: Vec<String>, transition_time: Timestamp) -> Context<'c> {
        Context {
            config,
            env_api_versions,
            transition_time,
            model: Model::Keep,
            release_freed: keep_freed,
            unapplied: std::collections::BTreeSet::new(),
            written: &|_| None,
        }
    }
}

/// Whether a run keeps the simulated SPIRE Controller Manager once its findings are made:
/// `explain` shows what it holds; the modes that write drop it before coverage runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    Keep,
    Forget,
}

/// A [`Context::release_freed`] that leaves freed memory to the allocator.
pub fn keep_freed() {}
