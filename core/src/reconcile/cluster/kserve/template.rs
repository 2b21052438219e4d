//! KServe's templates in the fields the build reads (labels, accounts, pool selector and
//! reference): KServe marshals the merged spec to JSON and executes it as one Go text/template
//! over the service and its global config, with the functions `ChildName`, `kvTransferConfig`
//! and `shutdownTimeout` and `missingkey=error` (`config_merge.go`, `ReplaceVariables`).
//!
//! Evaluated here: the service's name and namespace (`.ObjectMeta.Name`, `.Name`, ...), its
//! labels and annotations by key, its spec's scalar fields as the manifest sets them,
//! `.GlobalConfig.InferencePoolNamespacedName`, `ChildName` (`names.rs`), `print` of strings,
//! pipelines of these, comments. Decided as a failure, where Go fails whatever the cluster
//! holds, so that KServe refuses the service: a `"`, `\`, `<`, `>` or `&` in an action (JSON
//! escapes it to a backslash, which Go's parser refuses: `unexpected "\\" in operand`, as
//! KServe's `config_validation_int_test.go` shows), a function that is not defined, an
//! unclosed action, a label or annotation key the service lacks (`missingkey=error`), a
//! `GlobalConfig` field that does not exist. Left to the cluster, named as unknown: the rest
//! of `GlobalConfig` (KServe's `inferenceservice-config` ConfigMap), a spec field the manifest
//! leaves unset, control structures and variables, the other functions.

use super::names::child_name;
use serde_json::Value;

/// What a template evaluates from.
pub struct Data<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    /// The service as written.
    pub service: &'a Value,
    /// `<namespace>/<pool>`: the pool the service uses or creates.
    pub pool: &'a str,
}

/// A field's text once KServe has executed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evaluated {
    Known(String),
    /// An action whose value only the cluster has: the action, and what it needs.
    Unknown {
        action: String,
        needs: String,
    },
    /// Go fails on it, so KServe refuses the service: why.
    Fails(String),
}

/// The functions KServe's template defines beside text/template's builtins.
const KSERVE_FUNCTIONS: [&str; 3] = ["ChildName", "kvTransferConfig", "shutdownTimeout"];
const BUILTINS: [&str; 19] = [
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println",
    "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];
const KEYWORDS: [&str; 10] =
    ["if", "else", "end", "with", "range", "define", "template", "block", "break", "continue"];
/// The fields of `GlobalConfig` (`templateGlobalConfig`).
const GLOBAL_CONFIG: [&str; 6] = [
    "SystemNamespace",
    "IngressGatewayName",
    "IngressGatewayNamespace",
    "EnableTLS",
    "ModelBasedRoutingHeaderName",
    "InferencePoolNamespacedName",
];

/// `text` as KServe's template execution leaves it.
pub fn evaluate(text: &str, data: &Data<'_>) -> Evaluated {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let (before, from) = rest.split_at(start);
        let Some(end) = from.find("}}") else {
            return Evaluated::Fails(format!("unclosed action in {text:?}"));
        };
        let inner = &from[2..end];
        let (trim_left, inner) = match inner.strip_prefix("- ") {
            Some(inner) => (true, inner),
            None => (false, inner),
        };
        let (trim_right, inner) = match inner.strip_suffix(" -") {
            Some(inner) => (true, inner),
            None => (false, inner),
        };
        // Before the action: JSON escapes newlines and tabs, so only spaces are trimmed.
        out.push_str(if trim_left { before.trim_end_matches(' ') } else { before });
        let action = &from[..end + 2];
        match pipeline(inner.trim_matches(' '), data) {
            Step::Value(value) => out.push_str(&value),
            Step::Nothing => {}
            Step::Unknown(needs) => return Evaluated::Unknown { action: action.to_string(), needs },
            Step::Fails(why) => return Evaluated::Fails(format!("{why} in {action}")),
        }
        rest = &from[end + 2..];
        if trim_right {
            rest = rest.trim_start_matches(' ');
        }
    }
    out.push_str(rest);
    Evaluated::Known(out)
}

enum Step {
    Value(String),
    /// A comment.
    Nothing,
    Unknown(String),
    Fails(String),
}

