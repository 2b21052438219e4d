//! The kustomize exec plugin protocol: the plugin config file as first argument (also in
//! `KUSTOMIZE_PLUGIN_CONFIG_STRING`, see [`read_config`]), a plain YAML stream on stdin, a
//! plain stream back.
//! kustomize matches returned items to its own by `kustomize.config.k8s.io/id`, which
//! passes through untouched; new outputs are added, removed ones dropped.

use super::pipeline::{self, Finished, Mode, Stdout, Stop};
use super::process::Env;
use super::read::{self, Options, Stream};
use super::wording::{self, ItemOrigin};
use super::write::Documents;
use crate::config::{self, Config};
use crate::reconcile::Outcome;
use crate::reconcile::input::Input;
use crate::yaml;
use std::path::Path;

/// How to set the trust domain in this mode.
const TRUST_DOMAIN_HINT: &str = "set spec.trustDomain in the plugin config listed under transformers: \
                                 (data.trustDomain in its ConfigMap form)";

/// The plugin config text. kustomize writes the config to a temporary file, passes its path
/// as the first argument, and also sets `KUSTOMIZE_PLUGIN_CONFIG_STRING` to the same text
/// (unless it is over 128 KiB). The file is what counts: a file that cannot be read is an
/// error of its own, never replaced by the variable. Only when no file exists at that path
/// (the plugin runs where kustomize's temporary folder is not visible) is `from_env`, the
/// variable's value, used.
pub fn read_config(path: &Path, from_env: Option<String>) -> Result<String, String> {
    std::fs::read_to_string(path).or_else(|e| match from_env {
        Some(text) if e.kind() == std::io::ErrorKind::NotFound => Ok(text),
        _ => Err(format!("reading the plugin config {}: {e}", path.display())),
    })
}

/// Runs as a kustomize exec plugin on the config text and the stdin stream.
pub fn run(config_text: &str, input: String, env: &Env) -> Finished {
    pipeline::run(Plugin { config_text, input, stream: None }, env)
}

/// The exec plugin mode: its config text, and the stream read from stdin.
struct Plugin<'c> {
    config_text: &'c str,
    /// The input text, until it is read.
    input: String,
    stream: Option<Stream>,
}

impl Mode for Plugin<'_> {
    const TRUST_DOMAIN_HINT: &'static str = TRUST_DOMAIN_HINT;

    /// The config first: without one, the stream is not worth reading.
    fn load(&mut self) -> Result<(Vec<Input>, Config), Stop> {
        let config_value = yaml::parse(self.config_text)
            .map_err(|e| Stop::new(format!("the plugin config is not readable YAML: {e}")))?;
        let config =
            config::from_function_config(Some(&config_value)).map_err(|e| Stop::new(e.to_string()))?;
        let mut stream = read::stream(std::mem::take(&mut self.input), Options::default())
            .map_err(|e| Stop::new(format!("the resources on stdin are not readable: {e}")))?;
        let items = stream
            .parts
            .iter_mut()
            .map(|p| std::mem::replace(&mut p.input, Input::Passed(Default::default())))
            .collect();
        self.stream = Some(stream);
        Ok((items, config))
    }

    fn origin(&self, position: usize) -> ItemOrigin {
        ItemOrigin::document(wording::STDIN, position)
    }

    /// The stream, unless the run stops or fails: nothing half-rendered reaches kustomize.
    fn written(self, run: Result<Outcome, Stop>) -> Stdout {
        let outcome = run.ok().filter(|o| !o.has_errors())?;
        let stream = self.stream.expect("a reconciled run has read its stream");
        let kept = (0..stream.parts.len()).map(|i| (0, i)).collect();
        Some(Box::new(Documents { items: outcome.items, streams: vec![stream], kept }))
    }
}
