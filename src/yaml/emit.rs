//! A fast writer for the plain shapes the function writes most (statuses, rendered
//! `ClusterSPIFFEID`s): block mappings and sequences of strings, integers and booleans.
//! It gives serde-saphyr's text byte for byte or gives up (`None`), and the caller then
//! writes with serde-saphyr. Strings it cannot vouch for are spelled by serde-saphyr one at
//! a time; anything else (floats, nulls, enums with data, nested sequences, multi-line
//! strings) gives up. The tests hold it to serde-saphyr's text on every golden text and on
//! generated strings.

use serde::ser::{self, Impossible, Serialize};
use std::cell::RefCell;
use std::fmt;

/// The text serde-saphyr writes for `value`, or `None` when this writer cannot vouch for it.
pub fn write<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    let node = value.serialize(VALUE).ok()?;
    let mut out = String::with_capacity(512);
    match &node {
        Node::Map(entries) if !entries.is_empty() => map_body(entries, 0, false, &mut out)?,
        Node::Seq(items) if !items.is_empty() => seq_body(items, 0, &mut out)?,
        // Empty collections and scalars: the function writes none at the top.
        _ => return None,
    }
    Some(out)
}

/// The line [`write`] gives for the key of a root mapping's entry holding a block sequence
/// (`key:`), or `None` when this writer cannot vouch for the key.
pub fn list_key(key: &str) -> Option<String> {
    Some(format!("{}:\n", key_text(key)?))
}

/// The text [`write`] gives for `items` as entries of a block sequence at the root (or held
/// by a root mapping's entry: the same), an item's lines a piece, the items written on all
/// cores. `None` when this writer cannot vouch for a piece, or for no items.
pub fn list_items<T: Serialize + Sync>(items: &[T]) -> Option<Vec<String>> {
    if items.is_empty() {
        return None;
    }
    let written = crate::parallel::map(items.iter().collect(), |item: &T| {
        let node = item.serialize(VALUE).ok()?;
        let mut out = String::with_capacity(1024);
        seq_body(std::slice::from_ref(&node), 0, &mut out)?;
        Some(out)
    });
    written.into_iter().collect()
}

/// A value built from its `Serialize`, scalars already spelled.
enum Node {
    Scalar(String),
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A mapping's entries at `indent`; the first one on the current line when `inline` (the
/// entry of a sequence).
fn map_body(entries: &[(String, Node)], indent: usize, inline: bool, out: &mut String) -> Option<()> {
    for (i, (key, value)) in entries.iter().enumerate() {
        if !(inline && i == 0) {
            pad(out, indent);
        }
        out.push_str(key);
        out.push(':');
        match value {
            Node::Scalar(s) => {
                out.push(' ');
                out.push_str(s);
                out.push('\n');
            }
            Node::Map(m) if m.is_empty() => out.push_str(" {}\n"),
            Node::Seq(s) if s.is_empty() => out.push_str(" []\n"),
            Node::Map(m) => {
                out.push('\n');
                map_body(m, indent + 2, false, out)?;
            }
            // serde-saphyr writes a mapping's sequence at the key's own column.
            Node::Seq(s) => {
                out.push('\n');
                seq_body(s, indent, out)?;
            }
        }
    }
    Some(())
}

fn seq_body(items: &[Node], indent: usize, out: &mut String) -> Option<()> {
    for item in items {
        pad(out, indent);
        out.push_str("- ");
        match item {
            Node::Scalar(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Node::Map(m) if m.is_empty() => out.push_str("{}\n"),
            Node::Seq(s) if s.is_empty() => out.push_str("[]\n"),
            Node::Map(m) => map_body(m, indent + 2, true, out)?,
            Node::Seq(_) => return None,
        }
    }
    Some(())
}

/// The words YAML 1.1 reads as booleans, nulls or floats, in any case: serde-saphyr
/// double-quotes them.
const WORDS: [&str; 11] = ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "inf", "nan"];

fn is_word(s: &str) -> bool {
    s.len() <= 5 && WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// A string value as serde-saphyr spells it.
fn value_text(s: &str) -> Option<String> {
    if is_word(s) {
        return Some(format!("\"{s}\""));
    }
    if plain(s) {
        Some(s.to_string())
    } else if s.contains(": ") && s.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        // serde-saphyr double-quotes every one-line string holding `: `, and in printable
        // ASCII escapes only `\` and `"`.
        let mut out = String::with_capacity(s.len() + 8);
        out.push('"');
        for c in s.chars() {
            if matches!(c, '\\' | '"') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
        Some(out)
    } else {
        spelled(s)
    }
}

/// Whether serde-saphyr writes a string (not one of [`WORDS`]) as it is: names, SPIFFE
/// IDs, selectors and times are, and this writer spells them without asking it.
fn plain(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b" ._/:-()',\"=@".contains(&b))
        && !s.ends_with([':', ' '])
        && !s.contains(": ")
}

/// A mapping key as serde-saphyr spells it: stricter than values (no `:` or spaces plain).
fn key_text(s: &str) -> Option<String> {
    let plain = !is_word(s)
        && s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"._/-".contains(&b));
    if plain { Some(s.to_string()) } else { None }
}

