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
//!   name or UID, the labels controllers add to pods ([`CONTROLLER_LABELS`]), functions,
//!   control structures: left in the text as written;
//! - a field the data does not have (`.PodMeta.Namspace`, `.PodSpec.Foo`, a field of a
//!   string): Go fails to execute the template for every pod, and the manager makes no entry.
//!
//! Written by hand rather than with a Go-template crate: the one on crates.io (`gtmpl`)
//! needs every value as data and would print node fields this function cannot know, where
//! the rule here is to say "unknown"; and it does not know the Kubernetes types whose
//! fields decide what fails.

use crate::reconcile::coverage::selector::Lookup;
use std::ops::Range;

/// What a template evaluates from: one pod template, as its pods would run.
pub struct Data<'a> {
    /// The manager's trust domain, when the configuration gives it.
    pub trust_domain: Option<&'a str>,
    pub namespace: &'a str,
    /// The pods' labels: those of the template, and unknown for those controllers add.
    pub labels: &'a dyn Fn(&str) -> Lookup<'a>,
    pub service_account: &'a str,
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

/// The labels Kubernetes controllers put on the pods they make, absent from the pod
/// template or overwritten: a selector or template that reads one is unknown at build
/// time. Keys ending in `/` are prefixes.
pub const CONTROLLER_LABELS: [&str; 10] = [
    "pod-template-hash",
    "controller-revision-hash",
    "pod-template-generation",
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
    "batch.kubernetes.io/",
    "job-name",
    "controller-uid",
    "leaderworkerset.sigs.k8s.io/",
    "rollouts-pod-template-hash",
];

/// Whether a controller puts label `key` on the pods it makes.
pub fn controller_label(key: &str) -> bool {
    // Asked for every label a selector reads: most keys are shorter than these, or share
    // no first letter with them.
    if key.len() < "job-name".len()
        || !matches!(key.as_bytes()[0], b'p' | b'c' | b's' | b'a' | b'b' | b'j' | b'l' | b'r')
    {
        return false;
    }
    CONTROLLER_LABELS.iter().any(|c| if c.ends_with('/') { key.starts_with(c) } else { key == *c })
}

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
                    Lookup::Unknown => Value::Unknown,
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

/// A field chain from the manager's data.
enum Resolved {
    Text(String),
    /// The pods' labels, a map.
    Labels,
    Unknown,
    Fails(String),
}

/// The types of the manager's `templateData` and what a field of each gives.
#[derive(Clone, Copy)]
enum Type {
    Data,
    PodMeta,
    NodeMeta,
    PodSpec,
    NodeSpec,
    Text,
    /// A value of a type whose fields this function does not follow.
    Opaque,
}

/// `metav1.ObjectMeta`'s fields, and its methods that take no argument.
const OBJECT_META: [&str; 15] = [
    "Name",
    "GenerateName",
    "Namespace",
    "SelfLink",
    "UID",
    "ResourceVersion",
    "Generation",
    "CreationTimestamp",
    "DeletionTimestamp",
    "DeletionGracePeriodSeconds",
    "Labels",
    "Annotations",
    "OwnerReferences",
    "Finalizers",
    "ManagedFields",
];

/// `corev1.PodSpec`'s fields (k8s.io/api v0.36, the manager's).
const POD_SPEC: [&str; 42] = [
    "Volumes",
    "InitContainers",
    "Containers",
    "EphemeralContainers",
    "RestartPolicy",
    "TerminationGracePeriodSeconds",
    "ActiveDeadlineSeconds",
    "DNSPolicy",
    "NodeSelector",
    "ServiceAccountName",
    "DeprecatedServiceAccount",
    "AutomountServiceAccountToken",
    "NodeName",
    "HostNetwork",
    "HostPID",
    "HostIPC",
    "ShareProcessNamespace",
    "SecurityContext",
    "ImagePullSecrets",
    "Hostname",
    "Subdomain",
    "Affinity",
    "SchedulerName",
    "Tolerations",
    "HostAliases",
    "PriorityClassName",
    "Priority",
    "DNSConfig",
    "ReadinessGates",
    "RuntimeClassName",
    "EnableServiceLinks",
    "PreemptionPolicy",
    "Overhead",
    "TopologySpreadConstraints",
    "SetHostnameAsFQDN",
    "OS",
    "HostUsers",
    "SchedulingGates",
    "ResourceClaims",
    "Resources",
    "HostnameOverride",
    "SchedulingGroup",
];

