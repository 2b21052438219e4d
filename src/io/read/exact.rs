//! The exact reader, for every input the fast reader does not vouch for: the full reader
//! gives the values and the errors, and one pass of the parser's events over the same text
//! finds where each item's text stands. An item whose text does not stand on its own (it
//! uses an alias to an anchor of another item, or the items are a flow sequence) is
//! written from its value.

use super::part::{ListRead, Part};
use super::text::{is_entry, line_end, line_start, lines};
use super::walk::{self, Build, Limits, Node, Walker};
use super::{ListError, check_kind, diverge, split};
use crate::api::fields::type_name;
use crate::yaml;
use serde_json::{Map, Value};
use serde_saphyr::granit_parser::{Event, ScalarStyle, StructureStyle};
use std::ops::Range;

/// Reads a ResourceList.
pub fn list(text: &str) -> Result<ListRead, ListError> {
    let fail = |message: String, function_config| ListError { message, function_config };
    let parsed = yaml::parse(text);
    if let Some(divergence) = diverge::scan(text) {
        let function_config =
            parsed.ok().and_then(|v| v.get("functionConfig").filter(|v| !v.is_null()).cloned());
        return Err(fail(divergence.message(text), function_config));
    }
    let value = parsed.map_err(|e| {
        let words = diverged(text).unwrap_or(e);
        fail(format!("input is not a readable YAML document: {words}"), None)
    })?;
    let Value::Object(mut fields) = value else {
        let message = format!("input must be a ResourceList mapping, not a {}", type_name(&value));
        return Err(fail(message, None));
    };
    check_kind(&fields)?;
    if let Some(words) = diverged(text) {
        let function_config = fields.get("functionConfig").filter(|v| !v.is_null()).cloned();
        return Err(fail(words, function_config));
    }
    let items = items_of(&mut fields).map_err(|m| {
        let function_config = fields.get("functionConfig").filter(|v| !v.is_null()).cloned();
        fail(m, function_config)
    })?;
    let places = entries(text).unwrap_or_default();
    let (places, indent) = if places.0.len() == items.len() { places } else { (Vec::new(), 0) };
    let mut places = places.into_iter();
    let parts = items.into_iter().map(|value| part(value, places.next().unwrap_or(Found::Nowhere))).collect();
    Ok(ListRead { fields, parts, indent })
}

/// Reads a stream of documents.
pub fn stream(text: &str) -> Result<Vec<Part>, String> {
    let documents = documents(text)?;
    let places = document_places(text).filter(|p| p.len() == documents.len()).unwrap_or_default();
    let mut places = places.into_iter();
    let mut parts = Vec::new();
    for value in documents {
        let found = places.next().unwrap_or(Found::Nowhere);
        if value.is_object() {
            parts.push(part(value, found));
        }
    }
    Ok(parts)
}

/// Reads a stream's documents whole, with every refusal of [`stream`]: each is a mapping or
/// a null (a document holding nothing).
pub fn documents(text: &str) -> Result<Vec<Value>, String> {
    if let Some(divergence) = diverge::scan(text) {
        return Err(divergence.message(text));
    }
    let documents = yaml::parse_stream(text)
        .map_err(|e| diverged(text).or_else(|| placed_again(text, &e)).unwrap_or(e))?;
    if let Some(divergence) = diverged(text) {
        return Err(divergence);
    }
    if let Some((i, other)) = documents.iter().enumerate().find(|(_, d)| !d.is_object() && !d.is_null()) {
        let what = format!("document {i} must be a mapping, not a {}", type_name(other));
        return Err(match not_a_mapping(text) {
            Some(at) => placed(text, at, &what),
            None => what,
        });
    }
    Ok(documents)
}

/// The words of the first place of `text` where kubectl reads it otherwise, found by a walk
/// of its events; also when the full reader refuses it, as that place is often the cause
/// and its words name where it stands.
fn diverged(text: &str) -> Option<String> {
    walk::divergence(text).map(|d| d.message(text))
}

