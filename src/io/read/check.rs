//! The properties the reader is held to, checked against the full reader on any text: the
//! fuzz target in `fuzz/` and the tests call these. Each returns what differs.
//!
//! - The same acceptance: the reader refuses exactly what the full reader refuses, with the
//!   full reader's own words in its message, and what kubectl reads otherwise
//!   ([`super::diverge`]), in that place's words.
//! - The same values: each item is what the reconcile would see of the full reader's item.
//! - Copied text verbatim: each item's text, read on its own, is the full reader's item,
//!   and the fast reader's chunks cover the items without a gap, so no byte is lost.
//! - The lexer's events are the parser's: where it reads a text at all, the same events,
//!   in the same places where the walker reads a place (a node's start, a scalar's or flow
//!   collection's end), and as many comments of as many bytes.

use super::{Options, diverge, exact, fast, lex, text, walk};
use crate::reconcile::input::Input;
use crate::yaml;
use serde_json::Value;
use serde_saphyr::granit_parser::{Event, Marker, Span, StructureStyle};

/// Checks a ResourceList's reading.
pub fn list(input: &str) -> Result<(), String> {
    let text = text::normalize(input.to_string());
    let full = yaml::parse(&text);
    let read = super::list(input.to_string(), Options::default());
    if let Some(verdict) = scanned(&text, read.as_ref().err().map(|e| e.message.as_str())) {
        return verdict;
    }
    let items = match (&full, &read) {
        (Err(full), Ok(_)) => return Err(format!("the full reader refuses ({full}), the reader accepts")),
        (Err(full), Err(e)) if !e.message.contains(full.as_str()) && !walked(&text, &e.message) => {
            return Err(format!(
                "the message is not the full reader's:\n  reader: {}\n  full:   {full}",
                e.message
            ));
        }
        (Err(_), Err(_)) => return Ok(()),
        (Ok(value), read) => match (value.get("items"), read) {
            (Some(Value::Array(items)), _) => items.clone(),
            (None | Some(Value::Null), _) => Vec::new(),
            (Some(_), Ok(_)) => return Err("items is not a sequence, the reader accepts".into()),
            (Some(_), Err(_)) => return Ok(()),
        },
    };
    let read = match read {
        Ok(read) => read,
        Err(e) => {
            // The full reader accepts the YAML; the reader may still refuse it as no
            // ResourceList (in any words: its shape or what kubectl reads otherwise), and a
            // ResourceList only where kubectl reads it otherwise.
            if !value_is_a_list(full.as_ref().ok()) {
                return Ok(());
            }
            return match divergence(&text, &e.message) {
                Some(verdict) => verdict,
                None => Err(format!("the reader refuses a ResourceList: {}", e.message)),
            };
        }
    };
    if let Some(divergence) = walk::divergence(&text) {
        return Err(format!("the reader accepts what kubectl reads otherwise: {divergence:?}"));
    }
    parts_match(&read.text, &read.parts, &items, true)?;
    if let Some(fast) = fast::list(&text, fast::FULL) {
        let fields: serde_json::Map<String, Value> = match &full {
            Ok(Value::Object(map)) => {
                map.iter().filter(|(k, _)| *k != "items").map(|(k, v)| (k.clone(), v.clone())).collect()
            }
            _ => return Err("the fast reader read what is not a mapping".into()),
        };
        if fast.fields != fields {
            return Err(format!("the fields differ:\n  fast: {:?}\n  full: {fields:?}", fast.fields));
        }
        parts_match(&text, &fast.parts, &items, true)?;
        for pair in fast.parts.windows(2) {
            if pair[0].text.chunk.end != pair[1].text.chunk.start {
                return Err(format!(
                    "a gap between chunks {:?} and {:?}",
                    pair[0].text.chunk, pair[1].text.chunk
                ));
            }
        }
        let exact = exact::list(&text).map_err(|e| format!("the exact reader refuses: {}", e.message))?;
        if exact.parts != fast.parts {
            return Err(format!(
                "the readers differ:\n  fast:  {:?}\n  exact: {:?}",
                fast.parts, exact.parts
            ));
        }
    }
    Ok(())
}