/// `corev1.NodeSpec`'s fields.
const NODE_SPEC: [&str; 7] =
    ["PodCIDR", "PodCIDRs", "ProviderID", "Unschedulable", "Taints", "ConfigSource", "DoNotUseExternalID"];

/// Methods every generated Kubernetes type has (deep copies, protobuf, `String`).
const GENERATED_METHODS: [&str; 6] = ["DeepCopy", "String", "Size", "Marshal", "Reset", "ProtoMessage"];

fn resolve(chain: &[String], data: &Data<'_>) -> Resolved {
    let mut at = Type::Data;
    let mut fields = chain.iter().enumerate();
    while let Some((i, field)) = fields.next() {
        at = match at {
            Type::Data => match field.as_str() {
                "TrustDomain" => match data.trust_domain {
                    Some(td) => return text_then(td, &chain[i + 1..]),
                    None => Type::Text,
                },
                "ClusterName" | "ClusterDomain" => Type::Text,
                "PodMeta" => Type::PodMeta,
                "PodSpec" => Type::PodSpec,
                "NodeMeta" => Type::NodeMeta,
                "NodeSpec" => Type::NodeSpec,
                _ => {
                    return no_field(
                        field,
                        "the manager's template data (TrustDomain, ClusterName, ClusterDomain, PodMeta, PodSpec, NodeMeta, NodeSpec)",
                    );
                }
            },
            Type::PodMeta | Type::NodeMeta => {
                let pod = matches!(at, Type::PodMeta);
                let method = field.strip_prefix("Get").filter(|f| OBJECT_META.contains(f));
                let name = method.unwrap_or(field);
                if !OBJECT_META.contains(&name)
                    && field != "GetObjectMeta"
                    && !GENERATED_METHODS.contains(&field.as_str())
                {
                    return no_field(field, "metav1.ObjectMeta");
                }
                match (pod, name) {
                    (true, "Namespace") => return text_then(data.namespace, &chain[i + 1..]),
                    (true, "Labels") => match fields.next() {
                        None => return Resolved::Labels,
                        Some((j, key)) => match (data.labels)(key) {
                            Lookup::Value(v) => return text_then(v, &chain[j + 1..]),
                            // A missing key prints `<no value>`, and so does any field of it.
                            Lookup::Absent => return Resolved::Text(NO_VALUE.to_string()),
                            Lookup::Unknown => return Resolved::Unknown,
                        },
                    },
                    _ => Type::Opaque,
                }
            }
            Type::PodSpec => match field.as_str() {
                "ServiceAccountName" => return text_then(data.service_account, &chain[i + 1..]),
                f if POD_SPEC.contains(&f) || GENERATED_METHODS.contains(&f) => Type::Opaque,
                _ => return no_field(field, "corev1.PodSpec"),
            },
            Type::NodeSpec => match field.as_str() {
                f if NODE_SPEC.contains(&f) || GENERATED_METHODS.contains(&f) => Type::Opaque,
                _ => return no_field(field, "corev1.NodeSpec"),
            },
            Type::Text => return no_field(field, "string"),
            Type::Opaque => return Resolved::Unknown,
        };
    }
    // A struct prints as Go prints it, which this function does not reproduce.
    Resolved::Unknown
}

