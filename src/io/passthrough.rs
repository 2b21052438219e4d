//! Reading a ResourceList without building generic values for the items the function does
//! not own, and copying their text to the output as it came.
//!
//! A line pass finds the `items:` key and its entries; each entry is then scanned on its
//! own, on all cores ([`super::scan`]). The result stands only when every part reads
//! cleanly on its own: the text before `items:` and after the entries as mappings, each
//! entry as one sequence entry holding a mapping. Since no part may end inside a quoted
//! scalar or a flow collection, the parts read on their own as they read together. Anything
//! else (aliases, several documents, CRLF line ends, a broken entry) returns `None`, and the
//! caller reads the whole input with the full reader, which also words every error.

use super::scan::{self, Counts, Extent, Limits, Stop};
use crate::parallel;
use crate::reconcile::files::{self as annotations, FileSlot};
use crate::reconcile::item::Item;
use crate::yaml;
use serde_json::{Map, Value};
use std::io::Write;
use std::ops::Range;
use std::sync::Mutex;

/// Kinds whose items the reconcile reads whole; of other items it needs only the kind (to
/// know they are none of these) and the file slots.
const READ_WHOLE: [&str; 5] = [
    "InferenceIdentityBinding",
    "InferencePool",
    "ClusterSPIFFEID",
    "CustomResourceDefinition",
    "ServiceAccount",
];

/// A ResourceList read this way.
pub struct Read {
    /// The ResourceList's fields other than `items`.
    pub list: Map<String, Value>,
    /// Every item: whole, or an empty mapping for an item copied unchanged that the
    /// reconcile does not read (its file slots are in `taken_slots`).
    pub items: Vec<Value>,
    /// By item position, the entry text to copy when the item leaves unchanged; `None`
    /// for items read by the full reader, which are written from their values.
    pub entries: Vec<Option<Range<usize>>>,
    /// Spaces before each entry's `-`.
    pub indent: usize,
    /// The file slots of the items reduced to empty mappings.
    pub taken_slots: Vec<FileSlot>,
}

/// Reads `text`, or returns `None` when it must be read whole by the full reader.
pub fn read(text: &str) -> Option<Read> {
    if text.len() > yaml::MAX_INPUT_BYTES {
        return None;
    }
    let layout = layout(text)?;
    let mut list = part(&text[layout.header.clone()])?;
    for (key, value) in part(&text[layout.tail.clone()])? {
        if list.insert(key, value).is_some() {
            return None;
        }
    }
    if list.contains_key("items") {
        return None;
    }
    // The whole input is held to the full reader's limits: counts are shared by the threads,
    // so a flood stops the scan early. The header and tail nest as deep as they stand; an
    // entry sits two levels down (the list, `items`), counted from its own sequence.
    let budget =
        Counts { nodes: yaml::MAX_NODES, events: yaml::MAX_EVENTS, comment_bytes: yaml::MAX_COMMENT_BYTES };
    let outside = Limits { depth: yaml::MAX_DEPTH, counts: budget };
    let header = scan::count(&text[layout.header.clone()], outside)?;
    let tail = scan::count(&text[layout.tail.clone()], outside)?;
    // `items` and its sequence are two nodes more.
    let used = Mutex::new(header.add(tail).add(Counts { nodes: 2, events: 0, comment_bytes: 0 }));
    let scanned = parallel::map(layout.entries.clone(), |range| {
        let left = budget.minus(*used.lock().ok()?)?;
        let limits = Limits { depth: yaml::MAX_DEPTH - 1, counts: left };
        let (entry, counts) = entry(&text[range], limits)?;
        let mut total = used.lock().ok()?;
        *total = total.add(counts);
        budget.minus(*total)?;
        Some(entry)
    });
    let mut items = Vec::with_capacity(scanned.len());
    let mut entries = Vec::with_capacity(scanned.len());
    let mut taken_slots = Vec::new();
    for (result, range) in scanned.into_iter().zip(layout.entries) {
        let entry = result?;
        items.push(entry.item);
        entries.push(entry.copyable.then_some(range));
        taken_slots.extend(entry.slots);
    }
    Some(Read { list, items, entries, indent: layout.indent, taken_slots })
}

/// One entry, read.
struct Entry {
    item: Value,
    /// Whether its text can be copied to the output.
    copyable: bool,
    /// The file slots of an item reduced to an empty mapping.
    slots: Vec<FileSlot>,
}