thread_local! {
    /// The last string spelled by serde-saphyr and its spelling: most are one transition
    /// time, many times. Nothing before the first (an empty string is spelled `""`).
    static LAST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// A string serde-saphyr spells on one line, as it spells it; `None` for a block scalar.
fn spelled(s: &str) -> Option<String> {
    let hit =
        LAST.with_borrow(|last| last.as_ref().filter(|(input, _)| input == s).map(|(_, text)| text.clone()));
    if let Some(hit) = hit {
        return Some(hit);
    }
    let text = super::saphyr_write(&s).ok()?;
    let line = text.strip_suffix('\n')?;
    // A block scalar (`|-` and its lines) is the one spelling over several lines.
    if line.contains('\n') {
        return None;
    }
    LAST.with_borrow_mut(|last| *last = Some((s.to_string(), line.to_string())));
    Some(line.to_string())
}

/// Why this writer gave up: serde's own unit error, never shown (the caller writes with
/// serde-saphyr instead).
type GiveUp = fmt::Error;

/// Builds a [`Node`]; a mapping key (`key`) may only be a string, spelled as keys are.
#[derive(Clone, Copy)]
struct NodeSer {
    key: bool,
}

const VALUE: NodeSer = NodeSer { key: false };
const KEY: NodeSer = NodeSer { key: true };

type R = Result<Node, GiveUp>;

impl NodeSer {
    /// A scalar that is not a string: written as `text` as a value, never as a key.
    fn other(self, text: String) -> R {
        if self.key { Err(fmt::Error) } else { Ok(Node::Scalar(text)) }
    }

    /// `self`, where only a value may stand.
    fn value(self) -> Result<Self, GiveUp> {
        if self.key { Err(fmt::Error) } else { Ok(self) }
    }
}

impl ser::Serializer for NodeSer {
    type Ok = Node;
    type Error = GiveUp;
    type SerializeSeq = SeqSer;
    type SerializeTuple = SeqSer;
    type SerializeTupleStruct = Impossible<Node, GiveUp>;
    type SerializeTupleVariant = Impossible<Node, GiveUp>;
    type SerializeMap = MapSer;
    type SerializeStruct = MapSer;
    type SerializeStructVariant = Impossible<Node, GiveUp>;

    fn serialize_bool(self, v: bool) -> R {
        self.other(v.to_string())
    }
    fn serialize_i8(self, v: i8) -> R {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> R {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> R {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> R {
        self.other(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> R {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> R {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> R {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> R {
        self.other(v.to_string())
    }
    fn serialize_f32(self, _: f32) -> R {
        Err(fmt::Error)
    }
    fn serialize_f64(self, _: f64) -> R {
        Err(fmt::Error)
    }
    fn serialize_char(self, v: char) -> R {
        self.value()?.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> R {
        let text = if self.key { key_text(v) } else { value_text(v) };
        text.map(Node::Scalar).ok_or(fmt::Error)
    }
    fn serialize_bytes(self, _: &[u8]) -> R {
        Err(fmt::Error)
    }
    fn serialize_none(self) -> R {
        Err(fmt::Error)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> R {
        value.serialize(self.value()?)
    }
    fn serialize_unit(self) -> R {
        Err(fmt::Error)
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        Err(fmt::Error)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R {
        self.value()?.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> R {
        value.serialize(self.value()?)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R {
        Err(fmt::Error)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer, GiveUp> {
        self.value()?;
        Ok(SeqSer(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer, GiveUp> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, GiveUp> {
        Err(fmt::Error)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, GiveUp> {
        Err(fmt::Error)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer, GiveUp> {
        self.value()?;
        Ok(MapSer { entries: Vec::with_capacity(len.unwrap_or(0)), key: None })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<MapSer, GiveUp> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, GiveUp> {
        Err(fmt::Error)
    }
}

struct SeqSer(Vec<Node>);

impl ser::SerializeSeq for SeqSer {
    type Ok = Node;
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), GiveUp> {
        self.0.push(value.serialize(VALUE)?);
        Ok(())
    }
    fn end(self) -> R {
        Ok(Node::Seq(self.0))
    }
}

impl ser::SerializeTuple for SeqSer {
    type Ok = Node;
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), GiveUp> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> R {
        ser::SerializeSeq::end(self)
    }
}

struct MapSer {
    entries: Vec<(String, Node)>,
    key: Option<String>,
}

impl ser::SerializeMap for MapSer {
    type Ok = Node;
    type Error = GiveUp;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), GiveUp> {
        match key.serialize(KEY)? {
            Node::Scalar(key) => self.key = Some(key),
            _ => return Err(fmt::Error),
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), GiveUp> {
        let key = self.key.take().ok_or(fmt::Error)?;
        self.entries.push((key, value.serialize(VALUE)?));
        Ok(())
    }
    fn end(self) -> R {
        Ok(Node::Map(self.entries))
    }
}

impl ser::SerializeStruct for MapSer {
    type Ok = Node;
    type Error = GiveUp;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), GiveUp> {
        let key = key_text(key).ok_or(fmt::Error)?;
        self.entries.push((key, value.serialize(VALUE)?));
        Ok(())
    }
    fn end(self) -> R {
        Ok(Node::Map(self.entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(value: &serde_json::Value) {
        let slow = super::super::saphyr_write(value).unwrap();
        if let Some(fast) = write(value) {
            assert_eq!(fast, slow, "{value}");
        }
    }

    #[test]
    fn strings_are_spelled_as_serde_saphyr_spells_them() {
        for s in [
            "a b",
            "a: b",
            "a:",
            "a #b",
            "a#b",
            "spiffe://x/y",
            "k8s:ns:ns-0",
            "on",
            "Off",
            "NaN",
            "Infinity",
            "none",
            "y",
            "2026-01-01T00:00:00Z",
            "010",
            "1.0",
            "",
            " a",
            "a ",
            "a\tb",
            "é",
            "a\nb",
            "-a",
            "?a",
            "'a'",
            "\"a\"",
            "a'b",
            "(a)",
            "a=b",
            "a@b",
            "True",
            "x",
            "~",
            "null",
            "a: \"b\"",
            "a: \\b\\",
            "k: v: \"w\" \\ x, y #z",
            "\"a\": 'b'",
            ": a",
            "a: ",
            "- a: b",
            "a: é",
            "a: \u{7f}",
            "a: \tb",
        ] {
            same(&json!(s));
            same(&json!({ s: s }));
            same(&json!([s, {"k": s, "l": [s]}]));
        }
    }

    /// A shape this writer must take itself (the function writes it often), as serde-saphyr
    /// writes it.
    fn fast<T: serde::Serialize + std::fmt::Debug>(value: &T) {
        let slow = super::super::saphyr_write(value).unwrap();
        assert_eq!(write(value).as_deref(), Some(slow.as_str()), "{value:?}");
    }

    #[test]
    fn shapes_are_laid_out_as_serde_saphyr_lays_them_out() {
        let shapes =
            json!({"a": {"b": {"c": 1}}, "d": [], "e": {}, "f": [{"g": [1, 2], "h": {"i": true}}, "j"]});
        fast(&shapes);
        fast(&json!([{"a": 1}, [], {}, "x"]));
        // An item of a ResourceList is written as a one-element array (a tuple to serde).
        fast(&[json!({"kind": "ClusterSPIFFEID", "spec": {"dnsNameTemplates": []}})]);
        fast(&vec![shapes]);
        // Empty at the top and scalars: left to serde-saphyr.
        for value in [json!({}), json!([]), json!("x"), json!(1)] {
            same(&value);
            assert_eq!(write(&value), None, "{value}");
        }
        assert_eq!(write(&json!([[1]])), None);
        assert_eq!(write(&json!({"a": null})), None);
        assert_eq!(write(&json!({"a": 1.5})), None);
    }

    /// Every value of every golden text (each document, each item) written both ways.
    #[test]
    fn golden_texts_are_written_as_serde_saphyr_writes_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let (mut compared, mut fast) = (0, 0);
        let mut paths: Vec<_> = walk(&root);
        paths.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(documents) = super::super::parse_stream(&text) else { continue };
            for document in documents {
                let items = document.get("items").and_then(|i| i.as_array()).cloned().unwrap_or_default();
                for value in std::iter::once(document).chain(items) {
                    let slow = super::super::saphyr_write(&value).unwrap();
                    if let Some(text) = write(&value) {
                        assert_eq!(text, slow, "{}", path.display());
                        fast += 1;
                    }
                    compared += 1;
                }
            }
        }
        // Most goldens are plain shapes: the fast writer must take most of them.
        assert!(compared > 500 && fast * 2 > compared, "{fast} of {compared} written fast");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
        }
        out.sort();
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]

        /// Strings drawn from the characters that decide quoting, as values and as keys.
        #[test]
        fn generated_strings_are_spelled_as_serde_saphyr_spells_them(
            s in "[a-zA-Z0-9 ._/:#'\"=@(),\\\\\\-]{0,12}|(y|n|on|off|true|null|nan|inf)[a-z]?"
        ) {
            let value = json!({"k": s, &s: [s, {"a": s}]});
            let slow = super::super::saphyr_write(&value).unwrap();
            if let Some(text) = write(&value) {
                proptest::prop_assert_eq!(text, slow);
            }
        }
    }

    #[test]
    fn the_strings_the_function_writes_most_are_spelled_here() {
        for s in ["llama-decode", "spiffe://example.org/ns/llm/sa/vllm", "k8s:sa:vllm", "Ready", "a b", "x=y"]
        {
            assert!(plain(s), "{s}");
            assert_eq!(value_text(s).as_deref(), Some(s));
        }
        for s in ["a:", "a ", "a: b", "-a", "1a", "a#b", ""] {
            assert!(!plain(s), "{s}");
        }
    }

    #[test]
    fn a_list_entry_is_the_text_of_the_mapping_holding_it() {
        let entry =
            |key: &str, items: &[serde_json::Value]| Some(list_key(key)? + &list_items(items)?.concat());
        let items = vec![json!({"message": "a: \"b\"", "index": 1}), json!({"m": ["x", {"k": "on"}]})];
        let whole = write(&json!({"results": items})).unwrap();
        assert_eq!(entry("results", &items).unwrap(), whole);
        assert_eq!(whole, super::super::saphyr_write(&json!({"results": items})).unwrap());
        assert_eq!(list_items(&items).unwrap().concat(), write(&items).unwrap(), "at the root alike");
        let many: Vec<_> = (0..crate::parallel::PARALLEL_FROM + 1).map(|i| json!({"i": i})).collect();
        let whole = write(&json!({"results": many})).unwrap();
        let pieces = crate::parallel::with_cores(2, || list_items(&many)).unwrap();
        assert_eq!(list_key("results").unwrap() + &pieces.concat(), whole);
        assert_eq!(list_items::<serde_json::Value>(&[]), None);
        assert_eq!(list_items(&[json!({"a": null})]), None);
        assert_eq!(list_key("a b"), None);
    }

    #[test]
    fn block_scalars_give_up() {
        assert_eq!(write(&json!({"a": "x\ny"})), None);
    }

    #[test]
    fn an_empty_string_spelled_first_on_a_thread_is_quoted() {
        // A fresh thread has spelled nothing yet: the empty string is no hit of an empty cache.
        let text = std::thread::spawn(|| write(&json!({"a": ""}))).join().unwrap();
        assert_eq!(text.as_deref(), Some("a: \"\"\n"));
    }
}
