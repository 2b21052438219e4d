//! The records of what hangs on the applier or the cluster rather than on the files: this
//! function's outputs as committed, Services an applier may leave unapplied, and bindings
//! whose verdict hangs on an API the folders do not list.

use super::{Unjudged, digest, record};
use crate::api::fields;
use crate::reconcile::cluster::seen::Seen;
use crate::reconcile::items::input::Input;
use crate::reconcile::rules::identity::hex;
use crate::reconcile::rules::reason::Reason;
use crate::reconcile::spire::Source;
use sha2::{Digest, Sha256};

/// The records of this function's outputs as committed that a render replaces with other
/// entries or removes (`committed`: by input position, what each adds to its fresh render,
/// `None` when no render takes its place): applied as committed (`kubectl apply`, an Argo CD
/// directory application, `kpt live apply`), each grants what no render does. One that adds
/// nothing to its fresh render is none.
pub fn committed(items: &[Input], committed: &[(usize, Option<Vec<String>>)]) -> Vec<Unjudged> {
    let mut out = Vec::new();
    for (position, additions) in committed {
        let Some(value) = items.get(*position).and_then(Input::value) else { continue };
        let id = fields::str_at(value, "spec.spiffeIDTemplate").unwrap_or_default();
        let owner = crate::api::cluster_spiffe_id::binding_of(value)
            .map_or_else(|| "no binding".to_string(), |(ns, name)| format!("binding {ns}/{name}"));
        let (field, message) = match additions {
            Some(added) if added.is_empty() => continue,
            Some(added) => (
                "spec".to_string(),
                format!(
                    "this function's output, as committed, is not what {owner} renders now: applied as \
                     committed (kubectl apply, an Argo CD directory application, kpt live apply), it grants \
                     what the render does not: {}; render the folder again, or drop the edit",
                    added.join(", ")
                ),
            ),
            None => (
                String::new(),
                format!(
                    "this function's output, as committed, for {owner}, which renders no identity of that name \
                     now: applied as committed, it gives {id} to every pod it selects; render the folder \
                     again, or remove it"
                ),
            ),
        };
        out.push(record(*position, value, field, message, &[], &[]));
    }
    out
}

/// The records of the Services an applier may leave unapplied (`seen.unapplied`: an Argo CD
/// hook no sync runs or that it deletes once run, a file it passes over, an object marked
/// local-config, which kpt and kustomize leave out) where an identity of `sources` asks the
/// manager for the DNS names of its pods' Services (`autoPopulateDNSNames`): kubectl applies
/// them, and their names then hang on the applier. The model gives their names to no entry,
/// so BASE never surely holds them; the record makes a HEAD that adds or changes one `may
/// gain`.
pub fn unapplied_services<'s>(
    items: &[Input],
    seen: &Seen<'_>,
    sources: impl Iterator<Item = &'s Source>,
) -> Vec<Unjudged> {
    let asking: Vec<&Source> = sources.filter(|s| s.auto_dns).collect();
    if asking.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for service in seen.services.iter().filter(|s| seen.unapplied.contains(&s.item)) {
        let Some(value) = items.get(service.item).and_then(Input::value) else { continue };
        let message = "a Service an applier may leave unapplied (an Argo CD hook or skipped file, or marked \
             local-config for kpt and kustomize) that kubectl applies: the DNS names SPIRE Controller Manager gives \
             the pods it selects with autoPopulateDNSNames hang on the applier, which the build does not judge; \
             remove the mark, or the Service"
            .to_string();
        out.push(record(service.item, value, String::new(), message, &asking, &[]));
    }
    out
}

/// How a binding's verdict hangs on an API the folders do not say the cluster serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unserved {
    /// It fails for this reason only because of it.
    Fails(Reason),
    /// It resolves a pool of this name under this API, where the folders hold one of that
    /// name under an API it prefers.
    Shadowed { pool: String, api: String },
}

/// The records of the bindings whose verdict hangs on an API the folders do not say the
/// cluster serves (`bindings`, by item): rendered in the cluster (the kleym operator reads the
/// cluster's APIs; Argo CD gives a plugin the cluster's in `KUBE_API_VERSIONS`: argo-cd
/// `docs/user-guide/build-environment.md`), such a binding may render, or resolve another
/// pool, and what it then reaches hangs on every item: its record's digest follows them all.
pub fn unserved(items: &[Input], bindings: &[(usize, Unserved)]) -> Vec<Unjudged> {
    if bindings.is_empty() {
        return Vec::new();
    }
    let mut hash = Sha256::new();
    for item in items {
        hash.update(b"\0item\0");
        match item {
            Input::Whole(v) => digest(v, &mut hash, true),
            // What the reconcile keeps of an item it passes on: its pod templates, a List's
            // items, what makes it near a binding or the guard's (not where its file sits).
            Input::Passed(p) => {
                let kept = (&p.workload, &p.list, &p.near_binding, &p.admission);
                hash.update(format!("{kept:?}").as_bytes());
            }
        }
    }
    let every_item: String = hex(&hash.finalize());
    let mut out = Vec::new();
    for (position, how) in bindings {
        let Some(value) = items.get(*position).and_then(Input::value) else { continue };
        let (field, why) = match how {
            Unserved::Fails(Reason::ClusterSPIFFEIDCRDMissing) => (
                "",
                "this binding fails here (ClusterSPIFFEIDCRDMissing) only because the folders do not say the \
                 cluster serves the ClusterSPIFFEID API"
                    .to_string(),
            ),
            Unserved::Fails(reason) => (
                "spec.poolRef",
                format!(
                    "this binding fails here ({}) only because the folders do not say the cluster serves its \
                     pool's API",
                    reason.as_str()
                ),
            ),
            Unserved::Shadowed { pool, api } => (
                "spec.poolRef",
                format!(
                    "this binding resolves InferencePool {pool} under {api} here only because the folders do not \
                     say the cluster serves the API it prefers, under which they hold a pool of that name"
                ),
            ),
        };
        let message = format!(
            "{why}: rendered in the cluster (the kleym operator, a plugin given the cluster's APIs) it may \
             render what it does not render here, which the build does not judge; list the APIs the cluster \
             serves in `apiVersions`, or remove the binding"
        );
        out.push(record(
            *position,
            value,
            field.to_string(),
            message,
            &[],
            std::slice::from_ref(&every_item),
        ));
    }
    out
}
