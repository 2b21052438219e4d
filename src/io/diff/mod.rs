//! `diff BASE HEAD`: what a change does to identities before it merges. Each side is read
//! as `explain` reads it (a file, a folder or `-`, with the same configuration) or is a
//! saved `explain -o json` report (`side.rs`); both become the report's document
//! ([`explain::report`]), and the diff compares those: identities per binding
//! (`identities.rs`), the SPIFFE IDs each pod template gets or may get, the report's `reach`
//! and `workloads[].mayHold` (`reach.rs`), and the powers of their entries (`powers.rs`),
//! static entries and federations (`spire_objects.rs`), each read by the one rule of which
//! declaration the manager applies (`preference.rs`), what the build cannot judge
//! (`unjudged.rs`), findings (`findings.rs`) and the admission guard (`guard.rs`). Text, markdown
//! (a pull request comment), JSON, or HEAD's new failures, findings and grants as annotations
//! (`annotate.rs`); the exit status says whether the sides differ (`fail_on.rs`).
mod annotate;
mod changes;
mod dropped;
mod fail_on;
mod findings;
mod guard;
mod identities;
mod json;
mod manager;
mod markdown;
mod powers;
mod preference;
mod reach;
mod side;
mod spire_objects;
#[cfg(test)]
mod testing;
mod text;
mod unjudged;
mod words;

pub use changes::Diff;
pub use fail_on::{DIFFERS, FailOn};
pub use findings::FindingChanges;
pub use guard::GuardChange;
pub use identities::{Identity, IdentityChange};
pub use manager::ManagerChange;
pub use markdown::MARKDOWN_LIMIT;
pub use reach::WorkloadChange;
pub use spire_objects::SpireObjectChange;

use super::explain;
use super::process::{RunOutput, error_output};
use super::read::parsed::Parsed;
use super::render::Request;
use crate::reconcile::unjudged::Mix;
use std::path::Path;

/// The output formats: `-o`'s values, lowercased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    Text,
    Markdown,
    Json,
    /// HEAD's newly failing bindings, new findings and grants as SARIF ([`explain::sarif`]).
    Sarif,
    /// The same as GitHub Actions workflow commands ([`explain::github`]).
    Github,
}

/// Compares two sides; `request` holds the configuration and standard input, its paths
/// are ignored.
pub fn run(base: &Path, head: &Path, request: &Request, output: Output, fail_on: FailOn) -> RunOutput {
    let (diff, after) = match compare(base, head, request) {
        Ok(compared) => compared,
        Err(message) => return error_output(&message),
    };
    let stdout = match output {
        Output::Text => text::text(&diff),
        Output::Markdown => markdown::markdown(&diff, MARKDOWN_LIMIT),
        Output::Json => json::json(&diff),
        Output::Sarif | Output::Github => {
            let Some(failure_policy) = after.policy else {
                return error_output(&format!(
                    "{}: -o sarif and -o github point at the lines of HEAD's manifests, and a saved \
                     report has none: give HEAD as files, a folder or `-`",
                    super::files::quote(head)
                ));
            };
            let found = annotate::annotations(&diff, &after.report, failure_policy);
            if output == Output::Sarif {
                explain::sarif::sarif(&found)
            } else {
                explain::github::github(&found)
            }
        }
    };
    RunOutput { stdout, stderr: String::new(), exit_code: fail_on::exit_code(&diff, fail_on) }
}

/// The diff of BASE and HEAD, and the side of HEAD it judged. HEAD is judged by BASE's SPIRE
/// when its config describes another. When HEAD grants nothing, what may stand while it is
/// applied is judged too, each [`Mix`] of the two sides in turn ([`dropped`]).
fn compare(base: &Path, head: &Path, request: &Request) -> Result<(Diff, side::Side), String> {
    // Each file is parsed once, however many states read it.
    let parsed = &std::sync::Arc::new(Parsed::default());
    let before = side::read(base, request, None, None, parsed)?;
    // A saved report, or standard input read once, gives no manifests to mix.
    let manifests = |path: &Path, side: &side::Side| side.policy.is_some() && path.as_os_str() != "-";
    let own = side::read(head, request, None, None, parsed)?;
    let mixed = manifests(base, &before) && manifests(head, &own);
    let manager = manager::compare(before.manager.as_ref(), own.manager.as_ref());
    let judge = manager.as_ref().and(before.manager.as_ref());
    let after = match judge {
        Some(judge) => side::read(head, request, Some(judge), None, parsed)?,
        None => own,
    };
    if after.lacks_head_fields {
        return Err(format!(
            "{}: a saved explain report without workloads[].mayHold, workloads[].powers, \
             staticEntries, federatedTrustDomains or unjudged, so it cannot say which SVIDs HEAD's \
             pods may hold and what they may do: save it again with `explain -o json` of this version, or give HEAD \
             as files, a folder or `-`",
            super::files::quote(head)
        ));
    }
    let diff = Diff { manager, ..changes::compare(&before.report, &after.report) };
    if diff.grants() || !mixed {
        return Ok((diff, after));
    }
    // Each mix the pull request makes possible, given what the two sides differ in (the
    // first read tells): HEAD's identities first, then BASE's.
    let mut first = Some(side::read(head, request, judge, Some((base, Mix::FIRST)), parsed)?);
    let differ = first.as_ref().map(|f| f.differ).unwrap_or_default();
    for mix in Mix::all(differ) {
        let with = match first.take().filter(|_| mix == Mix::FIRST) {
            Some(read) => read,
            None if mix.head => side::read(head, request, judge, Some((base, mix)), parsed)?,
            None => side::read(base, request, None, Some((head, mix)), parsed)?,
        };
        let kept = changes::compare(&before.report, &with.report);
        if kept.grants() {
            return Ok((dropped::noted(kept, &with.dropped), with));
        }
    }
    Ok((diff, after))
}
