//! One node read from the YAML parser's events (serde-saphyr's own parser), without the
//! generic deserializer: built whole, built as far as the reconcile needs of an item it only
//! passes on, or not built at all; and where it stands in the text, so the writer can copy
//! it or replace its `status`. Every scalar is classified: a plain scalar this reader cannot
//! vouch it reads as the full reader does (a YAML 1.1 lookalike such as `on` or `010`), a
//! tag or a repeated key clears [`Node::exact`], and the caller takes that item's value from
//! the full reader. Walks count what the full reader's budget counts. An item's walk reads
//! the lexer's events when the lexer reads its text ([`super::lex`]), the parser's otherwise.

use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span, StrInput, StructureStyle};
use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

/// How much of a node to build. Of an item the reconcile only passes on, it needs its head
/// and its pod templates: [`Build::Head`] builds just those, a skeleton in which
/// `reconcile::coverage::workload_of` finds what it finds in the whole item. A pod template
/// may stand anywhere in an item, so every mode but [`Build::Whole`] and [`Build::Nothing`]
/// probes the keys it does not build whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    Whole,
    /// An item: `apiVersion` and `kind` whole, `metadata` as [`Build::Metadata`], the rest
    /// probed.
    Head,
    /// An item's metadata: `annotations` (where kpt and kustomize keep file paths), `name`,
    /// `namespace` and `labels` whole, the rest probed.
    Metadata,
    /// A node that may hold pod templates: of a mapping, `metadata` as
    /// [`Build::ProbeMetadata`], `containers` as [`Build::Shape`], the service account
    /// fields whole, the rest probed; kept only when something in it is.
    Probe,
    /// A nested metadata: `labels` whole, the rest probed.
    ProbeMetadata,
    /// Whether the node is a sequence (kept, its entries probed, so it is one even when
    /// nothing in it is); anything else is probed.
    Shape,
    Nothing,
}

impl Build {
    fn child(self, key: &str) -> Build {
        match (self, key) {
            (Build::Whole, _) => Build::Whole,
            (Build::Nothing, _) => Build::Nothing,
            (Build::Head, "apiVersion" | "kind")
            | (Build::Metadata, "annotations" | "name" | "namespace" | "labels")
            | (Build::ProbeMetadata, "labels") => Build::Whole,
            (Build::Head, "metadata") => Build::Metadata,
            // Every probing mode alike: what a pod template is read from, and the rest.
            (_, "serviceAccountName" | "serviceAccount") => Build::Whole,
            (_, "metadata") => Build::ProbeMetadata,
            (_, "containers") => Build::Shape,
            _ => Build::Probe,
        }
    }

    /// What the elements of a sequence are built as.
    fn element(self) -> Build {
        match self {
            Build::Whole => Build::Whole,
            Build::Nothing => Build::Nothing,
            _ => Build::Probe,
        }
    }

    /// Whether a node built this way is kept only when something in it is.
    fn sparse(self) -> bool {
        matches!(self, Build::Probe | Build::ProbeMetadata | Build::Shape)
    }
}

/// What a walk saw, counted as the full reader's budget counts it.
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
    pub fn plus(self, other: Counts) -> Counts {
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

/// Bounds of one walk; past any, the walk is abandoned.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest nesting, the outermost node at level 1.
    pub depth: usize,
    pub counts: Counts,
}

impl Limits {
    /// No bounds: for text the full reader has already held to its limits.
    pub const NONE: Limits = Limits {
        depth: usize::MAX,
        counts: Counts { nodes: usize::MAX, events: usize::MAX, comment_bytes: usize::MAX },
    };
}

/// The walk cannot vouch for the text: it does not read, is not of the shape its place
/// requires, uses anchors, aliases or merge keys where they are refused, or passes a limit.
/// The caller reads the whole input with the exact reader, which also words any error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandon;

/// Where a mapping's top-level `status` entry stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusAt {
    /// There is none.
    Absent,
    /// From the key to where the text after its value may be cut.
    At(Range<usize>),
    /// The entry cannot be cut out cleanly (an explicit `? status` key, say).
    Unusable,
}

