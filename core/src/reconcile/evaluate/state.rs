//! What the reconcile's phases share: each binding's record, narrowed phase by phase, and
//! what the reconcile reads of the input beside the bindings.

use crate::api::binding::{BindingInput, ConflictEntry};
use crate::reconcile::outputs::ownership::OutputIndex;
use crate::reconcile::rules::checks::Planned;
use crate::reconcile::rules::reason::Failure;
use crate::reconcile::rules::renames::Renames;
use crate::reconcile::rules::resolve::PoolIndex;
use crate::reconcile::rules::served::ServedApis;

/// One binding through the reconcile: its input, and what the phases so far decided.
pub struct Binding<'i, 'a> {
    pub input: &'i BindingInput<'a>,
    /// The identity it renders, or the first check it fails.
    pub verdict: Result<Passing<'a>, Failure>,
    /// The peers it conflicts with (check 8).
    pub conflicts: Vec<ConflictEntry>,
    /// What it would render but for them, or but for another binding whose output has the
    /// same name: the kleym operator renders it whenever they do not stand beside it, and of
    /// two such bindings the one it reconciles first, so the SPIRE model takes it as a may-be
    /// object.
    pub withheld: Option<Passing<'a>>,
}

/// What a binding that passes its checks so far renders.
pub struct Passing<'a> {
    pub planned: Planned<'a>,
    /// Its ClusterSPIFFEID's name.
    pub output: String,
}

/// What the reconcile reads of the input beside the bindings.
pub struct InputIndex<'a> {
    pub pools: PoolIndex<'a>,
    pub outputs: OutputIndex<'a>,
    pub served: ServedApis,
    pub service_accounts: Renames<'a>,
}
