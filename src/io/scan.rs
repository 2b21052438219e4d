//! One item of a ResourceList read from its own text with the YAML parser's events, without
//! the generic deserializer: the whole value for items the reconcile reads, only
//! `apiVersion`, `kind` and `metadata.annotations` for the rest. A scan that succeeds also
//! vouches that the text can be copied to the output as it stands: every plain scalar means
//! the same to a YAML 1.1 reader (kubectl) as to this function, no key repeats, no tag,
//! anchor, alias or merge key is used. Scans count what the full reader's budget counts, so
//! the caller can hold the whole input to the same limits.

use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};
use std::borrow::Cow;
use std::collections::HashSet;

/// How much of the item to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// The whole item.
    Whole,
    /// `apiVersion`, `kind` and `metadata.annotations`, all the reconcile reads of an item
    /// it does not own; the rest is checked but not built.
    Head,
}

/// What a scan saw, counted as the full reader's budget counts it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Mappings, sequences and scalars, keys included.
    pub nodes: usize,
    /// Parser events, comments included.
    pub events: usize,
    /// Bytes of comment text.
    pub comment_bytes: usize,
}

impl Counts {
    pub fn add(self, other: Counts) -> Counts {
        Counts {
            nodes: self.nodes + other.nodes,
            events: self.events + other.events,
            comment_bytes: self.comment_bytes + other.comment_bytes,
        }
    }

    /// What is left of `self` after `used`, or `None` when `used` is over it.
    pub fn minus(self, used: Counts) -> Option<Counts> {
        Some(Counts {
            nodes: self.nodes.checked_sub(used.nodes)?,
            events: self.events.checked_sub(used.events)?,
            comment_bytes: self.comment_bytes.checked_sub(used.comment_bytes)?,
        })
    }

    fn within(&self, limit: &Counts) -> bool {
        self.nodes <= limit.nodes && self.events <= limit.events && self.comment_bytes <= limit.comment_bytes
    }
}

/// Bounds of one scan; past any, the scan is abandoned.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest nesting, the outermost node at level 1.
    pub depth: usize,
    pub counts: Counts,
}

/// A scanned item.
#[derive(Debug)]
pub struct Scanned {
    pub value: Value,
    pub counts: Counts,
    /// Whether the text holds a comment.
    pub commented: bool,
}

/// Why a scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The item uses something this reader leaves to the full reader (a tag, a plain scalar
    /// that YAML 1.1 reads differently, a repeated or non-string key): read it that way.
    Defer,
    /// The text is not one clean sequence entry holding a mapping, uses anchors, aliases or
    /// merge keys, or passes a limit: the whole input goes to the full reader, which also
    /// words any error.
    Abandon,
}

/// Scans `text`, one block sequence entry (`- ...`) holding a mapping.
pub fn scan(text: &str, extent: Extent, limits: Limits) -> Result<Scanned, Stop> {
    let mut scanner = Scanner::new(text, limits);
    scanner.expect(|e| matches!(e, Event::StreamStart))?;
    scanner.expect(|e| matches!(e, Event::DocumentStart(false, None)))?;
    scanner.expect(|e| matches!(e, Event::SequenceStart(_, 0, None)))?;
    scanner.counts.nodes += 1;
    let build = match extent {
        Extent::Whole => Build::Whole,
        Extent::Head => Build::Head,
    };
    let value = match scanner.next()? {
        event @ Event::MappingStart(..) => scanner.node(event, 2, build)?,
        _ => return Err(Stop::Abandon),
    };
    scanner.expect(|e| matches!(e, Event::SequenceEnd))?;
    scanner.expect(|e| matches!(e, Event::DocumentEnd))?;
    scanner.expect(|e| matches!(e, Event::StreamEnd))?;
    Ok(Scanned { value: value.unwrap_or_default(), counts: scanner.counts, commented: scanner.commented })
}