/// One node, walked.
#[derive(Debug)]
pub struct Node {
    /// The value as far as built; for [`Build::Nothing`], `None`.
    pub value: Option<Value>,
    /// Whether every scalar, key and tag reads here as the full reader reads it, so the
    /// built value is the full reader's.
    pub exact: bool,
    /// Where its first event starts, and where the text after its last content may be cut.
    pub span: Range<usize>,
    /// A block mapping's key column, or `None` for any other node.
    pub block_column: Option<usize>,
    /// For a block mapping, its top-level `status` entry.
    pub status: StatusAt,
    /// Whether it uses an alias to an anchor it does not itself define.
    pub outside_alias: bool,
}

/// Where a walk's events come from: the YAML parser, or the lexer for text of the plainest
/// shape, which gives the parser's events for it.
enum Events<'t> {
    Parser(Box<Parser<'t, StrInput<'t>>>),
    Lexed(std::vec::IntoIter<(Event<'t>, Span)>),
}

impl<'t> Events<'t> {
    fn next(&mut self) -> Option<(Event<'t>, Span)> {
        match self {
            Events::Parser(parser) => parser.next()?.ok(),
            Events::Lexed(events) => events.next(),
        }
    }
}

/// Walks the events of one text.
pub struct Walker<'t> {
    events: Events<'t>,
    text: &'t str,
    /// Offset of `text` in the whole input.
    base: usize,
    pub counts: Counts,
    limits: Limits,
    /// Whether anchors, aliases and merge keys may appear (the exact reader takes values
    /// from the full reader, so it only needs their places).
    anchors_allowed: bool,
    /// Keys of the mapping open at each depth, reused from mapping to mapping.
    keys: Vec<Keys<'t>>,
    exact: bool,
    /// Just past the last content seen (a scalar, a flow collection's end), in `text`.
    end: usize,
    defined: HashSet<usize>,
    outside_alias: bool,
}

impl<'t> Walker<'t> {
    /// A walker over `text`, which stands at `base` in the whole input.
    pub fn new(text: &'t str, base: usize, limits: Limits, anchors_allowed: bool) -> Self {
        Self::with(Events::Parser(Box::new(Parser::new_from_str(text))), text, base, limits, anchors_allowed)
    }

    /// [`Walker::new`] without anchors, reading the lexer's events when it reads the text.
    fn plain(text: &'t str, base: usize, limits: Limits) -> Self {
        match super::lex::events(text) {
            Some(events) => Self::with(Events::Lexed(events.into_iter()), text, base, limits, false),
            None => Self::new(text, base, limits, false),
        }
    }

    fn with(events: Events<'t>, text: &'t str, base: usize, limits: Limits, anchors_allowed: bool) -> Self {
        Walker {
            events,
            text,
            base,
            counts: Counts::default(),
            limits,
            anchors_allowed,
            keys: Vec::new(),
            exact: true,
            end: 0,
            defined: HashSet::new(),
            outside_alias: false,
        }
    }

    /// The offset of a marker in the whole input.
    pub fn offset(&self, marker: &serde_saphyr::granit_parser::Marker) -> usize {
        marker.byte_offset().unwrap_or_else(|| marker.index())
    }

    /// The next event that is not a comment; comments are counted.
    pub fn event(&mut self) -> Result<(Event<'t>, Span), Abandon> {
        loop {
            let Some((event, span)) = self.events.next() else { return Err(Abandon) };
            self.counts.events += 1;
            if let Event::Comment(text, _) = &event {
                self.counts.comment_bytes += text.len();
            }
            if !self.counts.within(&self.limits.counts) {
                return Err(Abandon);
            }
            if !matches!(event, Event::Comment(..)) {
                return Ok((event, span));
            }
        }
    }

