//! The fast reader: a line pass cuts the text into parts ([`super::split`]), each part is
//! walked on its own on all cores ([`super::walk`]), and the result stands only when every
//! part reads as exactly what its place requires. Anything else returns `None`, and the
//! caller reads the text with the exact reader, which also words every error.
//!
//! Why the parts read on their own as they read together: a ResourceList's header must be
//! a block mapping at column 0, so `items:` at column 0 is its next key; each entry chunk
//! starts with a `-` at the entries' column n and holds no other line at column n or less
//! but comments, so the parser's state at each cut is the same with or without the text
//! before it; a chunk that ends inside a quoted scalar or a flow collection does not read
//! on its own, so no cut falls inside one. A stream is cut only at its document markers,
//! which YAML forbids anywhere else, and documents share nothing (no directives here).

use super::part::{ListRead, Part};
use super::walk::{self, Abandon, Build, Counts, Limits, Node, Root};
use super::{diverge, split};
use crate::parallel;
use crate::reconcile::kinds;
use crate::yaml;
use serde_json::{Map, Value};
use std::ops::Range;
use std::sync::Mutex;

/// What the fast reader holds a whole input to; past any bound the exact reader reads it.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub input_bytes: usize,
    /// Documents of a stream, empty ones included.
    pub documents: usize,
    /// Deepest nesting, the outermost node at level 1.
    pub depth: usize,
    pub counts: Counts,
}

/// The full reader's limits, which the fast reader holds every input to; tests pass
/// smaller ones.
pub const FULL: Bounds = Bounds {
    input_bytes: yaml::MAX_INPUT_BYTES,
    documents: yaml::MAX_DOCUMENTS,
    depth: yaml::MAX_DEPTH,
    counts: Counts {
        nodes: yaml::MAX_NODES,
        events: yaml::MAX_EVENTS,
        comment_bytes: yaml::MAX_COMMENT_BYTES,
    },
};

/// Reads a ResourceList within `bounds`, or returns `None` when the exact reader must.
pub fn list(text: &str, bounds: Bounds) -> Option<ListRead> {
    if text.len() > bounds.input_bytes || diverge::scan(text).is_some() {
        return None;
    }
    let layout = split::list(text)?;
    let outside = Limits { depth: bounds.depth, counts: bounds.counts };
    let (header_counts, header_root) = walk::count(&text[layout.header.clone()], outside)?;
    let (tail_counts, tail_root) = walk::count(&text[layout.tail.clone()], outside)?;
    if [&layout.header, &layout.tail].into_iter().any(|part| walk::divergence(&text[part.clone()]).is_some())
    {
        return None;
    }
    for root in [header_root, tail_root] {
        if !matches!(root, Root::Empty | Root::BlockMapping(0)) {
            return None;
        }
    }
    let mut fields = mapping(&text[layout.header.clone()])?;
    for (key, value) in mapping(&text[layout.tail.clone()])? {
        if fields.insert(key, value).is_some() {
            return None;
        }
    }
    if fields.contains_key("items") {
        return None;
    }
    // `items` and its sequence are two nodes more.
    let used = header_counts.plus(tail_counts).plus(Counts { nodes: 2, events: 0, comment_bytes: 0 });
    let budget = Budget::new(bounds.counts, used);
    // An entry sits two levels down (the list, `items`), counted from its own sequence.
    let limits = Limits { depth: bounds.depth - 1, counts: bounds.counts };
    let parts = parallel::map(layout.entries, |chunk| {
        let (read, counts) = read(text, chunk, Form::Entry, limits).ok()?;
        budget.spend(counts).ok()?;
        match read {
            Chunk::Item(part) => Some(part),
            Chunk::Empty => None,
        }
    });
    let parts = parts.into_iter().collect::<Option<Vec<Part>>>()?;
    Some(ListRead { fields, parts, indent: layout.indent })
}

/// Reads each text as a stream of documents within `bounds`; `None` for a text the exact
/// reader must read. All documents of all texts are read in one pass over the cores.
pub fn streams(texts: &[&str], bounds: Bounds) -> Vec<Option<Vec<Part>>> {
    let cut: Vec<Option<Vec<Range<usize>>>> = texts
        .iter()
        .map(|text| {
            let documents = split::documents(text);
            let within = text.len() <= bounds.input_bytes && documents.chunks.len() <= bounds.documents;
            (documents.apart && within && diverge::scan(text).is_none()).then_some(documents.chunks)
        })
        .collect();
    let budgets: Vec<Budget> = texts.iter().map(|_| Budget::new(bounds.counts, Counts::default())).collect();
    let limits = Limits { depth: bounds.depth, counts: bounds.counts };
    let work: Vec<(usize, Range<usize>)> = cut
        .iter()
        .enumerate()
        .flat_map(|(t, documents)| documents.iter().flatten().map(move |range| (t, range.clone())))
        .collect();
    let read = parallel::map(work, |(t, chunk)| {
        let budget = &budgets[t];
        let counted = read(texts[t], chunk, Form::Document, limits);
        let outcome = counted.and_then(|(read, counts)| budget.spend(counts).map(|()| read));
        (t, outcome)
    });
    let mut out: Vec<Option<Vec<Part>>> = cut.iter().map(|c| c.as_ref().map(|_| Vec::new())).collect();
    for (t, outcome) in read {
        match (outcome, &mut out[t]) {
            (Ok(Chunk::Item(part)), Some(parts)) => parts.push(part),
            (Ok(Chunk::Empty), _) => {}
            (Err(Abandon), slot) => *slot = None,
            (Ok(Chunk::Item(_)), None) => {}
        }
    }
    out
}

