//! Where kubectl and this function would read one text as two different objects, refused in
//! every mode (docs/yaml.md#held-to-kubectls-reader). kubectl, Argo CD and the API server
//! read YAML with sigs.k8s.io/yaml over go-yaml v2 (YAML 1.1), cutting a file into documents
//! with k8s.io/apimachinery's line reader; this function reads YAML 1.2. A reviewer's gate
//! that reads another object than the cluster applies judges nothing, so each place the two
//! part is refused, naming its line and column and what to write instead.
//!
//! Two kinds of places: those a pass over the text finds before anything is parsed
//! ([`scan`]: line breaks, byte-order marks, marker lines, directives), and those the walker
//! finds in the parser's events (`walk/`: tags, escapes, merge keys, plain scalars typed
//! otherwise, and the label keys and values YAML 1.1 and 1.2 readers spell otherwise).

use super::text::lines;

/// A place where kubectl and this function part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// Where it stands in the whole input.
    pub at: usize,
    pub kind: Kind,
}

/// What parts the two readers there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// NEL, LS or PS: a line break to go-yaml v2, a character to YAML 1.2.
    LineBreak(char),
    /// A carriage return not followed by a line feed.
    CarriageReturn,
    /// A byte-order mark past the start of the text.
    ByteOrderMark,
    /// A space character beyond YAML's opening a line, as written.
    SpaceOpening(char),
    /// A line opening with `---` that is no plain document marker.
    MarkerLine,
    /// A `...` that ends no document kubectl has read.
    EndWithoutDocument,
    /// A document after `...` that no `---` starts.
    DocumentAfterEnd,
    /// A `%` directive.
    Directive,
    /// A tab go-yaml v2 takes for the start of a token.
    Tab,
    /// A node's tag, as written.
    Tag(String),
    /// An escape of a double-quoted scalar, as written.
    Escape(String),
    /// A `<<` merge key.
    MergeKey,
    /// An implicit key written over more than one line.
    MultilineKey,
    /// An anchor or alias, as written, whose name go-yaml v2 reads otherwise.
    AnchorName(String),
    /// A plain scalar kubectl types otherwise than this function.
    Scalar { text: String, key: bool },
    /// A plain value YAML 1.1 readers (kubectl) and YAML 1.2 readers (`kpt live apply`,
    /// kustomize) type differently: a boolean word other than `true` and `false`, a date.
    Yaml12 { text: String },
    /// A plain scalar inside a flow collection that go-yaml v2 ends elsewhere: at a `?` it
    /// holds, or past the `:` after it (`colon`), which it reads into the scalar.
    FlowIndicator { text: String, colon: bool },
    /// A plain key or value of a label mapping that YAML 1.1 and YAML 1.2 readers read as
    /// different strings or as no string (docs/yaml.md#label-keys-and-values).
    Label { text: String, key: bool },
    /// A plain service account name (`serviceAccountName`, `serviceAccount`) that YAML 1.1
    /// and YAML 1.2 readers read differently: a `k8s:sa` selector reads it.
    Account { text: String },
}

impl Divergence {
    /// The error, placed as the full reader places its own, in `text` (the whole input).
    pub fn message(&self, text: &str) -> String {
        let (line, column) = self.place(text);
        format!("line {line} column {column}: {}\n --> <input>:{line}:{column}", self.kind.words())
    }

