//! The exact reader, for every input the fast reader does not vouch for: the full reader
//! gives the values and the errors, and one pass of the parser's events over the same text
//! finds where each item's text stands. An item whose text does not stand on its own (it
//! uses an alias to an anchor of another item, or the items are a flow sequence) is
//! written from its value.

use super::fast::{ListRead, status_slot};
use super::text::{line_end, line_start, lines};
use super::walk::{Build, Limits, Node, Walker};
use super::{Head, ItemText, ListError, Part, RESOURCE_LIST_API_VERSION, RESOURCE_LIST_KIND, split};
use crate::api::fields::type_name;
use crate::reconcile::input::Input;
use crate::yaml;
use serde_json::Value;
use serde_saphyr::granit_parser::{Event, ScalarStyle, StructureStyle};
use std::ops::Range;

/// Reads a ResourceList.
pub fn list(text: &str) -> Result<ListRead, ListError> {
    let fail = |message: String, function_config| ListError { message, function_config };
    let value =
        yaml::parse(text).map_err(|e| fail(format!("input is not a readable YAML document: {e}"), None))?;
    let Value::Object(mut fields) = value else {
        let message = format!("input must be a ResourceList mapping, not a {}", type_name(&value));
        return Err(fail(message, None));
    };
    let kind = fields.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind != RESOURCE_LIST_KIND {
        let message =
            format!("input kind is {kind:?}: expected a {RESOURCE_LIST_API_VERSION} ResourceList on stdin");
        return Err(fail(message, None));
    }
    let items = super::items_of(&mut fields).map_err(|m| {
        let function_config = fields.get("functionConfig").filter(|v| !v.is_null()).cloned();
        fail(m, function_config)
    })?;
    let places = entries(text).unwrap_or_default();
    let (places, indent) = if places.0.len() == items.len() { places } else { (Vec::new(), 0) };
    let parts = items
        .into_iter()
        .enumerate()
        .map(|(i, value)| match places.get(i) {
            Some((chunk, node)) => part(value, chunk.clone(), node),
            None => rebuilt(value),
        })
        .collect();
    Ok(ListRead { fields, parts, indent })
}

/// Reads a stream of documents.
pub fn stream(text: &str) -> Result<Vec<Part>, String> {
    let documents = yaml::parse_stream(text)?;
    let places = document_places(text).filter(|p| p.len() == documents.len()).unwrap_or_default();
    let mut parts = Vec::new();
    for (i, value) in documents.into_iter().enumerate() {
        match value {
            Value::Null => {}
            Value::Object(_) => parts.push(match places.get(i).and_then(Option::as_ref) {
                Some((chunk, node)) => part(value, chunk.clone(), node),
                None => rebuilt(value),
            }),
            other => return Err(format!("document {i} must be a mapping, not a {}", type_name(&other))),
        }
    }
    Ok(parts)
}

/// An item whose text stands where `chunk` says.
fn part(value: Value, chunk: Range<usize>, node: &Node) -> Part {
    if node.outside_alias {
        return rebuilt(value);
    }
    let head = Head::of(&value);
    let input = Input::of(value);
    let status = input.value().and_then(|_| status_slot(node));
    Part { input, text: ItemText { chunk, copy: true, status }, head }
}

/// An item written from its value.
fn rebuilt(value: Value) -> Part {
    let head = Head::of(&value);
    Part { input: Input::Whole(value), text: ItemText { chunk: 0..0, copy: false, status: None }, head }
}

/// An item's chunk, and its walk.
type Found = (Range<usize>, Node);

/// The chunk and walk of every entry of a ResourceList's block sequence `items`, and the
/// entries' indentation; `None` when the items are not a block sequence in a block mapping.
fn entries(text: &str) -> Option<(Vec<Found>, usize)> {
    let mut walker = Walker::new(text, 0, Limits::NONE, true);
    walker.expect(|e| matches!(e, Event::StreamStart)).ok()?;
    walker.expect(|e| matches!(e, Event::DocumentStart(..))).ok()?;
    walker.expect(|e| matches!(e, Event::MappingStart(StructureStyle::Block, ..))).ok()?;
    loop {
        let (event, span) = walker.event().ok()?;
        let is_items = match &event {
            Event::MappingEnd => return None,
            Event::Scalar(key, ..) => key == "items",
            _ => false,
        };
        let key_end = walker.offset(&span.end);
        if !matches!(event, Event::Scalar(..)) {
            walker.node(event, span, 2, Build::Nothing).ok()?;
        }
        // Keys other than `items`, and their values, are skipped.
        if !is_items {
            let (value, value_span) = walker.event().ok()?;
            walker.node(value, value_span, 2, Build::Nothing).ok()?;
            continue;
        }
        let (value, _) = walker.event().ok()?;
        if !matches!(value, Event::SequenceStart(StructureStyle::Block, ..)) {
            return None;
        }
        let mut found: Vec<(usize, Node)> = Vec::new();
        let mut before = line_end(text, key_end);
        let first = before;
        loop {
            let (event, span) = walker.event().ok()?;
            if matches!(event, Event::SequenceEnd) {
                break;
            }
            let node = walker.node(event, span, 3, Build::Nothing).ok()?;
            let dash = dash_line(text, before, node.span.start)?;
            before = node.span.end;
            found.push((dash, node));
        }
        // The last entry ends where the next key starts, or at the document's end.
        let (next, mut at) = walker.event().ok()?;
        if matches!(next, Event::MappingEnd) {
            at = walker.expect(|e| matches!(e, Event::DocumentEnd)).ok()?;
        }
        let explicit = walker.offset(&at.end) > walker.offset(&at.start);
        let end = match next {
            Event::MappingEnd if !explicit => text.len(),
            _ => line_start(text, walker.offset(&at.start)),
        };
        let end = end.max(before);
        let indent = found
            .first()
            .map_or(0, |(dash, _)| text[*dash..].len() - text[*dash..].trim_start_matches(' ').len());
        let starts: Vec<usize> =
            found.iter().enumerate().map(|(i, (dash, _))| if i == 0 { first } else { *dash }).collect();
        let ends = starts.iter().skip(1).copied().chain([end]);
        let chunks: Vec<Found> =
            starts.iter().zip(ends).zip(found).map(|((&start, end), (_, node))| (start..end, node)).collect();
        return Some((chunks, indent));
    }
}