/// One entry as an item, with what it counts.
fn entry(text: &str, limits: Limits) -> Option<(Entry, Counts)> {
    let extent = if READ_WHOLE.iter().any(|k| memchr::memmem::find(text.as_bytes(), k.as_bytes()).is_some()) {
        Extent::Whole
    } else {
        Extent::Head
    };
    // An item with comments is written from its value, without them: kpt puts comments back
    // itself, and finding them already there, at other nodes, it would write them twice.
    let scanned = match scan::scan(text, extent, limits) {
        Ok(s) if extent == Extent::Head && (s.commented || is_read_whole(&s.value)) => {
            scan::scan(text, Extent::Whole, limits)
        }
        other => other,
    };
    let (value, counts, copyable) = match scanned {
        Ok(s) => (s.value, s.counts, !s.commented),
        Err(Stop::Abandon) => return None,
        Err(Stop::Defer) => {
            let counts = scan::count(text, limits)?;
            let Ok(Value::Array(mut entries)) = yaml::parse(text) else { return None };
            (entries.pop().filter(|_| entries.is_empty())?, counts, false)
        }
    };
    if !value.is_object() {
        return None;
    }
    // An item copied unchanged and not read whole is reduced to nothing but its slots.
    if copyable && !is_read_whole(&value) {
        let slots = file_slots(&value);
        return Some((Entry { item: Value::Object(Map::new()), copyable: true, slots }, counts));
    }
    Some((Entry { item: value, copyable, slots: Vec::new() }, counts))
}

/// The file slots an item takes: of an item it neither owns nor changes, the reconcile
/// needs only these (to find free slots for new outputs), so the item itself is dropped.
fn file_slots(item: &Value) -> Vec<FileSlot> {
    let annotations = item.pointer("/metadata/annotations").and_then(Value::as_object);
    annotations.into_iter().flat_map(annotations::file_slots).map(|(p, i)| (p.to_string(), i)).collect()
}

fn is_read_whole(item: &Value) -> bool {
    item.get("kind").and_then(Value::as_str).is_some_and(|kind| READ_WHOLE.contains(&kind))
}

/// The text before `items:` or after the entries, as a mapping.
fn part(text: &str) -> Option<Map<String, Value>> {
    match yaml::parse(text).ok()? {
        Value::Object(map) => Some(map),
        Value::Null => Some(Map::new()),
        _ => None,
    }
}

/// Where the parts of a ResourceList's text are.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    header: Range<usize>,
    entries: Vec<Range<usize>>,
    tail: Range<usize>,
    indent: usize,
}

/// Finds the `items:` line at column 0 and the entries under it: lines with the first
/// entry's indentation and a `-`. The entries end at the first other line that is not
/// indented deeper, which must start a key.
fn layout(text: &str) -> Option<Layout> {
    if text.starts_with('\u{feff}') || memchr::memchr(b'\r', text.as_bytes()).is_some() {
        return None;
    }
    let mut lines = lines(text);
    let items_line = lines.find(|&(_, line)| {
        line.trim_end_matches(' ') == "items:" || line.starts_with('%') || line.starts_with("...")
    })?;
    if !items_line.1.starts_with("items:") {
        return None;
    }
    let mut entries: Vec<Range<usize>> = Vec::new();
    let mut indent = None;
    let mut tail = text.len()..text.len();
    for (start, line) in lines {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let spaces = line.len() - trimmed.len();
        let is_entry = trimmed.starts_with('-') && matches!(trimmed.as_bytes().get(1), None | Some(b' '));
        match indent {
            None if is_entry => indent = Some(spaces),
            None => return None,
            Some(n) if spaces > n => continue,
            Some(n) if spaces == n && is_entry => {}
            Some(_) => {
                tail = start..text.len();
                break;
            }
        }
        if let Some(last) = entries.last_mut() {
            last.end = start;
        }
        entries.push(start..text.len());
    }
    if let Some(last) = entries.last_mut() {
        last.end = tail.start;
    }
    if !text[tail.clone()].bytes().next().is_none_or(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    Some(Layout { header: 0..items_line.0, entries, tail, indent: indent? })
}

/// The lines of `text` with their byte offsets, without line ends.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i);
        let line = (start, &text[start..end]);
        start = end + 1;
        Some(line)
    })
}

/// The input text, kept to copy unchanged items from.
pub struct Copies {
    text: String,
    entries: Vec<Option<Range<usize>>>,
    indent: usize,
}

impl Copies {
    /// The input text with [`Read::entries`] and [`Read::indent`].
    pub fn new(text: String, entries: Vec<Option<Range<usize>>>, indent: usize) -> Self {
        Copies { text, entries, indent }
    }