    /// Its line and column in `text`, from 1, the column in characters.
    pub fn place(&self, text: &str) -> (usize, usize) {
        let before = &text[..self.at.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before[before.rfind('\n').map_or(0, |n| n + 1)..].chars().count() + 1;
        (line, column)
    }
}

/// How the readers part, for each kind: what kubectl does, what this function does, and
/// what to write.
const YAML11: &str = "YAML 1.1 readers (kubectl, Argo CD)";

impl Kind {
    fn words(&self) -> String {
        match self {
            Kind::LineBreak(c) => format!(
                "a {} character (U+{:04X}) is a line break to {YAML11} and an ordinary character to this \
                 function, so the two read different objects: remove it (in a double-quoted string, write \
                 it as the escape \\u{:04X})",
                match c {
                    '\u{85}' => "NEL",
                    '\u{2028}' => "line separator",
                    _ => "paragraph separator",
                },
                u32::from(*c),
                u32::from(*c),
            ),
            Kind::SpaceOpening(c) => format!(
                "a space character (U+{:04X}) opening the line: Go's unicode.IsSpace takes it for white space, \
                 so kubectl's decoder (apimachinery since v0.33, YAMLOrJSONDecoder) skips it and may read JSON \
                 or more of the line than this function, to which it is an ordinary character: remove it",
                u32::from(*c)
            ),
            Kind::CarriageReturn => "a carriage return without a line feed: kubectl cuts documents at line \
                 feeds only, and go-yaml reads it as a line break, so a `---` after it starts a document \
                 kubectl drops: end lines with \\n or \\r\\n"
                .to_string(),
            Kind::ByteOrderMark => "a byte-order mark (U+FEFF) past the start of the text: kubectl skips \
                 one at the start of a line and keeps one elsewhere, where this function refuses it: remove \
                 it"
            .to_string(),
            Kind::MarkerLine => "a line opening with `---` that is no plain document marker: kubectl cuts \
                 documents at every line opening with `---` and refuses any with more than a comment after \
                 it, where YAML reads such a line otherwise: write `---` alone on its line, or with a \
                 comment after a space"
                .to_string(),
            Kind::EndWithoutDocument => "a `...` document end with no document before it since the last \
                 `---`: kubectl refuses it: remove it"
                .to_string(),
            Kind::DocumentAfterEnd => "a document after a `...` document end that no `---` starts: kubectl \
                 reads only the first document between two `---` lines and drops this one: start it with \
                 `---`"
                .to_string(),
            Kind::Directive => "a `%` directive: kubectl cuts it from the document it belongs to and \
                 refuses the file: remove it"
                .to_string(),
            Kind::Tab => "a tab where kubectl (go-yaml) allows only spaces (opening a line, after `-` \
                 or `?`, in a block scalar's indentation), where YAML 1.2 readers take it for white space: \
                 write spaces"
                .to_string(),
            Kind::Tag(tag) => format!(
                "the tag `{tag}`: {YAML11} resolve tags otherwise than this function (a local tag keeps a \
                 plain number a string, `!!binary` is decoded, ...) and JSON keeps none: remove it, and \
                 quote a value meant as a string"
            ),
            Kind::Escape(escape) => format!(
                "the escape `{escape}` in a double-quoted string: {YAML11} refuse it or read it otherwise than \
                 this function: write the character itself, or another escape"
            ),
            Kind::MergeKey => format!(
                "a `<<` merge key: {YAML11} let a merge override the keys written before it, where this \
                 function keeps them: write the keys out"
            ),
            Kind::MultilineKey => "a key written over more than one line: kubectl (go-yaml) refuses a key \
                 that does not stand on one line, where this function reads it: write it on one line"
                .to_string(),
            Kind::AnchorName(name) => format!(
                "the anchor or alias `{name}`: kubectl (go-yaml) reads names of letters, digits, `_` and `-` \
                 only, and reads this one otherwise than this function: rename it"
            ),
            Kind::Scalar { text, key } => format!(
                "the {} `{text}` is unquoted, and {YAML11} read it as another value than this function does \
                 (YAML 1.1 and YAML 1.2 type it differently): quote it (\"{text}\"){}",
                if *key { "key" } else { "value" },
                if text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
                    ", or write the number in decimal"
                } else {
                    ""
                }
            ),
            Kind::Yaml12 { text } => {
                let date = text.starts_with(|c: char| c.is_ascii_digit());
                format!(
                    "the value `{text}` is unquoted, and {YAML11} read {} while YAML 1.2 readers (`kpt live \
                     apply`, kustomize) read {}, so the cluster may hold either: quote it (\"{text}\")",
                    if date { "its text" } else { "a boolean" },
                    if date { "a timestamp" } else { "a string" },
                )
            }
            Kind::FlowIndicator { text, colon: false } => format!(
                "the unquoted `{text}` stands inside `[...]` or `{{...}}`, where {YAML11} end a plain scalar \
                 at its `?` and read a key from there, and this function reads one string: quote it (\"{text}\")"
            ),
            Kind::FlowIndicator { text, colon: true } => format!(
                "the unquoted `{text}:` stands inside `[...]` or `{{...}}`, where {YAML11} read the colon into \
                 the value `{text}:` and this function reads the key `{text}`: quote the value (\"{text}:\"), \
                 or put a space after the colon for a key"
            ),
            Kind::Account { text } => format!(
                "the service account `{text}` is unquoted, and {YAML11} and YAML 1.2 readers (kustomize, `kpt \
                 live apply`) read it differently, as another string or as no string: quote it (\"{text}\")"
            ),
            Kind::Label { text, key } => {
                let shown = if text.is_empty() { "(nothing)" } else { text.as_str() };
                format!(
                    "the {} `{shown}` is unquoted, and {YAML11} and YAML 1.2 readers (kustomize, `kpt live \
                     apply`) read it differently, as another string or as no string: quote it (\"{text}\")",
                    if *key { "label key" } else { "label value" }
                )
            }
        }
    }
}

