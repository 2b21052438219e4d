//! KRM function I/O: a `config.kubernetes.io/v1` ResourceList in, one out, with results.
//! `run` holds the whole exchange apart from the process itself, so tests call it directly;
//! `reconcile_items` is the part every mode shares.

mod app_folder;
mod output;
pub mod passthrough;
pub mod plugin;
pub mod render;
mod scan;
pub mod stream;

use crate::config::{self, Config, ConfigError};
use crate::reconcile::files::FileSlot;
use crate::reconcile::item::Item;
use crate::reconcile::results::{KrmResult, Severity};
use crate::reconcile::served;
use crate::reconcile::{self, Context, InputError, Outcome};
use crate::yaml;
use passthrough::Copies;
use serde_json::{Map, Value};

pub const RESOURCE_LIST_API_VERSION: &str = "config.kubernetes.io/v1";
pub const RESOURCE_LIST_KIND: &str = "ResourceList";

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
/// items come back untouched. `taken_slots` are the file slots of items passed without
/// their annotations; `trust_domain_hint` says how to set the trust domain in this mode.
pub fn reconcile_items(
    items: Vec<Value>,
    config: &Config,
    env: &Env,
    output_files: bool,
    taken_slots: Vec<FileSlot>,
    trust_domain_hint: &str,
) -> Result<Outcome, (RunError, Vec<Value>)> {
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
    let ctx =
        Context { config, env_api_versions, transition_time, output_files, taken_slots, trust_domain_hint };
    match reconcile::plan(&items, &ctx) {
        Err(e) => Err((RunError::Input(e), items)),
        Ok(plan) => Ok(plan.apply(items, &ctx)),
    }
}

/// The stderr lines of a finished reconcile: one per failing binding, and the missing
/// trust domain with how to set it in this mode.
pub fn summary(outcome: &Outcome, config: &Config, trust_domain_hint: &str) -> String {
    let mut stderr: String = outcome.failures.iter().map(|line| stderr_line(line)).collect();
    if config.trust_domain.is_none() {
        stderr.push_str(&stderr_line(&format!("error: trustDomain is required: {trust_domain_hint}")));
    }
    stderr
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

/// How a ResourceList is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Items the function does not own are not built, and leave as their input text
    /// ([`passthrough`]); input it cannot take that way is read whole.
    CopyUnowned,
    /// Every item is built as a value and written back: the reference the first is
    /// tested against.
    BuildAll,
}

/// Runs the function on the text of a ResourceList, the output held as text.
pub fn run(input: &str, env: &Env) -> RunOutput {
    run_with(input, env, Reading::CopyUnowned)
}

/// [`run`], reading the input as asked.
pub fn run_with(input: &str, env: &Env, reading: Reading) -> RunOutput {
    let out = evaluate_with(input.to_string(), env, reading);
    RunOutput { stdout: out.list.into_string(), stderr: out.stderr, exit_code: out.exit_code }
}

/// What a KRM run produces: the output ResourceList, to be written, and the rest.
pub struct KrmOutput {
    pub list: OutputList,
    pub stderr: String,
    pub exit_code: i32,
}

/// Runs the function on a ResourceList. The output is written only when asked, so a large
/// run never holds input and output both as text; the input text is kept only while items
/// are copied from it.
pub fn evaluate(input: String, env: &Env) -> KrmOutput {
    evaluate_with(input, env, Reading::CopyUnowned)
}

/// [`evaluate`], reading the input as asked.
pub fn evaluate_with(input: String, env: &Env, reading: Reading) -> KrmOutput {
    let read = read_resource_list(&input, reading);
    let ResourceList { items, function_config, copied, taken_slots } = match read {
        Ok(list) => list,
        Err((message, function_config)) => return fail(Vec::new(), function_config, message, None, None),
    };
    let copies = copied.map(|(entries, indent)| Copies::new(input, entries, indent));
    let config = match config::from_function_config(function_config.as_ref()) {
        Ok(config) => config,
        Err(e) => return fail(items, function_config, e.to_string(), Some(e.field), copies),
    };
    match reconcile_items(items, &config, env, true, taken_slots, TRUST_DOMAIN_HINT) {
        Err((RunError::Config(e), items)) => {
            fail(items, function_config, e.to_string(), Some(e.field), copies)
        }
        Err((RunError::Input(e), items)) => fail(items, function_config, input_error(&e), None, copies),
        Ok(outcome) => KrmOutput {
            stderr: summary(&outcome, &config, TRUST_DOMAIN_HINT),
            exit_code: i32::from(outcome.has_errors()),
            list: OutputList { items: outcome.items, function_config, results: outcome.results, copies },
        },
    }
}