    /// Reads the next event, which must be as `wanted` says.
    pub fn expect(&mut self, wanted: impl Fn(&Event<'t>) -> bool) -> Result<Span, Abandon> {
        let (event, span) = self.event()?;
        if wanted(&event) { Ok(span) } else { Err(Abandon) }
    }

    /// The node whose first event is `event`, at `depth` (the outermost node at 1), built
    /// as far as `build` says.
    pub fn node(
        &mut self,
        event: Event<'t>,
        span: Span,
        depth: usize,
        build: Build,
    ) -> Result<Node, Abandon> {
        self.exact = true;
        self.defined.clear();
        self.outside_alias = false;
        let start = self.offset(&span.start);
        let block_column =
            matches!(event, Event::MappingStart(StructureStyle::Block, ..)).then(|| span.start.col());
        let (value, status) = match event {
            Event::MappingStart(StructureStyle::Block, anchor, tag) => {
                self.properties(anchor, tag.is_some())?;
                self.mapping(depth, build, Shape::Root)?
            }
            event => (self.value(event, span, depth, build)?, StatusAt::Absent),
        };
        let cut = |end| self.base + super::text::after_content(self.text, end);
        let status = match status {
            StatusAt::At(range) => StatusAt::At(self.base + range.start..cut(range.end)),
            other => other,
        };
        Ok(Node {
            value,
            exact: self.exact,
            span: self.base + start..cut(self.end.max(start)),
            block_column,
            status,
            outside_alias: self.outside_alias,
        })
    }

    /// Counts a node and notes its anchor and tag.
    fn properties(&mut self, anchor: usize, tagged: bool) -> Result<(), Abandon> {
        self.counts.nodes += 1;
        if self.counts.nodes > self.limits.counts.nodes {
            return Err(Abandon);
        }
        if anchor != 0 {
            if !self.anchors_allowed {
                return Err(Abandon);
            }
            self.defined.insert(anchor);
        }
        if tagged {
            self.exact = false;
        }
        Ok(())
    }

    /// A node's value as far as `build` says.
    fn value(
        &mut self,
        event: Event<'t>,
        span: Span,
        depth: usize,
        build: Build,
    ) -> Result<Option<Value>, Abandon> {
        if depth > self.limits.depth {
            return Err(Abandon);
        }
        match event {
            Event::Alias(id) => {
                if !self.anchors_allowed {
                    return Err(Abandon);
                }
                self.counts.nodes += 1;
                self.outside_alias |= !self.defined.contains(&id);
                self.exact = false;
                self.end = self.offset(&span.end);
                Ok(None)
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.properties(anchor, tag.is_some())?;
                self.end = self.offset(&span.end);
                Ok(self.scalar(text, style, build))
            }
            Event::SequenceStart(style, anchor, tag) => {
                self.properties(anchor, tag.is_some())?;
                self.sequence(style, depth, build)
            }
            Event::MappingStart(style, anchor, tag) => {
                self.properties(anchor, tag.is_some())?;
                let shape = if style == StructureStyle::Flow { Shape::Flow } else { Shape::Block };
                Ok(self.mapping(depth, build, shape)?.0)
            }
            _ => Err(Abandon),
        }
    }

    /// A scalar's value as far as `build` says; one this reader cannot vouch for clears
    /// [`Walker::exact`].
    fn scalar(&mut self, text: Cow<'t, str>, style: ScalarStyle, build: Build) -> Option<Value> {
        let read = Scalar::of(&text, style);
        if matches!(read, Scalar::Doubtful) {
            self.exact = false;
        }
        match build {
            Build::Nothing | Build::Probe | Build::ProbeMetadata => None,
            Build::Shape => Some(Value::Null),
            _ => Some(match read {
                Scalar::Typed(value) => value,
                Scalar::Text | Scalar::Doubtful => Value::String(text.into_owned()),
            }),
        }
    }

    /// A sequence whose start event was read, its entries at `depth + 1`.
    fn sequence(
        &mut self,
        style: StructureStyle,
        depth: usize,
        build: Build,
    ) -> Result<Option<Value>, Abandon> {
        let children = build.element();
        let mut out = Vec::new();
        let mut kept = false;
        loop {
            let (event, span) = self.event()?;
            if matches!(event, Event::SequenceEnd) {
                if style == StructureStyle::Flow {
                    self.end = self.offset(&span.end);
                }
                let keep = match build {
                    Build::Nothing => false,
                    // A shape is kept even empty: that it is a sequence is the point.
                    Build::Whole | Build::Shape => true,
                    _ => kept,
                };
                if !keep {
                    return Ok(None);
                }
                out.shrink_to_fit();
                return Ok(Some(Value::Array(out)));
            }
            let value = self.value(event, span, depth + 1, children)?;
            kept |= value.is_some();
            // Probed entries keep their places, so paths count them right.
            if value.is_some() || children == Build::Probe {
                out.push(value.unwrap_or(Value::Null));
            }
        }
    }

    /// A mapping whose start event was read, its values at `depth + 1`. At the root of an
    /// item it also finds the top-level `status` entry.
    fn mapping(
        &mut self,
        depth: usize,
        build: Build,
        shape: Shape,
    ) -> Result<(Option<Value>, StatusAt), Abandon> {
        if depth > self.limits.depth {
            return Err(Abandon);
        }
        if depth >= self.keys.len() {
            self.keys.resize_with(depth + 1, Keys::default);
        }
        self.keys[depth].clear();
        let mut status = StatusAt::Absent;
        // Collected first, so the map is built at its exact size.
        let mut out = Vec::new();
        loop {
            let (event, span) = self.event()?;
            if matches!(event, Event::MappingEnd) {
                // A block mapping ends where the next token starts; a flow mapping at its `}`.
                if shape == Shape::Flow {
                    self.end = self.offset(&span.end);
                }
                let value = match build {
                    Build::Nothing => None,
                    sparse if sparse.sparse() && out.is_empty() => None,
                    _ => Some(Value::Object(Map::from_iter(out))),
                };
                return Ok((value, status));
            }
            let key_start = self.offset(&span.start);
            let key = self.key(event, span, depth)?;
            let (event, value_span) = self.event()?;
            let child = key.as_deref().map_or(Build::Nothing, |k| build.child(k));
            let value = self.value(event, value_span, depth + 1, child)?;
            if shape == Shape::Root && key.as_deref() == Some("status") {
                let clean = self.is_line_start(key_start);
                status = if clean { StatusAt::At(key_start..self.end) } else { StatusAt::Unusable };
            }
            if let (Some(key), Some(value)) = (key, value) {
                out.push((key.into_owned(), value));
            }
        }
    }

    /// A key of the mapping open at `depth`, counted and checked to be new there; `None`
    /// when it is no string for certain (a merge key, a collection, an alias, a lookalike),
    /// which clears [`Walker::exact`].
    fn key(&mut self, event: Event<'t>, span: Span, depth: usize) -> Result<Option<Cow<'t, str>>, Abandon> {
        let key = match event {
            Event::Scalar(_, _, anchor, _) if anchor != 0 && !self.anchors_allowed => {
                return Err(Abandon);
            }
            Event::Scalar(text, ScalarStyle::Plain, _, None) if text == "<<" => {
                if !self.anchors_allowed {
                    return Err(Abandon);
                }
                self.exact = false;
                None
            }
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 {
                    self.defined.insert(anchor);
                }
                self.end = self.offset(&span.end);
                let key = string_key(text, style);
                if key.is_none() || tag.is_some() {
                    self.exact = false;
                }
                key
            }
            event => {
                // A key that is a collection or an alias: read only by the full reader.
                self.exact = false;
                self.value(event, span, depth + 1, Build::Nothing)?;
                None
            }
        };
        self.counts.nodes += 1;
        if self.counts.nodes > self.limits.counts.nodes {
            return Err(Abandon);
        }
        if let Some(key) = &key
            && !self.keys[depth].insert(key.clone())
        {
            self.exact = false;
        }
        Ok(key)
    }

    /// Whether only indentation, or an entry's `- `, stands before `pos` on its line.
    fn is_line_start(&self, pos: usize) -> bool {
        let start = super::text::line_start(self.text, pos);
        let before = self.text[start..pos].trim_start_matches(' ');
        before.is_empty() || before.strip_prefix('-').is_some_and(|rest| rest.bytes().all(|b| b == b' '))
    }
}

/// What kind of mapping is being walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// The block mapping at the root of an item.
    Root,
    Block,
    Flow,
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

/// Reads `text` as one block sequence entry (`- ...`, a chunk of a ResourceList's items),
/// which stands at `base` in the whole input; the entry is at nesting level 2.
pub fn entry(text: &str, base: usize, build: Build, limits: Limits) -> Result<(Node, Counts), Abandon> {
    let mut walker = Walker::plain(text, base, limits);
    walker.expect(|e| matches!(e, Event::StreamStart))?;
    walker.expect(|e| matches!(e, Event::DocumentStart(false, None)))?;
    walker.expect(|e| matches!(e, Event::SequenceStart(StructureStyle::Block, 0, None)))?;
    walker.counts.nodes += 1;
    let (event, span) = walker.event()?;
    if !matches!(event, Event::MappingStart(..)) {
        return Err(Abandon);
    }
    let node = walker.node(event, span, 2, build)?;
    walker.expect(|e| matches!(e, Event::SequenceEnd))?;
    walker.expect(|e| matches!(e, Event::DocumentEnd))?;
    walker.expect(|e| matches!(e, Event::StreamEnd))?;
    Ok((node, walker.counts))
}

/// Reads `text` as one document of a stream holding a mapping, or nothing but comments
/// (`None`).
pub fn document(
    text: &str,
    base: usize,
    build: Build,
    limits: Limits,
) -> Result<(Option<Node>, Counts), Abandon> {
    let mut walker = Walker::plain(text, base, limits);
    walker.expect(|e| matches!(e, Event::StreamStart))?;
    match walker.event()? {
        (Event::StreamEnd, _) => return Ok((None, walker.counts)),
        (Event::DocumentStart(false, None), _) => {}
        _ => return Err(Abandon),
    }
    let (event, span) = walker.event()?;
    if !matches!(event, Event::MappingStart(..)) {
        return Err(Abandon);
    }
    let node = walker.node(event, span, 1, build)?;
    walker.expect(|e| matches!(e, Event::DocumentEnd))?;
    walker.expect(|e| matches!(e, Event::StreamEnd))?;
    Ok((Some(node), walker.counts))
}

/// How the root of a text stands, as [`count`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// No node at all (empty, or only comments).
    Empty,
    /// A block mapping whose keys stand at this column.
    BlockMapping(usize),
    Other,
}