/// The first place of `text` (line ends normalized, a leading byte-order mark dropped) where
/// kubectl cuts or reads it otherwise than this function, found without parsing:
///
/// - NEL, LS and PS are line breaks to go-yaml v2 (`yamlprivateh.go`, `is_break`, which the
///   scanner ends comments and lines at) and characters to YAML 1.2: a comment holding one
///   hides what follows it on its line from this function, and kubectl reads it;
/// - a carriage return alone is a line break to go-yaml v2 (`is_break`), but
///   k8s.io/apimachinery cuts documents at line feeds only (`util/yaml/decoder.go`,
///   `LineReader.Read`), and go-yaml reads one document of each part (`yaml.Unmarshal`):
///   a `---` after it starts a document kubectl drops;
/// - a byte-order mark past the start: go-yaml v2 skips one opening a line
///   (`scannerc.go`, `yaml_parser_scan_to_next_token`) and reads one elsewhere as a
///   character (`readerc.go`, `yaml_parser_update_buffer` admits U+FEFF);
/// - a line opening with `---`: apimachinery cuts at every such line whose rest, trimmed, is
///   empty or a comment, and refuses any other (`YAMLReader.Read`: "invalid Yaml document
///   separator"); YAML takes `---` for a marker only before a space, a tab or the line's end;
/// - `...`: go-yaml v2 refuses it where it opens one of apimachinery's parts
///   (`parserc.go`, `yaml_parser_parse_document_start` reads it as an implicit document with
///   no node), and reads only the first document of a part, so a document after it that no
///   `---` starts is dropped;
/// - a `%` directive: apimachinery cuts its part before the `---` a directive needs, and
///   go-yaml v2 refuses a part of only a directive ("did not find expected <document
///   start>");
/// - a tab go-yaml v2 does not skip ([`tabs`]).
pub fn scan(text: &str) -> Option<Divergence> {
    [characters(text), marker_lines(text), tabs(text), spaces_opening(text)]
        .into_iter()
        .flatten()
        .min_by_key(|d| d.at)
}

