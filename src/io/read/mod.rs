//! The text-preserving reader every mode reads through: a ResourceList (KRM functions) or a
//! stream of documents (the kustomize plugin, `render`) becomes the items the reconcile
//! reads, each with the exact text it came as, so the writer can copy it unchanged or put a
//! binding's new `status` in place.
//!
//! Two readers give the same answer. The fast one ([`fast`]) cuts the text by lines and
//! walks the parts on all cores, building only the items the reconcile reads; the exact one
//! ([`exact`]) reads the whole text with the full reader and finds each item's text with
//! one pass of the parser's events. The fast one answers only when it can vouch for the
//! result; otherwise the exact one does, and its errors are the full reader's. The
//! reader never accepts what the full reader refuses, and drops no item's text.

pub mod check;
pub mod exact;
pub mod fast;
pub mod lex;
pub mod split;
pub mod text;
pub mod walk;

use crate::api::fields::type_name;
use crate::reconcile::input::Input;
use serde_json::{Map, Value};
use std::ops::Range;

pub const RESOURCE_LIST_API_VERSION: &str = "config.kubernetes.io/v1";
pub const RESOURCE_LIST_KIND: &str = "ResourceList";

/// One item read: what the reconcile reads of it, its text, and its head.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub input: Input,
    pub text: ItemText,
    pub head: Head,
}

/// Where an item's text stands in the input, and how it may be written back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemText {
    /// The item's text: for a ResourceList entry from the start of its `-` line to the next
    /// entry's, for a document the text between its markers.
    pub chunk: Range<usize>,
    /// Whether the text stands on its own (no alias to an anchor outside it; the entries of
    /// a block sequence); otherwise the item is written from its value.
    pub copy: bool,
    /// For an item the reconcile reads, where a new `status` goes in its text; `None` when
    /// it cannot go there (a mapping in flow style), and the item is written from its value.
    pub status: Option<StatusSlot>,
}

/// Where a binding's new `status` goes in its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusSlot {
    /// The column of the mapping's keys.
    pub column: usize,
    pub place: Place,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The old `status` entry: from its key to the start of the line after its value.
    Replace(Range<usize>),
    /// No `status` yet: it goes at this line start, after the item's last content.
    Append(usize),
}

/// An item's type and whether it configures the render rather than the cluster; all the
/// plain-stream modes need of an item beside what the reconcile reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    /// `apiVersion` and `kind`, when they are strings.
    pub api_version: Option<String>,
    pub kind: Option<String>,
    /// Marked `config.kubernetes.io/local-config: "true"`.
    pub local_config: bool,
}

impl Head {
    pub fn of(value: &Value) -> Head {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        let local = value.pointer("/metadata/annotations/config.kubernetes.io~1local-config");
        Head {
            api_version: text("apiVersion"),
            kind: text("kind"),
            local_config: local.and_then(Value::as_str) == Some("true"),
        }
    }
}

/// A ResourceList read.
pub struct List {
    /// The input text, line ends normalized, kept to copy items from.
    pub text: String,
    pub function_config: Option<Value>,
    pub parts: Vec<Part>,
    /// Spaces before each entry's `-`; the output keeps them.
    pub indent: usize,
}

/// Why a ResourceList could not be read, with its functionConfig when that could be.
#[derive(Debug)]
pub struct ListError {
    pub message: String,
    pub function_config: Option<Value>,
}

/// A stream of documents read.
pub struct Stream {
    pub text: String,
    pub parts: Vec<Part>,
}

/// Which reader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The fast reader, and the exact one where the fast one cannot vouch for its answer.
    Fast,
    /// Only the exact reader: the reference the fast one is held to.
    Exact,
}

/// Reads a ResourceList.
pub fn list(text: String) -> Result<List, ListError> {
    list_with(text, Reader::Fast)
}

/// Reads a ResourceList with the reader asked for.
pub fn list_with(text: String, reader: Reader) -> Result<List, ListError> {
    let text = text::normalize(text);
    let fast = match reader {
        Reader::Fast => fast::list(&text),
        Reader::Exact => None,
    };
    let read = match fast {
        Some(read) => read,
        None => exact::list(&text)?,
    };
    let mut fields = read.fields;
    let function_config = fields.remove("functionConfig").filter(|v| !v.is_null());
    let kind = fields.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind != RESOURCE_LIST_KIND {
        let message =
            format!("input kind is {kind:?}: expected a {RESOURCE_LIST_API_VERSION} ResourceList on stdin");
        return Err(ListError { message, function_config: None });
    }
    Ok(List { text, function_config, parts: read.parts, indent: read.indent })
}

/// Reads a stream of documents; empty documents are skipped.
pub fn stream(text: String) -> Result<Stream, String> {
    streams(vec![text]).pop().expect("one result per text")
}

/// Reads several streams (the files of a render) in one pass over the cores.
pub fn streams(texts: Vec<String>) -> Vec<Result<Stream, String>> {
    streams_with(texts, Reader::Fast)
}

/// Reads several streams with the reader asked for.
pub fn streams_with(texts: Vec<String>, reader: Reader) -> Vec<Result<Stream, String>> {
    let texts: Vec<String> = texts.into_iter().map(text::normalize).collect();
    let borrowed: Vec<&str> = texts.iter().map(String::as_str).collect();
    let fast = match reader {
        Reader::Fast => fast::streams(&borrowed),
        Reader::Exact => vec![None; texts.len()],
    };
    texts
        .into_iter()
        .zip(fast)
        .map(|(text, read)| {
            let parts = match read {
                Some(parts) => parts,
                None => exact::stream(&text)?,
            };
            Ok(Stream { text, parts })
        })
        .collect()
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
