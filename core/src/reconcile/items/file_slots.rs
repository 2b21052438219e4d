//! The annotations kpt and kustomize put on items: file path and index (both the
//! `internal.` and the legacy form), package path, ids, sequence indent. They come back as
//! they came.

use crate::api::fields::{self, Tree};
use crate::api::value::StrMap;

pub const PATH: &str = "internal.config.kubernetes.io/path";
pub const INDEX: &str = "internal.config.kubernetes.io/index";
pub const LEGACY_PATH: &str = "config.kubernetes.io/path";
pub const LEGACY_INDEX: &str = "config.kubernetes.io/index";
/// The package folder kpt's render gives items, absolute: an item's path is relative to
/// it, so a subpackage's `x.yaml` is not the root package's.
pub const PACKAGE_PATH: &str = "internal.config.kubernetes.io/package-path";

/// Annotation prefixes that belong to the caller (kpt, kustomize); kept on replaced outputs.
const CALLER_PREFIXES: [&str; 4] =
    ["internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/"];

/// A file path and an index in that file, as an item takes it.
pub type FileSlot = (String, u64);

/// The (path, index) slots an item's annotations take, once per form given (an index
/// missing or unreadable counts as 0).
pub fn file_slots<M: StrMap>(annotations: &M) -> impl Iterator<Item = (&str, u64)> {
    [(PATH, INDEX), (LEGACY_PATH, LEGACY_INDEX)].into_iter().filter_map(|(path_key, index_key)| {
        let path = annotations.str_of(path_key)?;
        let index = annotations.str_of(index_key).and_then(|i| i.parse().ok());
        Some((path, index.unwrap_or(0)))
    })
}

/// The package an item's annotations place it in (kpt's render), when they do.
pub fn package_of<M: StrMap>(annotations: &M) -> Option<&str> {
    annotations.str_of(PACKAGE_PATH)
}

pub fn is_caller_annotation(key: &str) -> bool {
    CALLER_PREFIXES.iter().any(|p| key.starts_with(p))
}

fn annotation<'a, T: Tree>(item: &'a T, key: &str) -> Option<&'a str> {
    fields::child(item, &["metadata", "annotations", key])?.text()
}

/// The file an item came from, with its index in that file (0 when not given).
pub fn file_of<T: Tree>(item: &T) -> Option<(String, u64)> {
    let path = annotation(item, PATH).or_else(|| annotation(item, LEGACY_PATH))?;
    let index = annotation(item, INDEX)
        .or_else(|| annotation(item, LEGACY_INDEX))
        .and_then(|i| i.parse().ok())
        .unwrap_or(0);
    Some((path.to_string(), index))
}
