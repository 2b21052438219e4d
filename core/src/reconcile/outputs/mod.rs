//! The outputs and who owns them: which outputs the function may write, replace or prune
//! (`ownership`), and the managed outputs a run replaces or removes (`stale`).

pub mod ownership;
pub mod stale;
