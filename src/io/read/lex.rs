//! A lexer for the plainest block YAML, the shape nearly every manifest is written in: one
//! key or entry per line, one-line plain and quoted scalars, `{}`, one-line flow sequences
//! of such scalars (`args: ["--port", "8000"]`), comments. For such text it gives the YAML
//! parser's own events, several times faster than the parser; for anything else (block
//! scalars, other flow collections, anchors, tags, escapes, scalars over several lines,
//! tabs, document markers, ...) it gives `None` and the parser reads the
//! text. It never gives events for text the parser refuses: every shape it is unsure of is
//! left to the parser. `check::events` holds it to the parser on any text.
//!
//! Markers carry byte offsets, lines and columns as the parser's do, where the walker reads
//! a place: where a node or key starts, where a scalar or flow collection ends, the column
//! of a block mapping. Their character index is the byte offset too (the walker reads byte
//! offsets). Events that only mark structure (the stream, the document, a block
//! collection's end) and comments carry no place: the walker never reads one, and the
//! parser's would cost a look ahead.

use super::text::is_entry;
use serde_saphyr::granit_parser::{Event, Marker, ScalarStyle, Span, StructureStyle};
use std::borrow::Cow;

/// The events of one text, as the parser gives them.
pub type Events<'t> = Vec<(Event<'t>, Span)>;

/// Longest key read here; the parser limits implicit keys to 1024 characters.
const MAX_KEY: usize = 1000;

/// Most block collections open at once. The parser refuses more than 255; no manifest
/// comes near either.
const MAX_OPEN: usize = 64;

/// Most comments after a key whose value is not on its line: the parser holds them while
/// it looks ahead for the value, and refuses more than 96.
const MAX_PENDING_COMMENTS: usize = 32;

/// Longest text lexed. The lexer holds all of a text's events at once (256 bytes each, up
/// to one per two bytes of text), where the parser gives them one by one and the walker
/// stops at its budget; a longer text (a large CRD, a flood) goes to the parser.
pub const MAX_TEXT: usize = 256 << 10;

/// The events of `text`, or `None` when it is not of the shape read here.
pub fn events(text: &str) -> Option<Events<'_>> {
    if text.len() > MAX_TEXT || !plain_characters(text) {
        return None;
    }
    let mut lexer = Lexer {
        text,
        out: Vec::with_capacity(text.len() / 8),
        open: Vec::new(),
        pending: None,
        pending_comments: 0,
    };
    lexer.mark(Event::StreamStart);
    let mut started = false;
    let mut start = 0;
    for (i, content) in text.split_terminator('\n').enumerate() {
        let end = start + content.len();
        let line = Line { text, start, end, number: i + 1, ascii: content.is_ascii() };
        lexer.line(&line, &mut started)?;
        start = end + 1;
    }
    if started {
        lexer.close(None)?;
        lexer.mark(Event::DocumentEnd);
    }
    lexer.mark(Event::StreamEnd);
    Some(lexer.out)
}

/// Whether `text` holds only characters read the same everywhere in it: printable, no
/// tab, carriage return, byte-order mark or YAML 1.1 line break.
fn plain_characters(text: &str) -> bool {
    if printable_ascii(text.as_bytes()) {
        return true;
    }
    text.chars().all(|c| match c {
        '\n' | ' '..='~' => true,
        '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'.. => {
            !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
        }
        _ => false,
    })
}

/// Whether `bytes` are all printable ASCII or line feeds: the common case of
/// [`plain_characters`], answered a byte at a time.
fn printable_ascii(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| (0x20..0x7f).contains(&b) || b == b'\n')
}

/// One line of the text, without its line end.
struct Line<'t> {
    text: &'t str,
    start: usize,
    end: usize,
    /// Counted from 1.
    number: usize,
    /// Whether it is all ASCII, so that columns are byte counts.
    ascii: bool,
}

