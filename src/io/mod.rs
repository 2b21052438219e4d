//! The edges: how items arrive and leave in each mode. All read through one text-preserving
//! reader ([`read`]) and write through one writer ([`write`]): the KRM ResourceList
//! ([`krm`], kpt and kustomize KRM functions), the kustomize exec plugin's plain stream
//! ([`plugin`]), and files and folders ([`render`], Argo CD and CI; [`explain`], the view a
//! person reads). They run one pipeline ([`pipeline`]) and word what the reconcile returns
//! in one place ([`wording`]; the KRM results in [`krm_results`]), and hand the process
//! what it writes and how it exits ([`process`]).

mod app_folder;
mod applier;
pub mod diff;
pub mod explain;
pub mod files;
pub mod helm_stderr;
pub mod kptfile;
pub mod krm;
pub mod krm_results;
pub mod params;
mod passed_over;
pub mod pipeline;
pub mod plugin;
pub mod process;
pub mod read;
pub mod render;
pub mod wording;
pub mod write;

pub use pipeline::Finished;
pub use process::{Env, RunOutput, error_output, escape_controls, stderr_line, stderr_line_of};