/// Counts `text` (any YAML) without building anything, and says how its root stands;
/// `None` when it does not read, uses anchors, aliases or merge keys, or passes a limit.
pub fn count(text: &str, limits: Limits) -> Option<(Counts, Root)> {
    let mut walker = Walker::new(text, 0, limits, false);
    let mut depth = 0usize;
    let mut root = Root::Empty;
    loop {
        let (event, span) = walker.event().ok()?;
        if depth == 0 && event.is_node() && root == Root::Empty {
            root = match event {
                Event::MappingStart(StructureStyle::Block, ..) => Root::BlockMapping(span.start.col()),
                _ => Root::Other,
            };
        }
        match event {
            Event::StreamEnd => return Some((walker.counts, root)),
            Event::Alias(_) | Event::Scalar(_, _, 1.., _) => return None,
            Event::Scalar(text, ScalarStyle::Plain, ..) if text == "<<" => return None,
            Event::Scalar(..) => walker.counts.nodes += 1,
            Event::SequenceStart(_, 1.., _) | Event::MappingStart(_, 1.., _) => return None,
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                walker.counts.nodes += 1;
                depth += 1;
                if depth > limits.depth {
                    return None;
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !walker.counts.within(&limits.counts) {
            return None;
        }
    }
}

/// How a scalar reads.
enum Scalar {
    /// A string, as written: any quoted scalar, and a plain one no YAML reader types.
    Text,
    /// A plain scalar with another value (a null, a boolean, a number), the same to every
    /// YAML reader.
    Typed(Value),
    /// A plain scalar YAML 1.1 and this function could read differently: the full reader
    /// reads the item.
    Doubtful,
}

impl Scalar {
    fn of(text: &str, style: ScalarStyle) -> Scalar {
        if style != ScalarStyle::Plain {
            return Scalar::Text;
        }
        match text {
            "" | "~" | "null" => return Scalar::Typed(Value::Null),
            "true" => return Scalar::Typed(Value::Bool(true)),
            "false" => return Scalar::Typed(Value::Bool(false)),
            _ => {}
        }
        if is_integer(text) {
            return text.parse::<i64>().map_or(Scalar::Doubtful, |n| Scalar::Typed(Value::Number(n.into())));
        }
        if is_decimal(text) {
            let number = text.parse::<f64>().ok().and_then(Number::from_f64);
            return number.map_or(Scalar::Doubtful, |n| Scalar::Typed(Value::Number(n)));
        }
        if is_plain_string(text) { Scalar::Text } else { Scalar::Doubtful }
    }
}

/// A mapping key as a JSON string, when it is one for certain.
fn string_key(text: Cow<'_, str>, style: ScalarStyle) -> Option<Cow<'_, str>> {
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

    fn walk(text: &str, build: Build) -> Result<Node, Abandon> {
        entry(text, 0, build, LIMITS).map(|(node, _)| node)
    }

    #[test]
    fn builds_what_the_full_reader_builds() {
        let text = "- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"on\"\n    b: |\n      x\n    c: [1, -2, 0.5, true, null, ~, x]\n    d:\n";
        let full = crate::yaml::parse(text).unwrap();
        let node = walk(text, Build::Whole).unwrap();
        assert!(node.exact);
        assert_eq!(node.value.unwrap(), full[0]);
    }

    #[test]
    fn head_builds_only_the_head() {
        let text = "- spec:\n    a: 1\n  kind: X\n  metadata:\n    name: web\n    annotations: {a: b}\n  apiVersion: v1\n";
        let (node, counts) = entry(text, 0, Build::Head, LIMITS).unwrap();
        assert_eq!(
            node.value.unwrap(),
            serde_json::json!({"kind": "X", "metadata": {"name": "web", "annotations": {"a": "b"}}, "apiVersion": "v1"})
        );
        assert_eq!(counts.nodes, 18);
    }

    #[test]
    fn a_head_holds_the_pod_templates_the_whole_item_holds() {
        let text = "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: serving, labels: {app: web}}\n  \
                    spec:\n    replicas: 2\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata:\n        \
                    labels: {app: web, v: \"1\"}\n        annotations: {a: b}\n      spec:\n        serviceAccountName: sa\n        \
                    containers:\n        - name: c\n          env: [{name: A, value: b}]\n    extra:\n    - {}\n    - template:\n        \
                    spec: {containers: []}\n";
        let head = entry(text, 0, Build::Head, LIMITS).unwrap().0.value.unwrap();
        let whole = crate::yaml::parse(text).unwrap()[0].clone();
        let of = crate::reconcile::coverage::workload::workload_of;
        assert_eq!(of(&head), of(&whole));
        assert_eq!(of(&head).unwrap().templates().len(), 2);
        assert_eq!(
            head["spec"]["template"]["spec"]["containers"],
            serde_json::json!([null]),
            "that it is a list, its entries' places kept, none of their fields"
        );
        assert!(head["spec"].get("replicas").is_none() && head["spec"].get("selector").is_none(), "{head}");
    }

    #[test]
    fn yaml_1_1_lookalikes_tags_and_repeated_keys_are_left_to_the_full_reader() {
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
            "=",
            "-x",
            "True",
            "NaN",
            "1.2.3",
            "+1",
        ] {
            for text in [format!("- a: {plain}\n"), format!("- a:\n    {plain}: 1\n")] {
                let node = walk(&text, Build::Head).unwrap();
                assert!(!node.exact, "{text:?}");
            }
        }
        for text in
            ["- a: !!str 1\n", "- a: 1\n  a: 2\n", "- spec:\n    1: x\n    \"1\": y\n", "- ? [a]\n  : 1\n"]
        {
            assert!(!walk(text, Build::Head).unwrap().exact, "{text:?}");
        }
        assert!(walk("- spec:\n    a: {x: 1}\n    b: {x: 1}\n", Build::Head).unwrap().exact);
        // Past the few keys compared in a list, the set still finds a repeat, early or late.
        let many: String = (0..40).map(|i| format!("    k{i}: v\n")).collect();
        assert!(walk(&format!("- spec:\n{many}"), Build::Head).unwrap().exact);
        for repeat in ["k0", "k20", "k39"] {
            let text = format!("- spec:\n{many}    {repeat}: again\n");
            assert!(!walk(&text, Build::Head).unwrap().exact, "{repeat}");
        }
    }

    #[test]
    fn anchors_aliases_merges_limits_and_shape_abandon() {
        for text in [
            "- a: &x 1\n  b: *x\n",
            "- a: &x 1\n",
            "- <<: {a: 1}\n",
            "- x\n",
            "- a: 1\n- b: 2\n",
            "- a: \"open\n",
        ] {
            assert_eq!(walk(text, Build::Whole).unwrap_err(), Abandon, "{text:?}");
        }
        assert!(walk("- a: [[[[1]]]]\n", Build::Whole).is_ok());
        assert_eq!(entry("- a: [[[[1]]]]\n", 0, Build::Whole, limits(5, 64)).unwrap_err(), Abandon);
        assert_eq!(entry("- a: [1, 2, 3, 4]\n", 0, Build::Whole, limits(64, 7)).unwrap_err(), Abandon);
        assert!(entry("- a: [1, 2, 3, 4]\n", 0, Build::Whole, limits(64, 8)).is_ok());
    }

    #[test]
    fn comments_are_counted() {
        let text = "- a: 1 # one\n  # two\n  b: 2\n# after\n";
        let (node, counts) = entry(text, 0, Build::Whole, LIMITS).unwrap();
        assert_eq!(node.value.unwrap(), serde_json::json!({"a": 1, "b": 2}));
        assert_eq!(counts.comment_bytes, " one".len() + " two".len() + " after".len());
        let tight = Limits { counts: Counts { comment_bytes: 5, ..LIMITS.counts }, ..LIMITS };
        assert_eq!(entry(text, 0, Build::Whole, tight).unwrap_err(), Abandon);
    }

    #[test]
    fn a_node_knows_where_it_stands_and_where_its_status_is() {
        let text = "- kind: B\n  status:\n    a: [1,\n      2]   # c\n  spec: {x: 1}  # end\n  # foot\n";
        let node = entry(text, 100, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(node.block_column, Some(2));
        let status = text.find("status").unwrap();
        let spec = text.find("  spec").unwrap();
        assert_eq!(node.status, StatusAt::At(100 + status..100 + spec), "to the line after the value");
        assert_eq!(node.span, 100 + 2..100 + text.find("  # foot").unwrap(), "to the line after the content");
        let first = entry("- status: {}\n  kind: B\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(first.status, StatusAt::At(2..13), "the first key, on the entry's line");
        let absent = entry("- kind: B\n  note: |+\n    kept\n\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(
            (absent.status, absent.span.end),
            (StatusAt::Absent, 31),
            "a kept block scalar's blank line is content"
        );
        let explicit = entry("- kind: B\n  ? status\n  : {}\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(explicit.status, StatusAt::Unusable);
        let flow = entry("- {kind: B, status: {}}\n", 0, Build::Nothing, LIMITS).unwrap().0;
        assert_eq!(flow.block_column, None);
    }

    #[test]
    fn documents_hold_one_mapping_or_nothing() {
        assert!(document("# only a comment\n\n", 0, Build::Head, LIMITS).unwrap().0.is_none());
        assert!(document("a: 1\n", 0, Build::Head, LIMITS).unwrap().0.is_some());
        for text in ["- a\n", "x\n", "a: 1\n---\nb: 2\n", "--- a\n"] {
            assert!(document(text, 0, Build::Head, LIMITS).is_err(), "{text:?}");
        }
    }

    #[test]
    fn counting_sees_the_root_and_refuses_what_walking_abandons() {
        assert_eq!(
            count("a: [1, {b: 2}]\n", LIMITS).map(|(c, r)| (c.nodes, r)),
            Some((7, Root::BlockMapping(0)))
        );
        assert_eq!(count("# c\n    a: b\n", LIMITS).map(|(_, r)| r), Some(Root::BlockMapping(4)));
        assert_eq!(count("# c\n", LIMITS).map(|(_, r)| r), Some(Root::Empty));
        assert_eq!(count("[a]\n", LIMITS).map(|(_, r)| r), Some(Root::Other));
        assert!(count("a: &x 1\n", LIMITS).is_none());
        assert!(count("a: [[1]]\n", limits(2, 100)).is_none());
        assert!(count("a: [[1]]\n", limits(3, 100)).is_some());
    }
}
