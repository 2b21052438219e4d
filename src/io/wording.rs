//! How the edges word what the reconcile returns, each thing once for every mode: where an
//! item came from, an input error, a failing binding, a finding, the missing trust domain,
//! the run's summary, and the stderr account built of them. The reconcile's own sentences
//! (a status message, a finding's message) are quoted as they are.

use super::process::escape_controls;
use crate::reconcile::findings::Finding;
use crate::reconcile::{BindingFailure, Counts, InputError, Outcome, Severity};
use std::fmt;

/// What messages call standard input.
pub const STDIN: &str = "<stdin>";

/// Where an item came from, as messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemOrigin {
    /// An entry of a ResourceList's `items`, by its index there: `items[3]`.
    Entry(usize),
    /// A document of a file or of standard input, numbered from 1 as lines are:
    /// `bindings.yaml (document 2)`. Empty documents are not counted.
    Document { file: String, number: usize },
}

impl fmt::Display for ItemOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ItemOrigin::Entry(index) => write!(f, "items[{index}]"),
            ItemOrigin::Document { file, number } => write!(f, "{file} (document {number})"),
        }
    }
}

impl ItemOrigin {
    /// The document at `index` (from 0) of a stream read from `file`.
    pub fn document(file: &str, index: usize) -> ItemOrigin {
        ItemOrigin::Document { file: file.to_string(), number: index + 1 }
    }
}

/// An input error as one line, its items named by `origin`: `items[2]: ... (first as
/// items[1])`, `b.yaml (document 2): ... (first in a.yaml (document 1))`. Control characters
/// of the input it quotes are escaped.
pub fn input_error(e: &InputError, origin: impl Fn(usize) -> ItemOrigin) -> String {
    let first = match e.first.map(&origin) {
        None => String::new(),
        Some(entry @ ItemOrigin::Entry(_)) => format!(" (first as {entry})"),
        Some(document) => format!(" (first in {document})"),
    };
    escape_controls(&format!("{}: {}{first}", origin(e.item), e.message), false)
}

/// A failing binding: `<Type>/<Reason>: <message>`, then each identity its failure removes.
pub fn failure(f: &BindingFailure) -> String {
    let mut text = f.failure.to_string();
    for lost in &f.removes {
        text.push_str(&format!(
            "; this removes ClusterSPIFFEID {} of the input, and its pods lose SPIFFE ID {} on the next apply",
            lost.output, lost.spiffe_id
        ));
    }
    text
}

/// A finding: `<Kind>: <message>`.
pub fn finding(f: &Finding) -> String {
    format!("{}: {}", f.kind.as_str(), f.message)
}

/// The missing trust domain, with `hint`, how to set it in the mode.
pub fn trust_domain_missing(hint: &str) -> String {
    format!("trustDomain is required: {hint}")
}

/// The run in one line: `1 binding(s): 1 rendered, 0 failed; ClusterSPIFFEIDs: 1 added, ...`.
pub fn summary(counts: &Counts, findings: usize) -> String {
    let outputs = &counts.outputs;
    let findings = match findings {
        0 => String::new(),
        n => format!("; {n} finding(s)"),
    };
    format!(
        "{} binding(s): {} rendered, {} failed; ClusterSPIFFEIDs: {} added, {} replaced, {} removed, {} \
         pruned{findings}",
        counts.bindings,
        counts.rendered(),
        counts.failed,
        outputs.added,
        outputs.replaced,
        outputs.removed,
        outputs.pruned,
    )
}

/// How a severity reads in a line of text.
pub fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// The stderr account of a finished reconcile, each line tagged with its severity: one per
/// failing binding (`origin` names where it came from, in the modes that read many files),
/// one per finding, and last the missing trust domain with `hint`.
pub fn stderr(outcome: &Outcome, hint: &str, origin: impl Fn(usize) -> Option<ItemOrigin>) -> String {
    let mut out = String::new();
    for f in &outcome.failures {
        let namespace = f.namespace.as_deref().filter(|ns| !ns.is_empty()).unwrap_or("<no namespace>");
        let from = origin(f.item).map(|o| format!(" in {o}")).unwrap_or_default();
        let line = format!("{}: {namespace}/{}{from}: {}", severity(f.severity), f.name, failure(f));
        out.push_str(&super::process::stderr_line(&line));
    }
    // A run may have tens of thousands of findings (the first run on a large repository):
    // their lines are made on all cores a part at a time, into room for all of them (what
    // they take unless a message holds characters to escape).
    fn parts<'f>(outcome: &Outcome, f: &'f Finding) -> [&'f str; 5] {
        [severity(outcome.severity(f)), ": ", f.kind.as_str(), ": ", f.message.as_str()]
    }
    let room: usize =
        outcome.findings.iter().map(|f| super::process::stderr_line_len(&parts(outcome, f))).sum();
    out.reserve(room);
    for part in outcome.findings.chunks(4096) {
        let lines = crate::parallel::map(part.iter().collect(), |f| {
            super::process::stderr_line_of(&parts(outcome, f))
        });
        lines.iter().for_each(|line| out.push_str(line));
    }
    if outcome.trust_domain_missing {
        out.push_str(&super::process::stderr_line(&format!("error: {}", trust_domain_missing(hint))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_error_names_its_item_and_the_first_place_as_the_mode_knows_them() {
        let twice = InputError::repeating(2, 1, "Pool serving/llama appears twice".to_string());
        assert_eq!(
            input_error(&twice, ItemOrigin::Entry),
            "items[2]: Pool serving/llama appears twice (first as items[1])"
        );
        let documents = |item| ItemOrigin::document(if item == 1 { "a.yaml" } else { "b.yaml" }, item);
        assert_eq!(
            input_error(&twice, documents),
            "b.yaml (document 3): Pool serving/llama appears twice (first in a.yaml (document 2))"
        );
        let quoting = InputError::from((0, "name \"a\nb\"".to_string()));
        assert_eq!(input_error(&quoting, ItemOrigin::Entry), "items[0]: name \"a\\nb\"");
    }
}
