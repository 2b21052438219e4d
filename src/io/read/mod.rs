//! The text-preserving reader every mode reads through: a ResourceList (the KRM function
//! modes), a plain stream (the kustomize plugin) or the files of a render (`render`,
//! `explain`, `diff`) become the items the reconcile reads, each with the exact text it came
//! as, so the writer can copy it unchanged or put a binding's new `status` in place. One
//! entry point per input form: [`list`], [`stream`] and [`files`].
//!
//! # The readers
//!
//! - **The full reader** is [`crate::yaml::parse`] and [`crate::yaml::parse_stream`]:
//!   serde-saphyr into `serde_json::Value`, within the input limits, duplicate keys refused.
//!   It is the reference every other reader is held to: what it refuses is refused, its
//!   values are the items' values, and its words are in every error. It keeps no text. The
//!   exact reader reads every text with it; the fast reader a ResourceList's header and
//!   tail, and a part whose scalars the walker cannot vouch for.
//! - **The exact reader** ([`exact`]) answers for any input: the full reader reads the whole
//!   text and words any error, and one walk of the parser's events over the same text finds
//!   each item's chunk. The entry points call it when the fast reader does not answer, or
//!   when [`Options`] ask for it (the tests that compare the two).
//! - **The fast reader** ([`fast`]) cuts the text by lines ([`split`]) and walks each part on
//!   its own, on all cores, building whole only the items the reconcile reads. It answers
//!   only when every part reads as its place requires and gives `None` otherwise, so it
//!   words no error of its own. The entry points call it first.
//! - **The walker** ([`walk`]) reads one node from the parser's events, built as far as its
//!   caller asks (whole; the head and pod templates of an item the reconcile only passes
//!   on; nothing), and where it stands in the text. The fast reader builds its items with
//!   it; the exact reader finds its chunks with it.
//! - **The lexer** ([`lex`]) gives the parser's own events, several times faster, for text
//!   of the plainest block shape. The walker reads the fast reader's parts through it where
//!   it can, through the parser otherwise.
//!
//! Beside them, shared by all: [`part`] builds what a reader gives of each item, [`split`]
//! holds the line passes (a stream's documents, for both readers; a ResourceList's parts,
//! for the fast one) and [`text`] the line arithmetic and the line tests.
//!
//! # What holds them to which
//!
//! [`check`] states it on any text: the entry points refuse what the full reader refuses,
//! with its words in their errors, and read every list and stream of mappings it reads,
//! with its values; each item's text reads on its own as that item, and no byte of the
//! items is lost; the fast reader gives the exact reader's parts; the lexer gives the
//! parser's events. `tests/reader.rs` and
//! `tests/fuzz.rs` run the checks on golden, generated and mutated input, the
//! coverage-guided target in `fuzz/` on anything, and `tests/thresholds.rs` drives the fast
//! reader to its bounds and past them.

pub mod check;
pub mod diverge;
pub mod exact;
pub mod fast;
pub mod lex;
pub mod parsed;
pub mod part;
pub mod split;
pub mod text;
pub mod walk;

pub use part::{Head, ItemText, Part, Place, StatusSlot};

use serde_json::{Map, Value};

pub const RESOURCE_LIST_API_VERSION: &str = "config.kubernetes.io/v1";
pub const RESOURCE_LIST_KIND: &str = "ResourceList";

/// A ResourceList read.
pub struct ResourceList {
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
#[derive(Clone)]
pub struct Stream {
    pub text: String,
    pub parts: Vec<Part>,
}

/// How to read: what the callers of the entry points differ in. The modes read with the
/// default; tests ask for the exact reader alone, to compare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    pub reader: Reader,
}

/// Which reader reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Reader {
    /// The fast reader, and the exact one where the fast one cannot vouch for its answer.
    #[default]
    Fast,
    /// Only the exact reader: the reference the fast one is held to.
    Exact,
}

/// Reads a ResourceList.
pub fn list(text: String, options: Options) -> Result<ResourceList, ListError> {
    let text = text::normalize(text);
    let fast = match options.reader {
        Reader::Fast => fast::list(&text, fast::FULL),
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
    Ok(ResourceList { text, function_config, parts: read.parts, indent: read.indent })
}

/// Reads a stream of documents; empty documents are skipped.
pub fn stream(text: String, options: Options) -> Result<Stream, String> {
    files(vec![text], options).pop().expect("one result per text")
}

/// Reads a stream of documents whole, as every mode reads it (the same refusals, in the same
/// words), giving each document's value; empty documents are skipped. The differential test
/// holds what it gives to kubectl's own reading (tests/integration/yaml_oracle.rs).
pub fn values(text: String) -> Result<Vec<Value>, String> {
    let text = text::normalize(text);
    Ok(exact::documents(&text)?.into_iter().filter(|d| !d.is_null()).collect())
}

/// The first place of `text` where kubectl reads it otherwise than this function
/// ([`diverge`]), in the words every mode refuses it with; `None` when there is none, or
/// when the text does not read as YAML at all. For the modes that pass over a file the
/// reader refuses (`discover`, the files a render leaves out), which must not pass over
/// one kubectl reads.
pub fn divergence(text: &str) -> Option<String> {
    divergence_of(text).map(|(message, ..)| message)
}

/// [`divergence`], its line, and whether it is one only YAML 1.2 readers part from kubectl
/// on (`kpt live apply`, kustomize: [`diverge::Kind::Yaml12`]).
pub fn divergence_of(text: &str) -> Option<(String, usize, bool)> {
    let text = text::normalize(text.to_string());
    let found = diverge::scan(&text).or_else(|| walk::divergence(&text))?;
    let (line, _) = found.place(&text);
    Some((found.message(&text), line, matches!(found.kind, diverge::Kind::Yaml12 { .. })))
}

/// Reads the texts of several files, each a stream, in one pass over the cores.
pub fn files(texts: Vec<String>, options: Options) -> Vec<Result<Stream, String>> {
    let texts: Vec<String> = texts.into_iter().map(text::normalize).collect();
    let borrowed: Vec<&str> = texts.iter().map(String::as_str).collect();
    let fast = match options.reader {
        Reader::Fast => fast::streams(&borrowed, fast::FULL),
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

/// Every `.yaml` file under `folders` of the repository: the golden inputs and samples that
/// the readers' tests hold them to.
#[cfg(test)]
pub(crate) fn yaml_files_under(folders: &[&str]) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders: Vec<_> = folders.iter().map(|f| root.join(f)).collect();
    let mut files = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_another_kind_is_refused_by_either_reader() {
        let read = |text: &str, reader| list(text.to_string(), Options { reader }).map(|l| l.parts.len());
        for reader in [Reader::Fast, Reader::Exact] {
            let refused = read("apiVersion: v1\nkind: ConfigMap\nitems:\n- {kind: A}\n", reader).unwrap_err();
            assert_eq!(
                refused.message,
                "input kind is \"ConfigMap\": expected a config.kubernetes.io/v1 ResourceList on stdin",
                "{reader:?}"
            );
            let kindless = read("items: []\n", reader).unwrap_err();
            assert!(kindless.message.starts_with("input kind is \"\":"), "{reader:?}: {}", kindless.message);
            let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {kind: A}\n";
            assert_eq!(read(list, reader).unwrap(), 1, "{reader:?}");
        }
    }
}
