//! How the edges word what the reconcile returns, each thing once for every mode: where an
//! item came from, an input error, a failing binding, a finding, the missing trust domain,
//! the run's summary, and the stderr account written of them. The reconcile's own sentences
//! (a status message, a finding's message) are quoted as they are.

use super::process::escape_controls;
use crate::config::WorkloadPolicy;
use crate::reconcile::findings::Finding;
use crate::reconcile::{BindingFailure, Counts, InputError, Outcome, Severity};
use std::fmt;
use std::io::Write;
use std::sync::Arc;

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
    let g = &counts.guard;
    let guard = match g.added + g.replaced + g.removed + g.pruned {
        0 => String::new(),
        _ => format!(
            "; admission guard objects: {} added, {} replaced, {} removed, {} pruned",
            g.added, g.replaced, g.removed, g.pruned
        ),
    };
    format!(
        "{} binding(s): {} rendered, {} failed; ClusterSPIFFEIDs: {} added, {} replaced, {} removed, {} \
         pruned{guard}{findings}",
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

/// The stderr account of a run, each line tagged with its severity, written after the
/// output: of a finished reconcile, one line per failing binding, one per finding, and last
/// the missing trust domain; of a run that stopped, the reason.
pub struct Stderr {
    /// The lines before the findings': the failing bindings', or the whole account.
    head: String,
    /// The findings, shared with the output that writes them as results.
    findings: Arc<Vec<Finding>>,
    /// The policy that weighs them.
    policy: WorkloadPolicy,
    /// The missing trust domain's line, or nothing.
    tail: String,
}

impl Stderr {
    /// An account made already: a run that stopped, a mode that read no items.
    pub fn text(text: String) -> Stderr {
        let findings = Arc::default();
        Stderr { head: text, findings, policy: WorkloadPolicy::default(), tail: String::new() }
    }

    /// The account of a finished reconcile: `origin` names where a failing binding came
    /// from, in the modes that read many files; `hint` says how to set the trust domain.
    pub fn of(outcome: &Outcome, hint: &str, origin: impl Fn(usize) -> Option<ItemOrigin>) -> Stderr {
        let mut head = String::new();
        for f in &outcome.failures {
            let namespace = f.namespace.as_deref().filter(|ns| !ns.is_empty()).unwrap_or("<no namespace>");
            let from = origin(f.item).map(|o| format!(" in {o}")).unwrap_or_default();
            let line = format!("{}: {namespace}/{}{from}: {}", severity(f.severity), f.name, failure(f));
            head.push_str(&super::process::stderr_line(&line));
        }
        let tail = match outcome.trust_domain_missing {
            true => super::process::stderr_line(&format!("error: {}", trust_domain_missing(hint))),
            false => String::new(),
        };
        Stderr { head, findings: Arc::clone(&outcome.findings), policy: outcome.workload_policy, tail }
    }

    /// Writes the account. A run may have tens of thousands of findings (the first run on a
    /// large repository): their lines are made on all cores a part at a time and written
    /// part by part, so the account is never held whole.
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(self.head.as_bytes())?;
        let mut buffer = Vec::new();
        for part in self.findings.chunks(4096) {
            let lines = crate::parallel::map(part.iter().collect(), |f| {
                let parts =
                    [severity(f.severity(self.policy)), ": ", f.kind.as_str(), ": ", f.message.as_str()];
                super::process::stderr_line_of(&parts)
            });
            buffer.clear();
            lines.iter().for_each(|line| buffer.extend_from_slice(line.as_bytes()));
            out.write_all(&buffer)?;
        }
        out.write_all(self.tail.as_bytes())
    }

    /// The account as text.
    pub fn to_text(&self) -> String {
        let mut text = Vec::new();
        self.write_to(&mut text).expect("writing to memory does not fail");
        String::from_utf8(text).expect("stderr lines are UTF-8")
    }
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

    #[test]
    fn the_stderr_account_writes_its_findings_in_order_across_parts_between_the_failures_and_the_tail() {
        use crate::reconcile::findings::{Kind, Level, Ref};
        let finding = |i: usize| Finding {
            kind: Kind::WorkloadWithoutVariant,
            level: Level::Warning,
            message: format!("template {i}"),
            about: Ref {
                item: i,
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                namespace: None,
                name: format!("m{i}"),
                path: None,
            },
            also: Vec::new(),
        };
        // More than one part of 4096 lines, the last one short.
        let findings: Vec<Finding> = (0..9000).map(finding).collect();
        let stderr = Stderr {
            head: "render-inference-identity: error: a failing binding\n".into(),
            findings: Arc::new(findings),
            policy: WorkloadPolicy::Fail,
            tail: "render-inference-identity: error: the trust domain\n".into(),
        };
        let text = stderr.to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9002);
        assert_eq!(lines[0], "render-inference-identity: error: a failing binding");
        for (i, line) in lines[1..9001].iter().enumerate() {
            // Under workloadPolicy: Fail a workload warning is an error.
            assert_eq!(
                *line,
                format!("render-inference-identity: error: WorkloadWithoutVariant: template {i}")
            );
        }
        assert_eq!(lines[9001], "render-inference-identity: error: the trust domain");
        assert_eq!(Stderr::text("said\n".into()).to_text(), "said\n");
    }
}