struct ResourceList {
    items: Vec<Value>,
    function_config: Option<Value>,
    /// Where the entries of copied items are in the input, and their indentation.
    copied: Option<(Vec<Option<std::ops::Range<usize>>>, usize)>,
    /// The file slots of copied items, which come without their annotations.
    taken_slots: Vec<FileSlot>,
}

/// Reads a ResourceList. On error, the functionConfig comes back when it could be read, so
/// the error output still carries it.
fn read_resource_list(input: &str, reading: Reading) -> Result<ResourceList, (String, Option<Value>)> {
    let fast = match reading {
        Reading::CopyUnowned => passthrough::read(input),
        Reading::BuildAll => None,
    };
    let (mut map, copied, taken_slots) = match fast {
        Some(read) => {
            let mut map = read.list;
            map.insert("items".into(), Value::Array(read.items));
            (map, Some((read.entries, read.indent)), read.taken_slots)
        }
        None => {
            let value = yaml::parse(input)
                .map_err(|e| (format!("input is not a readable YAML document: {e}"), None))?;
            let Value::Object(map) = value else {
                return Err((
                    format!("input must be a ResourceList mapping, not a {}", yaml::type_name(&value)),
                    None,
                ));
            };
            (map, None, Vec::new())
        }
    };
    let function_config = map.remove("functionConfig").filter(|v| !v.is_null());
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind != RESOURCE_LIST_KIND {
        let message =
            format!("input kind is {kind:?}: expected a {RESOURCE_LIST_API_VERSION} ResourceList on stdin");
        return Err((message, None));
    }
    let items = match map.remove("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            let message = format!("ResourceList items must be a sequence, not a {}", yaml::type_name(&other));
            return Err((message, function_config));
        }
    };
    if let Some((i, item)) = items.iter().enumerate().find(|(_, item)| !item.is_object()) {
        return Err((
            format!("items[{i}] must be a mapping, not a {}", yaml::type_name(item)),
            function_config,
        ));
    }
    Ok(ResourceList { items, function_config, copied, taken_slots })
}

/// The output ResourceList.
pub struct OutputList {
    items: Vec<Item>,
    function_config: Option<Value>,
    results: Vec<KrmResult>,
    /// The input text of items that leave as they came.
    copies: Option<Copies>,
}

impl OutputList {
    /// Writes the ResourceList as YAML to `out`: the items, the bulk of it, as a sequence
    /// that [`output::write_items`] spreads over two threads.
    pub fn write_to<W: std::io::Write>(&self, out: W) -> Result<(), String> {
        let mut out = out;
        let mut head = Map::new();
        head.insert("apiVersion".into(), RESOURCE_LIST_API_VERSION.into());
        head.insert("kind".into(), RESOURCE_LIST_KIND.into());
        if self.items.is_empty() {
            head.insert("items".into(), Value::Array(Vec::new()));
            yaml::write_to(&mut out, &head)?;
        } else {
            yaml::write_to(&mut out, &head)?;
            out.write_all(b"items:\n").map_err(|e| e.to_string())?;
            output::write_items(&mut out, &self.items, self.copies.as_ref())?;
        }
        let mut tail = Map::new();
        if let Some(fc) = &self.function_config {
            tail.insert("functionConfig".into(), fc.clone());
        }
        if !self.results.is_empty() {
            tail.insert("results".into(), serde_json::to_value(&self.results).expect("results serialize"));
        }
        if !tail.is_empty() {
            yaml::write_to(&mut out, &tail)?;
        }
        out.flush().map_err(|e| e.to_string())
    }

    /// The ResourceList as YAML text.
    pub fn into_string(self) -> String {
        let mut out = Vec::new();
        self.write_to(&mut out).expect("a JSON-shaped value always writes as YAML");
        String::from_utf8(out).expect("YAML text is UTF-8")
    }
}

/// Unusable input or configuration: the items unchanged, one error result, exit 1.
fn fail(
    items: Vec<Value>,
    function_config: Option<Value>,
    message: String,
    field: Option<String>,
    copies: Option<Copies>,
) -> KrmOutput {
    let mut result = KrmResult::new(Severity::Error, message.clone());
    if let Some(field) = field.filter(|f| !f.is_empty()) {
        result = result.with_field(field);
    }
    KrmOutput {
        list: OutputList {
            items: items.into_iter().enumerate().map(|(i, item)| Item::Input(i, item)).collect(),
            function_config,
            results: vec![result],
            copies,
        },
        stderr: stderr_block(&format!("error: {message}")),
        exit_code: 1,
    }
}

/// The output for input that could not even be read (for example not UTF-8).
pub fn run_error(message: &str) -> KrmOutput {
    fail(Vec::new(), None, message.to_string(), None, None)
}
