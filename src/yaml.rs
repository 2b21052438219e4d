//! The YAML layer: one place that decides how YAML is read and written.
//!
//! Reading uses serde-saphyr into `serde_json::Value` (key order kept), the way kubectl reads
//! YAML 1.1: duplicate keys are errors (also keys that only become equal as JSON strings, such
//! as `1` and `"1"`), and a budget bounds depth, nodes, aliases and size. Writing quotes every
//! string that a YAML 1.1 reader (kubectl, the API machinery) would take for a boolean,
//! number, null or timestamp. Errors read as plain sentences with a line, column and snippet.

use serde::Serialize;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::{Error, MessageFormatter, UserMessageFormatter};
use std::borrow::Cow;
use std::fmt;

pub use crate::api::fields::type_name;

mod emit;
pub mod yaml11;

/// Deepest nesting accepted. Kubernetes objects rarely pass 20 levels; this bounds recursion.
pub const MAX_DEPTH: usize = 256;
/// Most YAML nodes (mappings, sequences, scalars) in one input: about 23,000 bindings with
/// a pool and two Deployments each. Bounds time and memory on inputs made of tiny nodes.
pub const MAX_NODES: usize = 4_000_000;
/// Most parser events (nodes, ends, comments) in one input.
pub const MAX_EVENTS: usize = MAX_NODES * 3;
/// Most bytes of comment text in one input.
pub const MAX_COMMENT_BYTES: usize = 64 << 20;
/// Most documents accepted in one multi-document stream.
pub const MAX_DOCUMENTS: usize = 1_000_000;
/// Largest input accepted, in bytes.
pub const MAX_INPUT_BYTES: usize = 128 << 20;

fn read_options(documents: Option<usize>) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    budget.max_events = MAX_EVENTS;
    budget.max_total_comment_bytes = MAX_COMMENT_BYTES;
    budget.max_total_scalar_bytes = MAX_INPUT_BYTES;
    budget.max_reader_input_bytes = Some(MAX_INPUT_BYTES);
    if let Some(documents) = documents {
        budget.max_documents = documents;
    }
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    // `0644` is 420, as kubectl (go-yaml v2) reads it, not 644 (docs/yaml.md).
    options.legacy_octal_numbers = true;
    options
}

fn write_options() -> serde_saphyr::SerializerOptions {
    let mut options = serde_saphyr::SerializerOptions::default();
    // Long single-line strings stay on one line; multi-line strings use `|` blocks.
    options.folded_wrap_chars = usize::MAX;
    options
}

fn check_size(text: &str) -> Result<(), String> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "input is {} bytes, larger than the limit of {MAX_INPUT_BYTES} bytes",
            text.len()
        ));
    }
    Ok(())
}

/// Parses one YAML document into a generic value.
pub fn parse(text: &str) -> Result<Value, String> {
    check_size(text)?;
    serde_saphyr::from_str_with_options::<Strict>(text, read_options(None))
        .map(|s| s.0)
        .map_err(|e| message(&e, text))
}

/// Parses every document of a multi-document stream.
pub fn parse_stream(text: &str) -> Result<Vec<Value>, String> {
    check_size(text)?;
    serde_saphyr::from_multiple_with_options::<Strict>(text, read_options(Some(MAX_DOCUMENTS)))
        .map(|docs| docs.into_iter().map(|s| s.0).collect())
        .map_err(|e| message(&e, text))
}

/// The full reader's value of the plain scalar `text` written alone, as a value; `None` when
/// it does not read as one scalar. The reader holds it to kubectl's reading ([`yaml11`]).
pub fn plain_value(text: &str) -> Option<Value> {
    match parse(text).ok()? {
        value @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)) => Some(value),
        _ => None,
    }
}

/// The JSON string the full reader gives the plain scalar `text` as a mapping key; `None`
/// when it refuses it as a key or it does not read as one key.
pub fn plain_key(text: &str) -> Option<String> {
    match parse(&format!("{text}: 0\n")).ok()? {
        Value::Object(map) if map.len() == 1 => map.into_iter().next().map(|(key, _)| key),
        _ => None,
    }
}