impl<'t> Line<'t> {
    fn bytes(&self) -> &'t [u8] {
        &self.text.as_bytes()[self.start..self.end]
    }

    /// The column of byte offset `at` on this line, in characters.
    fn column(&self, at: usize) -> usize {
        if self.ascii { at - self.start } else { self.text[self.start..at].chars().count() }
    }
}

/// An open block collection and the column of its keys or dashes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Mapping(usize),
    Sequence(usize),
}

impl Open {
    fn column(self) -> usize {
        match self {
            Open::Mapping(c) | Open::Sequence(c) => c,
        }
    }
}

/// A key whose value was not on its line: its column, and where an empty value stands
/// (the key's `:`), with that line's number and column.
#[derive(Clone, Copy)]
struct Pending {
    column: usize,
    at: usize,
    line: usize,
    at_column: usize,
}

/// What the content at the start of a node reads as.
enum Content<'t> {
    /// A key: its scalar, and the offset of its `:`.
    Key(Event<'t>, usize),
    /// No key: a value, if the lexer reads it at all.
    Value,
    /// A shape the lexer leaves to the parser (a key longer than it reads, a space before
    /// the `:`, an indicator).
    Unsure,
}

struct Lexer<'t> {
    text: &'t str,
    out: Events<'t>,
    open: Vec<Open>,
    pending: Option<Pending>,
    /// Comments since the pending key, its own line's included.
    pending_comments: usize,
}

impl<'t> Lexer<'t> {
    fn push(&mut self, event: Event<'t>, at: usize, line: usize, column: usize) {
        let mark = marker(at, line, column);
        self.out.push((event, Span::empty(mark)));
    }

    /// An event whose place the walker never reads, without one.
    fn mark(&mut self, event: Event<'t>) {
        self.out.push((event, Span::default()));
    }

    /// An event with the one place the walker reads of it, at `at` on `line`. Of a flow
    /// collection, that is where its end event ends (past the bracket); its start event's
    /// place is never read (a flow collection is never a document's root here), and is
    /// given at its bracket.
    fn push_at(&mut self, event: Event<'t>, line: &Line<'t>, at: usize) {
        self.push(event, at, line.number, line.column(at));
    }

    fn push_span(&mut self, event: Event<'t>, line: &Line<'t>, from: usize, to: usize) {
        let span =
            Span::new(marker(from, line.number, line.column(from)), marker(to, line.number, line.column(to)));
        self.out.push((event, span));
    }

    fn comment(&mut self, line: &Line<'t>, hash: usize) -> Option<()> {
        if self.pending.is_some() {
            self.pending_comments += 1;
            if self.pending_comments > MAX_PENDING_COMMENTS {
                return None;
            }
        }
        let payload = &self.text[hash + 1..line.end];
        // Where it stands is never read: the walker only counts comments.
        self.mark(Event::Comment(Cow::Borrowed(payload), serde_saphyr::granit_parser::Placement::Free));
        Some(())
    }

    /// Reads one line.
    fn line(&mut self, line: &Line<'t>, started: &mut bool) -> Option<()> {
        let bytes = line.bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let at = line.start + indent;
        match bytes.get(indent) {
            None => return Some(()),
            Some(b'#') => {
                return self.comment(line, at);
            }
            Some(_) => {}
        }
        if indent == 0 && (bytes.starts_with(b"---") || bytes.starts_with(b"...")) {
            return None;
        }
        let entry = is_entry(&bytes[indent..]);
        if !*started {
            *started = true;
            self.mark(Event::DocumentStart(false, None));
            return self.open_node(line, at, indent, entry);
        }
        if let Some(pending) = self.pending
            && (indent > pending.column || indent == pending.column && entry)
        {
            self.pending = None;
            return self.open_node(line, at, indent, entry);
        }
        self.close(Some((indent, entry)))?;
        match (self.open.last(), entry) {
            (Some(Open::Mapping(c)), false) if *c == indent => self.key_line(line, at, indent),
            (Some(Open::Sequence(c)), true) if *c == indent => self.entry(line, at),
            _ => None,
        }
    }

