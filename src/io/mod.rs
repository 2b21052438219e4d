//! The edges: how items arrive and leave in each mode. All read through one text-preserving
//! reader ([`read`]) and write through one writer ([`write`]): the KRM ResourceList
//! ([`krm`], kpt and kustomize KRM functions), the kustomize exec plugin's plain stream
//! ([`plugin`]), and files and folders ([`render`], Argo CD and CI; [`explain`], the view a
//! person reads). This module holds what they share: the environment, the reconcile call,
//! and stderr.

pub mod annotations;
mod app_folder;
pub mod diff;
pub mod explain;
pub mod files;
pub mod kptfile;
pub mod krm;
pub mod plugin;
pub mod read;
pub mod render;
pub mod write;

use crate::config::{self, Config, ConfigError};
use crate::reconcile::input::Input;
use crate::reconcile::results::{Severity, Topic};
use crate::reconcile::served;
use crate::reconcile::{self, Context, InputError, Outcome, Plan};

pub use krm::{run, run_error};

/// How to set the trust domain in the KRM modes.
pub const TRUST_DOMAIN_HINT: &str =
    "set spec.trustDomain in the functionConfig (data.trustDomain in its ConfigMap form)";

/// The environment variables the function reads.
#[derive(Debug, Default, Clone)]
pub struct Env {
    pub kube_api_versions: Option<String>,
    pub source_date_epoch: Option<String>,
}

impl Env {
    pub fn from_process() -> Self {
        Env {
            kube_api_versions: std::env::var("KUBE_API_VERSIONS").ok(),
            source_date_epoch: std::env::var("SOURCE_DATE_EPOCH").ok(),
        }
    }
}

/// What the process writes and how it exits.
#[derive(Debug)]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

/// Why a run could not reconcile at all.
#[derive(Debug)]
pub enum RunError {
    Config(ConfigError),
    Input(InputError),
}

/// Reconciles items under a validated config: the part every mode shares. On error the
/// items come back untouched; `trust_domain_hint` says how to set the trust domain in this
/// mode, and is added to the result that asks for it. `check` sees the plan before any item changes (the KRM mode refuses outputs that
/// would land in the package's own files there).
pub fn reconcile_items(
    items: Vec<Input>,
    config: &Config,
    env: &Env,
    output_files: bool,
    trust_domain_hint: &str,
    check: impl FnOnce(&Plan, &[Input]) -> Result<(), ConfigError>,
) -> Result<Outcome, (RunError, Vec<Input>)> {
    let transition_time = match config::transition_time(config, env.source_date_epoch.as_deref()) {
        Ok(t) => t,
        Err(e) => return Err((RunError::Config(e), items)),
    };
    let env_api_versions = env
        .kube_api_versions
        .as_deref()
        .map(served::split_list)
        .into_iter()
        .flatten()
        .map(String::from)
        .collect();
    let ctx = Context { config, env_api_versions, transition_time, output_files };
    match reconcile::plan(&items, &ctx) {
        Err(e) => Err((RunError::Input(e), items)),
        Ok(plan) => match check(&plan, &items) {
            Err(e) => Err((RunError::Config(e), items)),
            Ok(()) => {
                let mut outcome = plan.apply(items, &ctx);
                for result in outcome.results.iter_mut().filter(|r| r.topic == Topic::TrustDomain) {
                    result.message = format!("{}: {trust_domain_hint}", result.message);
                }
                Ok(outcome)
            }
        },
    }
}

/// The stderr lines of a finished reconcile, each tagged with its severity: one per failing
/// binding (`origin` names where a binding came from, when the mode knows more than its
/// results say), one per finding, and last the missing trust domain with how to set it in
/// this mode.
pub fn summary(outcome: &Outcome, origin: &dyn Fn(usize) -> Option<String>) -> String {
    let mut stderr = String::new();
    let mut last = String::new();
    for result in &outcome.results {
        let line = match result.topic {
            Topic::Run => continue,
            Topic::TrustDomain => {
                last.push_str(&stderr_line(&format!(
                    "{}: {}",
                    severity_word(result.severity),
                    result.message
                )));
                continue;
            }
            Topic::Binding(item) => {
                let about = result.resource_ref.as_ref();
                let ns = about.and_then(|r| r.namespace.as_deref()).filter(|ns| !ns.is_empty());
                let name = about.map_or("", |r| r.name.as_str());
                let from = origin(item).map(|o| format!(" in {o}")).unwrap_or_default();
                format!(
                    "{}: {}/{name}{from}: {}",
                    severity_word(result.severity),
                    ns.unwrap_or("<no namespace>"),
                    result.message
                )
            }
            Topic::Finding(_) => format!("{}: {}", severity_word(result.severity), result.message),
        };
        stderr.push_str(&stderr_line(&line));
    }
    stderr.push_str(&last);
    stderr
}

/// How a severity reads in a line of text.
pub fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// No origin beyond what the results say.
pub fn no_origin(_: usize) -> Option<String> {
    None
}

/// One stderr line. Control characters (a newline in a binding name, say) are escaped, so
/// input can never forge a line of its own.
pub fn stderr_line(text: &str) -> String {
    escaped(text, false)
}

/// A stderr message that may span lines (a YAML error with its snippet, which the YAML
/// layer renders with control characters neutralized); other control characters are escaped.
fn stderr_block(text: &str) -> String {
    escaped(text, true)
}

fn escaped(text: &str, keep_newlines: bool) -> String {
    format!("render-inference-identity: {}\n", escape_controls(text.trim_end(), keep_newlines))
}

/// `text` with control characters escaped (`\n` as the two characters `\` `n`), except
/// newlines when `keep_newlines` is set.
pub fn escape_controls(text: &str, keep_newlines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && !(keep_newlines && c == '\n') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// An input error as one line: control characters in the input it quotes are escaped.
pub fn input_error(e: &InputError) -> String {
    escape_controls(&e.to_string(), false)
}

/// A run that failed before producing output, in the plain-stream modes: nothing on
/// stdout, the reason on stderr, exit 1.
pub fn error_output(message: &str) -> RunOutput {
    RunOutput { stdout: String::new(), stderr: stderr_block(&format!("error: {message}")), exit_code: 1 }
}