/// Writes one value as a YAML document (no leading `---`).
pub fn write<T: Serialize>(value: &T) -> Result<String, String> {
    match emit::write(value) {
        Some(text) => Ok(text),
        None => saphyr_write(value),
    }
}

/// serde-saphyr's text of a value: what [`emit`] is held to.
fn saphyr_write<T: Serialize>(value: &T) -> Result<String, String> {
    serde_saphyr::to_string_with_options(value, write_options()).map_err(|e| e.to_string())
}

/// Writes one value as a YAML document to `out`; the caller flushes.
pub fn write_to<T: Serialize, W: std::io::Write>(out: W, value: &T) -> Result<(), String> {
    let mut out = out;
    if let Some(text) = emit::write(value) {
        return out.write_all(text.as_bytes()).map_err(|e| e.to_string());
    }
    serde_saphyr::to_io_writer_with_options(&mut out, value, write_options()).map_err(|e| e.to_string())
}

/// Writes a root mapping: the entries `fields`, then the entry `key` holding a block sequence
/// whose items come a part at a time ([`ListWriter::part`]), so that neither a long sequence
/// nor its text is ever held whole. The text is what [`write_to`] gives for the mapping built
/// whole: the fast writer writes each part's items on all cores, and serde-saphyr a part it
/// cannot vouch for (serde-saphyr writes a sequence held by a root mapping's entry as it
/// writes one at the root).
pub struct ListWriter<W: std::io::Write> {
    out: W,
}

impl<W: std::io::Write> ListWriter<W> {
    /// Writes `fields` and the line of `key`; `key` must be a plain word (`results`).
    pub fn start(mut out: W, fields: &Map<String, Value>, key: &str) -> Result<Self, String> {
        if !fields.is_empty() {
            write_to(&mut out, fields)?;
        }
        let line = emit::list_key(key).ok_or_else(|| format!("{key:?} is not a plain key"))?;
        out.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
        Ok(ListWriter { out })
    }

    /// Writes the next items of the sequence.
    pub fn part<T: Serialize + Sync>(&mut self, items: &[T]) -> Result<(), String> {
        if items.is_empty() {
            return Ok(());
        }
        let io = |e: std::io::Error| e.to_string();
        match emit::list_items(items) {
            Some(pieces) => pieces.iter().try_for_each(|p| self.out.write_all(p.as_bytes()).map_err(io)),
            None => self.out.write_all(saphyr_write(&items)?.as_bytes()).map_err(io),
        }
    }
}

/// The name snippet headers give the text they quote (` --> <input>:2:3`) until
/// [`in_file`] names it.
const SOURCE: &str = "<input>";

/// A message of this layer about the text of `name` (a file, `<stdin>`), with its snippet
/// headers naming it: ` --> pkg/a.yaml:2:3`. Only header lines change: the lines of a
/// snippet open with their number, and the message with its sentence.
pub fn in_file(message: &str, name: &str) -> String {
    let header = format!("--> {SOURCE}:");
    message
        .split_inclusive('\n')
        .map(|line| {
            let body = line.trim_start_matches(' ');
            match body.strip_prefix(&header) {
                Some(place) => format!("{}--> {name}:{place}", &line[..line.len() - body.len()]),
                None => line.to_string(),
            }
        })
        .collect()
}

/// The user-facing text of a parse error in `input`: a sentence, the place, and a snippet.
fn message(error: &Error, input: &str) -> String {
    if let Some(tab) = misplaced_tab(error, input) {
        return tab;
    }
    let text = error.render_with_formatter(&Messages);
    // Callers say it is an error already.
    text.strip_prefix("error: ").map(str::to_string).unwrap_or(text)
}

