//! `explain`: the view a person reads. It reads what `render` reads (files, folders, `-`)
//! with the same configuration, writes nothing, and prints per binding its verdict, SPIFFE
//! ID, selectors, ClusterSPIFFEID and the pod templates it reaches or selects without an
//! SVID, then each pod template as SPIRE will treat it (reconcile::spire), then the findings,
//! each under its name: as aligned text, as the report's stable JSON document for
//! automation, or as annotations where CI shows them (SARIF, GitHub workflow commands).
//!
//! `build.rs` makes the report of the model, [`report`] is its document (what `diff` reads
//! back), and each output format has its file: `text.rs`, [`sarif`] and [`github`], these two
//! from the [`annotations`] of a report.

pub mod annotations;
mod build;
pub mod github;
pub mod report;
pub mod sarif;
mod text;

pub use report::{At, BindingReport, FindingReport, FindingSeverity, LabelSelector, Report, WorkloadRef};

use super::pipeline;
use super::pipeline::Mode as _;
use super::process::{RunOutput, error_output};
use super::render::{Files, Request};
use super::wording;
use crate::config::{Config, FailurePolicy};
use crate::reconcile::unjudged::Differ;

/// The output formats: `-o`'s values, lowercased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    /// SARIF 2.1.0, for code scanning ([`sarif`]).
    Sarif,
    /// GitHub Actions workflow commands, one per finding ([`github`]).
    Github,
}

/// The report of a request's manifests and the configuration they run under, or why
/// there is none. Without a trust domain no binding can render, and `render` fails: so
/// does the report.
pub fn build_with_config(request: &Request) -> Result<(Report, Config), String> {
    build_with_dropped(request).map(|(report, config, _)| (report, config))
}

/// An object of [`Request::lingering`] read with the request's manifests
/// ([`super::render::Lingered`]): named, where it starts, and why it may still run.
#[derive(Debug, Clone)]
pub struct Dropped {
    pub object: WorkloadRef,
    pub at: Option<At>,
    pub how: crate::reconcile::unjudged::Lingers,
}

/// The objects [`Dropped`], and what the request's manifests and those read as lingering
/// differ in.
pub type Mixed = (Vec<Dropped>, Differ);

/// [`build_with_config`], with what of the manifests read as lingering it took ([`Mixed`]).
pub fn build_with_dropped(request: &Request) -> Result<(Report, Config, Mixed), String> {
    let mut files = Files::new(request);
    let (outcome, config) = pipeline::reconcile(&mut files, &request.env, crate::reconcile::Model::Keep)
        .map_err(|stop| stop.message)?;
    if outcome.trust_domain_missing {
        return Err(wording::trust_domain_missing(Files::TRUST_DOMAIN_HINT));
    }
    let at = |item| files.location(item).map(At::from);
    let text = |item| files.item_text(item).map(str::to_string);
    let mut report = build::report(&outcome, &at, &text);
    report.unjudged = build::unjudged(&outcome, &files.unjudged, &at);
    report.config = files.config_source.take();
    report.spire = Some(report::SpireReport {
        controller_manager: config.spire.spec(),
        trust_domain: config.trust_domain.clone(),
    });
    let dropped = files
        .lingering
        .iter()
        .map(|l| {
            let [api_version, kind, name] = l.object.clone();
            let object = WorkloadRef { api_version, kind, namespace: l.namespace.clone(), name, path: None };
            Dropped { object, at: files.location(l.item).map(At::from), how: l.how }
        })
        .collect();
    Ok((report, config, (dropped, files.differ)))
}

/// Explains the manifests of a request.
pub fn run(request: &Request, format: Format) -> RunOutput {
    let explained = build_with_config(request);
    match explained {
        Err(message) => error_output(&message),
        Ok((report, config)) => {
            let failure_policy = config.failure_policy;
            // As in every mode: under failurePolicy: Fail a failing binding fails the run, and
            // under workloadPolicy: Fail so does a warning finding.
            // The input explain reads is what gets applied: a stale output in it ships an
            // identity no binding renders any more, a failure of the same weight.
            let failing = report.bindings.iter().any(|b| !b.ready) || report.stale() > 0;
            let exit_code = i32::from(
                report.findings.iter().any(|f| f.severity == FindingSeverity::Error)
                    || (failing && failure_policy == FailurePolicy::Fail),
            );
            let stdout = match format {
                Format::Text => text::text(&report),
                Format::Json => report.json(),
                Format::Sarif => sarif::sarif(&annotations::of(&report, failure_policy)),
                Format::Github => github::github(&annotations::of(&report, failure_policy)),
            };
            RunOutput { stdout, stderr: String::new(), exit_code }
        }
    }
}
