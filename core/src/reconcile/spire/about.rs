//! What a finding of the simulated manager is about, and how it names it: the context the
//! findings read beside the model, a rendered object's binding, an object's or a held pod
//! template's reference. The findings' files (`findings.rs`, `unlabelled.rs`) share it.

use super::{Held, Origin, Source};
use crate::api::cluster_spiffe_id as csid;
use crate::config::SelectorScope;
use crate::reconcile::cluster::seen::Seen;
use crate::reconcile::findings::Ref;

/// What the findings need beside the model.
pub struct Context<'a> {
    pub seen: &'a Seen<'a>,
    pub scope: SelectorScope,
    pub binding_refs: &'a dyn Fn(usize) -> Ref,
}

/// ` (binding ns/name)` for a rendered object.
pub(super) fn of_binding(source: &Source, cx: &Context<'_>) -> String {
    match source.origin {
        Origin::Rendered { binding } | Origin::Withheld { binding } => {
            let r = (cx.binding_refs)(binding);
            format!(" (binding {}/{})", r.namespace.unwrap_or_default(), r.name)
        }
        Origin::Input { .. } => String::new(),
    }
}

/// The item a finding about an object is about: its binding, or the object of the input.
pub(super) fn source_ref(source: &Source, cx: &Context<'_>) -> Ref {
    match source.origin {
        Origin::Rendered { binding } | Origin::Withheld { binding } => (cx.binding_refs)(binding),
        Origin::Input { item } => Ref {
            item,
            api_version: csid::API_VERSION.to_string(),
            kind: source.kind().to_string(),
            namespace: None,
            name: source.name.clone(),
            path: None,
        },
    }
}

/// The reference of a held pod template.
pub fn template_ref(seen: &Seen<'_>, held: &Held) -> Ref {
    // The workloads are in input order.
    let at = seen.workloads.binary_search_by_key(&held.item, |(item, _)| *item);
    let workload = &seen.workloads[at.expect("a held template is of a workload of the input")].1;
    Ref::of_workload(held.item, workload, workload.templates().get(held.template).map(|t| t.path()))
}
