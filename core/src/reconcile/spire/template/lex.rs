//! text/template's lexer (text/template/parse/lex.go), state for state: text and its trim
//! markers, comments, and the items inside an action. Strings, characters and numbers are
//! only scanned here; the parser reads their values as Go does ([`super::quote`],
//! [`super::number`]).

use std::sync::OnceLock;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// Text between actions, trimmed as the markers say.
    Text(String),
    LeftDelim,
    RightDelim,
    Space,
    Assign,
    Declare,
    Pipe,
    /// A printable ASCII character that is no other item (`,` among them).
    Char(char),
    /// A quoted, raw-quoted or character constant, or a number: as written.
    String(String),
    RawString(String),
    CharConstant(String),
    Number(String),
    Complex(String),
    Bool(bool),
    /// `.Name`, with its dot.
    Field(String),
    Identifier(String),
    /// `$` or `$name`, with its dollar.
    Variable(String),
    Dot,
    Nil,
    LeftParen,
    RightParen,
    Keyword(&'static str),
    Eof,
    Error(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Item {
    pub kind: Kind,
    /// Where it starts in the template, in bytes.
    pub start: usize,
    /// Where it ends (for a right delimiter: after the `}}`).
    pub end: usize,
}

const KEYWORDS: [&str; 10] =
    ["block", "break", "continue", "define", "else", "end", "if", "range", "template", "with"];

pub(super) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Go's `isAlphaNumeric`: `_`, a Unicode letter (category L) or decimal digit (Nd).
pub fn is_alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        return c == '_' || c.is_ascii_alphanumeric();
    }
    static CLASS: OnceLock<regex::Regex> = OnceLock::new();
    let class = CLASS.get_or_init(|| regex::Regex::new(r"^[\p{L}\p{Nd}]$").expect("a valid class"));
    let mut buf = [0u8; 4];
    class.is_match(c.encode_utf8(&mut buf))
}

/// The items of `input`, ending with `Eof` or with the first `Error`.
pub(super) fn lex(input: &str) -> Vec<Item> {
    let mut l = Lexer { input, pos: 0, start: 0, items: Vec::new(), paren_depth: 0 };
    l.run();
    l.items
}

struct Lexer<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    items: Vec<Item>,
    paren_depth: usize,
}

enum State {
    Text,
    LeftDelim,
    Comment,
    RightDelim,
    Inside,
    Done,
}

fn has_left_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1] as char)
}

fn has_right_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(b[0] as char) && b[1] == b'-'
}

