//! Helm 4 runs a post-renderer plugin with its stderr in a buffer it never shows ("plugin ...
//! exited with error" is all it says), so a failing binding would fail `helm template` with no
//! word of why. Run as this project's Helm plugin (`HELM_PLUGIN_NAME` is its name), the
//! function writes its stderr where Helm's own goes, when it can share it:
//!
//! - on Linux, Helm's standard error itself, opened again through `/proc/<Helm>/fd/2`: a
//!   terminal, a pipe, or a file Helm appends to (`2>>`). Not a socket, which Linux does not let
//!   a process open that way, nor a file Helm writes without appending (`2>file`), where Helm's
//!   own error would land over the function's: there the messages are dropped, as Helm drops
//!   them;
//! - elsewhere (macOS), where no process can open another's descriptors, the controlling
//!   terminal (`/dev/tty`), where Helm's stderr goes when Helm runs at one; without one, the
//!   messages are dropped as Helm drops them.
//!
//! Helm's exit status still says the render failed; this only adds why.

use std::fs::{File, OpenOptions};

/// The plugin's name in plugin.yaml, which Helm passes as `HELM_PLUGIN_NAME`.
const PLUGIN_NAME: &str = "render-inference-identity";

/// When run as the Helm plugin, points this process's stderr where Helm's goes, if it can.
pub fn share() {
    let as_plugin = std::env::var_os("HELM_PLUGIN_NAME").is_some_and(|name| name == PLUGIN_NAME)
        && std::env::var_os("HELM_PLUGIN_DIR").is_some();
    if !as_plugin {
        return;
    }
    if let Some(target) = helm_stderr() {
        use std::os::fd::AsRawFd as _;
        // SAFETY: dup2 onto descriptor 2 replaces this process's stderr with an open file;
        // `target` stays open until the call returns, and nothing holds descriptor 2 as Rust
        // state (std's stderr writes to the descriptor number).
        unsafe {
            libc::dup2(target.as_raw_fd(), libc::STDERR_FILENO);
        }
    }
}

/// Helm's standard error, opened again for appending, when it can be shared.
#[cfg(target_os = "linux")]
fn helm_stderr() -> Option<File> {
    // SAFETY: getppid has no preconditions and cannot fail.
    let helm = unsafe { libc::getppid() };
    let path = format!("/proc/{helm}/fd/2");
    let target = std::fs::metadata(&path).ok()?;
    if target.is_file() {
        // A file: only when Helm appends to it, or Helm's error would be written over ours.
        let info = std::fs::read_to_string(format!("/proc/{helm}/fdinfo/2")).ok()?;
        let flags = info.lines().find_map(|l| l.strip_prefix("flags:"))?.trim();
        let flags = u32::from_str_radix(flags, 8).ok()?;
        if flags & libc::O_APPEND as u32 == 0 {
            return None;
        }
    }
    // A socket cannot be opened this way: the open fails and the messages stay with Helm.
    OpenOptions::new().append(true).open(&path).ok()
}

/// The controlling terminal, where Helm's stderr goes when Helm runs at one.
#[cfg(not(target_os = "linux"))]
fn helm_stderr() -> Option<File> {
    OpenOptions::new().append(true).open("/dev/tty").ok()
}