/// Checks a stream's reading.
pub fn stream(input: &str) -> Result<(), String> {
    let text = text::normalize(input.to_string());
    // Documents holding nothing (a tagged null among them) are no items.
    let full =
        yaml::parse_stream(&text).map(|docs| docs.into_iter().filter(|d| !d.is_null()).collect::<Vec<_>>());
    let read = super::stream(input.to_string(), Options::default());
    if let Some(verdict) = scanned(&text, read.as_ref().err().map(String::as_str)) {
        return verdict;
    }
    let documents = match (full, read) {
        (Err(full), Ok(_)) => return Err(format!("the full reader refuses ({full}), the reader accepts")),
        (Err(full), Err(e)) if !e.contains(&full) && !walked(&text, &e) => {
            return Err(format!("the message is not the full reader's:\n  reader: {e}\n  full:   {full}"));
        }
        (Err(_), Err(_)) => return Ok(()),
        (Ok(documents), Err(e)) => {
            if let Some(verdict) = divergence(&text, &e) {
                return verdict;
            }
            return if documents.iter().all(Value::is_object) {
                Err(format!("the reader refuses a stream of mappings: {e}"))
            } else {
                Ok(())
            };
        }
        (Ok(documents), Ok(read)) => {
            if let Some(divergence) = walk::divergence(&text) {
                return Err(format!("the reader accepts what kubectl reads otherwise: {divergence:?}"));
            }
            parts_match(&read.text, &read.parts, &documents, false)?;
            documents
        }
    };
    if let Some(Some(fast)) = fast::streams(&[&text], fast::FULL).pop() {
        parts_match(&text, &fast, &documents, false)?;
        let exact = exact::stream(&text).map_err(|e| format!("the exact reader refuses: {e}"))?;
        if exact != fast {
            return Err(format!("the readers differ:\n  fast:  {fast:?}\n  exact: {exact:?}"));
        }
    }
    Ok(())
}

/// When the pass over `text` before parsing finds where kubectl reads it otherwise: whether
/// the reader refused it (`refusal`, its message) in that place's words, whatever the full
/// reader says.
fn scanned(text: &str, refusal: Option<&str>) -> Option<Result<(), String>> {
    let words = diverge::scan(text)?.message(text);
    Some(match refusal {
        Some(message) if message.contains(&words) => Ok(()),
        Some(message) => Err(format!("refused in other words: {message}\n  expected: {words}")),
        None => Err(format!("the reader accepts what kubectl reads otherwise: {words}")),
    })
}

/// Whether `message` is the words of the first place of `text` where kubectl reads it
/// otherwise, which the reader gives also where the full reader refuses the text.
fn walked(text: &str, message: &str) -> bool {
    walk::divergence(text)
        .is_some_and(|d| message.contains(d.message(text).lines().next().unwrap_or_default()))
}

/// When the reader refused `text`, which the full reader reads, with `message`, and `text`
/// holds a place where kubectl reads it otherwise: whether it was refused in that place's
/// words.
fn divergence(text: &str, message: &str) -> Option<Result<(), String>> {
    walk::divergence(text).map(|divergence| {
        let words = divergence.message(text);
        let first = words.lines().next().unwrap_or_default();
        if message.contains(first) { Ok(()) } else { Err(format!("refused in other words: {message}")) }
    })
}

