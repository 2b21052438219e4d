//! What a reader gives of each item, whichever reader read it: what the reconcile reads of
//! it, where its text stands and where a binding's new `status` goes in that text. Both
//! readers build their parts here, from a value and the walk of its text, so they cannot
//! build them differently.

use super::walk::{Node, StatusAt};
use crate::api::value::Value;
use crate::reconcile::input::Input;
use serde_json::Map;
use std::ops::Range;

/// One item read: what the reconcile reads of it, its text, and its head.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub input: Input,
    pub text: ItemText,
    pub head: Head,
}

impl Part {
    /// An item whose text stands at `chunk`, as `node` walked it; written from its value
    /// when that text does not read on its own (it uses an alias to an anchor outside it).
    pub fn copied(value: Value, chunk: Range<usize>, node: &Node) -> Part {
        if node.outside_alias {
            return Part::rebuilt(value);
        }
        let head = Head::of(&value);
        let input = Input::of(value);
        let status = input.value().and_then(|_| StatusSlot::of(node));
        Part { input, text: ItemText { chunk, copy: true, status }, head }
    }

    /// An item written from its value.
    pub fn rebuilt(value: Value) -> Part {
        let head = Head::of(&value);
        Part { input: Input::Whole(value), text: ItemText { chunk: 0..0, copy: false, status: None }, head }
    }
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

impl StatusSlot {
    /// Where a walked mapping's status goes, when it can be put in its text.
    fn of(node: &Node) -> Option<StatusSlot> {
        let column = node.block_column?;
        let place = match &node.status {
            StatusAt::At(range) => Place::Replace(range.clone()),
            StatusAt::Absent => Place::Append(node.span.end),
            StatusAt::Unusable => return None,
        };
        Some(StatusSlot { column, place })
    }
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
    /// Marked `config.kubernetes.io/local-config` with any value but `"false"`, which kpt and
    /// kustomize leave out (kpt `pkg/live/rgpath.go`, `filterLocalConfig`; kustomize
    /// `api/resource/factory.go`, `DropLocalNodes`).
    pub local_config: bool,
    /// Its `argocd.argoproj.io/hook`, `helm.sh/hook` and their `-delete-policy` annotations,
    /// when they are strings: whether Argo CD applies it and keeps it (`io/applier.rs`).
    /// `None` when it has none (boxed: few items have one).
    pub hooks: Option<Box<[Option<String>; 4]>>,
}

/// Where an item holds its `argocd.argoproj.io/hook`, `helm.sh/hook`,
/// `argocd.argoproj.io/hook-delete-policy` and `helm.sh/hook-delete-policy` annotations.
const HOOKS: [&str; 4] = [
    "/metadata/annotations/argocd.argoproj.io~1hook",
    "/metadata/annotations/helm.sh~1hook",
    "/metadata/annotations/argocd.argoproj.io~1hook-delete-policy",
    "/metadata/annotations/helm.sh~1hook-delete-policy",
];

impl Head {
    /// Why an item of this head is refused in every mode, if it is: an `apiVersion` opening
    /// with `/`, which kubectl and the API server read as the core group's (apimachinery
    /// `ParseGroupVersion`), where this function would read another group. The words follow
    /// the item's origin.
    pub fn refusal(&self) -> Option<String> {
        let version = self.api_version.as_deref().filter(|v| v.starts_with('/'))?;
        Some(format!(
            "apiVersion {version:?}: kubectl and the API server read a leading `/` as the core group's \
             (apimachinery `ParseGroupVersion`), where this function would read another group, so the two \
             would judge different objects; write {:?}",
            &version[1..],
        ))
    }

    pub fn of(value: &Value) -> Head {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        let local = value.pointer("/metadata/annotations/config.kubernetes.io~1local-config");
        Head {
            api_version: text("apiVersion"),
            kind: text("kind"),
            local_config: local.is_some_and(|v| v.as_str() != Some("false")),
            hooks: Some(HOOKS.map(|at| value.pointer(at).and_then(Value::as_str).map(str::to_string)))
                .filter(|hooks| hooks.iter().any(Option::is_some))
                .map(Box::new),
        }
    }
}

/// A ResourceList as either reader reads it: its fields other than `items`, the items, and
/// the spaces before each entry's `-`.
pub struct ListRead {
    pub fields: Map<String, serde_json::Value>,
    pub parts: Vec<Part>,
    pub indent: usize,
}