    /// The entry text of an input item left unchanged, when it can be copied.
    pub(super) fn entry_of(&self, item: &Item) -> Option<&str> {
        let (position, _) = item.input_at()?;
        let range = self.entries.get(position)?.as_ref()?;
        Some(&self.text[range.clone()])
    }

    /// Writes an entry as it stands at column 0.
    pub(super) fn copy<W: Write>(&self, out: &mut W, entry: &str) -> std::io::Result<()> {
        if self.indent == 0 {
            out.write_all(entry.as_bytes())?;
        } else {
            for line in entry.split_inclusive('\n') {
                let spaces = line.bytes().take(self.indent).take_while(|&b| b == b' ').count();
                out.write_all(&line.as_bytes()[spaces..])?;
            }
        }
        if !entry.ends_with('\n') {
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copied_item_is_reduced_to_its_file_slots() {
        let text = "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    annotations:\n      note: x\n      config.kubernetes.io/path: a.yaml\n      internal.config.kubernetes.io/index: '2'\n  data: {a: b}\n";
        let read = read(text).unwrap();
        assert_eq!(read.items[0], serde_json::json!({}));
        assert_eq!(read.taken_slots, [("a.yaml".to_string(), 0)], "legacy path, no legacy index: index 0");
        assert!(read.entries[0].is_some());
    }

    #[test]
    fn finds_the_parts() {
        let text = "kind: ResourceList\nitems:\n# first\n- a: 1\n\n  b: |\n    - x\n# between\n- c: 2\nfunctionConfig: {}\n";
        let layout = layout(text).unwrap();
        let entries: Vec<&str> = layout.entries.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(entries, ["- a: 1\n\n  b: |\n    - x\n# between\n", "- c: 2\n"]);
        assert_eq!(&text[layout.header], "kind: ResourceList\n");
        assert_eq!(&text[layout.tail], "functionConfig: {}\n");
        assert_eq!(layout.indent, 0);
    }

    #[test]
    fn indented_entries_are_copied_to_column_0() {
        let text = "kind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    data:\n      a: |\n        x\n\n          y\n";
        let read = read(text).unwrap();
        assert_eq!(read.indent, 2);
        let copies = Copies::new(text.to_string(), read.entries, read.indent);
        let mut out = Vec::new();
        let items: Vec<Item> = read.items.into_iter().enumerate().map(|(i, v)| Item::Input(i, v)).collect();
        crate::io::output::write_items(&mut out, &items, Some(&copies)).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out, "- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: |\n      x\n\n        y\n");
        assert_eq!(yaml::parse(&out).unwrap(), yaml::parse(text).unwrap()["items"]);
    }

    #[test]
    fn unclean_layouts_go_to_the_full_reader() {
        for text in [
            "kind: ResourceList\nitems:\r\n- a: 1\r\n",
            "%YAML 1.2\n---\nkind: ResourceList\nitems:\n- a: 1\n",
            "kind: \"ResourceList\nitems:\n- a: 1\n\"\n",
            "kind: ResourceList\nitems:\n- a: 1\n---\nkind: ResourceList\n",
            "kind: ResourceList\nitems:\n- a: 1\n  b: *x\n",
            "kind: ResourceList\nitems:\n- a: \"open\n- b: close\"\n",
            "kind: ResourceList\nitems:\n- a: 1\nitems:\n- b: 1\n",
            "kind: ResourceList\nitems:\n- x\n",
            "kind: ResourceList\nitems:\n  a: 1\n",
        ] {
            assert!(read(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn items_that_need_the_full_reader_are_built_whole_and_not_copied() {
        let text = "kind: ResourceList\nitems:\n- apiVersion: kleym.sonda.red/v1alpha1\n  kind: InferenceIdentityBinding\n  metadata: {name: b}\n- apiVersion: v1\n  kind: ConfigMap\n  data: {a: on}\n- apiVersion: v1\n  kind: ConfigMap\n  data: {a: x}\n";
        let read = read(text).unwrap();
        let copyable: Vec<bool> = read.entries.iter().map(Option::is_some).collect();
        assert_eq!(copyable, [true, false, true]);
        assert_eq!(read.items[0]["metadata"]["name"], "b", "a binding is read whole");
        assert_eq!(read.items[1]["data"]["a"], true, "read by the full reader, as kubectl reads it");
        assert_eq!(read.items[2], serde_json::json!({}), "a copied item is reduced to its file slots");
    }
}