/// The budget of one input, shared by the threads reading its parts: what it may count,
/// and what it has counted. Each part is walked within the whole budget and then spends
/// what it counted; the first part to take the total past the budget fails the input. (A
/// part walked while others are, on other threads, can never see what is left; and the
/// walks of an input over the budget cost no more than those of one within it.)
struct Budget {
    cap: Counts,
    used: Mutex<Counts>,
}

impl Budget {
    fn new(cap: Counts, used: Counts) -> Self {
        Budget { cap, used: Mutex::new(used) }
    }

    /// Adds what a part counted; [`Abandon`] when the input is over the budget.
    fn spend(&self, counts: Counts) -> Result<(), Abandon> {
        let mut used = self.used.lock().map_err(|_| Abandon)?;
        *used = used.plus(counts);
        self.cap.minus(*used).map(|_| ()).ok_or(Abandon)
    }
}

/// What the full reader counts for an empty document after a `---` beyond what the part
/// read on its own counts: the null it holds, a node and an event. Counted for every empty
/// part (also a lead of comments, or after `...`, where the full reader counts nothing):
/// stricter, never looser.
const EMPTY_DOCUMENT: Counts = Counts { nodes: 1, events: 1, comment_bytes: 0 };

/// What a chunk must hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// One block sequence entry holding a mapping.
    Entry,
    /// One document holding a mapping, or none at all.
    Document,
}

/// What a chunk held.
enum Chunk {
    /// An item.
    Item(Part),
    /// No node at all: a document of comments, or empty.
    Empty,
}

/// Reads one chunk, and counts it.
fn read(text: &str, chunk: Range<usize>, form: Form, limits: Limits) -> Result<(Chunk, Counts), Abandon> {
    let part = &text[chunk.clone()];
    let walk = |build| -> Result<(Option<Node>, Counts), Abandon> {
        match form {
            Form::Entry => walk::entry(part, chunk.start, build, limits).map(|(n, c)| (Some(n), c)),
            Form::Document => walk::document(part, chunk.start, build, limits),
        }
    };
    let whole = kinds::may_read_whole(part);
    let (node, counts) = walk(if whole { Build::Whole } else { Build::Head })?;
    let Some(mut node) = node else { return Ok((Chunk::Empty, counts.plus(EMPTY_DOCUMENT))) };
    if node.divergent {
        // Refused, in the exact reader's words.
        return Err(Abandon);
    }
    if read_again_whole(whole, &node) {
        node = walk(Build::Whole)?.0.ok_or(Abandon)?;
    }
    let value = if node.exact {
        node.value.take().ok_or(Abandon)?
    } else {
        // A scalar, key or tag this reader does not vouch for: the full reader reads the
        // chunk on its own, as it reads it in place.
        let value = yaml::parse(part).map_err(|_| Abandon)?;
        match (form, value) {
            (Form::Entry, Value::Array(entries)) => {
                let [entry] = <[Value; 1]>::try_from(entries).map_err(|_| Abandon)?;
                entry.into()
            }
            (Form::Document, value @ Value::Object(_)) => value.into(),
            _ => return Err(Abandon),
        }
    };
    Ok((Chunk::Item(Part::copied(value, chunk, &node)), counts))
}

/// Whether an item walked `whole` or for its head must be walked again whole: read for its
/// head, its kind is one the reconcile reads whole, spelled so that the text search missed
/// it (escapes, say), or one it does not judge, which no text search can name. Reading whole
/// is never wrong, only slower, so no output can tell whether this says yes too often: its
/// test says it does not.
fn read_again_whole(whole: bool, node: &Node) -> bool {
    !whole && node.value.as_ref().is_some_and(kinds::reads_value_whole)
}

/// A part outside the items, as a mapping (or nothing).
fn mapping(text: &str) -> Option<Map<String, Value>> {
    match yaml::parse(text).ok()? {
        Value::Object(map) => Some(map),
        Value::Null => Some(Map::new()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_item_of_a_kind_read_whole_that_the_text_search_missed_is_read_again() {
        let head = |text: &str| walk::entry(text, 0, Build::Head, Limits::NONE).unwrap().0;
        let whole = |text: &str| walk::entry(text, 0, Build::Whole, Limits::NONE).unwrap().0;
        let escaped = "- kind: \"Inference\\u0049dentityBinding\"\n  spec: {a: 1}\n";
        assert!(!kinds::may_read_whole(escaped), "the text search misses the kind");
        assert!(read_again_whole(false, &head(escaped)));
        let map = "- apiVersion: v1\n  kind: PersistentVolumeClaim\n  spec: {a: 1}\n";
        assert!(!read_again_whole(false, &head(map)), "a kind passed on keeps its head");
        let unknown = "- apiVersion: tekton.dev/v1\n  kind: TaskRun\n  spec: {a: 1}\n";
        assert!(read_again_whole(false, &head(unknown)), "a kind the build does not judge is read whole");
        let binding = "- kind: InferenceIdentityBinding\n  spec: {a: 1}\n";
        assert!(!read_again_whole(true, &whole(binding)), "read whole once");
    }
}
