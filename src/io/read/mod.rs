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
pub mod part;
pub mod split;
pub mod text;
pub mod walk;

pub use part::{Head, ItemText, Part, Place, StatusSlot};

use serde_json::{Map, Value};

pub const RESOURCE_LIST_API_VERSION: &str = "config.kubernetes.io/v1";
pub const RESOURCE_LIST_KIND: &str = "ResourceList";

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
        Some(read) => {
            check_kind(&read.fields)?;
            read
        }
        None => exact::list(&text)?,
    };
    let mut fields = read.fields;
    let function_config = fields.remove("functionConfig").filter(|v| !v.is_null());
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

/// Checks that a ResourceList's top-level fields name its kind: the one check of it,
/// whichever reader read the list.
fn check_kind(fields: &Map<String, Value>) -> Result<(), ListError> {
    let kind = fields.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind == RESOURCE_LIST_KIND {
        return Ok(());
    }
    let message =
        format!("input kind is {kind:?}: expected a {RESOURCE_LIST_API_VERSION} ResourceList on stdin");
    Err(ListError { message, function_config: None })
}