/// A string value, then what the rest of the chain does with it: any field of a string fails.
fn text_then(value: &str, rest: &[String]) -> Resolved {
    match rest.first() {
        None => Resolved::Text(value.to_string()),
        Some(field) => no_field(field, "string"),
    }
}

fn no_field(field: &str, of: &str) -> Resolved {
    Resolved::Fails(format!("{of} has no field or method {field}, so Go fails to execute the template"))
}

/// Parses `template` as text/template does; `Err` says why Go refuses it.
pub fn parse(template: &str) -> Result<Template, String> {
    let mut nodes = Vec::new();
    let mut rest = template;
    let mut trim_next = false;
    // Open control structures: where the outermost one started, and the nesting depth.
    let mut open: Option<(String, usize)> = None;
    let mut scopes: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(start) = rest.find("{{") {
        let mut literal = &rest[..start];
        if trim_next {
            literal = literal.trim_start_matches(is_space);
        }
        let after = &rest[start + 2..];
        // `{{- ` trims the space before: the marker is the dash and one space.
        let trim_left = after.starts_with('-') && after[1..].starts_with(is_space);
        if trim_left {
            literal = literal.trim_end_matches(is_space);
        }
        let body_start = if trim_left { 2 } else { 0 };
        let (inner, consumed, trim_right, comment) = action_body(&after[body_start..])?;
        let written = &rest[start..start + 2 + body_start + consumed];
        trim_next = trim_right;
        push_text(&mut nodes, &mut open, literal);
        rest = &after[body_start + consumed..];
        if comment {
            continue;
        }
        let inner = inner.trim_matches(is_space);
        let tokens = lex(inner)?;
        let keyword = match tokens.first() {
            Some(Token::Word(w)) if KEYWORDS.contains(&w.as_str()) => Some(w.as_str()),
            _ => None,
        };
        match keyword {
            Some("if" | "range" | "with" | "define" | "block") => {
                if keyword != Some("define") {
                    pipeline(&tokens[1..], &mut scopes, true)?;
                }
                scopes.push(Vec::new());
                match &mut open {
                    Some((text, depth)) => {
                        text.push_str(written);
                        *depth += 1;
                    }
                    None => open = Some((written.to_string(), 1)),
                }
                continue;
            }
            Some("else") => {
                let Some((text, _)) = &mut open else { return Err("unexpected {{else}}".into()) };
                if let Some(Token::Word(w)) = tokens.get(1)
                    && (w == "if" || w == "with")
                {
                    pipeline(&tokens[2..], &mut scopes, true)?;
                }
                text.push_str(written);
                continue;
            }
            Some("end") => {
                let Some((text, depth)) = &mut open else { return Err("unexpected {{end}}".into()) };
                scopes.pop();
                text.push_str(written);
                *depth -= 1;
                if *depth == 0 {
                    let (text, _) = open.take().expect("open");
                    nodes.push(Node::Opaque(text));
                }
                continue;
            }
            Some("template" | "break" | "continue") => {
                if keyword == Some("template") {
                    match tokens.get(1) {
                        Some(Token::Str(_)) => pipeline_or_empty(&tokens[2..], &mut scopes)?,
                        _ => return Err(format!("{written}: template needs a quoted name")),
                    }
                } else if open.is_none() {
                    return Err(format!(
                        "{written}: {{{{{}}}}} outside {{{{range}}}}",
                        keyword.unwrap_or_default()
                    ));
                }
                push_opaque(&mut nodes, &mut open, written);
                continue;
            }
            _ => {}
        }
        let (parsed, declares) = pipeline(&tokens, &mut scopes, false)?;
        if open.is_some() || declares {
            push_opaque(&mut nodes, &mut open, written);
        } else {
            nodes.push(Node::Action { written: written.to_string(), pipeline: parsed });
        }
    }
    if let Some((text, _)) = open {
        return Err(format!("{text}: unexpected EOF (a control structure without its {{{{end}}}})"));
    }
    let literal = if trim_next { rest.trim_start_matches(is_space) } else { rest };
    push_text(&mut nodes, &mut None, literal);
    Ok(Template { nodes })
}