/// A token of an action.
#[derive(Debug, PartialEq)]
enum Token<'t> {
    /// `.A.B`, without the leading dot; empty for `.` itself.
    Field(Vec<&'t str>),
    Word(&'t str),
    Raw(&'t str),
    Pipe,
    /// Anything else the build does not evaluate: a variable, a parenthesis, a number.
    Other(&'t str),
}

fn pipeline(action: &str, data: &Data<'_>) -> Step {
    if action.starts_with("/*") {
        return Step::Nothing;
    }
    let tokens = match lex(action) {
        Ok(tokens) => tokens,
        Err(why) => return Step::Fails(why),
    };
    // Parsing fails on undefined functions wherever they stand: checked first.
    for token in &tokens {
        if let Token::Word(word) = token
            && !["nil", "true", "false"].contains(word)
            && !KEYWORDS.contains(word)
            && !BUILTINS.contains(word)
            && !KSERVE_FUNCTIONS.contains(word)
        {
            return Step::Fails(format!("function {word:?} not defined"));
        }
    }
    let mut piped: Option<String> = None;
    for command in tokens.split(|t| *t == Token::Pipe) {
        let value = match command {
            [Token::Word(word), ..] if KEYWORDS.contains(word) => {
                return Step::Unknown(format!("the {word} action, which the build does not execute"));
            }
            [Token::Word("ChildName"), args @ ..] => {
                let mut values = Vec::new();
                for arg in args {
                    match operand(arg, data) {
                        Step::Value(v) => values.push(v),
                        other => return other,
                    }
                }
                values.extend(piped.take());
                match values.as_slice() {
                    [parent, suffix] => child_name(parent, suffix),
                    _ => {
                        return Step::Fails(format!(
                            "wrong number of args for ChildName: want 2 got {}",
                            values.len()
                        ));
                    }
                }
            }
            [Token::Word("print"), args @ ..] => {
                let mut text = String::new();
                for arg in args {
                    match operand(arg, data) {
                        Step::Value(v) => text.push_str(&v),
                        other => return other,
                    }
                }
                text.push_str(&piped.take().unwrap_or_default());
                text
            }
            [Token::Word(word), ..] => {
                return Step::Unknown(format!("the function {word}, which the build does not call"));
            }
            [single] if piped.is_none() => match operand(single, data) {
                Step::Value(v) => v,
                other => return other,
            },
            _ => return Step::Unknown("a pipeline the build does not evaluate".into()),
        };
        piped = Some(value);
    }
    piped.map_or(Step::Fails("missing value for command".into()), Step::Value)
}

fn operand(token: &Token<'_>, data: &Data<'_>) -> Step {
    match token {
        Token::Raw(text) => Step::Value(text.to_string()),
        Token::Field(path) => field(path, data),
        Token::Word(word) => Step::Unknown(format!("{word} as an argument")),
        _ => Step::Unknown("an operand the build does not evaluate".into()),
    }
}

/// A field of the template's data: the service (embedded, so its metadata's fields are
/// promoted) and `GlobalConfig`.
fn field(path: &[&str], data: &Data<'_>) -> Step {
    let path = match path {
        ["ObjectMeta", rest @ ..] => rest,
        ["GlobalConfig", key] if !GLOBAL_CONFIG.contains(key) => {
            return Step::Fails(format!("can't evaluate field {key} in type llmisvc.templateGlobalConfig"));
        }
        ["GlobalConfig", "InferencePoolNamespacedName"] => return Step::Value(data.pool.to_string()),
        ["GlobalConfig", key] => {
            return Step::Unknown(format!(
                "GlobalConfig.{key}, which KServe reads from its inferenceservice-config ConfigMap in the cluster"
            ));
        }
        ["Spec", rest @ ..] => return spec_field(rest, data),
        other => other,
    };
    let map = |key: &str, which: &str, entry: &str| {
        let value =
            data.service.pointer(&format!("/metadata/{key}/{}", entry.replace('~', "~0").replace('/', "~1")));
        match value.and_then(Value::as_str) {
            Some(v) => Step::Value(v.to_string()),
            None => Step::Fails(format!("map has no entry for key {entry:?} (the service's {which})")),
        }
    };
    match path {
        ["Name"] => Step::Value(data.name.to_string()),
        ["Namespace"] => Step::Value(data.namespace.to_string()),
        ["Labels", key] => map("labels", "labels", key),
        ["Annotations", key] => map("annotations", "annotations", key),
        _ => Step::Unknown(format!(".{}, which only the cluster settles", path.join("."))),
    }
}

/// A field of the service's spec, by its Go name: its value when the manifest sets it to a
/// scalar; else the cluster's (a default, a zero value, or a field Go does not know).
fn spec_field(path: &[&str], data: &Data<'_>) -> Step {
    let mut node = data.service.get("spec");
    for name in path {
        node = node
            .and_then(Value::as_object)
            .and_then(|m| m.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v));
    }
    match node {
        Some(Value::String(s)) => Step::Value(s.clone()),
        Some(Value::Number(n)) => Step::Value(n.to_string()),
        Some(Value::Bool(b)) => Step::Value(b.to_string()),
        _ => {
            Step::Unknown(format!(".Spec.{}, which the manifest leaves to KServe's defaults", path.join(".")))
        }
    }
}

/// The tokens of an action, as JSON-escaped text: a character JSON escapes gives Go's
/// parser a backslash outside a raw string, which it refuses.
fn lex(action: &str) -> Result<Vec<Token<'_>>, String> {
    let mut tokens = Vec::new();
    let mut rest = action;
    while let Some(c) = rest.chars().next() {
        let word_end = |s: &str| s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
        match c {
            ' ' => rest = &rest[1..],
            '|' => {
                tokens.push(Token::Pipe);
                rest = &rest[1..];
            }
            '`' => {
                let Some(end) = rest[1..].find('`') else {
                    return Err("unterminated raw quoted string".into());
                };
                tokens.push(Token::Raw(&rest[1..=end]));
                rest = &rest[end + 2..];
            }
            '"' | '\\' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                return Err(format!(
                    "unexpected \"\\\\\" in operand (JSON escapes {c:?}, and Go's parser refuses the backslash; \
                     write a string with backquotes)"
                ));
            }
            c if (c as u32) < 0x20 => {
                return Err(format!("unexpected \"\\\\\" in operand (JSON escapes {c:?})"));
            }
            '.' => {
                let mut path = Vec::new();
                let mut at = rest;
                while let Some(after) = at.strip_prefix('.') {
                    let end = word_end(after);
                    if end == 0 {
                        break;
                    }
                    path.push(&after[..end]);
                    at = &after[end..];
                }
                if path.is_empty() {
                    at = &rest[1..];
                }
                tokens.push(Token::Field(path));
                rest = at;
            }
            c if c.is_alphabetic() || c == '_' => {
                let end = word_end(rest);
                tokens.push(Token::Word(&rest[..end]));
                rest = &rest[end..];
            }
            _ => {
                let end = rest.find([' ', '|']).unwrap_or(rest.len()).max(c.len_utf8());
                tokens.push(Token::Other(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(text: &str) -> Evaluated {
        let service = json!({"metadata": {"name": "llama", "namespace": "serving", "labels": {"team": "ml"}},
            "spec": {"model": {"name": "meta/llama"}}});
        evaluate(
            text,
            &Data {
                name: "llama",
                namespace: "serving",
                service: &service,
                pool: "serving/llama-inference-pool",
            },
        )
    }

    fn known(text: &str) -> String {
        match run(text) {
            Evaluated::Known(v) => v,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn names_child_names_labels_and_set_spec_fields_are_evaluated() {
        assert_eq!(known("{{ .ObjectMeta.Name }}-x-{{ .Namespace }}"), "llama-x-serving");
        assert_eq!(known("{{ ChildName .ObjectMeta.Name `-runtime` }}"), "llama-runtime");
        assert_eq!(known("{{ .Name | ChildName `p-` }}"), "p-llama", "the piped value is the last argument");
        assert_eq!(known("{{ ChildName .Name `-epp-sa` }}"), "llama-epp-sa");
        assert_eq!(known("a {{- .Name -}} b"), "allamab");
        assert_eq!(known("{{ .Labels.team }}/{{ .Spec.Model.Name }}"), "ml/meta/llama");
        assert_eq!(known("{{/* a comment */}}x"), "x");
        assert_eq!(known("{{ .GlobalConfig.InferencePoolNamespacedName }}"), "serving/llama-inference-pool");
        let long = "n".repeat(60);
        let service = json!({"metadata": {"name": long}});
        let data = Data { name: &long, namespace: "", service: &service, pool: "" };
        assert_eq!(
            evaluate("{{ ChildName .Name `-runtime` }}", &data),
            Evaluated::Known(child_name(&long, "-runtime"))
        );
    }

    #[test]
    fn what_go_refuses_whatever_the_cluster_holds_fails() {
        for text in [
            "{{ ChildName .ObjectMeta.Name \"-runtime\" }}",
            "{{ .Name",
            "{{ lower .Name }}",
            "{{ .Labels.missing }}",
            "{{ .GlobalConfig.Nope }}",
            "{{ ChildName .Name }}",
        ] {
            assert!(matches!(run(text), Evaluated::Fails(_)), "{text}: {:?}", run(text));
        }
        match run("{{ ChildName .ObjectMeta.Name \"-runtime\" }}") {
            Evaluated::Fails(why) => assert!(why.starts_with("unexpected \"\\\\\" in operand"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_the_cluster_settles_is_unknown_and_named() {
        for (text, needs) in [
            ("{{ .GlobalConfig.SystemNamespace }}", "inferenceservice-config"),
            ("{{ .Spec.Replicas }}", "defaults"),
            ("{{ .UID }}", "cluster"),
            ("{{ if .Spec.Prefill }}p{{ end }}", "if action"),
            ("{{ printf `%s` .Name }}", "printf"),
        ] {
            match run(text) {
                Evaluated::Unknown { action, needs: why } => {
                    assert!(why.contains(needs), "{text}: {why}");
                    assert!(text.contains(&action), "{action}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