/// Checks the lexer's events for a text against the parser's. The walker reads of a span
/// only where a scalar, a block mapping and a flow collection's end stand, so only those are
/// compared; comments only as a count and their bytes.
pub fn events(input: &str) -> Result<(), String> {
    let text = text::normalize(input.to_string());
    let Some(mut lexed) = lex::events(&text) else { return Ok(()) };
    let mut parser = serde_saphyr::granit_parser::Parser::new_from_str(&text);
    let mut parsed = Vec::new();
    loop {
        match parser.next() {
            None => break,
            Some(Ok(event)) => parsed.push(event),
            Some(Err(e)) => return Err(format!("the lexer reads what the parser refuses: {e}")),
        }
    }
    let comments = |events: &[(Event<'_>, Span)]| {
        let texts = events.iter().filter_map(|(e, _)| match e {
            Event::Comment(text, _) => Some(text.len()),
            _ => None,
        });
        (texts.clone().count(), texts.sum::<usize>())
    };
    if comments(&lexed) != comments(&parsed) {
        return Err(format!(
            "comments (count, bytes): lexer {:?}, parser {:?}",
            comments(&lexed),
            comments(&parsed)
        ));
    }
    lexed.retain(|(e, _)| !matches!(e, Event::Comment(..)));
    parsed.retain(|(e, _)| !matches!(e, Event::Comment(..)));
    if lexed.len() != parsed.len() {
        return Err(format!(
            "{} events lexed, {} parsed:\n  lexer:  {lexed:?}\n  parser: {parsed:?}",
            lexed.len(),
            parsed.len()
        ));
    }
    let at = |m: &Marker| (m.byte_offset(), m.line(), m.col());
    // Flow collections open; a block collection never stands inside one.
    let mut flow = 0usize;
    for (i, ((l, ls), (p, ps))) in lexed.iter().zip(&parsed).enumerate() {
        let same_span = match p {
            Event::Scalar(..) => at(&ls.start) == at(&ps.start) && at(&ls.end) == at(&ps.end),
            Event::MappingStart(StructureStyle::Block, ..) => at(&ls.start) == at(&ps.start),
            // A document's root node, whose start the walker reads; the parser places a
            // nested block sequence past its first dash, a place nothing reads.
            Event::SequenceStart(StructureStyle::Block, ..) if i == 2 => at(&ls.start) == at(&ps.start),
            Event::MappingStart(StructureStyle::Flow, ..)
            | Event::SequenceStart(StructureStyle::Flow, ..) => {
                flow += 1;
                true
            }
            Event::MappingEnd | Event::SequenceEnd if flow > 0 => {
                flow -= 1;
                at(&ls.end) == at(&ps.end)
            }
            _ => true,
        };
        if l != p || !same_span {
            return Err(format!("event {i} differs:\n  lexer:  {l:?} {ls:?}\n  parser: {p:?} {ps:?}"));
        }
    }
    Ok(())
}

fn value_is_a_list(value: Option<&Value>) -> bool {
    let Some(Value::Object(map)) = value else { return false };
    let items_ok = match map.get("items") {
        None | Some(Value::Null) => true,
        Some(Value::Array(items)) => items.iter().all(Value::is_object),
        Some(_) => false,
    };
    items_ok && map.get("kind").and_then(Value::as_str) == Some(super::RESOURCE_LIST_KIND)
}

/// Each part is what the reconcile would see of the full reader's item, and the text it
/// would be copied from reads on its own as that item.
fn parts_match(text: &str, parts: &[super::Part], items: &[Value], entries: bool) -> Result<(), String> {
    if parts.len() != items.len() {
        return Err(format!("{} items read, the full reader reads {}", parts.len(), items.len()));
    }
    for (i, (part, item)) in parts.iter().zip(items).enumerate() {
        let want = match (&part.input, part.text.copy) {
            (Input::Whole(_), false) => Input::Whole(item.clone().into()),
            _ => Input::of(item.clone()),
        };
        if part.input != want {
            return Err(format!("item {i} differs:\n  reader: {:?}\n  full:   {want:?}", part.input));
        }
        if !part.text.copy {
            continue;
        }
        let chunk = &text[part.text.chunk.clone()];
        let copied = yaml::parse(chunk)
            .map_err(|e| format!("item {i}'s text does not read on its own: {e}\n{chunk}"))?;
        let copied = match (entries, copied) {
            (true, Value::Array(mut one)) if one.len() == 1 => one.pop().expect("one entry"),
            (false, value) => value,
            (_, other) => return Err(format!("item {i}'s text is not one entry: {other:?}\n{chunk}")),
        };
        if &copied != item {
            return Err(format!(
                "item {i}'s text reads as another item:\n  copy: {copied:?}\n  full: {item:?}\n{chunk}"
            ));
        }
    }
    Ok(())
}