/// A tab the scanner reports away from where it stands, pointed at where kubectl and a reader
/// of the file look for it. Reading a plain scalar that goes on over lines, the scanner
/// reports a tab that opens a later line at the scalar's start (`c: d` on line 8 for a tab
/// that opens line 9); it reports a tab before a block entry or key at the entry (the `-`
/// after it), and one that opens a block scalar's content at the `|`. The tab
/// at fault stands in a line's indentation: the first tab there, on the reported line or a
/// later line that holds content (a tab inside a scalar, `d\tx`, is content and fine).
/// `None` for every other error, and when the place is the tab already.
fn misplaced_tab(error: &Error, input: &str) -> Option<String> {
    let mut inner = error;
    while let Error::WithSnippet { error, .. } = inner {
        inner = error;
    }
    let words = UserMessageFormatter.format_message(inner);
    if !["found a tab", "tabs disallowed", "start with a tab"].iter().any(|w| words.contains(w)) {
        return None;
    }
    let location = error.location()?;
    let line_start: usize =
        input.split_inclusive('\n').take(location.line().checked_sub(1)? as usize).map(str::len).sum();
    let reported = line_start
        + input[line_start..]
            .chars()
            .take(location.column().checked_sub(1)? as usize)
            .map(char::len_utf8)
            .sum::<usize>();
    if input[reported..].starts_with('\t') {
        return None;
    }
    let at = tab_in_indentation(input, line_start)?;
    let line = input[..at].matches('\n').count() + 1;
    let column = input[input[..at].rfind('\n').map_or(0, |i| i + 1)..at].chars().count() + 1;
    Some(format!(
        "line {line} column {column}: found a tab character where YAML allows only spaces: indent with spaces\n{}",
        snippet(input, line, column)
    ))
}

/// The first tab in the indentation of a line of `input` that starts at `from` or after it,
/// skipping lines that hold only white space or a comment (a tab there is allowed).
fn tab_in_indentation(input: &str, from: usize) -> Option<usize> {
    let mut start = from;
    for line in input[from..].split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let content = line[indent..].trim_end_matches(['\n', '\r']);
        if !content.is_empty()
            && !content.starts_with('#')
            && let Some(tab) = line[..indent].find('\t')
        {
            return Some(start + tab);
        }
        start += line.len();
    }
    None
}

/// The lines around `line` with a caret under `column`, laid out as serde-saphyr lays out
/// its snippets. Tabs are shown as spaces to the next multiple of 4, and control
/// characters as `?`, so the snippet cannot break the terminal's lines.
fn snippet(input: &str, line: usize, column: usize) -> String {
    let first = line.saturating_sub(2).max(1);
    let last = (line + 1).min(input.lines().count().max(line));
    let width = last.to_string().len();
    let shown = |text: &str| -> (String, Vec<usize>) {
        let (mut out, mut starts) = (String::new(), Vec::new());
        for c in text.chars() {
            starts.push(out.chars().count());
            match c {
                '\t' => out.push_str(&" ".repeat(4 - out.chars().count() % 4)),
                c if c.is_control() => out.push('?'),
                c => out.push(c),
            }
        }
        starts.push(out.chars().count());
        (out, starts)
    };
    let mut out = format!("{:>width$}--> {SOURCE}:{line}:{column}\n{:>width$} |\n", "", "");
    for (n, text) in input.lines().enumerate().map(|(i, l)| (i + 1, l)).skip(first - 1).take(last + 1 - first)
    {
        let (text, starts) = shown(text);
        out.push_str(&format!("{n:>width$} | {text}\n"));
        if n == line {
            let caret = starts.get(column - 1).copied().unwrap_or_default();
            out.push_str(&format!("{:>width$} | {}^ found a tab character\n", "", " ".repeat(caret)));
        }
    }
    out.push_str(&format!("{:>width$} |", ""));
    out
}

/// serde-saphyr's user wording, with the limits said in this function's terms. Its
/// renderer unwraps an error from its snippet before it asks for the wording.
struct Messages;

impl MessageFormatter for Messages {
    fn format_message<'a>(&self, err: &'a Error) -> Cow<'a, str> {
        match err {
            Error::Budget { breach, .. } => Cow::Owned(budget_message(breach)),
            Error::MultipleDocuments { .. } => {
                Cow::Borrowed("several YAML documents where one ResourceList is expected")
            }
            _ => UserMessageFormatter.format_message(err),
        }
    }
}

