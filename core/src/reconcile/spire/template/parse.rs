//! Go's text/template parser (text/template/parse/parse.go) over the lexer's items: the tree
//! Go builds, or the reason it refuses the template (the manager then skips the object).
//! Functions are text/template's builtins (the manager adds none); variables must be
//! declared; `break` and `continue` stand only in a `range`; `define` and `block` add named
//! templates as `Tree.add` does.

use super::lex::{Item, Kind, lex};
use super::number::{self, Number};
use super::quote::unquote;
use super::{FUNCTIONS, Template};
use std::collections::BTreeMap;
use std::ops::Range;

/// A node of a template's tree, with where it stands in the template (its actions from `{{`
/// to `}}`, a control structure through its `{{end}}`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Text(String),
    Action(Range<usize>, Pipe),
    If(Control),
    With(Control),
    Range(Control),
    /// `{{template "name" pipeline}}` (and the call a `block` makes).
    Call(Range<usize>),
    Break(Range<usize>),
    Continue(Range<usize>),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Control {
    pub span: Range<usize>,
    pub pipe: Pipe,
    pub list: Vec<Node>,
    pub otherwise: Vec<Node>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Pipe {
    /// Variables declared (`:=`) or assigned (`=`), with their `$`.
    pub decl: Vec<String>,
    pub assign: bool,
    pub cmds: Vec<Vec<Arg>>,
}

/// An operand of a command.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Arg {
    /// `.A.B`
    Field(Vec<String>),
    /// `$x.A.B`: the variable, with its `$`, then the fields.
    Variable(String, Vec<String>),
    /// `(pipeline).A.B`
    Chain(Box<Arg>, Vec<String>),
    Dot,
    Nil,
    Bool(bool),
    Number(Number),
    /// A string constant's bytes, as Go unquotes them.
    Str(Vec<u8>),
    /// A builtin function.
    Function(&'static str),
    Pipe(Box<Pipe>),
}

/// Parses `template`, named `name` as the manager names it, as text/template does.
pub fn parse(template: &str, name: &str) -> Result<Template, String> {
    let items = lex(template);
    let mut p = Parser { items, at: 0, vars: vec!["$".into()], range_depth: 0, defined: BTreeMap::new() };
    let root = p.root()?;
    // Tree.add for the template itself: a definition of its own name replaces an empty body.
    let nodes = match p.defined.remove(name) {
        Some(body) if !is_empty(&body) => {
            if !is_empty(&root) {
                return Err(format!("template: multiple definition of template {name:?}"));
            }
            body
        }
        _ => root,
    };
    // Text either side of a comment is one run of text.
    let mut merged: Vec<Node> = Vec::with_capacity(nodes.len());
    for node in nodes {
        match (merged.last_mut(), node) {
            (Some(Node::Text(before)), Node::Text(text)) => before.push_str(&text),
            (_, node) => merged.push(node),
        }
    }
    Ok(Template { nodes: merged, text: template.to_string() })
}

/// Go's `IsEmptyTree`: only space and comments. Its text is trimmed by `bytes.TrimSpace`,
/// whose space is Unicode's (`unicode.IsSpace`: `\v`, `\f`, U+0085, U+00A0, ... beside the
/// lexer's four), as Rust's `char::is_whitespace` reads it.
fn is_empty(nodes: &[Node]) -> bool {
    nodes.iter().all(|n| matches!(n, Node::Text(t) if t.trim_matches(char::is_whitespace).is_empty()))
}

struct Parser {
    items: Vec<Item>,
    at: usize,
    vars: Vec<String>,
    range_depth: usize,
    defined: BTreeMap<String, Vec<Node>>,
}

type Parsed<T> = Result<T, String>;

/// What ends a list of nodes.
enum End {
    End(usize),
    /// `{{else}}`, and whether an `if` or `with` follows it in the same action.
    Else(Option<&'static str>),
}

impl Parser {
    fn peek(&self) -> &Item {
        &self.items[self.at.min(self.items.len() - 1)]
    }

    fn next(&mut self) -> Item {
        let item = self.peek().clone();
        self.at += 1;
        item
    }

    fn backup(&mut self) {
        self.at -= 1;
    }

    fn next_non_space(&mut self) -> Item {
        loop {
            let item = self.next();
            if item.kind != Kind::Space {
                return item;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item {
        let item = self.next_non_space();
        self.backup();
        item
    }

    fn unexpected(&self, item: &Item, context: &str) -> String {
        match &item.kind {
            Kind::Error(why) => why.clone(),
            kind => format!("unexpected {} in {context}", describe(kind)),
        }
    }

    fn root(&mut self) -> Parsed<Vec<Node>> {
        let mut nodes = Vec::new();
        loop {
            if self.peek().kind == Kind::Eof {
                return Ok(nodes);
            }
            if self.peek().kind == Kind::LeftDelim {
                let at = self.at;
                self.next();
                if self.next_non_space().kind == Kind::Keyword("define") {
                    self.definition()?;
                    continue;
                }
                self.at = at;
            }
            match self.text_or_action()? {
                Ok(node) => nodes.extend(node),
                Err(End::End(_)) => return Err("unexpected {{end}}".into()),
                Err(End::Else(_)) => return Err("unexpected {{else}}".into()),
            }
        }
    }

    /// `{{define "name"}} list {{end}}`, a tree of its own.
    fn definition(&mut self) -> Parsed<()> {
        let token = self.next_non_space();
        let name = match &token.kind {
            Kind::String(s) | Kind::RawString(s) => string(s)?,
            _ => return Err(self.unexpected(&token, "define clause")),
        };
        let close = self.next_non_space();
        if close.kind != Kind::RightDelim {
            return Err(self.unexpected(&close, "define clause"));
        }
        let outer = (std::mem::replace(&mut self.vars, vec!["$".into()]), self.range_depth);
        self.range_depth = 0;
        let (body, end) = self.item_list()?;
        (self.vars, self.range_depth) = outer;
        if let End::Else(_) = end {
            return Err("unexpected {{else}} in define clause".into());
        }
        self.add(name, body)
    }

    /// `Tree.add`: a name defined twice with a body each time is refused.
    fn add(&mut self, name: String, body: Vec<Node>) -> Parsed<()> {
        match self.defined.get(&name) {
            Some(old) if !is_empty(old) => {
                if !is_empty(&body) {
                    return Err(format!("template: multiple definition of template {name:?}"));
                }
            }
            _ => {
                self.defined.insert(name, body);
            }
        }
        Ok(())
    }

    /// Nodes up to an `{{end}}` or `{{else}}`.
    fn item_list(&mut self) -> Parsed<(Vec<Node>, End)> {
        let mut nodes = Vec::new();
        while self.peek_non_space().kind != Kind::Eof {
            match self.text_or_action()? {
                Ok(node) => nodes.extend(node),
                Err(end) => return Ok((nodes, end)),
            }
        }
        Err("unexpected EOF".into())
    }

    fn text_or_action(&mut self) -> Parsed<Result<Option<Node>, End>> {
        let token = self.next_non_space();
        match token.kind {
            Kind::Text(text) => Ok(Ok(Some(Node::Text(text)))),
            Kind::LeftDelim => self.action(token.start),
            _ => Err(self.unexpected(&token, "input")),
        }
    }

    fn action(&mut self, start: usize) -> Parsed<Result<Option<Node>, End>> {
        let token = self.next_non_space();
        let keyword = match token.kind {
            Kind::Keyword(k) => k,
            _ => {
                self.backup();
                let pipe = self.pipeline("command", true)?;
                let end = self.items[self.at - 1].end;
                return Ok(Ok(Some(Node::Action(start..end, pipe))));
            }
        };
        let node = match keyword {
            "block" => return self.block(start).map(|n| Ok(Some(n))),
            "break" | "continue" => {
                let close = self.next_non_space();
                if close.kind != Kind::RightDelim {
                    return Err(self.unexpected(&close, &format!("{{{{{keyword}}}}}")));
                }
                if self.range_depth == 0 {
                    return Err(format!("{{{{{keyword}}}}} outside {{{{range}}}}"));
                }
                let span = start..close.end;
                if keyword == "break" { Node::Break(span) } else { Node::Continue(span) }
            }
            "else" => {
                let peek = self.peek_non_space();
                let chained = match peek.kind {
                    Kind::Keyword(k @ ("if" | "with")) => Some(k),
                    _ => {
                        let close = self.next_non_space();
                        if close.kind != Kind::RightDelim {
                            return Err(self.unexpected(&close, "else"));
                        }
                        None
                    }
                };
                return Ok(Err(End::Else(chained)));
            }
            "end" => {
                let close = self.next_non_space();
                if close.kind != Kind::RightDelim {
                    return Err(self.unexpected(&close, "end"));
                }
                return Ok(Err(End::End(close.end)));
            }
            "if" | "range" | "with" => self.control(keyword, start)?,
            "template" => {
                let token = self.next_non_space();
                match &token.kind {
                    Kind::String(s) | Kind::RawString(s) => string(s)?,
                    _ => return Err(self.unexpected(&token, "template clause")),
                };
                if self.next_non_space().kind != Kind::RightDelim {
                    self.backup();
                    self.pipeline("template clause", true)?;
                }
                Node::Call(start..self.items[self.at - 1].end)
            }
            other => return Err(format!("unexpected {other:?} in command")),
        };
        Ok(Ok(Some(node)))
    }

    /// `{{block "name" pipeline}} list {{end}}`: defines `name` and calls it.
    fn block(&mut self, start: usize) -> Parsed<Node> {
        let token = self.next_non_space();
        let name = match &token.kind {
            Kind::String(s) | Kind::RawString(s) => string(s)?,
            _ => return Err(self.unexpected(&token, "block clause")),
        };
        self.pipeline("block clause", true)?;
        let outer = (std::mem::replace(&mut self.vars, vec!["$".into()]), self.range_depth);
        self.range_depth = 0;
        let (body, end) = self.item_list()?;
        (self.vars, self.range_depth) = outer;
        let End::End(end) = end else { return Err("unexpected {{else}} in block clause".into()) };
        self.add(name, body)?;
        Ok(Node::Call(start..end))
    }

    /// `if`, `range` or `with`: its pipeline, its list, and what follows `{{else}}`.
    fn control(&mut self, context: &'static str, start: usize) -> Parsed<Node> {
        let vars = self.vars.len();
        let pipe = self.pipeline(context, true)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let listed = self.item_list();
        if context == "range" {
            self.range_depth -= 1;
        }
        let (list, next) = listed?;
        let (otherwise, end) = match next {
            End::End(end) => (Vec::new(), end),
            End::Else(Some(chained)) if chained == context && context != "range" => {
                // `{{else if ...}}`: an `if` in the else list that ends with the same `{{end}}`.
                let token = self.next_non_space();
                let inner = self.control(context, token.start)?;
                let end = span(&inner).end;
                (vec![inner], end)
            }
            End::Else(_) => {
                let (otherwise, end) = self.item_list()?;
                match end {
                    End::End(end) => (otherwise, end),
                    End::Else(_) => return Err("expected end; found {{else}}".into()),
                }
            }
        };
        self.vars.truncate(vars);
        let control = Control { span: start..end, pipe, list, otherwise };
        Ok(match context {
            "if" => Node::If(control),
            "with" => Node::With(control),
            _ => Node::Range(control),
        })
    }

    /// A pipeline up to `}}` (`delim`) or `)`.
    fn pipeline(&mut self, context: &str, delim: bool) -> Parsed<Pipe> {
        let mut pipe = Pipe::default();
        while let Kind::Variable(name) = self.peek_non_space().kind {
            let at_variable = self.at;
            self.next_non_space();
            let next = self.peek_non_space();
            match next.kind {
                Kind::Assign | Kind::Declare => {
                    pipe.assign = next.kind == Kind::Assign;
                    self.next_non_space();
                    pipe.decl.push(name.clone());
                    self.vars.push(name);
                }
                Kind::Char(',') => {
                    self.next_non_space();
                    pipe.decl.push(name.clone());
                    self.vars.push(name);
                    if context == "range" && pipe.decl.len() < 2 {
                        match self.peek_non_space().kind {
                            Kind::Variable(_) | Kind::RightDelim | Kind::RightParen => continue,
                            _ => return Err("range can only initialize variables".into()),
                        }
                    }
                    return Err(format!("too many declarations in {context}"));
                }
                // `$x foo`, `$x}}`: the variable is an operand.
                _ => {
                    self.at = at_variable;
                }
            }
            break;
        }
        let end = if delim { Kind::RightDelim } else { Kind::RightParen };
        loop {
            let token = self.next_non_space();
            match &token.kind {
                k if *k == end => {
                    if pipe.cmds.is_empty() {
                        return Err(format!("missing value for {context}"));
                    }
                    for (i, cmd) in pipe.cmds.iter().enumerate().skip(1) {
                        if matches!(cmd[0], Arg::Bool(_) | Arg::Dot | Arg::Nil | Arg::Number(_) | Arg::Str(_))
                        {
                            return Err(format!("non executable command in pipeline stage {}", i + 1));
                        }
                    }
                    return Ok(pipe);
                }
                Kind::Bool(_)
                | Kind::CharConstant(_)
                | Kind::Complex(_)
                | Kind::Dot
                | Kind::Field(_)
                | Kind::Identifier(_)
                | Kind::Number(_)
                | Kind::Nil
                | Kind::RawString(_)
                | Kind::String(_)
                | Kind::Variable(_)
                | Kind::LeftParen => {
                    self.backup();
                    let cmd = self.command()?;
                    pipe.cmds.push(cmd);
                }
                _ => return Err(self.unexpected(&token, context)),
            }
        }
    }

    fn command(&mut self) -> Parsed<Vec<Arg>> {
        let mut args = Vec::new();
        loop {
            if let Some(operand) = self.operand()? {
                args.push(operand);
            }
            let token = self.next();
            match token.kind {
                Kind::Space => continue,
                Kind::RightDelim | Kind::RightParen => self.backup(),
                Kind::Pipe => {}
                _ => return Err(self.unexpected(&token, "operand")),
            }
            break;
        }
        if args.is_empty() {
            return Err("empty command".into());
        }
        Ok(args)
    }

    fn operand(&mut self) -> Parsed<Option<Arg>> {
        let Some(term) = self.term()? else { return Ok(None) };
        if !matches!(self.peek().kind, Kind::Field(_)) {
            return Ok(Some(term));
        }
        let mut fields = Vec::new();
        while let Kind::Field(f) = &self.peek().kind {
            fields.push(f[1..].to_string());
            self.next();
        }
        Ok(Some(match term {
            Arg::Field(mut chain) => {
                chain.extend(fields);
                Arg::Field(chain)
            }
            Arg::Variable(v, mut chain) => {
                chain.extend(fields);
                Arg::Variable(v, chain)
            }
            Arg::Bool(_) | Arg::Str(_) | Arg::Number(_) | Arg::Nil | Arg::Dot => {
                return Err("unexpected . after term".into());
            }
            other => Arg::Chain(Box::new(other), fields),
        }))
    }

    fn term(&mut self) -> Parsed<Option<Arg>> {
        let token = self.next_non_space();
        Ok(Some(match &token.kind {
            Kind::Identifier(name) => match FUNCTIONS.iter().find(|f| **f == name) {
                Some(f) => Arg::Function(f),
                None => return Err(format!("function {name:?} not defined")),
            },
            Kind::Dot => Arg::Dot,
            Kind::Nil => Arg::Nil,
            Kind::Variable(name) => {
                if !self.vars.contains(name) {
                    return Err(format!("undefined variable {name:?}"));
                }
                Arg::Variable(name.clone(), Vec::new())
            }
            Kind::Field(name) => Arg::Field(vec![name[1..].to_string()]),
            Kind::Bool(b) => Arg::Bool(*b),
            Kind::CharConstant(text) => Arg::Number(number::parse(text, true, false)?),
            Kind::Complex(text) => Arg::Number(number::parse(text, false, true)?),
            Kind::Number(text) => Arg::Number(number::parse(text, false, false)?),
            Kind::LeftParen => Arg::Pipe(Box::new(self.pipeline("parenthesized pipeline", false)?)),
            Kind::String(s) | Kind::RawString(s) => Arg::Str(unquote(s)?),
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }
}

fn span(node: &Node) -> Range<usize> {
    match node {
        Node::If(c) | Node::With(c) | Node::Range(c) => c.span.clone(),
        Node::Action(s, _) | Node::Call(s) | Node::Break(s) | Node::Continue(s) => s.clone(),
        Node::Text(_) => 0..0,
    }
}

/// A quoted name, as Go reads it.
fn string(quoted: &str) -> Parsed<String> {
    String::from_utf8(unquote(quoted)?).map_err(|_| format!("{quoted}: not UTF-8"))
}

fn describe(kind: &Kind) -> String {
    match kind {
        Kind::Text(t) | Kind::String(t) | Kind::RawString(t) | Kind::CharConstant(t) | Kind::Number(t) => {
            format!("{t:?}")
        }
        Kind::Complex(t) | Kind::Field(t) | Kind::Identifier(t) | Kind::Variable(t) => format!("{t:?}"),
        Kind::Keyword(k) => format!("<{k}>"),
        Kind::Char(c) => format!("{c:?}"),
        Kind::RightDelim => "\"}}\"".into(),
        Kind::LeftDelim => "\"{{\"".into(),
        Kind::Eof => "EOF".into(),
        Kind::Error(why) => why.clone(),
        Kind::Space => "space".into(),
        Kind::Assign => "\"=\"".into(),
        Kind::Declare => "\":=\"".into(),
        Kind::Pipe => "\"|\"".into(),
        Kind::Bool(b) => b.to_string(),
        Kind::Dot => "\".\"".into(),
        Kind::Nil => "nil".into(),
        Kind::LeftParen => "\"(\"".into(),
        Kind::RightParen => "\")\"".into(),
    }
}
