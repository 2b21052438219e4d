//! Input text before it is read (one line-end convention, no byte-order mark), the line
//! arithmetic the reader and the writer share, and the two line tests every reader part
//! uses: a document marker and a sequence entry.

/// The text with `\r\n` line ends turned into `\n`, and a leading byte-order mark dropped.
/// YAML reads both line ends as the same line break, inside scalars too, so no item changes
/// meaning; line numbers in messages stay the same. A carriage return alone stays: kubectl
/// cuts documents otherwise around one than YAML does, and every reader refuses it
/// ([`super::diverge::scan`]).
pub fn normalize(text: String) -> String {
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    };
    if memchr::memmem::find(text.as_bytes(), b"\r\n").is_none() {
        return text;
    }
    text.replace("\r\n", "\n")
}

/// The offset where the line holding `pos` starts.
pub fn line_start(text: &str, pos: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..pos]).map_or(0, |i| i + 1)
}

/// The offset just past the line holding `pos` (past its `\n`, or the end of the text).
pub fn line_end(text: &str, pos: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| pos + i + 1)
}

/// Where the text after the content ending at `pos` may be cut: the start of `pos`'s line
/// when only indentation precedes `pos` on it (a block scalar's span ends in the next
/// line's indentation), else the end of that line (a trailing comment goes with it).
pub fn after_content(text: &str, pos: usize) -> usize {
    let start = line_start(text, pos);
    if text.as_bytes()[start..pos].iter().all(|&b| b == b' ') { start } else { line_end(text, pos) }
}

/// The lines of `text` with their offsets, without line ends.
pub fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
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

/// A document marker (`---` or `...`) at the start of `line`, followed by nothing, a space
/// or a tab.
pub fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// Whether a line's content (past its indentation) starts a block sequence entry: a `-`
/// followed by a space, a tab or the line's end, as YAML's entry indicator is.
pub fn is_entry(content: &[u8]) -> bool {
    content.first() == Some(&b'-') && matches!(content.get(1), None | Some(b' ' | b'\t'))
}

/// The 1-based line where the content of the item text at `chunk` starts: past blank and
/// comment lines, directives and a `---` marker with nothing after it. The chunk's first
/// line when it holds no content.
pub fn start_line(text: &str, chunk: std::ops::Range<usize>) -> usize {
    let item = &text[chunk.clone()];
    let content = lines(item)
        .find(|(_, line)| {
            let line = line.trim();
            !(line.is_empty()
                || line.starts_with('#')
                || line.starts_with('%')
                || line == "---"
                || line.starts_with("--- #"))
        })
        .map_or(0, |(at, _)| at);
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..chunk.start + content]).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_starts_past_its_comments() {
        let text = "# header\n\n---\n# about\nkind: A\n---\nkind: B\n";
        let second = text.rfind("---").unwrap();
        assert_eq!(start_line(text, 0..second), 5);
        assert_eq!(start_line(text, second..text.len()), 7);
        assert_eq!(start_line(text, text.len()..text.len()), 8);
    }

    #[test]
    fn crlf_line_ends_become_lf_and_the_mark_goes() {
        assert_eq!(
            normalize("\u{feff}a: 1\r\nb: 2\rc: 3\n".into()),
            "a: 1\nb: 2\rc: 3\n",
            "a lone \\r stays"
        );
        assert_eq!(normalize("a: \"x\r\n  y\"\r\n".into()), "a: \"x\n  y\"\n");
        assert_eq!(normalize("plain\n".into()), "plain\n");
    }

    #[test]
    fn content_ends_at_a_line_boundary() {
        let text = "a: |\n  x\n\n  b: 1 # c\nd: 2";
        assert_eq!(after_content(text, text.find("  b").unwrap() + 2), text.find("  b").unwrap());
        assert_eq!(after_content(text, text.find(" # c").unwrap()), text.find("d: 2").unwrap());
        assert_eq!(after_content(text, text.len()), text.len());
        assert_eq!(line_start(text, text.find("x").unwrap()), 5);
        assert_eq!(lines("a\n\nb").collect::<Vec<_>>(), [(0, "a"), (2, ""), (3, "b")]);
    }

    #[test]
    fn an_entry_is_a_dash_before_white_space_or_the_line_end() {
        for entry in ["-", "- a", "-\ta", "-  - b"] {
            assert!(is_entry(entry.as_bytes()), "{entry:?}");
        }
        for other in ["", "-a", "--", "---", "-#", "a - b", "\u{2013} a"] {
            assert!(!is_entry(other.as_bytes()), "{other:?}");
        }
        assert!(is_marker("---", "---") && is_marker("--- # c", "---") && is_marker("...\t", "..."));
        assert!(!is_marker("----", "---") && !is_marker(" ---", "---") && !is_marker("---x", "---"));
    }
}
