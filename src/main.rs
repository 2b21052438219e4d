//! The command line. Modes: KRM function (default: ResourceList on stdin and stdout),
//! kustomize exec plugin (a plugin config file as the only argument), directory render
//! (`render`, for Argo CD and CI), and the `schema` and `crd` printers.

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use render_inference_identity::api::crd;
use render_inference_identity::config::{self, Override};
use render_inference_identity::io::read::Reader;
use render_inference_identity::io::render;
use render_inference_identity::io::{self, Env};
use render_inference_identity::yaml;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Renders SPIRE ClusterSPIFFEIDs and status for InferenceIdentityBindings.
///
/// Without arguments, reads a config.kubernetes.io/v1 ResourceList on stdin and writes one
/// on stdout (kpt fn eval/render, kustomize KRM function transformers). With a file as the
/// only argument, runs as a kustomize exec plugin: that file is the plugin config, a plain
/// YAML stream comes on stdin and goes back on stdout.
#[derive(Parser)]
#[command(version, about, long_about, args_conflicts_with_subcommands = true)]
struct Cli {
    /// kustomize exec plugin mode: the plugin config file kustomize passes.
    #[arg(value_name = "PLUGIN_CONFIG")]
    plugin_config: Option<PathBuf>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Render manifests from files and folders to a plain YAML stream (Argo CD plugin, CI).
    Render(RenderArgs),
    /// Read what render reads and print, per binding, its verdict, identity and the pod
    /// templates it reaches, then the workload findings. Writes nothing.
    Explain {
        #[command(flatten)]
        args: RenderArgs,
        /// text (aligned, for a person), json (a stable document for automation), sarif
        /// (SARIF 2.1.0, for code scanning) or github (GitHub Actions annotations).
        #[arg(short, long, value_enum, default_value = "text")]
        output: io::explain::Format,
    },
    /// Compare the identities, the SVIDs each pod template gets and the findings of two
    /// versions (review before merge). Exits 0 when identities and reach are the same, 2
    /// when they differ, 1 on any error.
    Diff {
        /// The version before: a file, a folder, `-`, or a saved `explain -o json` report.
        base: PathBuf,
        /// The version after: the same kinds (at most one side is `-`).
        head: PathBuf,
        #[command(flatten)]
        config: ConfigArgs,
        /// text (for a person), markdown (a pull request comment), json (for automation), or
        /// HEAD's new findings and grants as sarif (code scanning) or github (annotations).
        #[arg(short, long, value_enum, default_value = "text")]
        output: io::diff::Output,
        /// change: exit 2 on any change of identities or reach. grant: exit 2 only when a
        /// workload gains an SVID or may gain one, or an identity is added or widened.
        #[arg(long, value_enum, default_value = "change")]
        fail_on: io::diff::FailOn,
    },
    /// Print the manifest files that hold an InferenceIdentityBinding (Argo CD discovery);
    /// prints nothing when there is none.
    Discover {
        /// Files or folders to search. Default: `.`.
        paths: Vec<PathBuf>,
    },
    /// Print the JSON schema of the RenderInferenceIdentity functionConfig.
    Schema,
    /// Print the InferenceIdentityBinding CustomResourceDefinition as YAML.
    Crd,
}