/// Counts `text` (any YAML) without building anything; `None` when it does not read, uses
/// anchors, aliases or merge keys, or passes a limit.
pub fn count(text: &str, limits: Limits) -> Option<Counts> {
    let mut scanner = Scanner::new(text, limits);
    let mut depth = 0usize;
    loop {
        match scanner.next().ok()? {
            Event::StreamEnd => return Some(scanner.counts),
            Event::Alias(_) | Event::Scalar(_, _, 1.., _) => return None,
            Event::Scalar(text, ScalarStyle::Plain, ..) if text == "<<" => return None,
            Event::Scalar(..) => scanner.counts.nodes += 1,
            Event::SequenceStart(_, 1.., _) | Event::MappingStart(_, 1.., _) => return None,
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                scanner.counts.nodes += 1;
                depth += 1;
                if depth > limits.depth {
                    return None;
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !scanner.counts.within(&limits.counts) {
            return None;
        }
    }
}

struct Scanner<'a> {
    events: Parser<'a, serde_saphyr::granit_parser::StrInput<'a>>,
    counts: Counts,
    commented: bool,
    /// Keys of the mapping open at each depth, reused from item to item.
    keys: Vec<Keys<'a>>,
    limits: Limits,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, limits: Limits) -> Self {
        Scanner {
            events: Parser::new_from_str(text),
            counts: Counts::default(),
            commented: false,
            keys: Vec::new(),
            limits,
        }
    }

    /// The next event that is not a comment; comments are counted.
    fn next(&mut self) -> Result<Event<'a>, Stop> {
        loop {
            let Some(Ok((event, _))) = self.events.next() else { return Err(Stop::Abandon) };
            self.counts.events += 1;
            if let Event::Comment(text, _) = &event {
                self.counts.comment_bytes += text.len();
                self.commented = true;
            }
            if !self.counts.within(&self.limits.counts) {
                return Err(Stop::Abandon);
            }
            if !matches!(event, Event::Comment(..)) {
                return Ok(event);
            }
        }
    }

    fn expect(&mut self, wanted: impl Fn(&Event<'a>) -> bool) -> Result<(), Stop> {
        if wanted(&self.next()?) { Ok(()) } else { Err(Stop::Abandon) }
    }

    /// A node whose first event is `event`, built as far as `build` says.
    fn node(&mut self, event: Event<'a>, depth: usize, build: Build) -> Result<Option<Value>, Stop> {
        self.counts.nodes += 1;
        if depth > self.limits.depth || self.counts.nodes > self.limits.counts.nodes {
            return Err(Stop::Abandon);
        }
        match event {
            Event::Scalar(_, _, 1.., _)
            | Event::SequenceStart(_, 1.., _)
            | Event::MappingStart(_, 1.., _) => Err(Stop::Abandon),
            Event::Scalar(_, _, _, Some(_))
            | Event::SequenceStart(_, _, Some(_))
            | Event::MappingStart(_, _, Some(_)) => Err(Stop::Defer),
            Event::Scalar(text, style, _, None) => {
                let value = scalar(&text, style).ok_or(Stop::Defer)?;
                let built = build != Build::Nothing;
                Ok(built.then(|| value.unwrap_or_else(|| Value::String(text.into_owned()))))
            }
            Event::SequenceStart(..) => {
                let children = if build == Build::Whole { Build::Whole } else { Build::Nothing };
                let mut out = Vec::new();
                loop {
                    match self.next()? {
                        Event::SequenceEnd => {
                            out.shrink_to_fit();
                            return Ok((build != Build::Nothing).then_some(Value::Array(out)));
                        }
                        event => out.extend(self.node(event, depth + 1, children)?),
                    }
                }
            }
            Event::MappingStart(..) => self.mapping(depth, build),
            _ => Err(Stop::Abandon),
        }
    }

    /// A mapping whose start event was read.
    fn mapping(&mut self, depth: usize, build: Build) -> Result<Option<Value>, Stop> {
        if depth >= self.keys.len() {
            self.keys.resize_with(depth + 1, Keys::default);
        }
        self.keys[depth].clear();
        // Collected first, so the map is built at its exact size.
        let mut out = Vec::new();
        loop {
            let key = match self.next()? {
                Event::MappingEnd if build == Build::Nothing => return Ok(None),
                Event::MappingEnd => return Ok(Some(Value::Object(Map::from_iter(out)))),
                Event::Scalar(_, _, 1.., _) => return Err(Stop::Abandon),
                Event::Scalar(text, ScalarStyle::Plain, _, None) if text == "<<" => {
                    return Err(Stop::Abandon);
                }
                Event::Scalar(text, style, _, None) => key(text, style).ok_or(Stop::Defer)?,
                _ => return Err(Stop::Defer),
            };
            self.counts.nodes += 1;
            if self.counts.nodes > self.limits.counts.nodes {
                return Err(Stop::Abandon);
            }
            if !self.keys[depth].insert(key.clone()) {
                return Err(Stop::Defer);
            }
            let child = build.child(&key);
            let event = self.next()?;
            if let Some(value) = self.node(event, depth + 1, child)? {
                out.push((key.into_owned(), value));
            }
        }
    }
}

/// The keys of one mapping, to find a repeated one: compared in a list while few (most
/// Kubernetes mappings have a handful), hashed beyond.
#[derive(Default)]
struct Keys<'a> {
    few: Vec<Cow<'a, str>>,
    many: HashSet<Cow<'a, str>>,
}

impl<'a> Keys<'a> {
    const FEW: usize = 16;