fn push_text(nodes: &mut Vec<Node>, open: &mut Option<(String, usize)>, text: &str) {
    if text.is_empty() {
        return;
    }
    match (open, nodes.last_mut()) {
        (Some((written, _)), _) => written.push_str(text),
        (None, Some(Node::Text(last))) => last.push_str(text),
        (None, _) => nodes.push(Node::Text(text.to_string())),
    }
}

fn push_opaque(nodes: &mut Vec<Node>, open: &mut Option<(String, usize)>, written: &str) {
    match open {
        Some((text, _)) => text.push_str(written),
        None => nodes.push(Node::Opaque(written.to_string())),
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// The body of an action after `{{` and its trim marker: the body, how many bytes up to
/// and with `}}`, whether it ends with a trim marker (` -}}`), and whether it is a comment.
/// Quoted strings may hold `}}`.
fn action_body(after: &str) -> Result<(&str, usize, bool, bool), String> {
    if let Some(comment) = after.strip_prefix("/*") {
        let end = comment.find("*/").ok_or("unclosed comment")?;
        let tail = &comment[end + 2..];
        let used = 2 + end + 2;
        if tail.starts_with("}}") {
            return Ok(("", used + 2, false, true));
        }
        if tail.starts_with(is_space) && tail[1..].starts_with("-}}") {
            return Ok(("", used + 4, true, true));
        }
        return Err("comment ends before closing delimiter".into());
    }
    let bytes = after.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' && q != b'`' {
                    i += 1;
                } else if b == q {
                    quote = None;
                } else if b == b'\n' && q != b'`' {
                    return Err("unterminated quoted string".into());
                }
            }
            None if b == b'"' || b == b'`' || b == b'\'' => quote = Some(b),
            None if after[i..].starts_with("}}") => {
                let body = &after[..i];
                let trim =
                    body.len() >= 2 && body.ends_with('-') && body[..body.len() - 1].ends_with(is_space);
                let body = if trim { &body[..body.len() - 2] } else { body };
                return Ok((body, i + 2, trim, false));
            }
            None => {}
        }
        i += 1;
    }
    Err(match quote {
        Some(b'`') => "unterminated raw quoted string".into(),
        Some(_) => "unterminated quoted string".into(),
        None => "unclosed action".into(),
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Field(Vec<String>),
    Variable(String),
    Word(String),
    Str(String),
    Literal,
    Dot,
    Pipe,
    Declare,
    Assign,
    Comma,
    Open,
    Close,
}

const KEYWORDS: [&str; 11] =
    ["block", "break", "continue", "define", "else", "end", "if", "range", "template", "with", "nil"];

/// The tokens of an action's body, as text/template's lexer reads them.
fn lex(body: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let alnum = |c: char| c == '_' || c.is_alphanumeric();
    let terminator = |c: Option<&char>| match c {
        None => true,
        Some(c) => is_space(*c) || matches!(c, '.' | ',' | '|' | ':' | ')' | '('),
    };
    let mut depth = 0usize;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if is_space(c) => i += 1,
            '|' => {
                out.push(Token::Pipe);
                i += 1;
            }
            ',' => {
                out.push(Token::Comma);
                i += 1;
            }
            '=' => {
                out.push(Token::Assign);
                i += 1;
            }
            ':' => {
                if chars.get(i + 1) != Some(&'=') {
                    return Err("expected :=".into());
                }
                out.push(Token::Declare);
                i += 2;
            }
            '(' => {
                depth += 1;
                out.push(Token::Open);
                i += 1;
            }
            ')' => {
                depth = depth.checked_sub(1).ok_or("unexpected right paren")?;
                out.push(Token::Close);
                i += 1;
            }
            '"' | '`' | '\'' => {
                let mut j = i + 1;
                let mut text = String::new();
                while j < chars.len() && chars[j] != c {
                    if chars[j] == '\\' && c != '`' {
                        j += 1;
                        match chars.get(j) {
                            Some('n') => text.push('\n'),
                            Some('t') => text.push('\t'),
                            Some(e) => text.push(*e),
                            None => {}
                        }
                    } else {
                        text.push(chars[j]);
                    }
                    j += 1;
                }
                if j >= chars.len() {
                    return Err("unterminated quoted string".into());
                }
                out.push(if c == '\'' { Token::Literal } else { Token::Str(text) });
                i = j + 1;
            }
            '.' | '$' => {
                let variable = c == '$';
                let mut chain = Vec::new();
                let mut name = String::new();
                let mut j = i;
                if variable {
                    j += 1;
                    while j < chars.len() && alnum(chars[j]) {
                        name.push(chars[j]);
                        j += 1;
                    }
                }
                if !variable && chars.get(j + 1).is_some_and(char::is_ascii_digit) {
                    // `.5`: a number.
                    while j < chars.len() && !terminator(chars.get(j)) {
                        j += 1;
                    }
                    out.push(Token::Literal);
                    i = j;
                    continue;
                }
                while chars.get(j) == Some(&'.') {
                    let mut field = String::new();
                    j += 1;
                    while j < chars.len() && alnum(chars[j]) {
                        field.push(chars[j]);
                        j += 1;
                    }
                    if field.is_empty() {
                        if chain.is_empty() && !variable {
                            break;
                        }
                        return Err(bad_character(chars.get(j)));
                    }
                    chain.push(field);
                }
                if !terminator(chars.get(j)) {
                    return Err(bad_character(chars.get(j)));
                }
                out.push(match (variable, chain.is_empty()) {
                    (true, _) => Token::Variable(name),
                    (false, true) => Token::Dot,
                    (false, false) => Token::Field(chain),
                });
                i = j.max(i + 1);
            }
            c if c.is_ascii_digit()
                || ((c == '-' || c == '+') && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                let mut j = i + 1;
                while j < chars.len() && (alnum(chars[j]) || matches!(chars[j], '.' | '+' | '-')) {
                    j += 1;
                }
                out.push(Token::Literal);
                i = j;
            }
            c if alnum(c) => {
                let mut j = i;
                let mut word = String::new();
                while j < chars.len() && alnum(chars[j]) {
                    word.push(chars[j]);
                    j += 1;
                }
                if !terminator(chars.get(j)) {
                    return Err(bad_character(chars.get(j)));
                }
                out.push(match word.as_str() {
                    "true" | "false" => Token::Literal,
                    _ => Token::Word(word),
                });
                i = j;
            }
            other => return Err(bad_character(Some(&other))),
        }
    }
    if depth > 0 {
        return Err("unclosed left paren".into());
    }
    Ok(out)
}