/// The start of the line that holds an entry's `-`: the last line between `from` and the
/// entry's content at `to` that starts with `-` once indented.
fn dash_line(text: &str, from: usize, to: usize) -> Option<usize> {
    let region = &text[line_start(text, from)..to];
    let base = line_start(text, from);
    lines(region)
        .filter(|(_, line)| line.trim_start_matches(' ').starts_with('-'))
        .map(|(at, _)| base + at)
        .last()
}

/// By document, the chunk and walk of each document's mapping (`None` for a document
/// holding something else); `None` when the text does not walk. Documents holding nothing
/// or a null are left out, as the full reader leaves them out.
fn document_places(text: &str) -> Option<Vec<Option<Found>>> {
    let chunks = document_chunks(text);
    let mut walker = Walker::new(text, 0, Limits::NONE, true);
    walker.expect(|e| matches!(e, Event::StreamStart)).ok()?;
    let mut places = Vec::new();
    loop {
        match walker.event().ok()? {
            (Event::StreamEnd, _) => return Some(places),
            (Event::DocumentStart(..), _) => {}
            _ => return None,
        }
        let (event, span) = walker.event().ok()?;
        let is_mapping = matches!(event, Event::MappingStart(..));
        let is_null = matches!(&event, Event::Scalar(text, ScalarStyle::Plain, _, None)
            if matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL"));
        let node = walker.node(event, span, 1, Build::Nothing).ok()?;
        walker.expect(|e| matches!(e, Event::DocumentEnd)).ok()?;
        if is_null {
            continue;
        }
        let chunk =
            chunks.iter().find(|c| c.start <= node.span.start && node.span.start < c.end.max(c.start + 1));
        places.push(match (is_mapping, chunk) {
            (true, Some(chunk)) => Some((chunk.start..chunk.end.max(node.span.end), node)),
            _ => None,
        });
    }
}

/// The text between a stream's document markers and directives; where a marker line
/// carries a node (`--- {a: 1}`), the next document's text starts at it.
fn document_chunks(text: &str) -> Vec<Range<usize>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    for (at, line) in lines(text) {
        let marker = split::is_marker(line, "---") || split::is_marker(line, "...");
        if !(marker || line.starts_with('%')) {
            continue;
        }
        chunks.push(start..at);
        let rest = if marker { line[3..].trim_start_matches([' ', '\t']) } else { "" };
        start = if rest.is_empty() || rest.starts_with('#') {
            line_end(text, at)
        } else {
            at + line.len() - rest.len()
        };
    }
    chunks.push(start..text.len());
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_by_their_dash_lines() {
        let text = "kind: ResourceList\nitems:\n  # first\n  - &a {x: 1}\n  -\n    # own line\n    b: *a\nfunctionConfig: {}\n...\n";
        let (chunks, indent) = entries(text).unwrap();
        let texts: Vec<&str> = chunks.iter().map(|(r, _)| &text[r.clone()]).collect();
        assert_eq!(texts, ["  # first\n  - &a {x: 1}\n", "  -\n    # own line\n    b: *a\n"]);
        assert_eq!(indent, 2);
        assert!(!chunks[0].1.outside_alias);
        assert!(chunks[1].1.outside_alias, "b uses the anchor of another entry");
    }

    #[test]
    fn documents_keep_their_text_between_markers() {
        let text = "# lead\n---\na: 1\n# foot\n--- {b: 2}\n...\n%YAML 1.2\n---\nc: 3\n";
        let places = document_places(text).unwrap();
        let texts: Vec<&str> = places.iter().flatten().map(|(r, _)| &text[r.clone()]).collect();
        assert_eq!(texts, ["a: 1\n# foot\n", "{b: 2}\n", "c: 3\n"]);
    }
}