    /// Gives a pending key its empty value, and closes the collections a line at `next`
    /// (its column, and whether it is an entry) ends; `None` for the end of the text.
    fn close(&mut self, next: Option<(usize, bool)>) -> Option<()> {
        if let Some(p) = self.pending.take() {
            self.push(
                Event::Scalar(Cow::Borrowed("~"), ScalarStyle::Plain, 0, None),
                p.at,
                p.line,
                p.at_column,
            );
        }
        while let Some(&open) = self.open.last() {
            let ends = match next {
                None => true,
                Some((column, entry)) => open.column() > column || open == Open::Sequence(column) && !entry,
            };
            if !ends {
                break;
            }
            self.open.pop();
            let event = match open {
                Open::Mapping(_) => Event::MappingEnd,
                Open::Sequence(_) => Event::SequenceEnd,
            };
            self.mark(event);
        }
        if next.is_some() && self.open.is_empty() {
            // A second node at the root.
            return None;
        }
        Some(())
    }

    /// A block collection that starts on this line, at column `indent`.
    fn open_node(&mut self, line: &Line<'t>, at: usize, indent: usize, entry: bool) -> Option<()> {
        if entry {
            self.open(Open::Sequence(indent), line, at)?;
            self.entry(line, at)
        } else {
            self.open(Open::Mapping(indent), line, at)?;
            self.key_line(line, at, indent)
        }
    }

    /// Opens a block collection whose first content is at `at`, when the nesting allows.
    fn open(&mut self, open: Open, line: &Line<'t>, at: usize) -> Option<()> {
        if self.open.len() >= MAX_OPEN {
            return None;
        }
        self.open.push(open);
        let event = match open {
            Open::Mapping(_) => Event::MappingStart(StructureStyle::Block, 0, None),
            Open::Sequence(_) => Event::SequenceStart(StructureStyle::Block, 0, None),
        };
        self.push(event, at, line.number, open.column());
        Some(())
    }

    /// A sequence entry whose `-` is at `at`.
    fn entry(&mut self, line: &Line<'t>, at: usize) -> Option<()> {
        let rest = &self.text[at + 1..line.end];
        let spaces = rest.bytes().take_while(|&b| b == b' ').count();
        let content = at + 1 + spaces;
        // Nothing or a comment after the dash: left to the parser. A nested entry (`- - x`)
        // is too, as a key: a `-` before a space starts no plain scalar.
        if matches!(self.text.as_bytes()[content..line.end].first(), None | Some(b'#')) {
            return None;
        }
        let column = line.column(content);
        match self.key(line, content) {
            Content::Key(key, colon) => {
                self.open(Open::Mapping(column), line, content)?;
                self.push_span(key, line, content, colon);
                self.after_key(line, colon, column)
            }
            Content::Value => {
                let end = self.value(line, content)?;
                self.rest(line, end)
            }
            Content::Unsure => None,
        }
    }

    /// A line holding a key of the mapping whose keys stand at `column`.
    fn key_line(&mut self, line: &Line<'t>, at: usize, column: usize) -> Option<()> {
        let Content::Key(key, colon) = self.key(line, at) else { return None };
        self.push_span(key, line, at, colon);
        self.after_key(line, colon, column)
    }

    /// What follows a key's `:`, at `colon`.
    fn after_key(&mut self, line: &Line<'t>, colon: usize, column: usize) -> Option<()> {
        let after = colon + 1;
        let spaces = self.text.as_bytes()[after..line.end].iter().take_while(|&&b| b == b' ').count();
        let value = after + spaces;
        match self.text.as_bytes()[value..line.end].first() {
            None | Some(b'#') => {
                self.pending =
                    Some(Pending { column, at: colon, line: line.number, at_column: line.column(colon) });
                self.pending_comments = 0;
                self.rest(line, after)
            }
            Some(_) => {
                let end = self.value(line, value)?;
                self.rest(line, end)
            }
        }
    }

