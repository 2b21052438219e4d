//! Objects that set another workload's replica count ([`is_scaler`]: any with a
//! `spec.scaleTargetRef`): where the workload's controller names or labels its pods by their
//! ordinal (a StatefulSet's `statefulset.kubernetes.io/pod-name` and
//! `apps.kubernetes.io/pod-index`: kubernetes `pkg/controller/statefulset/stateful_set_utils.go`,
//! `getPodName`, `initIdentity`; a LeaderWorkerSet's `group-index`, whose scale subresource is
//! its `spec.replicas`: kubernetes-sigs/lws `api/leaderworkerset/v1/leaderworkerset_types.go`),
//! the build judges the pods of the count the item gives, and a scaler makes others: may gain.

use super::{Unjudged, identities, kinds::article, names_of};
use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::cluster::controllers;
use crate::reconcile::items::input::Input;
use crate::reconcile::items::kinds::SCALE_TARGET as TARGET;
#[cfg(doc)]
use crate::reconcile::items::kinds::is_scaler;
use crate::reconcile::spire::Source;

/// The workload a scaler sets the count of, as the scaler's record names it.
pub(super) struct Target {
    /// `Kind name`.
    pub name: String,
    /// The namespace both land in, `None` when neither names one.
    pub lands: Option<String>,
    /// The workload, in words a digest takes: another ordinal start, another template, makes
    /// other pods of the same counts.
    pub words: String,
}

/// The workload a scaler (`value`, in `namespace`) sets the count of, when the input holds
/// it and its controller's pods hang on the count (the controller declares `spec.replicas`
/// among the fields that shape its pods). The kind is matched as the API server's REST mapper
/// does, in any case (client-go `restmapper`, `KindFor` lower-cases it). A scaler or a
/// workload without a namespace lands in the one it is applied to (`kubectl apply -n`, a
/// kustomization's `namespace`, an Argo CD destination: cli-runtime `Builder`,
/// `DefaultNamespace`), the other's among them: they match; the namespace is then the one
/// that names it, `None` when neither does.
pub(super) fn target(value: &Value, namespace: Option<&str>, items: &[Input]) -> Option<Target> {
    let text = |path: &str| fields::str_at(value, &format!("{TARGET}.{path}")).filter(|s| !s.is_empty());
    let name = text("name")?;
    // KEDA's ScaledObject targets a Deployment of apps/v1 unless it says.
    let kind = text("kind").unwrap_or("Deployment");
    let group = crate::api::group_of(text("apiVersion").unwrap_or("apps/v1"));
    items.iter().filter_map(Input::workload).find_map(|workload| {
        let controller = controllers::of(workload.api_version(), workload.kind())?;
        let hangs = controller.shapes.contains(&"spec.replicas");
        let lands = match (namespace, workload.namespace()) {
            (Some(a), Some(b)) => (a == b).then_some(Some(a)),
            (given, other) => Some(given.or(other)),
        };
        let same = controller.group.eq_ignore_ascii_case(group)
            && workload.kind().eq_ignore_ascii_case(kind)
            && workload.name() == name;
        match lands {
            Some(lands) if hangs && same => Some(Target {
                name: format!("{} {name}", workload.kind()),
                lands: lands.map(str::to_string),
                words: format!("{workload:?}"),
            }),
            _ => None,
        }
    })
}

/// The record of a scaler of `kind` at `position` that sets the count of `target`, where the
/// identities `met` select; its digest also follows `also` ([`super::record`]).
pub(super) fn record(
    position: usize,
    value: &Value,
    kind: &str,
    target: &str,
    met: &[&Source],
    also: &[String],
) -> Unjudged {
    let message = format!(
        "{} {kind} that sets the replica count of {target}, whose pods' names and labels hang on it: the \
         build judges the pods of the count the {} gives, and other counts make pods that {} may select; \
         set the count in the workload, or keep the scaler out of it",
        article(kind),
        target.split(' ').next().unwrap_or_default(),
        identities(&names_of(met))
    );
    super::record(position, value, TARGET.to_string(), message, met, also)
}
