//! KRM function mode: a `config.kubernetes.io/v1` ResourceList in, one out, with results
//! (kpt fn eval and render, kustomize KRM function transformers). [`run`] holds the whole
//! exchange apart from the process itself, so tests call it directly; it is a [`Mode`] of
//! the one pipeline.

use super::krm_results::{self, KrmResult};
use super::pipeline::{self, Finished, Mode, Output, Stdout, Stop};
use super::process::Env;
use super::read::{
    self, ListError, Options, RESOURCE_LIST_API_VERSION, RESOURCE_LIST_KIND, Reader, ResourceList,
};
use super::wording::ItemOrigin;
use super::write::{self, Form, Source};
use crate::api::fields;
use crate::config::{self, Config, ConfigError};
use crate::reconcile::input::Input;
use crate::reconcile::item::Item;
use crate::reconcile::ownership::{self, Overlap};
use crate::reconcile::{Outcome, Plan, Severity, file_slots};
use crate::yaml;
use serde_json::{Map, Value};
use std::io::Write;

/// How to set the trust domain in the KRM modes.
pub const TRUST_DOMAIN_HINT: &str =
    "set spec.trustDomain in the functionConfig (data.trustDomain in its ConfigMap form)";

/// Runs the function on the text of a ResourceList, read by `reader`. The output is written
/// only when asked ([`Finished::write_to`]); the input text is kept to copy items from.
pub fn run(input: String, env: &Env, reader: Reader) -> Finished {
    pipeline::run(Krm::new(input, reader), env)
}

/// The output for input that could not even be read (for example not UTF-8): a ResourceList
/// with one error result.
pub fn unreadable(message: &str) -> Finished {
    pipeline::stopped(Krm::new(String::new(), Reader::Fast), Stop::new(message))
}

/// The KRM mode: what it read, to write it back.
struct Krm {
    /// The input text, until it is read.
    input: String,
    reader: Reader,
    read: Read,
    function_config: Option<Value>,
    /// Each item's `kind`, by position, for messages.
    kinds: Vec<Option<String>>,
}

impl Krm {
    fn new(input: String, reader: Reader) -> Krm {
        let read = Read { text: String::new(), texts: Vec::new(), indent: 0 };
        Krm { input, reader, read, function_config: None, kinds: Vec::new() }
    }

    /// The output ResourceList of `items`, with `results`.
    fn list(self, items: Vec<Item>, results: Results) -> Stdout {
        Some(Box::new(OutputList { items, read: self.read, function_config: self.function_config, results }))
    }

    /// A run stopped before a reconcile: the items unchanged, and one error result.
    fn stopped(self, stop: Stop) -> Stdout {
        let mut result = KrmResult::new(Severity::Error, stop.message);
        if let Some(field) = stop.field {
            result = result.with_field(field);
        }
        let items = stop.items.into_iter().enumerate().map(|(i, item)| Item::Input(i, item)).collect();
        self.list(items, Results::Stopped(result))
    }
}

impl Mode for Krm {
    const TRUST_DOMAIN_HINT: &'static str = TRUST_DOMAIN_HINT;

    fn load(&mut self) -> Result<(Vec<Input>, Config), Stop> {
        let ResourceList { text, function_config, parts, indent } =
            read::list(std::mem::take(&mut self.input), Options { reader: self.reader }).map_err(
                |ListError { message, function_config }| {
                    self.function_config = function_config;
                    Stop::new(message)
                },
            )?;
        let refused = parts.iter().enumerate().find_map(|(i, p)| Some((i, p.head.refusal()?)));
        self.kinds = parts.iter().map(|p| p.head.kind.clone()).collect();
        let (items, texts): (Vec<_>, Vec<_>) = parts.into_iter().map(|p| (p.input, p.text)).unzip();
        self.read = Read { text, texts, indent };
        self.function_config = function_config;
        // Refused in every mode, as the files modes refuse it; the items go out unchanged.
        if let Some((i, refusal)) = refused {
            let message = format!("{}: {refusal}", ItemOrigin::Entry(i));
            return Err(Stop { message, field: None, items });
        }
        match config::from_function_config(self.function_config.as_ref()) {
            Ok(config) => Ok((items, config)),
            Err(e) => Err(Stop::config(e, items)),
        }
    }

    fn origin(&self, position: usize) -> ItemOrigin {
        ItemOrigin::Entry(position)
    }

    fn check(&self, plan: &Plan, items: &[Input], config: &Config) -> Result<(), ConfigError> {
        output_path_check(plan, items, &self.kinds, config, self.function_config.as_ref())
    }

    /// Every item, new outputs with their file annotations, and the results; also when the
    /// run exits 1, as kpt reads a failed function's results from stdout. A run that stopped
    /// before a reconcile gives its items unchanged and one error result.
    fn written(self, run: Result<Outcome, Stop>) -> Stdout {
        let mut outcome = match run {
            Ok(outcome) => outcome,
            Err(stop) => return self.stopped(stop),
        };
        // The results are made as they are written, from the findings; nothing else of the
        // outcome is written.
        outcome.coverage = Default::default();
        let mut items = std::mem::take(&mut outcome.items);
        for item in &mut items {
            match item {
                Item::Rendered(object, slot) => {
                    if let Some((path, index)) = slot.take() {
                        annotate(&mut object.metadata.annotations, &path, index);
                    }
                }
                Item::Guard(object, slot) => {
                    if let Some((path, index)) = slot.take() {
                        annotate(&mut object.metadata_mut().annotations, &path, index);
                    }
                }
                _ => {}
            }
        }
        self.list(items, Results::Reconciled(Box::new(outcome)))
    }
}