fn bad_character(c: Option<&char>) -> String {
    match c {
        Some(c) => format!("bad character U+{:04X} {c:?}", u32::from(*c)),
        None => "unexpected end of action".into(),
    }
}

/// A pipeline, checked as text/template's parser checks it; also whether it declares or
/// assigns a variable.
fn pipeline(tokens: &[Token], scopes: &mut [Vec<String>], control: bool) -> Result<(Pipeline, bool), String> {
    let mut rest = tokens;
    let mut declares = false;
    // `$x :=`, `$x =`, `$i, $e :=`.
    match rest {
        [Token::Variable(v), Token::Declare | Token::Assign, tail @ ..] => {
            let declare = rest[1] == Token::Declare;
            if declare {
                scopes.last_mut().expect("a scope").push(v.clone());
            } else {
                defined(v, scopes)?;
            }
            declares = true;
            rest = tail;
        }
        [Token::Variable(a), Token::Comma, Token::Variable(b), Token::Declare | Token::Assign, tail @ ..]
            if control =>
        {
            let scope = scopes.last_mut().expect("a scope");
            scope.push(a.clone());
            scope.push(b.clone());
            declares = true;
            rest = tail;
        }
        _ => {}
    }
    let mut parsed = Pipeline::default();
    let mut command = Vec::new();
    let mut depth = 0usize;
    for token in rest {
        match token {
            Token::Pipe if depth == 0 => {
                if command.is_empty() {
                    return Err("missing command".into());
                }
                parsed.commands.push(std::mem::take(&mut command));
                continue;
            }
            Token::Open => {
                depth += 1;
                command.push(Term::Other);
                continue;
            }
            Token::Close => {
                depth -= 1;
                continue;
            }
            _ => {}
        }
        let term = match token {
            Token::Field(chain) => Term::Field(chain.clone()),
            Token::Variable(v) => {
                defined(v, scopes)?;
                Term::Other
            }
            Token::Word(w) if w == "nil" => Term::Other,
            Token::Word(w) if FUNCTIONS.contains(&w.as_str()) => Term::Function(w.clone()),
            Token::Word(w) if KEYWORDS.contains(&w.as_str()) => {
                return Err(format!("unexpected {w:?} in command"));
            }
            Token::Word(w) => return Err(format!("function {w:?} not defined")),
            Token::Str(s) => Term::Str(s.clone()),
            Token::Literal | Token::Dot => Term::Other,
            Token::Pipe => Term::Other,
            Token::Declare | Token::Assign | Token::Comma => return Err("unexpected declaration".into()),
            Token::Open | Token::Close => unreachable!("handled above"),
        };
        if depth == 0 {
            command.push(term);
        } else if let Term::Function(_) | Term::Field(_) = term {
            // Inside parentheses: checked, evaluated by the cluster.
        }
    }
    if command.is_empty() {
        return Err(if parsed.commands.is_empty() {
            "missing value for command".into()
        } else {
            "missing command".into()
        });
    }
    parsed.commands.push(command);
    Ok((parsed, declares))
}