/// A stream's error that names no place (two keys of a top-level mapping that are one JSON
/// string, `yes:` and `on:`), placed at the line it is met on: the shortest run of whole
/// lines from the start whose reading fails with the same words, found by halving.
fn placed_again(text: &str, error: &str) -> Option<String> {
    if error.contains("line ") {
        return None;
    }
    let ends: Vec<usize> = text.match_indices('\n').map(|(at, _)| at + 1).chain([text.len()]).collect();
    let fails = |end: usize| yaml::parse_stream(&text[..end]).err().is_some_and(|e| e == error);
    let (mut low, mut high) = (0, ends.len().checked_sub(1)?);
    if !fails(ends[high]) {
        return None;
    }
    while low < high {
        let mid = (low + high) / 2;
        if fails(ends[mid]) { high = mid } else { low = mid + 1 }
    }
    Some(placed(text, line_start(text, ends[low].saturating_sub(1)), error))
}

/// Where the first document of `text` whose node is neither a mapping nor a null starts.
fn not_a_mapping(text: &str) -> Option<usize> {
    let mut walker = Walker::new(text, 0, Limits::NONE, true);
    walker.expect(|e| matches!(e, Event::StreamStart)).ok()?;
    loop {
        match walker.event().ok()? {
            (Event::DocumentStart(..), _) => {}
            _ => return None,
        }
        let (event, span) = walker.event().ok()?;
        let null = matches!(&event, Event::DocumentEnd)
            || matches!(&event, Event::Scalar(text, ScalarStyle::Plain, _, None)
                if matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL"));
        if !null && !matches!(event, Event::MappingStart(..)) {
            return Some(walker.offset(&span.start));
        }
        if !matches!(event, Event::DocumentEnd) {
            walker.node(event, span, 1, Build::Nothing).ok()?;
            walker.expect(|e| matches!(e, Event::DocumentEnd)).ok()?;
        }
    }
}

/// `what`, placed at `at` in `text` as the full reader places its errors.
fn placed(text: &str, at: usize, what: &str) -> String {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |n| n + 1)..].chars().count() + 1;
    format!("line {line} column {column}: {what}\n --> <input>:{line}:{column}")
}

/// The items of a ResourceList value, checked to be mappings.
fn items_of(fields: &mut Map<String, Value>) -> Result<Vec<Value>, String> {
    let items = match fields.remove("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(format!("ResourceList items must be a sequence, not a {}", type_name(&other)));
        }
    };
    if let Some((i, item)) = items.iter().enumerate().find(|(_, item)| !item.is_object()) {
        return Err(format!("items[{i}] must be a mapping, not a {}", type_name(item)));
    }
    Ok(items)
}

/// Where an item's text stands, as the walk of the whole text finds it.
enum Found {
    /// Its chunk, and the walk of its node.
    Chunk(Range<usize>, Node),
    /// No chunk it could be copied from (a document that holds no mapping, an item of a
    /// flow sequence): the item is written from its value.
    Nowhere,
}

/// The item `value`, copied from its text where one was found.
fn part(value: Value, found: Found) -> Part {
    match found {
        Found::Chunk(chunk, node) => Part::copied(value.into(), chunk, &node),
        Found::Nowhere => Part::rebuilt(value.into()),
    }
}

/// The chunk and walk of every entry of a ResourceList's block sequence `items`, and the
/// entries' indentation; `None` when the items are not a block sequence in a block mapping.
fn entries(text: &str) -> Option<(Vec<Found>, usize)> {
    let mut walker = Walker::new(text, 0, Limits::NONE, true);
    walker.expect(|e| matches!(e, Event::StreamStart)).ok()?;
    walker.expect(|e| matches!(e, Event::DocumentStart(..))).ok()?;
    walker.expect(|e| matches!(e, Event::MappingStart(StructureStyle::Block, ..))).ok()?;
    loop {
        // The next key. A mapping without `items` ends here instead, and the end of a
        // mapping is no node: its walk fails, and so does this.
        let (event, span) = walker.event().ok()?;
        let is_items = matches!(&event, Event::Scalar(key, ..) if key == "items");
        let key_end = walker.offset(&span.end);
        walker.node(event, span, 2, Build::Nothing).ok()?;
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
        let chunks: Vec<Found> = starts
            .iter()
            .zip(ends)
            .zip(found)
            .map(|((&start, end), (_, node))| Found::Chunk(start..end, node))
            .collect();
        return Some((chunks, indent));
    }
}

