//! The walker: one node read from a text's events, counted, checked and built as far as
//! asked, and where it stands in the text.

use super::budget::{Abandon, Counts, Limits};
use super::build::{self, Build};
use super::keys::Keys;
use super::scalar::{Scalar, kubectl_agrees, label_doubt, string_key, yaml12_string};
use super::{Node, StatusAt};
use crate::api::value::{Map, Value};
use crate::io::read::diverge::{Divergence, Kind};
use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span, StrInput, StructureStyle, Tag};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

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

/// A collection that holds label keys or values, each of which is held to [`label_doubt`]
/// (docs/yaml.md#label-keys-and-values): whatever reads it as a label selector or a set of
/// labels, the API server stores the string kubectl or `kpt live apply` wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Labels {
    /// A mapping of label keys to values: the value of `labels`, `matchLabels`, `selector`
    /// or any key ending in `Selector` (`podSelector`, `namespaceSelector`, `objectSelector`,
    /// `nodeSelector`, `clusterSPIFFEIDLabelSelector`), whose keys in a `LabelSelector`
    /// (`matchLabels`, `matchExpressions`) hold collections, never scalars; and whether a
    /// null value is refused (in `labels`).
    Map { nulls: bool },
    /// A `matchExpressions` sequence: each entry is an [`Labels::Expression`].
    Expressions,
    /// One requirement: its `key` is a label key, its `values` label values.
    Expression,
    /// The `values` of a requirement.
    Values,
}

impl Labels {
    /// What the value of `key` holds, in a mapping that is a requirement (`expression`) or
    /// any other.
    fn under(key: Option<&str>, expression: bool) -> Option<Labels> {
        let key = key?;
        match key {
            "values" if expression => Some(Labels::Values),
            "labels" => Some(Labels::Map { nulls: true }),
            "matchExpressions" => Some(Labels::Expressions),
            "matchLabels" | "selector" => Some(Labels::Map { nulls: false }),
            _ if key.ends_with("Selector") => Some(Labels::Map { nulls: false }),
            _ => None,
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
    /// The anchored plain scalars, by anchor: an alias in a label's or a service account's
    /// place is held to the rules of the scalar it names.
    anchored: HashMap<usize, (String, ScalarStyle)>,
    outside_alias: bool,
    /// How many flow collections (`[...]`, `{...}`) are open.
    flow: usize,
    /// The depth of the collection about to open when it holds label keys or values
    /// ([`Labels`]), and what it is.
    labels_at: Option<(usize, Labels)>,
    /// The first place where kubectl reads the text otherwise ([`Divergence`]).
    pub divergence: Option<Divergence>,
}

impl<'t> Walker<'t> {
    /// A walker over `text`, which stands at `base` in the whole input.
    pub fn new(text: &'t str, base: usize, limits: Limits, anchors_allowed: bool) -> Self {
        // Where anchors are allowed, their names are read to be held to kubectl's.
        let mut options = serde_saphyr::granit_parser::Options::default();
        options.emit_anchor_events = anchors_allowed;
        let parser = Parser::new_from_str_with_options(text, options);
        Self::with(Events::Parser(Box::new(parser)), text, base, limits, anchors_allowed)
    }

    /// [`Walker::new`] without anchors, reading the lexer's events when it reads the text.
    pub(super) fn plain(text: &'t str, base: usize, limits: Limits) -> Self {
        match crate::io::read::lex::events(text) {
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
            anchored: HashMap::new(),
            outside_alias: false,
            flow: 0,
            labels_at: None,
            divergence: None,
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
            if let Event::Anchor(..) = event {
                self.check_name(&span);
                continue;
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
                self.properties(anchor, tag.as_deref(), start)?;
                self.mapping(depth, build, Shape::Root)?
            }
            event => (self.value(event, span, depth, build)?, StatusAt::Absent),
        };
        let cut = |end| self.base + crate::io::read::text::after_content(self.text, end);
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
            divergent: self.divergence.is_some(),
        })
    }

    /// Counts a node and notes its anchor and tag (at `at` in `text`).
    fn properties(&mut self, anchor: usize, tag: Option<&Tag>, at: usize) -> Result<(), Abandon> {
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
        if let Some(tag) = tag {
            self.exact = false;
            self.note(at, || Kind::Tag(written(tag)));
        }
        Ok(())
    }

