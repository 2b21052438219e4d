//! The Go templates of a ClusterSPIFFEID (`spiffeIDTemplate`, `workloadSelectorTemplates`,
//! `dnsNameTemplates`): parsed once as Go's text/template parses them (`lex.rs`, `parse.rs`),
//! then executed for one pod template as text/template executes them (`eval.rs`, `funcs.rs`)
//! over the manager's `templateData` and the Kubernetes types it holds (`types.rs`, read from
//! a table generated from the real types). Parsing refuses what Go's parser refuses: the
//! manager then skips the whole object. Executing tells three things apart:
//!
//! - a value the pod template settles (`fields.rs`: the trust domain, the pod's namespace,
//!   labels (those controllers add known as `cluster/controllers/` declares them), service
//!   account, and its name where the input fixes it), and constants as Go
//!   reads and prints them;
//! - a value only the cluster has (node data, UIDs, timestamps, generated names, most
//!   methods' results, `range`, `template`): the action is kept as written;
//! - a step Go fails on whatever the cluster holds (a name that is neither field nor method
//!   of the type, a call with the wrong number of arguments): the template fails for every
//!   pod, and the manager makes no entry.
//!
//! Written by hand rather than with a Go-template crate: the one on crates.io (`gtmpl`)
//! needs every value as data and would print node fields this function cannot know, where
//! the rule here is to say "unknown"; and it does not know the Kubernetes types whose
//! fields and methods decide what fails.

mod eval;
mod fields;
mod funcs;
mod lex;
mod number;
mod parse;
mod quote;
mod types;
mod value;

use crate::reconcile::cluster::selector::Lookup;
pub use lex::is_alphanumeric;
pub use parse::parse;
use std::ops::Range;

/// Whether `template` writes a number, character or complex constant in an action: Go's
/// parser makes each a `parse.NumberNode`, whose `Complex128` field `encoding/json` refuses to
/// encode, so SPIRE Controller Manager run with `enableEntryRenderCache`, which hashes an
/// object's parsed templates so (spire-controller-manager `pkg/spireentry/reconciler.go`,
/// `addClusterSPIFFEIDEntriesState`, `computeObjectHash`), skips the object whole.
pub fn has_number_constant(template: &str) -> bool {
    template.contains("{{")
        && lex::lex(template).iter().any(|item| {
            matches!(item.kind, lex::Kind::Number(_) | lex::Kind::CharConstant(_) | lex::Kind::Complex(_))
        })
}

/// What a template evaluates from: one pod template, as its pods would run.
pub struct Data<'a> {
    /// The manager's trust domain, when the configuration gives it.
    pub trust_domain: Option<&'a str>,
    /// The pods' namespace; `None` for one the input does not name, where a workload that
    /// names none may land.
    pub namespace: Option<&'a str>,
    /// The pods' labels: those of the template, and unknown for those controllers add.
    pub labels: &'a dyn Fn(&str) -> Lookup<'a>,
    /// The pods' service account; `None` when they may run as any (a kind known only by its
    /// pod labels that names none).
    pub service_account: Option<&'a str>,
    /// The pods' name, when the input settles it ([`crate::reconcile::cluster::workload::Workload::pod_name`]).
    pub pod_name: Option<&'a str>,
    /// The pods' containers as written, which container and image selectors are judged by;
    /// `None` when the model does not know them.
    pub containers: Option<super::containers::Written<'a>>,
    /// The labels the input's Namespace object declares for the pods' namespace; `None` when
    /// the input declares none (its labels are the cluster's).
    pub namespace_labels: Option<&'a std::collections::BTreeMap<String, String>>,
    /// What the pods' controller settles of their names and of the labels it sets, from its
    /// item beside the template (a StatefulSet's replicas and first ordinal, an Indexed Job's
    /// completions): what an unknown pod name or controller label hangs on. `None` for pods
    /// of no workload (a test's).
    pub owner: Option<crate::reconcile::cluster::controllers::Owner<'a>>,
}

/// A template's text as far as it can be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluated {
    /// The text, with each action that could not be evaluated kept as written.
    pub text: String,
    /// The actions that could not be evaluated, as written (`{{ .NodeMeta.Name }}`).
    pub unknown: Vec<String>,
    /// Where those actions stand in `text`.
    spans: Vec<Range<usize>>,
}

impl Evaluated {
    pub fn is_known(&self) -> bool {
        self.unknown.is_empty()
    }

    /// The runs of `text` that are known, in order.
    pub fn known_runs(&self) -> impl Iterator<Item = &str> {
        let mut at = 0;
        let mut runs = Vec::with_capacity(self.spans.len() + 1);
        for span in &self.spans {
            runs.push(&self.text[at..span.start]);
            at = span.end;
        }
        runs.push(&self.text[at..]);
        runs.into_iter()
    }

    /// A text with nothing unknown in it.
    pub fn known(text: String) -> Evaluated {
        Evaluated { text, unknown: Vec::new(), spans: Vec::new() }
    }
}

/// What Go prints for a map key that is missing, under text/template's default option.
pub const NO_VALUE: &str = "<no value>";

/// A template as Go parsed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    nodes: Vec<parse::Node>,
    /// The template as written: an action only the cluster settles is kept as this text has it.
    text: String,
}

impl Template {
    /// The text when the template has no action (most rendered selectors).
    pub fn constant(&self) -> Option<&str> {
        match self.nodes.as_slice() {
            [] => Some(""),
            [parse::Node::Text(text)] => Some(text),
            _ => None,
        }
    }

    /// Text the manager takes as it stands, never as a template (a `ClusterStaticEntry`'s
    /// fields: `renderStaticEntry` parses none of them).
    pub fn literal(text: &str) -> Template {
        let nodes = if text.is_empty() { Vec::new() } else { vec![parse::Node::Text(text.to_string())] };
        Template { nodes, text: text.to_string() }
    }

    /// Executes the template for `data`; `Err` when Go fails to execute it for these pods.
    pub fn evaluate(&self, data: &Data<'_>) -> Result<Evaluated, String> {
        let mut out = Evaluated { text: String::new(), unknown: Vec::new(), spans: Vec::new() };
        let mut state = eval::State::new(data, &self.text);
        state.walk(&self.nodes, &value::Value::Data, &mut out)?;
        Ok(out)
    }
}

/// The builtin functions of text/template: the manager adds none, so any other name is
/// "not defined" and the template does not parse.
const FUNCTIONS: [&str; 19] = [
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println",
    "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];

#[cfg(test)]
mod tests;
