//! Go's text/template parser, as far as deciding what it refuses: the lexer's tokens and
//! bad characters, actions, comments and trim markers, pipelines with text/template's builtin
//! functions and declared variables, control structures that must balance.

use super::{FUNCTIONS, Node, Pipeline, Template, Term};

/// Parses `template` as text/template does; `Err` says why Go refuses it.
pub fn parse(template: &str) -> Result<Template, String> {
    let mut nodes = Vec::new();
    let mut rest = template;
    let mut trim_next = false;
    // Open control structures: where the outermost one started, and the nesting depth.
    let mut open: Option<(String, usize)> = None;
    // By open control structure, innermost last: whether its body is a `range`'s (Go's
    // `rangeDepth`: not in the `else` of a range, where `break` and `continue` are refused).
    let mut in_range: Vec<bool> = Vec::new();
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
                    pipeline(&tokens[1..], &mut scopes, keyword == Some("range"))?;
                }
                scopes.push(Vec::new());
                in_range.push(keyword == Some("range"));
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
                    pipeline(&tokens[2..], &mut scopes, false)?;
                }
                if let Some(body) = in_range.last_mut() {
                    *body = false;
                }
                text.push_str(written);
                continue;
            }
            Some("end") => {
                let Some((text, depth)) = &mut open else { return Err("unexpected {{end}}".into()) };
                scopes.pop();
                in_range.pop();
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
                } else if tokens.len() > 1 {
                    return Err(format!(
                        "{written}: unexpected words in {{{{{}}}}}",
                        keyword.unwrap_or_default()
                    ));
                } else if !in_range.contains(&true) {
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
            // A number: `5`, `-3`, `+1.5e3`, `0x1F`, `.5` (before fields: `.5` is no field).
            c if c.is_ascii_digit()
                || (matches!(c, '-' | '+' | '.') && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                let mut j = i + 1;
                while j < chars.len() && (alnum(chars[j]) || matches!(chars[j], '.' | '+' | '-')) {
                    j += 1;
                }
                out.push(Token::Literal);
                i = j;
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
/// assigns a variable. Only `range` declares two (`$i, $e :=`): in any other pipeline Go
/// refuses them ("too many declarations").
fn pipeline(tokens: &[Token], scopes: &mut [Vec<String>], range: bool) -> Result<(Pipeline, bool), String> {
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
            if range =>
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