/// The first NEL, LS, PS, lone carriage return or byte-order mark.
fn characters(text: &str) -> Option<Divergence> {
    let bytes = text.as_bytes();
    let cr = memchr::memchr(b'\r', bytes).map(|at| Divergence { at, kind: Kind::CarriageReturn });
    if text.is_ascii() {
        return cr;
    }
    let mut from = 0;
    let wide = loop {
        let Some(at) = memchr::memchr3(0xC2, 0xE2, 0xEF, &bytes[from..]).map(|n| from + n) else {
            break None;
        };
        let kind = match &bytes[at..(at + 3).min(bytes.len())] {
            [0xC2, 0x85, ..] => Some(Kind::LineBreak('\u{85}')),
            [0xE2, 0x80, 0xA8] => Some(Kind::LineBreak('\u{2028}')),
            [0xE2, 0x80, 0xA9] => Some(Kind::LineBreak('\u{2029}')),
            [0xEF, 0xBB, 0xBF] => Some(Kind::ByteOrderMark),
            _ => None,
        };
        if let Some(kind) = kind {
            break Some(Divergence { at, kind });
        }
        from = at + 1;
    };
    match (cr, wide) {
        (Some(a), Some(b)) => Some(if a.at <= b.at { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// The first line that opens, past spaces and tabs, with a space character YAML does not take
/// for white space and Go's `unicode.IsSpace` does (a no-break space, an ideographic space, a
/// vertical tab): apimachinery's decoder skips those before it guesses JSON or YAML
/// (`util/yaml/decoder.go`, `YAMLOrJSONDecoder.Decode`, `consumeWhitespace`, since v0.33).
fn spaces_opening(text: &str) -> Option<Divergence> {
    if text.is_ascii() && !text.contains(['\u{b}', '\u{c}']) {
        return None;
    }
    lines(text).find_map(|(at, line)| {
        let body = line.trim_start_matches([' ', '\t']);
        let c = body.chars().next()?;
        (c.is_whitespace() && !matches!(c, ' ' | '\t' | '\n' | '\r'))
            .then(|| Divergence { at: at + (line.len() - body.len()), kind: Kind::SpaceOpening(c) })
    })
}

/// The first line opening with `---`, `...` or `%` that kubectl cuts otherwise, and the
/// first document after a `...` that no `---` starts.
fn marker_lines(text: &str) -> Option<Divergence> {
    // Whether the part kubectl reads since its last cut holds content, and whether a `...`
    // ended its document.
    let (mut content, mut ended) = (false, false);
    for (at, line) in lines(text) {
        let kind = if let Some(rest) = line.strip_prefix("---") {
            let after = rest.trim_start_matches([' ', '\t']);
            let plain = after.is_empty() || after.starts_with('#') && after.len() < rest.len();
            if !plain {
                Some(Kind::MarkerLine)
            } else {
                (content, ended) = (false, false);
                None
            }
        } else if super::text::is_marker(line, "...") {
            ended = true;
            (!content).then_some(Kind::EndWithoutDocument)
        } else if line.starts_with('%') {
            Some(Kind::Directive)
        } else {
            let body = line.trim_start_matches([' ', '\t']);
            if body.is_empty() || body.starts_with('#') {
                None
            } else if ended {
                Some(Kind::DocumentAfterEnd)
            } else {
                content = true;
                None
            }
        };
        if let Some(kind) = kind {
            return Some(Divergence { at, kind });
        }
    }
    None
}

/// The first tab that go-yaml v2 refuses where YAML 1.2 readers take it for white space
/// (`scannerc.go`). Outside flow collections, go-yaml v2 skips tabs between tokens only
/// where no simple key may start (`yaml_parser_scan_to_next_token`): a tab opening a line
/// (blank and comment lines too), or after the indicators `-`, `?` and an explicit key's
/// `:`, it takes for a token and refuses ("found character that cannot start any token").
/// In a block scalar it refuses a tab among the spaces that indent a line, before the
/// first line of content has set the indentation or short of it
/// (`yaml_parser_scan_block_scalar_breaks`), and in a plain scalar over several lines one
/// in a line's indentation (`yaml_parser_scan_plain_scalar`; refused here wherever it
/// stands in the line's white space). Tabs inside quoted scalars and comments, in flow
/// collections, and after other tokens are read alike. Only a text holding a tab is
/// parsed for it; `None` when it does not parse.
fn tabs(text: &str) -> Option<Divergence> {
    use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, StructureStyle};
    let first = memchr::memchr(b'\t', text.as_bytes())?;
    // Where scalars and flow collections stand, and the tabs refused inside scalars.
    let mut inside: Vec<std::ops::Range<usize>> = Vec::new();
    let mut refused = Vec::new();
    let mut flows = Vec::new();
    let offset = |m: &serde_saphyr::granit_parser::Marker| m.byte_offset().unwrap_or_else(|| m.index());
    for event in Parser::new_from_str(text) {
        let (event, span) = event.ok()?;
        let (start, end) = (offset(&span.start), offset(&span.end));
        match event {
            Event::Scalar(_, style, ..) => {
                inside.push(start..end);
                let lines = super::text::line_start(text, start)..end;
                refused.extend(match style {
                    ScalarStyle::Literal | ScalarStyle::Folded => block_scalar_tab(text, lines),
                    ScalarStyle::Plain => continuation_tab(text, start..end),
                    _ => None,
                });
            }
            Event::MappingStart(StructureStyle::Flow, ..)
            | Event::SequenceStart(StructureStyle::Flow, ..) => {
                flows.push(start);
            }
            Event::MappingEnd | Event::SequenceEnd if end > start => {
                if let Some(open) = flows.pop() {
                    inside.push(open..end);
                }
            }
            _ => {}
        }
    }
    let within = |at: usize| inside.iter().any(|r| r.contains(&at));
    let bytes = text.as_bytes();
    let mut at = first;
    let between = loop {
        if !within(at) {
            let line = super::text::line_start(text, at);
            let before = text[line..at].trim_end_matches([' ', '\t']);
            let commented = text[line..at].char_indices().any(|(i, c)| {
                c == '#' && !within(line + i) && (i == 0 || matches!(bytes[line + i - 1], b' ' | b'\t'))
            });
            let indicator = (before.ends_with(['-', '?']) && before != "---" || before.trim_start() == ":")
                && !within(line + before.len() - 1);
            if !commented && (before.is_empty() || indicator) {
                break Some(at);
            }
        }
        match memchr::memchr(b'\t', &bytes[at + 1..]) {
            Some(n) => at += 1 + n,
            None => break None,
        }
    };
    between.into_iter().chain(refused).min().map(|at| Divergence { at, kind: Kind::Tab })
}

/// A tab among the spaces that indent a line of the block scalar whose lines are `lines`,
/// before its first line of content or short of that line's indentation.
fn block_scalar_tab(text: &str, lines: std::ops::Range<usize>) -> Option<usize> {
    let mut indent = None;
    for (at, line) in super::text::lines(&text[lines.clone()]) {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        if line[spaces..].starts_with('\t') && indent.is_none_or(|n| spaces < n) {
            return Some(lines.start + at + spaces);
        }
        if indent.is_none() && !line.trim().is_empty() {
            indent = Some(spaces);
        }
    }
    None
}

/// A tab in the white space that opens a later line of the plain scalar at `span`.
fn continuation_tab(text: &str, span: std::ops::Range<usize>) -> Option<usize> {
    let scalar = &text[span.clone()];
    let first_break = scalar.find('\n')?;
    super::text::lines(&scalar[first_break + 1..]).find_map(|(at, line)| {
        let blank = line.len() - line.trim_start_matches([' ', '\t']).len();
        line[..blank].find('\t').map(|tab| span.start + first_break + 1 + at + tab)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Option<(usize, Kind)> {
        scan(text).map(|d| (d.at, d.kind))
    }

    #[test]
    fn yaml_1_1_line_breaks_and_marks_are_found_where_they_stand() {
        assert_eq!(found("a: 1\n# c\u{85}b: 2\n"), Some((8, Kind::LineBreak('\u{85}'))));
        assert_eq!(found("a: \"\u{2028}\"\n"), Some((4, Kind::LineBreak('\u{2028}'))));
        assert_eq!(found("a: 1 # \u{2029}\n"), Some((7, Kind::LineBreak('\u{2029}'))));
        assert_eq!(found("a: 1\r---\rb: 2\n"), Some((4, Kind::CarriageReturn)));
        assert_eq!(found("a: x\u{feff}\n"), Some((4, Kind::ByteOrderMark)));
        assert_eq!(found("a: é ü 中 \u{a0}\n"), None, "other characters are characters to both");
        let message = scan("a: 1\n# é\u{85}b: 2\n").unwrap().message("a: 1\n# é\u{85}b: 2\n");
        assert!(message.starts_with("line 2 column 4: a NEL character (U+0085)"), "{message}");
        assert!(message.ends_with(" --> <input>:2:4"), "{message}");
    }

    #[test]
    fn marker_lines_kubectl_cuts_otherwise_are_found() {
        for plain in
            ["---\na: 1\n", "a: 1\n---\nb: 2\n", "--- # c\na: 1\n", "---\t\na: 1\n", "a: 1\n...\n---\nb: 2\n"]
        {
            assert_eq!(found(plain), None, "{plain:?}");
        }
        assert_eq!(found("a: 1\n---#c\nb: 2\n"), Some((5, Kind::MarkerLine)));
        assert_eq!(found("--- {a: 1}\n"), Some((0, Kind::MarkerLine)));
        assert_eq!(found("----\n"), Some((0, Kind::MarkerLine)));
        assert_eq!(found("a: 1\n...\nb: 2\n"), Some((9, Kind::DocumentAfterEnd)));
        assert_eq!(found("a: 1\n...\n# only a comment\n"), None);
        assert_eq!(found("# c\n...\na: 1\n"), Some((4, Kind::EndWithoutDocument)));
        assert_eq!(found("a: 1\n---\n...\n"), Some((9, Kind::EndWithoutDocument)));
        assert_eq!(found("%YAML 1.1\n---\na: 1\n"), Some((0, Kind::Directive)));
    }

    #[test]
    fn tabs_go_yaml_reads_as_tokens_are_found() {
        for refused in [
            "a: 1\n\t# c\n",
            "a: 1\n\t\n",
            "-\tx\n",
            "a:\n  - \tb\n",
            "? \ta\n: b\n",
            "? a\n:\tb\n",
            "a: |\n  \tx\n",
            "a: b\n  \tc\n",
        ] {
            assert_eq!(found(refused).map(|(_, k)| k), Some(Kind::Tab), "{refused:?}");
        }
        for read_alike in [
            "a:\tb\n",
            "\"a\":\tb\n",
            "a: |\n  x\n  \ty\n",
            "a: b\t# c\n",
            "a: \"x\ty\"\n",
            "a: [1,\t2]\n",
            "a: {b:\tc}\n",
            "# a\tcomment: x\n",
            "a: 1 # b:\tc\n",
            "---\t# c\na: 1\n",
            "a: b-\t# c\n",
        ] {
            assert_eq!(found(read_alike), None, "{read_alike:?}");
        }
    }
}
