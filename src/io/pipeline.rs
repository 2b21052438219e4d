//! The one pipeline of every mode: read the items and their configuration, reconcile, word
//! an error by where its item came from, say on stderr what happened, write. A mode
//! ([`Mode`]: the KRM ResourceList, the exec plugin's stream, the files of `render`) gives
//! only what differs: how it reads, where an item came from, what it refuses of a plan, how
//! the trust domain is set there, and what it writes. `explain` and `diff` read through the
//! same path up to the outcome ([`reconcile`]).

use super::process::{Env, RunOutput, stderr_block};
use super::wording::{self, ItemOrigin, Stderr};
use crate::config::{self, Config, ConfigError};
use crate::reconcile::input::Input;
use crate::reconcile::{self, Context, Model, Outcome, Plan, served};
use std::io::Write;

/// What differs between the modes.
pub trait Mode: Sync {
    /// How to set the trust domain in this mode, added to the error that asks for it.
    const TRUST_DOMAIN_HINT: &'static str;

    /// Reads the items and the configuration they run under, in the order the mode has them
    /// (a ResourceList holds its configuration; a render reads its configuration first, to
    /// leave that file out of the manifests).
    fn load(&mut self) -> Result<(Vec<Input>, Config), Stop>;

    /// Where the item at `position` came from.
    fn origin(&self, position: usize) -> ItemOrigin;

    /// Whether a failing binding's stderr line says where it came from: a render reads many
    /// files, while in one ResourceList or stream the binding's name is enough.
    fn names_origin(&self) -> bool {
        false
    }

    /// The text the item at `item` came from, as written, where the mode reads files.
    fn item_text(&self, _item: usize) -> Option<&str> {
        None
    }

    /// By position, the items an applier of the input may leave unapplied, which another
    /// applies: their pods may or may not exist. None by default.
    fn unapplied(&self) -> std::collections::BTreeSet<usize> {
        std::collections::BTreeSet::new()
    }

    /// Refuses a plan this mode could not write, before any item changes; none by default.
    fn check(&self, _plan: &Plan, _items: &[Input], _config: &Config) -> Result<(), ConfigError> {
        Ok(())
    }

    /// What stdout gets: after a reconcile, or when the run stopped before one.
    fn written(self, run: Result<Outcome, Stop>) -> Stdout;
}

/// Why a run stopped before it could reconcile: the message, the configuration field at
/// fault when one is, and the input items as they came (none when they could not be read).
#[derive(Debug)]
pub struct Stop {
    pub message: String,
    pub field: Option<String>,
    pub items: Vec<Input>,
}

impl Stop {
    /// A stop before any item was read.
    pub fn new(message: impl Into<String>) -> Stop {
        Stop { message: message.into(), field: None, items: Vec::new() }
    }

    /// A configuration error, with the items read.
    pub fn config(e: ConfigError, items: Vec<Input>) -> Stop {
        Stop { message: e.to_string(), field: Some(e.field).filter(|f| !f.is_empty()), items }
    }
}

/// What a mode writes on stdout, held until [`Finished::write_to`] is asked, so a large run
/// never holds its output as text.
pub type Stdout = Option<Box<dyn Output>>;

/// An output a mode writes.
pub trait Output {
    fn write_to(&self, out: &mut dyn Write) -> Result<(), String>;
}

/// What a run ends with: stdout to write, stderr to write after it, and the exit code.
pub struct Finished {
    stdout: Stdout,
    pub stderr: Stderr,
    pub exit_code: i32,
}

impl Finished {
    /// Writes stdout to `out` (nothing when the run writes nothing).
    pub fn write_to(&self, mut out: impl Write) -> Result<(), String> {
        if let Some(stdout) = &self.stdout {
            stdout.write_to(&mut out)?;
        }
        out.flush().map_err(|e| e.to_string())
    }
}

impl From<Finished> for RunOutput {
    /// The run with stdout as text.
    fn from(finished: Finished) -> RunOutput {
        let mut stdout = Vec::new();
        finished.write_to(&mut stdout).expect("writing to memory does not fail");
        let stdout = String::from_utf8(stdout).expect("YAML text is UTF-8");
        RunOutput { stdout, stderr: finished.stderr.to_text(), exit_code: finished.exit_code }
    }
}

/// Runs a mode: reconcile, then stderr and what it writes.
pub fn run<M: Mode>(mut mode: M, env: &Env) -> Finished {
    match reconcile(&mut mode, env, Model::Forget) {
        Err(stop) => stopped(mode, stop),
        Ok((mut outcome, _)) => {
            outcome.forget_workloads();
            crate::allocator::release_freed();
            let origin = |item| mode.names_origin().then(|| mode.origin(item));
            let stderr = Stderr::of(&outcome, M::TRUST_DOMAIN_HINT, origin);
            let exit_code = i32::from(outcome.has_errors());
            Finished { stdout: mode.written(Ok(outcome)), stderr, exit_code }
        }
    }
}

/// A run that stopped: the reason on stderr, exit 1, and what the mode writes then.
pub fn stopped<M: Mode>(mode: M, stop: Stop) -> Finished {
    let stderr = Stderr::text(stderr_block(&format!("error: {}", stop.message)));
    Finished { stdout: mode.written(Err(stop)), stderr, exit_code: 1 }
}

/// Reads and reconciles: the outcome with the configuration it ran under, or why the run
/// stopped, an input error named by the mode's [`Mode::origin`].
pub fn reconcile<M: Mode>(mode: &mut M, env: &Env, model: Model) -> Result<(Outcome, Config), Stop> {
    let (items, config) = mode.load()?;
    if let Err(e) = reconcile::guard::check(&config) {
        return Err(Stop::config(e, items));
    }
    let transition_time = match config::transition_time(&config, env.source_date_epoch.as_deref()) {
        Ok(t) => t,
        Err(e) => return Err(Stop::config(e, items)),
    };
    let env_api_versions = env
        .kube_api_versions
        .as_deref()
        .map(served::split_list)
        .into_iter()
        .flatten()
        .map(String::from)
        .collect();
    let release_freed = crate::allocator::release_freed;
    let unapplied = mode.unapplied();
    let texts: &M = mode;
    let written = |item: usize| texts.item_text(item);
    let ctx = Context {
        config: &config,
        env_api_versions,
        transition_time,
        model,
        release_freed,
        unapplied,
        written: &written,
    };
    let plan = match reconcile::plan(&items, &ctx) {
        Ok(plan) => plan,
        Err(e) => {
            let message = wording::input_error(&e, |item| mode.origin(item));
            return Err(Stop { message, field: None, items });
        }
    };
    if let Err(e) = mode.check(&plan, &items, &config) {
        return Err(Stop::config(e, items));
    }
    // The reconcile's working sets are freed: their pages go before the output is made.
    crate::allocator::release_freed();
    let outcome = plan.apply(items, &ctx);
    Ok((outcome, config))
}