    fn clear(&mut self) {
        self.few.clear();
        self.many.clear();
    }

    /// Adds a key; `false` when it was there already.
    fn insert(&mut self, key: Cow<'a, str>) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&key) {
                return false;
            }
            self.few.push(key);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().cloned());
        }
        self.many.insert(key)
    }
}

/// How much of a node to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    Whole,
    /// An item: `apiVersion` and `kind` whole, `metadata` as [`Build::Metadata`].
    Head,
    /// An item's metadata: only `annotations`, where kpt and kustomize keep file paths.
    Metadata,
    Nothing,
}

impl Build {
    fn child(self, key: &str) -> Build {
        match (self, key) {
            (Build::Whole, _) | (Build::Head, "apiVersion" | "kind") | (Build::Metadata, "annotations") => {
                Build::Whole
            }
            (Build::Head, "metadata") => Build::Metadata,
            _ => Build::Nothing,
        }
    }
}

/// The value of a scalar: `Some(None)` for a string, read as written; `Some(Some(v))` for
/// a plain scalar with another value; `None` when YAML 1.1 and this function could read
/// the plain text differently.
fn scalar(text: &str, style: ScalarStyle) -> Option<Option<Value>> {
    if style != ScalarStyle::Plain {
        return Some(None);
    }
    match text {
        "" | "~" | "null" => return Some(Some(Value::Null)),
        "true" => return Some(Some(Value::Bool(true))),
        "false" => return Some(Some(Value::Bool(false))),
        _ => {}
    }
    if is_integer(text) {
        return text.parse::<i64>().ok().map(|n| Some(Value::Number(n.into())));
    }
    if is_decimal(text) {
        return text.parse::<f64>().ok().and_then(Number::from_f64).map(|n| Some(Value::Number(n)));
    }
    is_plain_string(text).then_some(None)
}

/// A mapping key as a JSON string, when it is one for certain.
fn key(text: Cow<'_, str>, style: ScalarStyle) -> Option<Cow<'_, str>> {
    let plain_ok = style != ScalarStyle::Plain || is_plain_string(&text) || is_integer(&text);
    plain_ok.then_some(text)
}

/// `0` or a decimal integer without leading zeros that fits an `i64`: the same number to
/// every YAML reader, and written the same way as a JSON key.
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = digits == "0" && text == "0" || !digits.is_empty() && !digits.starts_with('0');
    canonical && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `1.5`, `-0.25`: a float to every YAML reader.
fn is_decimal(text: &str) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let Some((whole, fraction)) = unsigned.split_once('.') else { return false };
    let plain_digits = |s: &str| !s.is_empty() && s.len() <= 15 && s.bytes().all(|b| b.is_ascii_digit());
    plain_digits(whole) && plain_digits(fraction) && (whole == "0" || !whole.starts_with('0'))
}

/// Words YAML 1.1 reads as booleans, nulls or floats (in any case), and spellings of
/// special floats some readers accept.
const WORDS: [&str; 12] =
    ["y", "yes", "n", "no", "true", "false", "on", "off", "null", "nan", "inf", "infinity"];

