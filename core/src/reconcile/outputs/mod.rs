//! The outputs and who owns them: which outputs the function may write, replace or prune
//! (`ownership`), the managed outputs a run replaces or removes (`stale`), and the admission
//! guard's objects, owned and placed the same way (`guard`).

pub mod guard;
pub mod ownership;
pub mod stale;