impl Lexer<'_> {
    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.peek() {
            Some(c) if valid.contains(c) => {
                self.pos += c.len_utf8();
                true
            }
            _ => false,
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while self.accept(valid) {}
    }

    fn emit(&mut self, kind: Kind) -> State {
        self.items.push(Item { kind, start: self.start, end: self.pos });
        self.start = self.pos;
        State::Inside
    }

    fn error(&mut self, why: String) -> State {
        self.items.push(Item { kind: Kind::Error(why), start: self.start, end: self.pos });
        State::Done
    }

    fn run(&mut self) {
        let mut state = State::Text;
        loop {
            state = match state {
                State::Text => self.text(),
                State::LeftDelim => self.left_delim(),
                State::Comment => self.comment(),
                State::RightDelim => self.right_delim(),
                State::Inside => self.inside(),
                State::Done => return,
            }
        }
    }

    fn text(&mut self) -> State {
        match self.rest().find("{{") {
            Some(x) => {
                if x > 0 {
                    self.pos += x;
                    let mut text = &self.input[self.start..self.pos];
                    if has_left_trim(&self.input[self.pos + 2..]) {
                        text = text.trim_end_matches(is_space);
                    }
                    if !text.is_empty() {
                        self.items.push(Item {
                            kind: Kind::Text(text.to_string()),
                            start: self.start,
                            end: self.start + text.len(),
                        });
                    }
                    self.start = self.pos;
                }
                State::LeftDelim
            }
            None => {
                self.pos = self.input.len();
                if self.pos > self.start {
                    let text = self.input[self.start..].to_string();
                    self.emit(Kind::Text(text));
                }
                self.emit(Kind::Eof);
                State::Done
            }
        }
    }

    fn left_delim(&mut self) -> State {
        self.pos += 2;
        let after = if has_left_trim(self.rest()) { 2 } else { 0 };
        if self.rest()[after..].starts_with("/*") {
            self.pos += after;
            return State::Comment;
        }
        self.items.push(Item { kind: Kind::LeftDelim, start: self.start, end: self.pos });
        self.pos += after;
        self.start = self.pos;
        self.paren_depth = 0;
        State::Inside
    }

    fn comment(&mut self) -> State {
        self.pos += 2;
        let Some(x) = self.rest().find("*/") else { return self.error("unclosed comment".into()) };
        self.pos += x + 2;
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.error("comment ends before closing delimiter".into());
        }
        self.pos += if trim { 4 } else { 2 };
        if trim {
            self.pos = self.input.len() - self.rest().trim_start_matches(is_space).len();
        }
        self.start = self.pos;
        State::Text
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let rest = self.rest();
        if has_right_trim(rest) && rest[2..].starts_with("}}") {
            return (true, true);
        }
        (rest.starts_with("}}"), false)
    }

    fn right_delim(&mut self) -> State {
        let (_, trim) = self.at_right_delim();
        self.pos += if trim { 4 } else { 2 };
        self.items.push(Item { kind: Kind::RightDelim, start: self.start, end: self.pos });
        if trim {
            self.pos = self.input.len() - self.rest().trim_start_matches(is_space).len();
        }
        self.start = self.pos;
        State::Text
    }

    fn inside(&mut self) -> State {
        if self.at_right_delim().0 {
            if self.paren_depth == 0 {
                return State::RightDelim;
            }
            return self.error("unclosed left paren".into());
        }
        let Some(r) = self.next() else { return self.error("unclosed action".into()) };
        match r {
            r if is_space(r) => {
                self.pos -= 1;
                self.space()
            }
            '=' => self.emit(Kind::Assign),
            ':' => {
                if self.next() != Some('=') {
                    return self.error("expected :=".into());
                }
                self.emit(Kind::Declare)
            }
            '|' => self.emit(Kind::Pipe),
            '"' => self.quote(),
            '`' => self.raw_quote(),
            '$' => self.variable(),
            '\'' => self.char_constant(),
            // `.5` is a number; `.Name` and `.` are not.
            '.' if self.peek().is_some_and(|c| !c.is_ascii_digit()) => self.field_or_variable(false),
            '.' | '+' | '-' | '0'..='9' => {
                self.pos -= 1;
                self.number()
            }
            r if is_alphanumeric(r) => {
                self.pos -= r.len_utf8();
                self.identifier()
            }
            '(' => {
                self.paren_depth += 1;
                self.emit(Kind::LeftParen)
            }
            ')' => {
                if self.paren_depth == 0 {
                    return self.error("unexpected right paren".into());
                }
                self.paren_depth -= 1;
                self.emit(Kind::RightParen)
            }
            r if r.is_ascii() && !r.is_ascii_control() => self.emit(Kind::Char(r)),
            r => self.error(format!("unrecognized character in action: U+{:04X}", u32::from(r))),
        }
    }

    fn space(&mut self) -> State {
        let mut spaces = 0;
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
            spaces += 1;
        }
        // A trim-marked right delimiter starts with a space.
        let before = &self.input[self.pos - 1..];
        if has_right_trim(before) && before[2..].starts_with("}}") {
            self.pos -= 1;
            if spaces == 1 {
                return State::RightDelim;
            }
        }
        self.emit(Kind::Space)
    }

    fn at_terminator(&self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if is_space(c) || matches!(c, '.' | ',' | '|' | ':' | ')' | '(') => true,
            Some(_) => self.rest().starts_with("}}"),
        }
    }

    fn bad_character(&mut self) -> State {
        let why = match self.peek() {
            Some(c) => format!("bad character U+{:04X} {c:?}", u32::from(c)),
            None => "unexpected end of input".into(),
        };
        self.error(why)
    }

    fn identifier(&mut self) -> State {
        while self.peek().is_some_and(is_alphanumeric) {
            self.next();
        }
        if !self.at_terminator() {
            return self.bad_character();
        }
        let word = &self.input[self.start..self.pos];
        let keyword = KEYWORDS.iter().find(|k| **k == word).copied();
        let kind = match word {
            _ if keyword.is_some() => Kind::Keyword(keyword.unwrap_or_default()),
            "nil" => Kind::Nil,
            "true" | "false" => Kind::Bool(word == "true"),
            _ => Kind::Identifier(word.to_string()),
        };
        self.emit(kind)
    }

    fn variable(&mut self) -> State {
        if self.at_terminator() {
            return self.emit(Kind::Variable("$".into()));
        }
        self.field_or_variable(true)
    }

    fn field_or_variable(&mut self, variable: bool) -> State {
        if self.at_terminator() {
            return self.emit(if variable { Kind::Variable("$".into()) } else { Kind::Dot });
        }
        while self.peek().is_some_and(is_alphanumeric) {
            self.next();
        }
        if !self.at_terminator() {
            return self.bad_character();
        }
        let word = self.input[self.start..self.pos].to_string();
        self.emit(if variable { Kind::Variable(word) } else { Kind::Field(word) })
    }

    fn char_constant(&mut self) -> State {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    Some(c) if c != '\n' => {}
                    _ => return self.error("unterminated character constant".into()),
                },
                None | Some('\n') => return self.error("unterminated character constant".into()),
                Some('\'') => break,
                Some(_) => {}
            }
        }
        let text = self.input[self.start..self.pos].to_string();
        self.emit(Kind::CharConstant(text))
    }

    fn quote(&mut self) -> State {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    Some(c) if c != '\n' => {}
                    _ => return self.error("unterminated quoted string".into()),
                },
                None | Some('\n') => return self.error("unterminated quoted string".into()),
                Some('"') => break,
                Some(_) => {}
            }
        }
        let text = self.input[self.start..self.pos].to_string();
        self.emit(Kind::String(text))
    }

    fn raw_quote(&mut self) -> State {
        loop {
            match self.next() {
                None => return self.error("unterminated raw quoted string".into()),
                Some('`') => break,
                Some(_) => {}
            }
        }
        let text = self.input[self.start..self.pos].to_string();
        self.emit(Kind::RawString(text))
    }

    fn number(&mut self) -> State {
        if !self.scan_number() {
            let text = &self.input[self.start..self.pos];
            return self.error(format!("bad number syntax: {text:?}"));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            // A complex constant: `1+2i`, no spaces, ending in `i`.
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                let text = &self.input[self.start..self.pos];
                return self.error(format!("bad number syntax: {text:?}"));
            }
            let text = self.input[self.start..self.pos].to_string();
            return self.emit(Kind::Complex(text));
        }
        let text = self.input[self.start..self.pos].to_string();
        self.emit(Kind::Number(text))
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if self.peek().is_some_and(is_alphanumeric) {
            self.next();
            return false;
        }
        true
    }
}