/// Puts a new output's file slot in its path and index annotations, in both forms.
fn annotate(target: &mut serde_json::Map<String, Value>, path: &str, index: u64) {
    let index = Value::String(index.to_string());
    target.insert(file_slots::LEGACY_INDEX.into(), index.clone());
    target.insert(file_slots::LEGACY_PATH.into(), Value::String(path.into()));
    target.insert(file_slots::INDEX.into(), index);
    target.insert(file_slots::PATH.into(), Value::String(path.into()));
}

/// Refuses an `outputPath` (or the guard's `admissionGuard.outputPath`) that puts a new
/// output in a file of the package's own: one that holds an input item other than this
/// function's outputs (a binding, a Deployment, the Kptfile), or the functionConfig's file.
/// kpt would write the outputs into that file.
fn output_path_check(
    plan: &Plan,
    items: &[Input],
    kinds: &[Option<String>],
    config: &config::Config,
    function_config: Option<&Value>,
) -> Result<(), ConfigError> {
    let prefix = match function_config.and_then(|fc| fc.get("kind")).and_then(Value::as_str) {
        Some("ConfigMap") => "data.",
        _ => "spec.",
    };
    output_path_clash(
        plan.output_names(),
        &config.output_path,
        "outputPath",
        "ClusterSPIFFEID",
        items,
        kinds,
        function_config,
    )
    .map_err(|e| ConfigError { field: format!("{prefix}{}", e.field), ..e })?;
    if let Some(guard) = &config.admission_guard {
        let field = "admissionGuard.outputPath";
        output_path_clash(
            plan.guard_names(),
            &guard.output_path,
            field,
            "admission guard object",
            items,
            kinds,
            function_config,
        )
        .map_err(|e| ConfigError { field: format!("{prefix}{}", e.field), ..e })?;
    }
    Ok(())
}

/// The error of the first of `names` whose file (`template` with the name) is one of the
/// package's own; `field` names the setting, `what` the outputs.
fn output_path_clash<'a>(
    names: impl Iterator<Item = &'a str>,
    template: &str,
    field: &str,
    object: &str,
    items: &'a [Input],
    kinds: &[Option<String>],
    function_config: Option<&'a Value>,
) -> Result<(), ConfigError> {
    let refuse = |clash: &ownership::Clash<'_>, what: String| {
        let (name, path, held) = (clash.name, &clash.path, &clash.held);
        let place = match clash.overlap {
            Overlap::Same => format!("{held}, which holds {what}: kpt would write the output into that file"),
            Overlap::Case => format!(
                "{path}, the file {held} on a case-insensitive disk (macOS), which holds {what}: kpt \
                 would write the output into that file"
            ),
            Overlap::UnderFile => {
                format!("{path}, under {held}, a file that holds {what}: kpt cannot make a folder there")
            }
            Overlap::OnFolder => {
                format!("{path}, a folder where {held} holds {what}: kpt cannot write a file there")
            }
        };
        let default = match field {
            "outputPath" => config::DEFAULT_OUTPUT_PATH,
            _ => config::DEFAULT_GUARD_OUTPUT_PATH,
        };
        ConfigError {
            field: field.to_string(),
            message: format!(
                "{template:?} puts {object} {name} in {place}. Choose a path no input file uses, \
                 such as the default {default}"
            ),
        }
    };
    let Some(clash) = ownership::clash(names, template, items, function_config) else {
        return Ok(());
    };
    let what = match clash.holder {
        ownership::Holder::Config => "this function's own config".to_string(),
        ownership::Holder::Item(at) => {
            let kind = kinds.get(at).cloned().flatten().unwrap_or_else(|| "object".to_string());
            match items[at]
                .value()
                .and_then(|v| fields::child(v, &["metadata", "name"]))
                .and_then(crate::api::value::Value::as_str)
            {
                Some(object) => format!("input item {} ({kind} {object})", ItemOrigin::Entry(at)),
                None => format!("input item {} ({kind})", ItemOrigin::Entry(at)),
            }
        }
    };
    Err(refuse(&clash, what))
}

/// The input text items are copied from, with where each item stands in it.
struct Read {
    text: String,
    texts: Vec<read::ItemText>,
    indent: usize,
}

/// The output ResourceList.
struct OutputList {
    items: Vec<Item>,
    read: Read,
    function_config: Option<Value>,
    results: Results,
}

/// The results an output list ends with: never none.
enum Results {
    /// A run stopped before a reconcile: its error.
    Stopped(KrmResult),
    /// A reconcile's, made a part at a time as they are written
    /// ([`krm_results::each_part`]); its items are the list's.
    Reconciled(Box<Outcome>),
}

impl Output for OutputList {
    /// Writes the ResourceList as YAML to `out`; the items, the bulk of it, through
    /// [`write::items`], which copies what it can from the input text.
    fn write_to(&self, out: &mut dyn Write) -> Result<(), String> {
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
            let sources: Vec<Source<'_>> =
                self.read.texts.iter().map(|item| Source { text: &self.read.text, item }).collect();
            write::items(&mut out, &self.items, &sources, Form::List { indent: self.read.indent })?;
        }
        let mut tail = Map::new();
        if let Some(fc) = &self.function_config {
            tail.insert("functionConfig".into(), fc.clone());
        }
        let mut list = yaml::ListWriter::start(&mut out, &tail, "results")?;
        match &self.results {
            Results::Stopped(error) => list.part(std::slice::from_ref(error))?,
            Results::Reconciled(outcome) => {
                krm_results::each_part(outcome, &self.items, TRUST_DOMAIN_HINT, |part| list.part(part))?
            }
        }
        out.flush().map_err(|e| e.to_string())
    }
}