    /// Notes an anchor or alias (`&name`, `*name` at `span`) whose name go-yaml v2 reads
    /// otherwise: it reads names of letters, digits, `_` and `-` only, ended by white space
    /// or one of `?:,]}%@` and a backquote (`scannerc.go`, `yaml_parser_scan_anchor`), where
    /// YAML 1.2 allows any character but white space and `,[]{}`.
    fn check_name(&mut self, span: &Span) {
        let (start, end) = (self.offset(&span.start), self.offset(&span.end));
        let name = self.text.get(start + 1..end).unwrap_or_default();
        let after = self.text[end.min(self.text.len())..].chars().next();
        let named =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        let ended = after.is_none_or(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | ',' | ']' | '}'));
        if !(named && ended) {
            let written = self.text.get(start..end).unwrap_or_default().to_string();
            self.note(start, || Kind::AnchorName(written));
        }
    }

    /// Notes the first place where kubectl reads the text otherwise, at `at` in `text`.
    fn note(&mut self, at: usize, kind: impl FnOnce() -> Kind) {
        if self.divergence.is_none() {
            self.divergence = Some(Divergence { at: self.base + at, kind: kind() });
        }
    }

    /// Notes a scalar at `span` that kubectl reads otherwise: a plain one it types otherwise
    /// ([`kubectl_agrees`]), a double-quoted one with an escape it reads otherwise.
    fn check_scalar(&mut self, text: &str, style: ScalarStyle, read: &Scalar, span: Span, key: bool) {
        let start = self.offset(&span.start);
        match style {
            ScalarStyle::Plain if self.flow > 0 && (text.contains('?') || self.colon_then_flow(&span)) => {
                let colon = !text.contains('?');
                self.note(start, || Kind::FlowIndicator { text: text.to_string(), colon });
            }
            ScalarStyle::Plain if !kubectl_agrees(text, read, key) => {
                self.note(start, || Kind::Scalar { text: text.to_string(), key });
            }
            ScalarStyle::Plain if !key && yaml12_string(text) => {
                self.note(start, || Kind::Yaml12 { text: text.to_string() });
            }
            ScalarStyle::DoubleQuoted => {
                let raw = self.text.get(start..self.offset(&span.end)).unwrap_or_default();
                if let Some((at, escape)) = crate::yaml::yaml11::bad_escape(raw) {
                    self.note(start + at, || Kind::Escape(escape));
                }
            }
            _ => {}
        }
    }

    /// Whether the plain scalar at `span`, in a flow collection, is followed by `:` and a flow
    /// indicator (`[a:]`): go-yaml v2 reads the colon into the scalar (only a blank after it
    /// ends one), YAML 1.2 takes it for a value indicator.
    fn colon_then_flow(&self, span: &Span) -> bool {
        let rest = self.text.as_bytes().get(self.offset(&span.end)..).unwrap_or_default();
        matches!(rest, [b':', b',' | b'[' | b']' | b'{' | b'}', ..])
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
                // Only the exact reader allows aliases, and it reads no counts: the full
                // reader has held the text to its budget.
                if !self.anchors_allowed {
                    return Err(Abandon);
                }
                self.outside_alias |= !self.defined.contains(&id);
                self.exact = false;
                self.check_name(&span);
                self.end = self.offset(&span.end);
                Ok(None)
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.properties(anchor, tag.as_deref(), self.offset(&span.start))?;
                if anchor != 0 {
                    self.anchored.insert(anchor, (text.to_string(), style));
                }
                self.end = self.offset(&span.end);
                Ok(self.scalar(text, style, span, build))
            }
            Event::SequenceStart(style, anchor, tag) => {
                self.properties(anchor, tag.as_deref(), self.offset(&span.start))?;
                let flow = usize::from(style == StructureStyle::Flow);
                self.flow += flow;
                let value = self.sequence(style, depth, build);
                self.flow -= flow;
                value
            }
            Event::MappingStart(style, anchor, tag) => {
                self.properties(anchor, tag.as_deref(), self.offset(&span.start))?;
                let shape = if style == StructureStyle::Flow { Shape::Flow } else { Shape::Block };
                let flow = usize::from(shape == Shape::Flow);
                self.flow += flow;
                let value = self.mapping(depth, build, shape);
                self.flow -= flow;
                Ok(value?.0)
            }
            _ => Err(Abandon),
        }
    }

    /// A scalar's value as far as `build` says; one this reader cannot vouch for clears
    /// [`Walker::exact`].
    fn scalar(&mut self, text: Cow<'t, str>, style: ScalarStyle, span: Span, build: Build) -> Option<Value> {
        let read = Scalar::of(&text, style);
        if matches!(read, Scalar::Doubtful) {
            self.exact = false;
        }
        self.check_scalar(&text, style, &read, span, false);
        match build {
            build if build.sparse() => None,
            _ => Some(match read {
                Scalar::Typed(value) => value,
                Scalar::Text | Scalar::Doubtful => Value::String(text.into()),
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
        let role = self.labels_at.take().filter(|(at, _)| *at == depth).map(|(_, role)| role);
        let mut out = Vec::new();
        let mut kept = false;
        loop {
            let (event, span) = self.event()?;
            if matches!(event, Event::SequenceEnd) {
                if style == StructureStyle::Flow {
                    self.end = self.offset(&span.end);
                }
                let keep = match build {
                    // A shape is kept even empty: that it is a sequence is the point.
                    Build::Whole | Build::Shape => true,
                    _ => kept,
                };
                if !keep {
                    return Ok(None);
                }
                return Ok(Some(Value::Array(out.into_boxed_slice())));
            }
            match role {
                Some(Labels::Values) => self.note_label(&event, self.offset(&span.start), false, false),
                Some(Labels::Expressions) => self.labels_at = Some((depth + 1, Labels::Expression)),
                _ => {}
            }
            let value = self.value(event, span, depth + 1, children)?;
            self.labels_at = None;
            kept |= value.is_some();
            // An entry with nothing built keeps its place as a null, so paths count entries
            // right; a sequence built as nothing is never kept, so it collects nothing.
            if build != Build::Nothing {
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
        // No depth check: every block mapping has a value, one level down, that is checked.
        if depth >= self.keys.len() {
            self.keys.resize_with(depth + 1, Keys::default);
        }
        self.keys[depth].clear();
        let role = self.labels_at.take().filter(|(at, _)| *at == depth).map(|(_, role)| role);
        let labels = match role {
            Some(Labels::Map { nulls }) => Some(nulls),
            _ => None,
        };
        let expression = role == Some(Labels::Expression);
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
                    // A List's entry with nothing built has no kind: it takes the List's, and
                    // keeps its place (`build::entry`).
                    Build::Entry => build::entry(out),
                    sparse if sparse.sparse() && out.is_empty() => None,
                    _ => Some(Value::Object(Map::from_unique(out))),
                };
                return Ok((value, status));
            }
            let key_start = self.offset(&span.start);
            if let Some(nulls) = labels {
                self.note_label(&event, key_start, true, nulls);
            }
            let key = self.key(event, span, depth)?;
            let (event, value_span) = self.event()?;
            if let Some(nulls) = labels {
                self.note_label(&event, self.offset(&value_span.start), false, nulls);
            }
            if expression && key.as_deref() == Some("key") {
                self.note_label(&event, self.offset(&value_span.start), true, false);
            }
            if matches!(key.as_deref(), Some("serviceAccountName" | "serviceAccount"))
                && let Some((text, style)) = self.scalar_of(&event)
                && label_doubt(text, style, false, false)
            {
                let text = text.to_string();
                self.note(self.offset(&value_span.start), || Kind::Account { text });
            }
            let child = key.as_deref().map_or(Build::Nothing, |k| build.child(k));
            self.labels_at = Labels::under(key.as_deref(), expression).map(|role| (depth + 1, role));
            let value = self.value(event, value_span, depth + 1, child)?;
            self.labels_at = None;
            if shape == Shape::Root && key.as_deref() == Some("status") {
                let clean = self.is_line_start(key_start);
                status = if clean { StatusAt::At(key_start..self.end) } else { StatusAt::Unusable };
            }
            if let (Some(key), Some(value)) = (key, value) {
                out.push((key.into(), value));
            }
        }
    }

    /// Notes a label key or value, at `at` in `text`, that a YAML 1.1 reader reads
    /// otherwise; `nulls`: whether a null value is refused there.
    fn note_label(&mut self, event: &Event<'t>, at: usize, key: bool, nulls: bool) {
        if let Some((text, style)) = self.scalar_of(event)
            && label_doubt(text, style, key, nulls)
        {
            let text = text.to_string();
            self.note(at, || Kind::Label { text, key });
        }
    }

    /// The scalar an event gives, with its style: its own, or the anchored one an alias
    /// names (go-yaml v2 and yaml.v3 resolve an alias to the node it names, typed as there).
    fn scalar_of<'e>(&'e self, event: &'e Event<'t>) -> Option<(&'e str, ScalarStyle)> {
        match event {
            Event::Scalar(text, style, ..) => Some((text, *style)),
            Event::Alias(id) => self.anchored.get(id).map(|(text, style)| (text.as_str(), *style)),
            _ => None,
        }
    }

    /// A key of the mapping open at `depth`, counted and checked to be new there; `None`
    /// when it is no string for certain (a merge key, a collection, an alias, a lookalike),
    /// which clears [`Walker::exact`].
    fn key(&mut self, event: Event<'t>, span: Span, depth: usize) -> Result<Option<Cow<'t, str>>, Abandon> {
        let start = self.offset(&span.start);
        let key = match event {
            Event::Scalar(_, _, anchor, _) if anchor != 0 && !self.anchors_allowed => {
                return Err(Abandon);
            }
            Event::Scalar(text, ScalarStyle::Plain, _, None) if text == "<<" => {
                if !self.anchors_allowed {
                    return Err(Abandon);
                }
                self.note(start, || Kind::MergeKey);
                self.exact = false;
                None
            }
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 {
                    self.defined.insert(anchor);
                }
                if let Some(tag) = tag.as_deref() {
                    self.note(start, || Kind::Tag(written(tag)));
                }
                self.end = self.offset(&span.end);
                if self.text[start..self.end].contains('\n') && !self.is_explicit_key(start) {
                    self.note(start, || Kind::MultilineKey);
                }
                if style != ScalarStyle::Plain || tag.is_none() {
                    self.check_scalar(&text, style, &Scalar::Text, span, true);
                }
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
        // Counted; a key is never the last node, and the next event holds the count to
        // its bound.
        self.counts.nodes += 1;
        if let Some(key) = &key
            && !self.keys[depth].insert(key.clone())
        {
            self.exact = false;
        }
        Ok(key)
    }

    /// Whether the key at `pos` follows a `?` (an explicit key, which may run over lines in
    /// either reader), white space and comment lines aside.
    fn is_explicit_key(&self, pos: usize) -> bool {
        let mut before = &self.text[..pos];
        loop {
            let trimmed = before.trim_end_matches([' ', '\t', '\n']);
            let line = &trimmed[crate::io::read::text::line_start(trimmed, trimmed.len())..];
            match line.trim_start().starts_with('#') {
                true => before = &trimmed[..trimmed.len() - line.len()],
                false => return trimmed.ends_with('?'),
            }
            if before.is_empty() {
                return false;
            }
        }
    }

    /// Whether only indentation, or an entry's `- `, stands before `pos` on its line.
    fn is_line_start(&self, pos: usize) -> bool {
        let start = crate::io::read::text::line_start(self.text, pos);
        let before = self.text[start..pos].trim_start_matches(' ');
        before.is_empty() || before.strip_prefix('-').is_some_and(|rest| rest.bytes().all(|b| b == b' '))
    }
}

/// A tag as it is written: `!!str` for YAML's own, `!name` for a local one.
fn written(tag: &Tag) -> String {
    match tag.handle() {
        "tag:yaml.org,2002:" => format!("!!{}", tag.suffix()),
        "!" => format!("!{}", tag.suffix()),
        handle => format!("{handle}{}", tag.suffix()),
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
