//! The line passes that find a text's parts before any of it is parsed: a stream's
//! documents, which both readers place their items in, and a ResourceList's text before
//! `items:`, its entries and the text after, which the fast reader reads apart. A cut is
//! only a guess: the fast reader reads every part and keeps the result only when each part
//! reads as exactly what its place requires.

use super::text::{is_entry, is_marker, line_end, lines};
use std::ops::Range;

/// Where the parts of a ResourceList's text are.
#[derive(Debug, PartialEq, Eq)]
pub struct ListLayout {
    /// Before the `items:` line.
    pub header: Range<usize>,
    /// One chunk per entry: from the start of its `-` line to the start of the next entry's
    /// (the first from just after the `items:` line, the last to the tail). The chunks
    /// cover the text between `items:` and the tail without a gap.
    pub entries: Vec<Range<usize>>,
    /// After the last entry, starting at a key at column 0.
    pub tail: Range<usize>,
    /// Spaces before each entry's `-`.
    pub indent: usize,
}

/// Finds the `items:` line at column 0 and the entries under it: lines with the first
/// entry's indentation and a `-`. The entries end at the first other line that is not
/// indented deeper (comment and blank lines aside), which must start a plain key.
pub fn list(text: &str) -> Option<ListLayout> {
    let mut lines = lines(text);
    let (items_at, items_line) =
        lines.find(|&(_, line)| is_items_key(line) || line.starts_with('%') || is_marker(line, "..."))?;
    if !is_items_key(items_line) {
        return None;
    }
    let body = line_end(text, items_at);
    let mut entries: Vec<Range<usize>> = Vec::new();
    let mut indent = None;
    let mut tail = text.len()..text.len();
    for (start, line) in lines {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let spaces = line.len() - trimmed.len();
        let entry = is_entry(trimmed.as_bytes());
        match indent {
            None if entry => indent = Some(spaces),
            None => {
                tail = start..text.len();
                break;
            }
            Some(n) if spaces > n => continue,
            Some(n) if spaces == n && entry => {}
            Some(_) => {
                tail = start..text.len();
                break;
            }
        }
        let from = if entries.is_empty() { body } else { start };
        if let Some(last) = entries.last_mut() {
            last.end = start;
        }
        entries.push(from..text.len());
    }
    if let Some(last) = entries.last_mut() {
        last.end = tail.start;
    }
    if !text[tail.clone()].bytes().next().is_none_or(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    if entries.is_empty() {
        // Comment lines under an `items:` without entries are read with the tail, so no
        // byte goes unread.
        tail.start = body;
    }
    Some(ListLayout { header: 0..items_at, entries, tail, indent: indent.unwrap_or(0) })
}

/// `items:` at column 0, with nothing after it but spaces or a comment.
fn is_items_key(line: &str) -> bool {
    let Some(after) = line.strip_prefix("items:") else { return false };
    let rest = after.trim_start_matches(' ');
    rest.is_empty() || rest.starts_with('#') && rest.len() < after.len() && printable(rest)
}

/// Whether a comment the parts leave out (on the `items:` line, or a marker line) holds
/// only characters YAML allows, so leaving it out changes no verdict. Anything doubtful
/// leaves the text to the exact reader.
fn printable(comment: &str) -> bool {
    !comment
        .chars()
        .any(|c| (c.is_control() && c != '\t') || matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}'))
}

/// A stream's documents, as its marker lines and directives cut it.
pub struct Documents {
    /// The text between the stream's marker lines (`---`, `...`) and directives (`%`),
    /// each such line left out; where a marker line carries a node (`--- {a: 1}`), the next
    /// document's text starts at the node.
    pub chunks: Vec<Range<usize>>,
    /// Whether each chunk reads on its own as it reads in place, so the fast reader may
    /// read them apart: no directive, no marker line carrying more than a comment, and no
    /// byte-order mark after the first marker. Otherwise the exact reader places them.
    pub apart: bool,
}

/// Cuts a stream into its documents.
pub fn documents(text: &str) -> Documents {
    let mut chunks = Vec::new();
    let mut apart = true;
    let mut start = 0;
    for (at, line) in lines(text) {
        let rest = if is_marker(line, "---") || is_marker(line, "...") {
            line[3..].trim_start_matches([' ', '\t'])
        } else if line.starts_with('%') {
            apart = false;
            ""
        } else {
            continue;
        };
        chunks.push(start..at);
        start = if rest.is_empty() || rest.starts_with('#') {
            apart &= printable(rest);
            line_end(text, at)
        } else {
            apart = false;
            at + line.len() - rest.len()
        };
    }
    chunks.push(start..text.len());
    // Read on its own, a document after a marker would take a byte-order mark before its
    // content (at its start, or after comment lines) for one that may begin a stream; in
    // place the full reader refuses it.
    let after_first = chunks.first().map_or(text.len(), |first| first.end);
    apart &= memchr::memmem::find(&text.as_bytes()[after_first..], "\u{feff}".as_bytes()).is_none();
    Documents { chunks, apart }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'t>(text: &'t str, layout: &ListLayout) -> (&'t str, Vec<&'t str>, &'t str) {
        let entries = layout.entries.iter().map(|r| &text[r.clone()]).collect();
        (&text[layout.header.clone()], entries, &text[layout.tail.clone()])
    }

    #[test]
    fn a_list_is_cut_into_header_entries_and_tail_without_a_gap() {
        let text = "kind: ResourceList\nitems: # the items\n# first\n- a: 1\n\n  b: |\n    - x\n# between\n- c: 2\nfunctionConfig: {}\n";
        let layout = list(text).unwrap();
        let (header, entries, tail) = parts(text, &layout);
        assert_eq!(header, "kind: ResourceList\n");
        assert_eq!(entries, ["# first\n- a: 1\n\n  b: |\n    - x\n# between\n", "- c: 2\n"]);
        assert_eq!(tail, "functionConfig: {}\n");
        assert_eq!(layout.indent, 0);
        // No entries: the next key starts the tail, the comment under `items:` with it.
        let empty = "kind: ResourceList\nitems:\n# none\nfunctionConfig: {}\n";
        let layout = list(empty).unwrap();
        assert_eq!(parts(empty, &layout), ("kind: ResourceList\n", vec![], "# none\nfunctionConfig: {}\n"));
        let indented = list("items:\n  - a: 1\n  - b: 2\n").unwrap();
        assert_eq!(indented.indent, 2);
        assert_eq!(indented.entries.len(), 2);
    }

    #[test]
    fn unclean_layouts_are_refused() {
        for text in [
            "%YAML 1.2\n---\nkind: ResourceList\nitems:\n- a: 1\n",
            "kind: ResourceList\nitems:\n- a: 1\n---\nkind: ResourceList\n",
            "kind: ResourceList\nitems:\n  - a: 1\n- b: 2\n",
            "kind: ResourceList\nitems:\n- x\n\t- y\n",
            "kind: ResourceList\nitems: [a]\n",
            "kind: ResourceList\nitems:x\n",
        ] {
            assert!(list(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn documents_are_the_text_between_markers() {
        let cut = |text: &'static str| {
            let documents = documents(text);
            (documents.chunks.into_iter().map(|r| &text[r]).collect::<Vec<_>>(), documents.apart)
        };
        let text = "# lead\n---\na: 1\n# between\n--- # next\nb: 2\n...\n";
        assert_eq!(cut(text), (vec!["# lead\n", "a: 1\n# between\n", "b: 2\n", ""], true));
        assert_eq!(cut("a: ---\n"), (vec!["a: ---\n"], true));
        // What only the exact reader places: a node on a marker line, a directive, a comment
        // YAML refuses, a byte-order mark after the first marker.
        assert_eq!(cut("---\n--- {a: 1}\n"), (vec!["", "", "{a: 1}\n"], false));
        assert_eq!(cut("%YAML 1.2\n---\na: 1\n"), (vec!["", "", "a: 1\n"], false));
        assert_eq!(cut("--- # a NUL \0 in the marker's comment\na: 1\n"), (vec!["", "a: 1\n"], false));
        assert_eq!(cut("a: 1\n---\n\u{feff}b: 2\n"), (vec!["a: 1\n", "\u{feff}b: 2\n"], false));
        assert!(cut("\u{feff}a: 1\n---\nb: 2\n").1, "a mark may begin the stream");
        assert!(list("kind: ResourceList\nitems: # \u{7f}\n- a: 1\n").is_none());
    }
}