#[derive(Args)]
struct RenderArgs {
    /// Files or folders to read (.yaml, .yml, .json; folders recursively), or `-` for a
    /// multi-document stream on standard input. Default: `.`.
    paths: Vec<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Flags override the config file; each flag also reads the variables Argo CD sets for a
/// plugin env entry and a plugin parameter of the same name ([`io::params`]). The flags of the
/// settings are made from the settings themselves ([`config::settings`]): one `--<flag>`
/// (`ARGOCD_ENV_<FLAG>`, `PARAM_<FLAG>`) each.
struct ConfigArgs {
    /// functionConfig file, typed or ConfigMap form; not read as a manifest.
    config: Option<PathBuf>,
    /// Each setting given: its key, where it came from, its text; or why the variables that
    /// give them cannot be taken.
    settings: Result<Vec<Override>, String>,
    /// Where workloads that name no namespace land.
    namespace: Option<String>,
}

impl clap::FromArgMatches for ConfigArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let given = |s: &config::Setting| {
            let value = matches.get_one::<String>(&s.flag)?.clone();
            let from_flag = matches.value_source(&s.flag) == Some(clap::parser::ValueSource::CommandLine);
            Some(io::params::Given { value, from_flag })
        };
        // A variable that is not UTF-8 is read with its bytes replaced, so that the setting
        // it gives fails naming it rather than being taken for unset.
        let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
        Ok(ConfigArgs {
            config: matches.get_one::<PathBuf>("config").cloned(),
            settings: io::params::overrides(given, var),
            namespace: matches.get_one::<String>("namespace").cloned(),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for ConfigArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let config = clap::Arg::new("config")
            .long("config")
            .env("ARGOCD_ENV_CONFIG")
            .value_parser(clap::value_parser!(PathBuf))
            .help("functionConfig file, typed or ConfigMap form; not read as a manifest");
        let settings = config::settings().iter().map(|s| {
            let arg = clap::Arg::new(s.flag.as_str())
                .long(s.flag.as_str())
                .env(s.env.as_str())
                .help(s.summary())
                .long_help(s.description.split_whitespace().collect::<Vec<_>>().join(" "));
            // A flag that stands for a value alone (`--admission-guard`) takes another only
            // after `=`, so that the path after it stays a path.
            match s.bare {
                Some(value) => arg.num_args(0..=1).require_equals(true).default_missing_value(value),
                None => arg,
            }
        });
        let namespace = clap::Arg::new("namespace").short('n').long("namespace").env("ARGOCD_APP_NAMESPACE").help(
            "The namespace workloads that name none are applied to (`kubectl -n`, an Argo CD application's \
             destination). Without it, each is judged in every namespace it may land in",
        );
        cmd.arg(config).args(settings).arg(namespace)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl RenderArgs {
    fn into_request(self) -> Result<render::Request, String> {
        Ok(render::Request { paths: self.paths, ..self.config.into_request()? })
    }
}

impl ConfigArgs {
    fn into_request(self) -> Result<render::Request, String> {
        Ok(render::Request {
            paths: Vec::new(),
            config_file: self.config,
            overrides: self.settings?,
            env: Env::from_process(),
            stdin: None,
            judge: None,
            namespace: self.namespace,
            lingering: None,
            parsed: None,
        })
    }
}

#[global_allocator]
static ALLOCATOR: render_inference_identity::allocator::Allocator =
    render_inference_identity::allocator::Allocator;

fn main() -> ExitCode {
    render_inference_identity::allocator::configure();
    io::helm_stderr::share();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `diff` keeps 2 for "differs": its usage errors exit 1.
        Err(e) if e.use_stderr() && std::env::args_os().nth(1).is_some_and(|a| a == "diff") => {
            let _ = e.print();
            return ExitCode::from(1);
        }
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("render-inference-identity: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let finished = match (cli.command, cli.plugin_config) {
        (Some(Command::Schema), _) => {
            let schema = serde_json::to_string_pretty(&config::json_schema())?;
            return print(format!("{schema}\n"));
        }
        (Some(Command::Crd), _) => {
            return print(yaml::write(&crd::binding_crd()).map_err(anyhow::Error::msg)?);
        }
        (Some(Command::Render(args)), _) => {
            let request = match args.into_request() {
                Ok(request) => request,
                Err(message) => return finish(io::error_output(&message)),
            };
            let request = match with_stdin(request)? {
                Ok(request) => request,
                Err(code) => return Ok(code),
            };
            render::run(&request)
        }
        (Some(Command::Explain { args, output }), _) => {
            let request = match args.into_request() {
                Ok(request) => request,
                Err(message) => return finish(io::error_output(&message)),
            };
            let request = match with_stdin(request)? {
                Ok(request) => request,
                Err(code) => return Ok(code),
            };
            return finish(io::explain::run(&request, output));
        }
        (Some(Command::Diff { base, head, config, output, fail_on }), _) => {
            if base.as_os_str() == "-" && head.as_os_str() == "-" {
                return finish(io::error_output("diff: at most one side can be `-` (standard input)"));
            }
            let request = match config.into_request() {
                Ok(request) => render::Request { paths: vec![base.clone(), head.clone()], ..request },
                Err(message) => return finish(io::error_output(&message)),
            };
            let request = match with_stdin(request)? {
                Ok(request) => request,
                // Nothing piped in, or not text: an error, never "differs".
                Err(_) => return Ok(ExitCode::from(1)),
            };
            return finish(io::diff::run(&base, &head, &request, output, fail_on));
        }
        (Some(Command::Discover { paths }), _) => match render::discover(&paths) {
            Ok(found) => return print(found.iter().map(|p| format!("{}\n", io::files::quote(p))).collect()),
            Err(message) => return finish(io::error_output(&format!("searching for bindings: {message}"))),
        },
        (None, Some(_)) if std::io::stdin().is_terminal() => return Ok(at_terminal(PLUGIN_AT_TERMINAL)),
        (None, None) if std::io::stdin().is_terminal() => return Ok(at_terminal(KRM_AT_TERMINAL)),
        (None, Some(plugin_config)) => {
            let from_env = std::env::var("KUSTOMIZE_PLUGIN_CONFIG_STRING").ok();
            match (io::plugin::read_config(&plugin_config, from_env), read_stdin()?) {
                (Ok(config_text), Ok(input)) => io::plugin::run(&config_text, input, &Env::from_process()),
                (Err(message), _) | (_, Err(message)) => return finish(io::error_output(&message)),
            }
        }
        (None, None) => match read_stdin()? {
            Ok(input) => io::krm::run(input, &Env::from_process(), Reader::Fast),
            Err(message) => io::krm::unreadable(&message),
        },
    };
    write(finished)
}

/// Writes what a mode's run finished with: stdout, written as it goes, then stderr.
fn write(finished: io::Finished) -> anyhow::Result<ExitCode> {
    let stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    finished.write_to(stdout).map_err(anyhow::Error::msg).context("writing stdout")?;
    finished.stderr.write_to(&mut std::io::stderr().lock())?;
    let code = ExitCode::from(u8::try_from(finished.exit_code).unwrap_or(1));
    // The process ends here: freeing the items one allocation at a time would take longer
    // than the exit that returns all of it at once.
    std::mem::forget(finished);
    Ok(code)
}

/// The request with standard input read when a path is `-`; the exit code instead when
/// stdin is a terminal (nothing piped in) or is not text.
fn with_stdin(mut request: render::Request) -> anyhow::Result<Result<render::Request, ExitCode>> {
    if request.paths.iter().any(|p| p.as_os_str() == "-") {
        if std::io::stdin().is_terminal() {
            return Ok(Err(at_terminal(RENDER_AT_TERMINAL)));
        }
        match read_stdin()? {
            Ok(text) => request.stdin = Some(text),
            Err(message) => return finish(io::error_output(&message)).map(Err),
        }
    }
    Ok(Ok(request))
}

/// Writes what a run held as text produced and exits as it says.
fn finish(output: io::RunOutput) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(output.stdout.as_bytes()).context("writing stdout")?;
    stdout.flush()?;
    std::io::stderr().write_all(output.stderr.as_bytes())?;
    Ok(ExitCode::from(u8::try_from(output.exit_code).unwrap_or(1)))
}

/// What the KRM mode tells a person who ran it at a terminal.
const KRM_AT_TERMINAL: &str = "\
stdin is a terminal: without arguments, render-inference-identity reads a
config.kubernetes.io/v1 ResourceList on stdin, as kpt and kustomize pass it.
  kpt fn eval DIR --exec render-inference-identity -- trustDomain=example.org
  render-inference-identity < resource-list.yaml
  render-inference-identity render --trust-domain example.org DIR   (manifest files and folders)
";

/// What `render -` tells a person who ran it at a terminal.
const RENDER_AT_TERMINAL: &str = "\
stdin is a terminal: `render -` reads a multi-document YAML stream piped in, such as
  kustomize build DIR | render-inference-identity render --trust-domain example.org -
  helm template RELEASE CHART | render-inference-identity render --trust-domain example.org -
";

/// What the exec plugin mode tells a person who ran it at a terminal.
const PLUGIN_AT_TERMINAL: &str = "\
stdin is a terminal: given a file, render-inference-identity runs as a kustomize exec plugin
and reads the resources kustomize pipes in on stdin.
  kubectl kustomize --enable-alpha-plugins DIR   (with the plugin installed, see the README)
  render-inference-identity render --config FILE DIR   (manifest files and folders)
";

/// Stdin is a terminal, so nobody piped input in: say what was expected and how to get
/// help, and exit 2 (a usage error, as for bad arguments) rather than wait for input.
fn at_terminal(what: &str) -> ExitCode {
    eprintln!("render-inference-identity: {what}Run render-inference-identity --help for more.");
    ExitCode::from(2)
}

/// Standard input as text, or why it is not: not UTF-8, or over the input limit (it is
/// read to the limit and no further).
fn read_stdin() -> anyhow::Result<Result<String, String>> {
    let Some(mut bytes) = io::files::read_stdin().context("reading stdin")? else {
        return Ok(Err(io::files::stdin_too_large()));
    };
    // Reading grows the buffer by doubling; the input may be kept to the end (its text is
    // copied to the output), so return what it does not use.
    bytes.shrink_to_fit();
    Ok(String::from_utf8(bytes).map_err(|e| format!("input is not valid UTF-8: {e}")))
}

fn print(text: String) -> anyhow::Result<ExitCode> {
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