fn budget_message(breach: &BudgetBreach) -> String {
    match breach {
        BudgetBreach::Depth { .. } => format!("nesting deeper than {MAX_DEPTH} levels"),
        BudgetBreach::Nodes { .. } | BudgetBreach::Events { .. } => {
            format!("more than {MAX_NODES} YAML nodes")
        }
        BudgetBreach::ScalarBytes { .. } | BudgetBreach::InputBytes { .. } => {
            format!("input larger than {MAX_INPUT_BYTES} bytes")
        }
        BudgetBreach::CommentBytes { .. } => format!("more than {MAX_COMMENT_BYTES} bytes of comments"),
        BudgetBreach::Documents { .. } => format!("more than {MAX_DOCUMENTS} YAML documents"),
        BudgetBreach::Aliases { .. }
        | BudgetBreach::Anchors { .. }
        | BudgetBreach::AliasAnchorRatio { .. }
        | BudgetBreach::MergeKeys { .. }
        | BudgetBreach::RecordedAnchorEvents { .. }
        | BudgetBreach::RecordedAnchorBytes { .. } => {
            "aliases expand to too much: alias expansion is limited to keep alias bombs out".to_string()
        }
        _ => "input too large or too complex".to_string(),
    }
}

/// A generic value whose mappings refuse keys that repeat once written as JSON strings.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor)
    }
}