    /// Reads the content starting at `at` as a key.
    fn key(&self, line: &Line<'t>, at: usize) -> Content<'t> {
        let bytes = &self.text.as_bytes()[..line.end];
        let (event, end) = match bytes[at] {
            b'"' | b'\'' => {
                let Some((text, style, end)) = quoted(self.text, at, line.end) else {
                    return Content::Unsure;
                };
                if bytes.get(end) != Some(&b':') || !matches!(bytes.get(end + 1), None | Some(b' ')) {
                    return Content::Value;
                }
                (Event::Scalar(text, style, 0, None), end)
            }
            first if starts_plain(first, bytes.get(at + 1).copied()) => {
                let mut i = at;
                let colon = loop {
                    match bytes.get(i) {
                        None => return Content::Value,
                        Some(b':') if matches!(bytes.get(i + 1), None | Some(b' ')) => break i,
                        Some(b' ') if bytes.get(i + 1) == Some(&b'#') => return Content::Value,
                        Some(_) => i += 1,
                    }
                };
                if bytes[colon - 1] == b' ' {
                    return Content::Unsure;
                }
                (Event::Scalar(Cow::Borrowed(&self.text[at..colon]), ScalarStyle::Plain, 0, None), colon)
            }
            // A flow sequence is a value; one that is a key (`[a]: b`) leaves text after it,
            // which the line refuses.
            b'[' => return Content::Value,
            _ => return Content::Unsure,
        };
        if end - at > MAX_KEY {
            return Content::Unsure;
        }
        Content::Key(event, end)
    }

    /// The value starting at `at` on its line, pushed; where it ends.
    fn value(&mut self, line: &Line<'t>, at: usize) -> Option<usize> {
        let bytes = &self.text.as_bytes()[..line.end];
        match bytes[at] {
            b'"' | b'\'' => {
                let (text, style, end) = quoted(self.text, at, line.end)?;
                self.push_span(Event::Scalar(text, style, 0, None), line, at, end);
                Some(end)
            }
            b'{' => {
                if bytes.get(at + 1) != Some(&b'}') {
                    return None;
                }
                self.push_at(Event::MappingStart(StructureStyle::Flow, 0, None), line, at);
                self.push_at(Event::MappingEnd, line, at + 2);
                Some(at + 2)
            }
            b'[' => self.flow_sequence(line, at),
            first if starts_plain(first, bytes.get(at + 1).copied()) => {
                let mut end = line.end;
                let mut i = at;
                while i < line.end {
                    match bytes[i] {
                        b' ' if bytes.get(i + 1) == Some(&b'#') => {
                            end = i;
                            break;
                        }
                        b':' if matches!(bytes.get(i + 1), None | Some(b' ')) => return None,
                        _ => i += 1,
                    }
                }
                while bytes[end - 1] == b' ' {
                    end -= 1;
                }
                let text = Cow::Borrowed(&self.text[at..end]);
                self.push_span(Event::Scalar(text, ScalarStyle::Plain, 0, None), line, at, end);
                Some(end)
            }
            _ => None,
        }
    }

    /// A flow sequence opening at `at` and closing on its line, of plain and quoted
    /// scalars only, pushed; where it ends. Anything else in it (a nested collection, a
    /// pair, a `:`, `#` or quote in a plain scalar, an empty entry, a trailing comma) is
    /// left to the parser.
    fn flow_sequence(&mut self, line: &Line<'t>, at: usize) -> Option<usize> {
        let bytes = &self.text.as_bytes()[..line.end];
        let skip = |mut i: usize| {
            while bytes.get(i) == Some(&b' ') {
                i += 1;
            }
            i
        };
        self.push_at(Event::SequenceStart(StructureStyle::Flow, 0, None), line, at);
        let mut i = skip(at + 1);
        if bytes.get(i) != Some(&b']') {
            loop {
                let end = match *bytes.get(i)? {
                    b'"' | b'\'' => {
                        let (text, style, end) = quoted(self.text, i, line.end)?;
                        self.push_span(Event::Scalar(text, style, 0, None), line, i, end);
                        end
                    }
                    first if starts_flow_plain(first, bytes.get(i + 1).copied()) => {
                        let stop = i + memchr::memchr2(b',', b']', &bytes[i..])?;
                        let inner = &bytes[i..stop];
                        if inner.iter().any(|b| matches!(b, b'[' | b'{' | b'}' | b':' | b'#' | b'"' | b'\''))
                        {
                            return None;
                        }
                        let mut end = stop;
                        while bytes[end - 1] == b' ' {
                            end -= 1;
                        }
                        let text = Cow::Borrowed(&self.text[i..end]);
                        self.push_span(Event::Scalar(text, ScalarStyle::Plain, 0, None), line, i, end);
                        end
                    }
                    _ => return None,
                };
                i = skip(end);
                match bytes.get(i)? {
                    b']' => break,
                    b',' => {
                        i = skip(i + 1);
                        if bytes.get(i) == Some(&b']') {
                            return None;
                        }
                    }
                    _ => return None,
                }
            }
        }
        self.push_at(Event::SequenceEnd, line, i + 1);
        Some(i + 1)
    }

    /// The rest of a line after its content ends at `end`: spaces, then a comment or nothing.
    fn rest(&mut self, line: &Line<'t>, end: usize) -> Option<()> {
        let bytes = &self.text.as_bytes()[end..line.end];
        let spaces = bytes.iter().take_while(|&&b| b == b' ').count();
        match bytes.get(spaces) {
            None => Some(()),
            Some(b'#') if spaces > 0 => self.comment(line, end + spaces),
            Some(_) => None,
        }
    }
}

/// Whether a plain scalar may start with `first` (then `second`): not an indicator, but
/// `-` before a character other than a space.
fn starts_plain(first: u8, second: Option<u8>) -> bool {
    match first {
        b'-' => second.is_some_and(|b| b != b' '),
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' | b' ' => false,
        _ => true,
    }
}

/// Whether a plain scalar in a flow collection may start with `first` (then `second`): as
/// in a block, and a `-` only before a character that is no flow indicator.
fn starts_flow_plain(first: u8, second: Option<u8>) -> bool {
    starts_plain(first, second)
        && (first != b'-' || !matches!(second, Some(b',' | b'[' | b']' | b'{' | b'}')))
}

/// A quoted scalar opening at `at` and closing on its line: its text, style and the
/// offset past its closing quote. Escapes in double quotes are left to the parser.
fn quoted(text: &str, at: usize, line_end: usize) -> Option<(Cow<'_, str>, ScalarStyle, usize)> {
    let bytes = &text.as_bytes()[..line_end];
    let quote = bytes[at];
    let body = at + 1;
    if quote == b'"' {
        let close = body + memchr::memchr2(b'"', b'\\', &bytes[body..])?;
        if bytes[close] == b'\\' {
            return None;
        }
        return Some((Cow::Borrowed(&text[body..close]), ScalarStyle::DoubleQuoted, close + 1));
    }
    let mut owned: Option<String> = None;
    let mut from = body;
    loop {
        let close = from + memchr::memchr(b'\'', &bytes[from..])?;
        if bytes.get(close + 1) == Some(&b'\'') {
            owned.get_or_insert_with(String::new).push_str(&text[from..=close]);
            from = close + 2;
            continue;
        }
        let value = match owned {
            Some(mut s) => {
                s.push_str(&text[from..close]);
                Cow::Owned(s)
            }
            None => Cow::Borrowed(&text[body..close]),
        };
        return Some((value, ScalarStyle::SingleQuoted, close + 1));
    }
}

fn marker(at: usize, line: usize, column: usize) -> Marker {
    Marker::new(at, line, column).with_byte_offset(Some(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::read::check;

    /// Lexes `text` and holds the events to the parser's.
    fn lexes(text: &str) -> bool {
        check::events(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        events(text).is_some()
    }

    #[test]
    fn the_plain_shape_of_manifests_lexes_as_the_parser_reads_it() {
        for text in [
            "",
            "# only\n\n#\n",
            "a: 1\n",
            "- apiVersion: v1\n  kind: ConfigMap # c\n  metadata:\n    name: x\n    labels: {}\n  data:\n    k: 'it''s'\n    \"q\": \"v w\"\n    e:\n    f: []\n",
            "- a:\n  - x\n  - y: z\n    w:\n  b:   # c\n# foot\n",
            "a:\n  b:\n    c: d\n  e: f\ng: h\n",
            "a:\n- 1\n- -2\n- x:y\n- 'q': 1\nb: c#d\n",
            "  a: 1\n  b: 2\n",
            "ü: é x  \nkey with spaces: v\n\"\": ''\n",
            "a: ---\nb: x:y:z\nc: http://h:80/p?q=1#f\nd: 1.5\ne: ~\nf: null\n",
            "a: b # one # two\nc: 'x' #\n",
            "-   a: 1\n    b: 2\n-   c\n",
            "a: {}\nb: -x\n",
            "a:  {}  # c\n",
            "a: b# c\nd#  e: f#g\n",
        ] {
            assert!(lexes(text), "{text:?}");
        }
        assert!(!lexes("- - x\n"), "a nested entry after a dash is left to the parser");
        let item = "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n    labels:\n      app: web\n  spec:\n    template:\n      spec:\n        containers:\n        - name: server\n          image: registry.example.org/vllm:0.6.0\n          args: []\n";
        assert!(lexes(item), "the common shape is lexed, not left to the parser");
    }

    #[test]
    fn one_line_flow_sequences_of_scalars_lex_as_the_parser_reads_them() {
        for text in [
            "args: [\"--model\", \"meta/llama\", --port, \"8000\"]\n",
            "a: [1, 2]\n",
            "a: [ ]\n",
            "a: [x]\n",
            "a: [ x , 'y' ,\"z\" ]\n",
            "a: ['it''s', \"q, r]\", '']  # c\n",
            "a: [x y, -1, 1.5, ~, on, a!b, a?b, a|b, a-, --]\n",
            "a: [\"\", '']\n",
            "- [a, b]\n- [] # c\n- [\"x\"]\n",
            "- name: s\n  args: [a]\n  b: c\n",
            "a: [é, \"ü\", x  y]\n",
            "a:\n- [1]\n- x\n",
        ] {
            assert!(lexes(text), "{text:?}");
        }
        let item = "- apiVersion: apps/v1\n  kind: Deployment\n  spec:\n    template:\n      spec:\n        containers:\n        - name: server\n          args: [\"--model\", \"meta-llama/Llama-3.1-8B-Instruct\", \"--port\", \"8000\"]\n";
        assert!(lexes(item), "the first run's shape is lexed, not left to the parser");
    }

    #[test]
    fn every_other_flow_sequence_is_left_to_the_parser() {
        for text in [
            "a: [1, [2]]\n",
            "a: [[]]\n",
            "a: [{b: c}]\n",
            "a: [{}]\n",
            "a: [b: c]\n",
            "a: [a:b]\n",
            "a: [\"a\": b]\n",
            "a: [\"a\":b]\n",
            "a: [? a]\n",
            "a: [x #c]\n",
            "a: [x#c]\n",
            "a: [x, # c\n  y]\n",
            "a: [1,\n  2]\n",
            "a: [1\n  ]\n",
            "a: [1, ]\n",
            "a: [1,]\n",
            "a: [,]\n",
            "a: [, 1]\n",
            "a: [1,,2]\n",
            "a: [1] x\n",
            "a: [1]#c\n",
            "a: [1]]\n",
            "a: [1], [2]\n",
            "[a]: b\n",
            "- [a]: b\n",
            "- [a] : b\n",
            "- [a]:\n",
            "a: [\"x\\\\y\"]\n",
            "a: [\"x\\ny\"]\n",
            "a: ['a' 'b']\n",
            "a: ['a'b]\n",
            "a: [a'b]\n",
            "a: [a\"b]\n",
            "a: [-]\n",
            "a: [-, a]\n",
            "a: [- a]\n",
            "a: [&x a]\n",
            "a: [!t a]\n",
            "a: [*x]\n",
            "a: [@x]\n",
            "a: [|]\n",
            "a: ['open]\n",
            "a: [\"open]\n",
            "a: [x\n",
            "a: [\n",
            "a:\n  [x]\n",
            "[x]\n",
            "a: [x]\n  b\n",
        ] {
            assert!(!lexes(text), "{text:?}");
        }
    }

    #[test]
    fn every_other_shape_is_left_to_the_parser() {
        for text in [
            "a: |\n  x\n",
            "a: >-\n  x\n",
            "a: {b: c}\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: \"x\\ny\"\n",
            "a: \"open\n  close\"\n",
            "a: plain\n  continued\n",
            "a:\n  plain on its own line\n",
            "a:\tb\n",
            "a: b\r\n",
            "? a\n: b\n",
            "a : b\n",
            "a: b: c\n",
            "a: b:\n",
            "- \n  a: 1\n",
            "- # c\n  a: 1\n",
            "---\na: 1\n",
            "...\n",
            "%YAML 1.2\n",
            "a: 'x' y\n",
            "a: \"x\"y\n",
            "a: 1\n b: 2\n",
            "a: 1\n- b\n",
            "- a\nb: 1\n",
            "- a\n  - b\n",
            "- a: 1\n  - b\n",
            "- - a\n",
            "- - a: b\n",
            "- -\n",
            "a: 1\nb\n",
            "a: \u{feff}x\n",
            "a: \u{85}\n",
            "a: x\u{2028}y\n",
            "a: @x\n",
            "a: `x\n",
            "a: - b\n",
            "a #b: c\n",
            "\"a\":b\n",
        ] {
            assert!(!lexes(text), "{text:?}");
        }
        let key = |length: usize| format!("{}: v\n", "k".repeat(length));
        assert!(lexes(&key(MAX_KEY)), "a key at the length bound");
        assert!(!lexes(&key(MAX_KEY + 1)));
        assert!(lexes(&format!("a: 1\n{}", key(MAX_KEY))), "the bound counts from the key's start");
        assert!(!lexes(&format!("a: 1\n{}", key(MAX_KEY + 1))));
        // Past the parser's own limits, which the lexer does not count to: nesting, and the
        // comments it holds while it looks for a value.
        let deep: String = (0..256).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert!(!lexes(&deep));
        let alternating: String = (0..128).map(|i| format!("{}- k:\n", " ".repeat(2 * i))).collect();
        assert!(!lexes(&format!("k:\n{alternating}")));
        for text in [
            format!("a:\n{}", "#\n".repeat(97)),
            format!("a: # c\n{}  b: 1\n", "#\n".repeat(96)),
            format!("- a:\n{}- b\n", "#\n".repeat(97)),
            format!("a:\n  b:\n{}c: 1\n", "#\n".repeat(97)),
        ] {
            assert!(!lexes(&text), "{text:?}");
        }
        assert!(lexes(&format!("a: 1\n{}b: 2\n", "#\n".repeat(200))), "comments elsewhere are not held");
        let entries = "- x\n".repeat(MAX_TEXT / 4);
        assert!(lexes(&entries), "up to the limit");
        assert!(!lexes(&format!("{entries}- x\n")), "past it, the parser streams the events");
    }

    /// The characters read the same everywhere, on one line or many: a text that ends
    /// without a line break goes through the same test.
    #[test]
    fn only_plain_characters_are_lexed() {
        for text in ["", "a: b", "a: b\n", "ü: é\u{a0}x\u{fffd}\u{10000}\n~ \n"] {
            assert!(plain_characters(text), "{text:?}");
        }
        for odd in
            ["\t", "\r", "\u{feff}", "\u{85}", "\u{2028}", "\u{2029}", "\u{7f}", "\u{0}", "\u{e000}\u{fffe}"]
        {
            for text in [format!("a: {odd}b"), format!("a: {odd}b\n"), format!("a: b\nc: {odd}")] {
                assert!(!plain_characters(&text), "{text:?}");
                assert!(!lexes(&text), "{text:?}");
            }
        }
    }

    /// The byte pass answers for printable ASCII and line feeds alone; anything else goes
    /// on to the character pass.
    #[test]
    fn the_byte_pass_takes_printable_ascii_and_line_feeds_only() {
        assert!(printable_ascii(b"") && printable_ascii(b" a: ~\n- b\n"));
        for odd in [&b"\t"[..], b"\r", b"\x7f", b"\x1f", "\u{a0}".as_bytes(), "ü".as_bytes()] {
            assert!(!printable_ascii(&[b"a", odd].concat()), "{odd:?}");
        }
    }

    /// A line that starts with a document marker ends the document, whatever follows it on
    /// the line; the lexer reads one document and leaves the rest to the parser.
    #[test]
    fn a_document_marker_with_content_after_it_is_left_to_the_parser() {
        for text in ["--- a: b\n", "a: 1\n--- b: c\n", "a: 1\n... b: c\n", "... a: b\n", "a: 1\n--- # c\n"] {
            assert!(!lexes(text), "{text:?}");
        }
        assert!(lexes("a: ---\nb: ...\nc:\n  --- x: y\n"), "markers not at the line's start are text");
    }

    /// The lexer holds the comments after a key whose value is not yet seen up to its own
    /// bound, below the parser's.
    #[test]
    fn comments_after_a_key_are_lexed_up_to_the_bound() {
        let after_key = |comments: usize| format!("a: # c\n{}  b: 1\n", "#\n".repeat(comments - 1));
        assert!(lexes(&after_key(1)));
        assert!(lexes(&after_key(MAX_PENDING_COMMENTS)));
        assert!(!lexes(&after_key(MAX_PENDING_COMMENTS + 1)));
        let after_dash_key = |comments: usize| format!("- a:\n{}  - b\n", "#\n".repeat(comments));
        assert!(lexes(&after_dash_key(MAX_PENDING_COMMENTS)));
        assert!(!lexes(&after_dash_key(MAX_PENDING_COMMENTS + 1)));
    }

    #[test]
    fn the_golden_inputs_and_samples_lex_as_the_parser_reads_them() {
        let files = crate::io::read::yaml_files_under(&["testdata", "fn-config"]);
        assert!(files.len() > 50, "{} files", files.len());
        let mut lexed = 0;
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            // Each document and each entry of a ResourceList, as the fast reader cuts them.
            let mut parts: Vec<&str> = vec![&text];
            let documents = crate::io::read::split::documents(&text);
            if documents.apart {
                parts.extend(documents.chunks.into_iter().map(|r| &text[r]));
            }
            if let Some(layout) = crate::io::read::split::list(&text) {
                parts.extend(layout.entries.into_iter().map(|r| &text[r]));
            }
            for part in parts {
                if check::events(part).map_err(|e| panic!("{}: {e}", path.display())).is_ok()
                    && events(part).is_some()
                {
                    lexed += 1;
                }
            }
        }
        assert!(lexed > 100, "{lexed} parts lexed");
    }
}