/// A plain scalar that is a string to every YAML reader: it starts with a letter, `/`,
/// `_`, `$` or a non-ASCII character (numbers, timestamps, `.inf`, `~`, `<<` and `=` all
/// start otherwise), and it is not one of [`WORDS`].
fn is_plain_string(text: &str) -> bool {
    let Some(first) = text.chars().next() else { return false };
    let starts_well = first.is_ascii_alphabetic() || matches!(first, '/' | '_' | '$') || !first.is_ascii();
    starts_well && !(text.len() <= 8 && WORDS.iter().any(|w| w.eq_ignore_ascii_case(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits =
        Limits { depth: 64, counts: Counts { nodes: 1_000, events: 10_000, comment_bytes: 1_000 } };

    fn limits(depth: usize, nodes: usize) -> Limits {
        Limits { depth, counts: Counts { nodes, ..LIMITS.counts } }
    }

    fn whole(text: &str) -> Result<Value, Stop> {
        scan(text, Extent::Whole, LIMITS).map(|s| s.value)
    }

    #[test]
    fn builds_what_the_full_reader_builds() {
        let text = "- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"on\"\n    b: |\n      x\n    c: [1, -2, 0.5, true, null, ~, x]\n    d:\n";
        let full = crate::yaml::parse(text).unwrap();
        assert_eq!(whole(text).unwrap(), full[0]);
    }

    #[test]
    fn head_builds_only_the_head() {
        let text = "- spec:\n    a: 1\n  kind: X\n  metadata:\n    name: web\n    annotations: {a: b}\n  apiVersion: v1\n";
        let head = scan(text, Extent::Head, LIMITS).unwrap();
        assert_eq!(
            head.value,
            serde_json::json!({"kind": "X", "metadata": {"annotations": {"a": "b"}}, "apiVersion": "v1"})
        );
        assert_eq!(head.counts.nodes, 18);
    }

    #[test]
    fn yaml_1_1_lookalikes_defer() {
        for plain in [
            "on",
            "Yes",
            "N",
            "010",
            "0o10",
            "1_000",
            "2001-12-14",
            "1:20",
            ".inf",
            "1e3",
            "0x1F",
            "<<",
            "=",
            "-x",
            "True",
            "NaN",
            "1.2.3",
            "+1",
        ] {
            let text = format!("- a: {plain}\n");
            assert_eq!(whole(&text).unwrap_err(), Stop::Defer, "{plain}");
            let text = format!("- a:\n    {plain}: 1\n");
            let want = if plain == "<<" { Stop::Abandon } else { Stop::Defer };
            assert_eq!(scan(&text, Extent::Head, LIMITS).unwrap_err(), want, "key {plain}");
        }
    }

    #[test]
    fn repeated_keys_defer_when_built_and_when_skipped() {
        assert_eq!(whole("- a: 1\n  a: 2\n").unwrap_err(), Stop::Defer);
        assert_eq!(scan("- spec:\n    1: x\n    \"1\": y\n", Extent::Head, LIMITS).unwrap_err(), Stop::Defer);
        assert!(scan("- spec:\n    a: {x: 1}\n    b: {x: 1}\n", Extent::Head, LIMITS).is_ok());
        // Past the few keys compared in a list, the set still finds a repeat, early or late.
        let many: String = (0..40).map(|i| format!("    k{i}: v\n")).collect();
        assert!(scan(&format!("- spec:\n{many}"), Extent::Head, LIMITS).is_ok());
        for repeat in ["k0", "k20", "k39"] {
            let text = format!("- spec:\n{many}    {repeat}: again\n");
            assert_eq!(scan(&text, Extent::Head, LIMITS).unwrap_err(), Stop::Defer, "{repeat}");
        }
    }

    #[test]
    fn tags_defer_and_anchors_aliases_merges_limits_and_shape_abandon() {
        assert_eq!(whole("- a: !!str 1\n").unwrap_err(), Stop::Defer);
        assert_eq!(whole("- a: &x 1\n  b: *x\n").unwrap_err(), Stop::Abandon);
        assert_eq!(whole("- a: &x 1\n").unwrap_err(), Stop::Abandon, "anchors count against a budget");
        assert_eq!(whole("- <<: {a: 1}\n").unwrap_err(), Stop::Abandon, "merge keys count against a budget");
        assert_eq!(whole("- a: [[[[1]]]]\n").map(|_| ()), Ok(()));
        assert_eq!(scan("- a: [[[[1]]]]\n", Extent::Whole, limits(5, 64)).unwrap_err(), Stop::Abandon);
        assert_eq!(scan("- a: [1, 2, 3, 4]\n", Extent::Whole, limits(64, 7)).unwrap_err(), Stop::Abandon);
        assert!(scan("- a: [1, 2, 3, 4]\n", Extent::Whole, limits(64, 8)).is_ok());
        assert_eq!(whole("- x\n").unwrap_err(), Stop::Abandon);
        assert_eq!(whole("- a: 1\n- b: 2\n").unwrap_err(), Stop::Abandon);
        assert_eq!(whole("- a: \"open\n").unwrap_err(), Stop::Abandon);
    }

    #[test]
    fn comments_are_skipped_and_counted() {
        let text = "- a: 1 # one\n  # two\n  b: 2\n# after\n";
        let scanned = scan(text, Extent::Whole, LIMITS).unwrap();
        assert_eq!(scanned.value, serde_json::json!({"a": 1, "b": 2}));
        assert_eq!(scanned.counts.comment_bytes, " one".len() + " two".len() + " after".len());
        assert!(scanned.commented);
        assert!(!scan("- a: 1\n", Extent::Whole, LIMITS).unwrap().commented);
        let tight = Limits { counts: Counts { comment_bytes: 5, ..LIMITS.counts }, ..LIMITS };
        assert_eq!(scan(text, Extent::Whole, tight).unwrap_err(), Stop::Abandon);
    }

    #[test]
    fn counting_refuses_what_scanning_abandons() {
        assert_eq!(count("a: [1, {b: 2}]\n", LIMITS).map(|c| c.nodes), Some(7));
        assert!(count("a: &x 1\n", LIMITS).is_none());
        assert!(count("a: [[1]]\n", limits(2, 100)).is_none());
        assert!(count("a: [[1]]\n", limits(3, 100)).is_some());
    }
}
