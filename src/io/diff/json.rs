//! `diff -o json`: the diff as a JSON document, the fields as the `Diff` types name
//! them (docs/reference.md#diff).

use super::changes::Diff;

pub(super) fn json(diff: &Diff) -> String {
    let mut out = serde_json::to_string_pretty(diff).expect("a diff serializes");
    out.push('\n');
    out
}