fn pipeline_or_empty(tokens: &[Token], scopes: &mut [Vec<String>]) -> Result<(), String> {
    if !tokens.is_empty() {
        pipeline(tokens, scopes, false)?;
    }
    Ok(())
}

fn defined(variable: &str, scopes: &[Vec<String>]) -> Result<(), String> {
    if variable.is_empty() || scopes.iter().flatten().any(|v| v == variable) {
        Ok(())
    } else {
        Err(format!("undefined variable \"${variable}\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(key: &str) -> Lookup<'static> {
        match key {
            "app" => Lookup::Value("llama"),
            "pod-template-hash" => Lookup::Unknown,
            _ => Lookup::Absent,
        }
    }

    fn eval(template: &str) -> Result<Evaluated, String> {
        let data = Data {
            trust_domain: Some("example.org"),
            namespace: "serving",
            labels: &labels,
            service_account: "llama",
        };
        parse(template).and_then(|t| t.evaluate(&data))
    }

    #[test]
    fn the_spire_helm_charts_default_template_evaluates() {
        let got = eval(
            "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}",
        )
        .unwrap();
        assert_eq!(got.text, "spiffe://example.org/ns/serving/sa/llama");
        assert!(got.is_known());
    }

    #[test]
    fn labels_by_field_and_by_index_and_missing_ones_as_go_prints_them() {
        assert_eq!(eval("{{.PodMeta.Labels.app}}").unwrap().text, "llama");
        assert_eq!(eval(r#"{{ index .PodMeta.Labels "app" }}"#).unwrap().text, "llama");
        assert_eq!(eval("{{ .PodMeta.Labels.tier }}").unwrap().text, "<no value>");
        assert_eq!(eval(r#"{{ index .PodMeta.Labels "tier" }}"#).unwrap().text, "");
        assert_eq!(eval("{{ .PodMeta.GetNamespace }}").unwrap().text, "serving");
    }

    #[test]
    fn node_cluster_and_controller_data_stay_unknown_never_guessed() {
        let got = eval("spiffe://{{ .TrustDomain }}/{{ .ClusterName }}/{{.NodeMeta.Name}}").unwrap();
        assert_eq!(got.text, "spiffe://example.org/{{ .ClusterName }}/{{.NodeMeta.Name}}");
        assert_eq!(got.unknown, vec!["{{ .ClusterName }}", "{{.NodeMeta.Name}}"]);
        assert_eq!(got.known_runs().collect::<Vec<_>>(), vec!["spiffe://example.org/", "/", ""]);
        assert!(!eval("{{ .PodMeta.Labels.pod-template-hash }}").is_ok(), "a dash does not parse");
        assert!(!eval(r#"{{ index .PodMeta.Labels "pod-template-hash" }}"#).unwrap().is_known());
        assert!(!eval(r#"{{ .PodMeta.Name | printf "%s" }}"#).unwrap().is_known());
        assert!(!eval("{{ if .PodMeta.Labels.app }}a{{ else }}b{{ end }}").unwrap().is_known());
        let no_td =
            Data { trust_domain: None, namespace: "serving", labels: &labels, service_account: "llama" };
        assert!(!parse("spiffe://{{ .TrustDomain }}/x").unwrap().evaluate(&no_td).unwrap().is_known());
    }

    #[test]
    fn a_field_the_data_does_not_have_fails_at_execution() {
        // Go: can't evaluate field Namspace in type *v1.ObjectMeta.
        for bad in [
            "{{ .PodMeta.Namspace }}",
            "{{ .PodSpec.ServiceAccount }}",
            "{{ .NodeSpec.Name }}",
            "{{ .Pod.Name }}",
            "{{ .PodMeta.Namespace.Name }}",
            "{{ .PodMeta.Labels.app.x }}",
            r#"{{ printf "%s" .PodMeta.Namspace }}"#,
        ] {
            assert!(eval(bad).unwrap_err().contains("has no field"), "{bad}");
        }
        // Fields the cluster fills are not failures.
        for fine in [
            "{{ .PodMeta.UID }}",
            "{{ .PodSpec.NodeName }}",
            "{{ .NodeMeta.Labels.zone }}",
            "{{ .NodeSpec.ProviderID }}",
        ] {
            assert!(!eval(fine).unwrap().is_known(), "{fine}");
        }
    }

    #[test]
    fn what_gos_parser_refuses() {
        for bad in [
            "spiffe://x/{{ .PodMeta.Namespace",
            "{{ .PodMeta.Labels.app-name }}",
            "{{ .PodMeta.Name | lower }}",
            "{{ $x }}",
            "{{ end }}",
            "{{ if .PodMeta.Name }}x",
            "{{ \"x }}",
            "{{/* x */ }}",
            "{{ }}",
            "{{ .A | }}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        for good in [
            "{{ $x := .PodMeta.Name }}{{ $x }}",
            "{{ range $i, $e := .PodSpec.Containers }}{{ $e.Name }}{{ end }}",
            "{{ with .PodMeta }}{{ .Name }}{{ end }}",
            "{{- /* c */ -}}",
            "{{ (index .PodMeta.Labels \"app\") }}",
            "{{ .PodMeta.Name | printf \"%s-x\" }}",
        ] {
            assert!(parse(good).is_ok(), "{good}: {:?}", parse(good));
        }
    }

    #[test]
    fn trim_markers_and_comments() {
        assert_eq!(eval("a {{- .PodMeta.Namespace -}} b{{/* c */}}").unwrap().text, "aservingb");
        assert_eq!(parse("k8s:ns:x").unwrap().constant(), Some("k8s:ns:x"));
        assert_eq!(parse("k8s:ns:{{ .PodMeta.Namespace }}").unwrap().constant(), None);
    }
}
