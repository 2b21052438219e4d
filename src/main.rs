//! The command line: KRM function mode by default (ResourceList on stdin and stdout), and
//! subcommands that print the functionConfig schema and the binding CRD.

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use kube_core::CustomResourceExt;
use render_inference_identity::api::binding::InferenceIdentityBinding;
use render_inference_identity::{config, krm, yaml};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Renders SPIRE ClusterSPIFFEIDs and status for InferenceIdentityBindings.
///
/// Without a subcommand, reads a config.kubernetes.io/v1 ResourceList on stdin and writes
/// one on stdout (kpt fn eval/render, kustomize KRM transformers).
#[derive(Parser)]
#[command(version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Print the JSON schema of the RenderInferenceIdentity functionConfig.
    Schema,
    /// Print the InferenceIdentityBinding CustomResourceDefinition as YAML.
    Crd,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("render-inference-identity: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Some(Command::Schema) => {
            let schema = serde_json::to_string_pretty(&config::json_schema())?;
            writeln!(out, "{schema}")?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Crd) => {
            let crd = yaml::write(&InferenceIdentityBinding::crd()).map_err(anyhow::Error::msg)?;
            out.write_all(crd.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .context("reading stdin")?;
            let result = match String::from_utf8(bytes) {
                Ok(text) => krm::run(&text, &krm::Env::from_process()),
                Err(e) => krm::run_error(&format!("input is not valid UTF-8: {e}")),
            };
            out.write_all(result.stdout.as_bytes())
                .context("writing stdout")?;
            out.flush()?;
            std::io::stderr().write_all(result.stderr.as_bytes())?;
            Ok(ExitCode::from(u8::try_from(result.exit_code).unwrap_or(1)))
        }
    }
}
