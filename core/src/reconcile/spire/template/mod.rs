//! The Go templates of a ClusterSPIFFEID (`spiffeIDTemplate`, `workloadSelectorTemplates`,
//! `dnsNameTemplates`): parsed once as Go's text/template parses them, then evaluated for
//! one pod template. Parsing refuses what text/template's parser refuses (a bad character
//! such as the `-` of `.PodMeta.Labels.app-name`, an unclosed action, string or comment,
//! control structures that do not balance, a function or variable that is not defined):
//! the manager then skips the whole object. Evaluating tells three things apart, as the
//! manager's `templateData` and the Kubernetes types it holds decide them:
//!
//! - a value the pod template settles: `.TrustDomain` (when configured),
//!   `.PodMeta.Namespace`, `.PodMeta.Labels.<key>` and `index .PodMeta.Labels "<key>"`
//!   (a missing key prints `<no value>` and `""`, as Go prints them),
//!   `.PodSpec.ServiceAccountName`;
//! - a value only the cluster has: `.ClusterName`, `.ClusterDomain`, node data, the pod's
//!   name or UID, the labels controllers add to pods (`cluster/controllers/`), functions,
//!   control structures: left in the text as written;
//! - a field the data does not have (`.PodMeta.Namspace`, `.PodSpec.Foo`, a field of a
//!   string): Go fails to execute the template for every pod, and the manager makes no entry.
//!
//! Written by hand rather than with a Go-template crate: the one on crates.io (`gtmpl`)
//! needs every value as data and would print node fields this function cannot know, where
//! the rule here is to say "unknown"; and it does not know the Kubernetes types whose
//! fields decide what fails.

mod fields;
mod parse;

use crate::reconcile::cluster::selector::Lookup;
use fields::{Resolved, resolve};
pub use parse::parse;
use std::ops::Range;

/// What a template evaluates from: one pod template, as its pods would run.
pub struct Data<'a> {
    /// The manager's trust domain, when the configuration gives it.
    pub trust_domain: Option<&'a str>,
    pub namespace: &'a str,
    /// The pods' labels: those of the template, and unknown for those controllers add.
    pub labels: &'a dyn Fn(&str) -> Lookup<'a>,
    /// The pods' service account; `None` when they may run as any (a kind known only by its
    /// pod labels that names none).
    pub service_account: Option<&'a str>,
    /// The pods' name, when the input settles it ([`crate::reconcile::cluster::workload::Workload::pod_name`]).
    pub pod_name: Option<&'a str>,
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Text(String),
    /// A top-level action: its text as written and its commands.
    Action {
        written: String,
        pipeline: Pipeline,
    },
    /// A control structure (`if`, `range`, `with`, `define`, `block`, `template`) or an
    /// action that declares or assigns variables: only the cluster's data settles it.
    Opaque(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Pipeline {
    commands: Vec<Vec<Term>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    /// `.A.B`: a field chain from dot.
    Field(Vec<String>),
    /// A function name (a builtin).
    Function(String),
    Str(String),
    /// A number, a bool, a char, nil, `.`, a variable, a parenthesized pipeline.
    Other,
}

impl Template {
    /// The text when the template has no action (most rendered selectors).
    pub fn constant(&self) -> Option<&str> {
        match self.nodes.as_slice() {
            [] => Some(""),
            [Node::Text(text)] => Some(text),
            _ => None,
        }
    }

    /// Evaluates the template for `data`; `Err` when Go fails to execute it for these pods.
    pub fn evaluate(&self, data: &Data<'_>) -> Result<Evaluated, String> {
        let mut out = Evaluated { text: String::new(), unknown: Vec::new(), spans: Vec::new() };
        for node in &self.nodes {
            let unknown = match node {
                Node::Text(text) => {
                    out.text.push_str(text);
                    continue;
                }
                Node::Action { written, pipeline } => match value(pipeline, data) {
                    Value::Known(v) => {
                        out.text.push_str(&v);
                        continue;
                    }
                    Value::Fails(why) => return Err(format!("{written}: {why}")),
                    Value::Unknown => written,
                },
                Node::Opaque(written) => written,
            };
            let start = out.text.len();
            out.text.push_str(unknown);
            out.spans.push(start..out.text.len());
            out.unknown.push(unknown.clone());
        }
        Ok(out)
    }
}

/// What an action gives.
enum Value {
    Known(String),
    Unknown,
    Fails(String),
}

/// The builtin functions of text/template: the manager adds none, so any other name is
/// "not defined" and the template does not parse.
const FUNCTIONS: [&str; 19] = [
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println",
    "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];

fn value(pipeline: &Pipeline, data: &Data<'_>) -> Value {
    // A field chain that Go fails on anywhere an action evaluates it fails the template
    // (`and` and `or` evaluate their arguments only as far as needed).
    let lazy =
        pipeline.commands.iter().flatten().any(|t| matches!(t, Term::Function(f) if f == "and" || f == "or"));
    if !lazy {
        for term in pipeline.commands.iter().flatten() {
            if let Term::Field(chain) = term
                && let Resolved::Fails(why) = resolve(chain, data)
            {
                return Value::Fails(why);
            }
        }
    }
    match pipeline.commands.as_slice() {
        [command] => match command.as_slice() {
            [Term::Field(chain)] => match resolve(chain, data) {
                Resolved::Text(v) => Value::Known(v),
                Resolved::Fails(why) => Value::Fails(why),
                Resolved::Unknown | Resolved::Labels => Value::Unknown,
            },
            [Term::Str(s)] => Value::Known(s.clone()),
            // `index` of a missing key gives the map's zero value, the empty string.
            [Term::Function(f), Term::Field(chain), Term::Str(key)]
                if f == "index" && is_pod_labels(chain) =>
            {
                match (data.labels)(key) {
                    Lookup::Value(v) => Value::Known(v.to_string()),
                    Lookup::Absent => Value::Known(String::new()),
                    Lookup::Unknown | Lookup::Present => Value::Unknown,
                }
            }
            _ => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}

fn is_pod_labels(chain: &[String]) -> bool {
    matches!(chain, [a, b] if a == "PodMeta" && (b == "Labels" || b == "GetLabels"))
}

#[cfg(test)]
mod tests;
