//! KRM function mode: a `config.kubernetes.io/v1` ResourceList in, one out, with results
//! (kpt fn eval and render, kustomize KRM function transformers). [`run`] holds the whole
//! exchange apart from the process itself, so tests call it directly.

use super::read::{self, List, ListError, Options, RESOURCE_LIST_API_VERSION, RESOURCE_LIST_KIND, Reader};
use super::write::{self, Form, Source};
use super::{Env, RunError, TRUST_DOMAIN_HINT, input_error, reconcile_items, stderr_block, summary};
use crate::config::{self, ConfigError};
use crate::reconcile::input::Input;
use crate::reconcile::item::Item;
use crate::reconcile::results::{KrmResult, Severity};
use crate::reconcile::{Plan, files, ownership};
use crate::yaml;
use serde_json::{Map, Value};

/// What a KRM run produces: the output ResourceList, to be written, and the rest.
pub struct KrmOutput {
    pub list: OutputList,
    pub stderr: String,
    pub exit_code: i32,
}

/// Runs the function on the text of a ResourceList, the output held as text.
pub fn run(input: &str, env: &Env) -> super::RunOutput {
    run_with(input, env, Reader::Fast)
}

/// [`run`] with the reader asked for.
pub fn run_with(input: &str, env: &Env, reader: Reader) -> super::RunOutput {
    let out = evaluate_with(input.to_string(), env, reader);
    super::RunOutput { stdout: out.list.into_string(), stderr: out.stderr, exit_code: out.exit_code }
}

/// Runs the function on a ResourceList. The output is written only when asked, so a large
/// run never holds its output as text; the input text is kept to copy items from.
pub fn evaluate(input: String, env: &Env) -> KrmOutput {
    evaluate_with(input, env, Reader::Fast)
}

/// [`evaluate`] with the reader asked for.
pub fn evaluate_with(input: String, env: &Env, reader: Reader) -> KrmOutput {
    let List { text, function_config, parts, indent } = match read::list(input, Options { reader }) {
        Ok(list) => list,
        Err(ListError { message, function_config }) => {
            return fail(Read::empty(), function_config, message, None);
        }
    };
    let kinds: Vec<Option<String>> = parts.iter().map(|p| p.head.kind.clone()).collect();
    let (items, texts): (Vec<_>, Vec<_>) = parts.into_iter().map(|p| (p.input, p.text)).unzip();
    let read = Read { text, texts, indent };
    let config = match config::from_function_config(function_config.as_ref()) {
        Ok(config) => config,
        Err(e) => return fail(read.with(items), function_config, e.to_string(), Some(e.field)),
    };
    let check = |plan: &Plan, items: &[Input]| {
        output_path_check(plan, items, &kinds, &config, function_config.as_ref())
    };
    match reconcile_items(items, &config, env, true, TRUST_DOMAIN_HINT, check) {
        Err((RunError::Config(e), items)) => {
            fail(read.with(items), function_config, e.to_string(), Some(e.field))
        }
        Err((RunError::Input(e), items)) => fail(read.with(items), function_config, input_error(&e), None),
        Ok(mut outcome) => KrmOutput {
            stderr: {
                outcome.forget_workloads();
                summary(&outcome, &super::no_origin)
            },
            exit_code: i32::from(outcome.has_errors()),
            list: OutputList { items: outcome.items, read, function_config, results: outcome.results },
        },
    }
}

/// Refuses an `outputPath` that puts a new output in a file of the package's own: one that
/// holds an input item other than this function's outputs (a binding, a Deployment, the
/// Kptfile), or the functionConfig's file. kpt would write the outputs into that file.
fn output_path_check(
    plan: &Plan,
    items: &[Input],
    kinds: &[Option<String>],
    config: &config::Config,
    function_config: Option<&Value>,
) -> Result<(), ConfigError> {
    let template = config.output_path.as_str();
    let field = match function_config.and_then(|fc| fc.get("kind")).and_then(Value::as_str) {
        Some("ConfigMap") => "data.outputPath",
        _ => "spec.outputPath",
    };
    let refuse = |name: &str, path: &str, what: String| ConfigError {
        field: field.to_string(),
        message: format!(
            "{template:?} puts ClusterSPIFFEID {name} in {path}, which holds {what}: kpt would write the \
             output into that file. Choose a path no input file uses, such as the default {}",
            config::DEFAULT_OUTPUT_PATH
        ),
    };
    if let Some((name, path, at)) = ownership::clash(plan.output_names(), template, items) {
        let kind = kinds.get(at).cloned().flatten().unwrap_or_else(|| "object".to_string());
        let object = match items[at].value().and_then(|v| v.pointer("/metadata/name")).and_then(Value::as_str)
        {
            Some(object) => format!("{kind} {object}"),
            None => kind,
        };
        return Err(refuse(name, &path, format!("input item items[{at}] ({object})")));
    }
    let own = function_config.and_then(|fc| {
        [files::PATH, files::LEGACY_PATH]
            .iter()
            .find_map(|key| fc.pointer("/metadata/annotations")?.get(*key)?.as_str())
            .map(ownership::normal_path)
    });
    if let Some(own) = own {
        for name in plan.output_names() {
            if ownership::normal_path(&template.replace("{name}", name)) == own {
                return Err(refuse(name, &own, "this function's own config".to_string()));
            }
        }
    }
    Ok(())
}

/// The input text items are copied from, with where each item stands in it.
struct Read {
    text: String,
    texts: Vec<read::ItemText>,
    indent: usize,
}

impl Read {
    fn empty() -> (Read, Vec<Item>) {
        (Read { text: String::new(), texts: Vec::new(), indent: 0 }, Vec::new())
    }

    /// The input items, unchanged.
    fn with(self, items: Vec<crate::reconcile::input::Input>) -> (Read, Vec<Item>) {
        (self, items.into_iter().enumerate().map(|(i, item)| Item::Input(i, item)).collect())
    }
}

/// The output ResourceList.
pub struct OutputList {
    items: Vec<Item>,
    read: Read,
    function_config: Option<Value>,
    results: Vec<KrmResult>,
}

impl OutputList {
    /// Writes the ResourceList as YAML to `out`; the items, the bulk of it, through
    /// [`write::items`], which copies what it can from the input text.
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
            let sources: Vec<Source<'_>> =
                self.read.texts.iter().map(|item| Source { text: &self.read.text, item }).collect();
            write::items(&mut out, &self.items, &sources, Form::List { indent: self.read.indent })?;
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
    read: (Read, Vec<Item>),
    function_config: Option<Value>,
    message: String,
    field: Option<String>,
) -> KrmOutput {
    let (read, items) = read;
    let mut result = KrmResult::new(Severity::Error, message.clone());
    if let Some(field) = field.filter(|f| !f.is_empty()) {
        result = result.with_field(field);
    }
    KrmOutput {
        list: OutputList { items, read, function_config, results: vec![result] },
        stderr: stderr_block(&format!("error: {message}")),
        exit_code: 1,
    }
}

/// The output for input that could not even be read (for example not UTF-8).
pub fn run_error(message: &str) -> KrmOutput {
    fail(Read::empty(), None, message.to_string(), None)
}