/// Builds a [`Strict`] of each kind of node serde-saphyr's `deserialize_any` hands a
/// visitor: a null comes as a unit (never as an option), a string as `str` or, when
/// escapes or folding made it anew, as `String`. The methods serde gives by default
/// (options, bytes, chars, ...) are never called.
struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Strict, E> {
        Ok(Strict(Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Strict, E> {
        Ok(Strict(Value::String(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Strict(Value::Array(out)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut out = Map::new();
        while let Some(Key(key)) = map.next_key()? {
            let Strict(value) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate mapping key {key:?}")));
            }
            out.insert(key, value);
        }
        Ok(Strict(Value::Object(out)))
    }
}

/// A mapping key as Kubernetes sees it: scalars become JSON strings.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeyVisitor).map(Key)
    }
}

/// As [`StrictVisitor`], of the nodes `deserialize_any` hands a visitor.
struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a scalar mapping key")
    }

    fn visit_bool<E>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E>(self, v: f64) -> Result<String, E> {
        Ok(Number::from_f64(v).map_or_else(|| v.to_string(), |n| n.to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(E::custom("a mapping key must not be null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(de::Error::custom("a mapping key must be a scalar, not a sequence"))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(de::Error::custom("a mapping key must be a scalar, not a mapping"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written a part at a time, a mapping reads as serde-saphyr writes it whole: with or
    /// without fields before, with parts the fast writer vouches for and parts it does not
    /// (a multi-line message, a null), in fields too.
    #[test]
    fn a_list_written_in_parts_is_the_mapping_written_whole() {
        let parts = [
            vec![serde_json::json!({"message": "a", "severity": "info"})],
            vec![serde_json::json!({"message": "two\nlines", "field": {"path": "spec.x"}})],
            vec![serde_json::json!({"message": "b", "index": 1}), serde_json::json!({"n": null})],
            vec![serde_json::json!({"message": "on", "tags": ["x", "yes"]})],
        ];
        let plain = Map::from_iter([("functionConfig".to_string(), serde_json::json!({"a": "b"}))]);
        let block = Map::from_iter([("functionConfig".to_string(), serde_json::json!({"a": "x\ny"}))]);
        for fields in [Map::new(), plain, block] {
            let mut out = Vec::new();
            let mut writer = ListWriter::start(&mut out, &fields, "results").unwrap();
            for part in &parts {
                writer.part(part).unwrap();
            }
            writer.part::<Value>(&[]).unwrap();
            let mut whole = fields.clone();
            whole.insert("results".into(), Value::Array(parts.concat()));
            assert_eq!(String::from_utf8(out).unwrap(), saphyr_write(&whole).unwrap(), "{fields:?}");
        }
        assert!(ListWriter::start(Vec::new(), &Map::new(), "a b").is_err());
    }

    #[test]
    fn the_size_limit_holds_at_its_last_byte() {
        assert!(check_size(&" ".repeat(MAX_INPUT_BYTES)).is_ok());
        let over = " ".repeat(MAX_INPUT_BYTES + 1);
        for err in [parse(&over).unwrap_err(), parse_stream(&over).unwrap_err()] {
            assert!(err.contains("larger than the limit of 134217728 bytes"), "{err}");
        }
    }

    #[test]
    fn the_event_budget_allows_three_events_a_node() {
        // 2,100,001 nodes, within the node budget; two events each for the empty mappings,
        // over 4.2 million in all: within three a node, past one a node.
        let list = format!("[{}{{}}]", "{},".repeat(2_099_999));
        let value = parse(&list).unwrap();
        assert_eq!(value.as_array().map(Vec::len), Some(2_100_000));
    }

    #[test]
    fn scalar_keys_become_the_json_strings_kubernetes_gives_them() {
        let value =
            parse("true: a\n-3: b\n7: c\n1.5: d\ntext: f\n'q': g\n\"a\\tb\": h\n'it''s': i\n").unwrap();
        let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["true", "-3", "7", "1.5", "text", "q", "a\tb", "it's"]);
        for (text, expected) in
            [("[a]: x\n", "not a sequence"), ("{a: b}: x\n", "not a mapping"), ("~: x\n", "must not be null")]
        {
            let err = parse(text).unwrap_err();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }

    #[test]
    fn keys_equal_as_json_strings_are_duplicates() {
        let err = parse("data:\n  1: first\n  \"1\": second\n").unwrap_err();
        assert!(err.contains("duplicate mapping key \"1\""), "{err}");
        assert!(err.contains("line "), "{err}");
    }

    #[test]
    fn messages_speak_of_the_input_not_the_library() {
        let dup = parse("a: 1\na: 2\n").unwrap_err();
        assert!(dup.contains("duplicate mapping key") && !dup.contains("Options"), "{dup}");
        let docs = parse("a: 1\n---\nb: 2\n").unwrap_err();
        assert!(docs.contains("several YAML documents"), "{docs}");
        let deep = parse(&format!("{}{}", "[".repeat(300), "]".repeat(300))).unwrap_err();
        assert!(
            deep.contains("nesting deeper than 256 levels") || deep.contains("recursion limit"),
            "{deep}"
        );
        let null_key = parse("~: 1\n").unwrap_err();
        assert!(null_key.contains("must not be null"), "{null_key}");
    }

    #[test]
    fn a_tab_is_reported_where_it_stands() {
        // The tab opens line 9; the scanner reports the plain scalar of line 8.
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: y\ndata:\n  a: b\n  c: d\n\te: f\n";
        let err = parse(text).unwrap_err();
        assert!(err.starts_with("line 9 column 1: found a tab character"), "{err}");
        assert!(err.contains("9 |     e: f\n  | ^ found a tab character"), "{err}");
        let err = parse_stream(text).unwrap_err();
        assert!(err.starts_with("line 9 column 1:"), "{err}");
        // Before a key, the scanner reports the key.
        let err = parse("a:\n\tb: c\n").unwrap_err();
        assert!(err.starts_with("line 2 column 1: found a tab"), "{err}");
        // After spaces, in a line's indentation.
        let err = parse("a:\n  b: c\n  \td: e\n").unwrap_err();
        assert!(err.starts_with("line 3 column 3: found a tab"), "{err}");
        // Opening a block scalar's content, the scanner reports the `|`.
        let err = parse("a: |\n\tx\n").unwrap_err();
        assert!(err.starts_with("line 2 column 1: found a tab"), "{err}");
    }

    #[test]
    fn a_tab_after_a_valid_one_is_the_one_reported() {
        // Line 8 holds a tab inside its scalar, which YAML allows; the tab that opens line 9
        // is the one at fault.
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: y\ndata:\n  a: b\n  c: d\tx\n\te: f\n";
        let err = parse(text).unwrap_err();
        assert!(err.starts_with("line 9 column 1: found a tab character"), "{err}");
        assert!(err.contains("9 |     e: f\n  | ^ found a tab character"), "{err}");
        // A comment line with a tab between is not the one.
        let err = parse("a: b\n\t# note\n  c\n\td\n").unwrap_err();
        assert!(err.starts_with("line 4 column 1:"), "{err}");
    }

    #[test]
    fn a_tab_before_a_block_entry_is_reported_where_it_stands() {
        // The scanner reports the `-` after the tab.
        let err = parse("a:\n\t- z\n").unwrap_err();
        assert!(err.starts_with("line 2 column 1: found a tab character"), "{err}");
        assert!(err.contains("2 |     - z\n  | ^ found a tab character"), "{err}");
        let err = parse("a:\n\t\t- z\n").unwrap_err();
        assert!(err.starts_with("line 2 column 1:"), "{err}");
    }

    #[test]
    fn a_snippet_shows_the_lines_around_the_fault_as_a_terminal_shows_them() {
        // Tabs to the next multiple of 4 (the second one after 7 characters: one space), a
        // control character as `?`, two lines before and one after.
        let text = "a: 1\nb: 2\nc:\n\t- x\t\u{1}y\nd: 4\ne: 5\n";
        let expected = format!(
            " --> {SOURCE}:4:1\n  |\n2 | b: 2\n3 | c:\n4 |     - x ?y\n  | ^ found a tab character\n5 | d: 4\n  |"
        );
        assert_eq!(snippet(text, 4, 1), expected);
        // On the first line: no line before it; the caret under the character at fault.
        assert_eq!(
            snippet("ab\tc\n", 1, 3),
            format!(" --> {SOURCE}:1:3\n  |\n1 | ab  c\n  |   ^ found a tab character\n  |")
        );
    }

    #[test]
    fn budget_breaches_are_worded_in_this_functions_limits() {
        let cases = [
            (BudgetBreach::Depth { depth: 1 }, "nesting deeper than 256 levels"),
            (BudgetBreach::Nodes { nodes: 1 }, "more than 4000000 YAML nodes"),
            (BudgetBreach::Events { events: 1 }, "more than 4000000 YAML nodes"),
            (BudgetBreach::ScalarBytes { total_scalar_bytes: 1 }, "input larger than 134217728 bytes"),
            (BudgetBreach::InputBytes { input_bytes: 1 }, "input larger than 134217728 bytes"),
            (BudgetBreach::CommentBytes { total_comment_bytes: 1 }, "more than 67108864 bytes of comments"),
            (BudgetBreach::Documents { documents: 1 }, "more than 1000000 YAML documents"),
            (
                BudgetBreach::Aliases { aliases: 1 },
                "aliases expand to too much: alias expansion is limited to keep alias bombs out",
            ),
        ];
        for (breach, expected) in cases {
            assert_eq!(budget_message(&breach), expected, "{breach:?}");
        }
    }

    #[test]
    fn a_budget_breach_under_a_snippet_keeps_its_wording() {
        // 300 nested block mappings: past the depth limit, the parser's error comes with its
        // snippet. Deep recursion in a debug build needs more stack than a test thread has.
        let text: String = (0..300).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
        let parsed = std::thread::Builder::new().stack_size(256 << 20).spawn(move || parse(&text));
        let err = parsed.unwrap().join().unwrap().unwrap_err();
        assert!(err.contains(": nesting deeper than 256 levels\n"), "{err}");
        assert!(err.contains("^ nesting deeper than 256 levels"), "{err}");
    }

    #[test]
    fn snippet_headers_name_the_file() {
        let err = parse("a: b\n  c: d\n").unwrap_err();
        assert!(err.contains(" --> <input>:2:"), "{err}");
        let named = in_file(&err, "pkg/a.yaml");
        assert!(named.contains(" --> pkg/a.yaml:2:") && !named.contains("<input>"), "{named}");
        assert_eq!(named.lines().count(), err.lines().count(), "{named}");
        // A tab's own snippet too; a line of the text that reads like a header stays.
        let err = parse("a:\n  b: c\n\td: e\n# --> <input>:1:1\n").unwrap_err();
        let named = in_file(&err, "t.yaml");
        assert!(named.contains("--> t.yaml:3:1"), "{named}");
        let quoted = in_file("line 1 column 1: x\n1 | --> <input>:1:1\n", "t.yaml");
        assert!(quoted.contains("1 | --> <input>:1:1"), "{quoted}");
    }

    #[test]
    fn yaml_1_1_strings_are_written_quoted() {
        let value = serde_json::json!({"a": "on", "b": "yes", "c": "1.0", "d": "null", "e": "2001-12-14", "f": "010"});
        let text = write(&value).unwrap();
        for s in ["\"on\"", "\"yes\"", "\"1.0\"", "\"null\"", "\"2001-12-14\"", "\"010\""] {
            assert!(text.contains(s), "{s} not quoted in {text}");
        }
    }
}
