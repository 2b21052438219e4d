//! The kustomize exec plugin protocol: the plugin config file as first argument (also in
//! `KUSTOMIZE_PLUGIN_CONFIG_STRING`, see [`read_config`]), a plain YAML stream on stdin, a
//! plain stream back.
//! kustomize matches returned items to its own by `kustomize.config.k8s.io/id`, which
//! passes through untouched; new outputs are added, removed ones dropped.

use super::read::{self, Options, Stream};
use super::write::{self, Form, Source};
use super::{Env, RunError, RunOutput, error_output, reconcile_items, summary};
use crate::config;
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
pub fn run(config_text: &str, input: &str, env: &Env) -> RunOutput {
    let config_value = match yaml::parse(config_text) {
        Ok(v) => v,
        Err(e) => return error_output(&format!("the plugin config is not readable YAML: {e}")),
    };
    let config = match config::from_function_config(Some(&config_value)) {
        Ok(c) => c,
        Err(e) => return error_output(&e.to_string()),
    };
    let Stream { text, parts } = match read::stream(input.to_string(), Options::default()) {
        Ok(stream) => stream,
        Err(e) => return error_output(&format!("the resources on stdin are not readable: {e}")),
    };
    let (items, texts): (Vec<_>, Vec<_>) = parts.into_iter().map(|p| (p.input, p.text)).unzip();
    match reconcile_items(items, &config, env, false, TRUST_DOMAIN_HINT, |_, _| Ok(())) {
        Err((RunError::Config(e), _)) => error_output(&e.to_string()),
        Err((RunError::Input(e), _)) => {
            error_output(&format!("resource {}: {}", e.item, super::escape_controls(&e.message, false)))
        }
        Ok(outcome) => {
            let stderr = summary(&outcome, &super::no_origin);
            if outcome.has_errors() {
                return RunOutput { stdout: String::new(), stderr, exit_code: 1 };
            }
            let sources: Vec<Source<'_>> = texts.iter().map(|item| Source { text: &text, item }).collect();
            let mut stdout = Vec::new();
            if let Err(e) = write::items(&mut stdout, &outcome.items, &sources, Form::Stream) {
                return error_output(&format!("writing the output: {e}"));
            }
            RunOutput { stdout: String::from_utf8(stdout).expect("YAML text is UTF-8"), stderr, exit_code: 0 }
        }
    }
}