/// The start of the line that holds an entry's `-`: the last line between `from` and the
/// entry's content at `to` that starts an entry once indented.
fn dash_line(text: &str, from: usize, to: usize) -> Option<usize> {
    let region = &text[line_start(text, from)..to];
    let base = line_start(text, from);
    lines(region)
        .filter(|(_, line)| is_entry(line.trim_start_matches(' ').as_bytes()))
        .map(|(at, _)| base + at)
        .last()
}

/// By document, where each document's mapping stands; `None` when the text does not walk.
/// Documents holding nothing or a null are left out, as the full reader leaves them out.
fn document_places(text: &str) -> Option<Vec<Found>> {
    let chunks = split::documents(text).chunks;
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
        let chunk = chunks.iter().find(|c| c.contains(&node.span.start));
        places.push(match (is_mapping, chunk) {
            (true, Some(chunk)) => Found::Chunk(chunk.start..chunk.end.max(node.span.end), node),
            _ => Found::Nowhere,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunks found, and whether each uses an alias to an anchor outside it.
    fn found<'t>(text: &'t str, places: &[Found]) -> Vec<Option<(&'t str, bool)>> {
        let place = |found: &Found| match found {
            Found::Chunk(chunk, node) => Some((&text[chunk.clone()], node.outside_alias)),
            Found::Nowhere => None,
        };
        places.iter().map(place).collect()
    }

    #[test]
    fn entries_are_found_by_their_dash_lines() {
        let text = "kind: ResourceList\nitems:\n  # first\n  - &a {x: 1}\n  -\n    # own line\n    b: *a\nfunctionConfig: {}\n...\n";
        let (chunks, indent) = entries(text).unwrap();
        let first = ("  # first\n  - &a {x: 1}\n", false);
        let second = ("  -\n    # own line\n    b: *a\n", true);
        assert_eq!(found(text, &chunks), [Some(first), Some(second)], "b uses the anchor of another entry");
        assert_eq!(indent, 2);
        // The last entry ends at the document's end, or before its `...`.
        let ended = "kind: ResourceList\nitems:\n- a: 1\n# tail\n";
        assert_eq!(found(ended, &entries(ended).unwrap().0), [Some(("- a: 1\n# tail\n", false))]);
        let marked = "kind: ResourceList\nitems:\n- a: 1\n# tail\n...\n";
        assert_eq!(found(marked, &entries(marked).unwrap().0), [Some(("- a: 1\n# tail\n", false))]);
        // An anchor on a key is the entry's own as one on a value is.
        let keyed = "items:\n- &k a: 1\n  b: *k\n- c: *k\n";
        assert_eq!(
            found(keyed, &entries(keyed).unwrap().0),
            [Some(("- &k a: 1\n  b: *k\n", false)), Some(("- c: *k\n", true))]
        );
        // A mapping without `items` has no entries to find.
        assert!(entries("kind: ResourceList\nfunctionConfig: {}\n").is_none());
        // A tab after the dash starts an entry, as a space does.
        let tabbed = "items:\n- a: 1\n-\tb: 2\n";
        assert_eq!(
            found(tabbed, &entries(tabbed).unwrap().0),
            [Some(("- a: 1\n", false)), Some(("-\tb: 2\n", false))]
        );
    }

    #[test]
    fn a_duplicate_key_of_a_top_level_mapping_is_placed_at_its_line() {
        let err = documents("a: 1\ntrue: 1\nTrue: 2\nb: 3\n").unwrap_err();
        assert!(err.starts_with("line 3 column 1: duplicate mapping key \"true\""), "{err}");
        let err = documents("x: 0\n---\na: 1\n1: x\n\"1\": z\n").unwrap_err();
        assert!(err.starts_with("line 5 column 1: duplicate mapping key \"1\""), "{err}");
    }

    #[test]
    fn documents_keep_their_text_between_markers() {
        let text = "# lead\n---\na: 1\n# foot\n--- {b: 2}\n...\n%YAML 1.2\n---\nc: 3\n";
        let places = document_places(text).unwrap();
        let copied = |chunk| Some((chunk, false));
        assert_eq!(found(text, &places), [copied("a: 1\n# foot\n"), copied("{b: 2}\n"), copied("c: 3\n")]);
        let places = document_places("a: 1\n--- [b]\n").unwrap();
        assert_eq!(found("", &places[1..]), [None], "a document holding a sequence has no chunk");
    }
}
