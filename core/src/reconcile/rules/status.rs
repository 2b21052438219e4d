//! The binding status (docs/reference.md#status): five conditions in order, `Ready`
//! mirroring the one failure, timestamps kept while a condition's status holds, the
//! rendered fields only when Ready, and the operator's ownership records kept as they came.

use crate::api::binding::{
    ComputedSpiffeId, ConflictEntry, InferenceIdentityBindingStatus, OperatorRecords,
    RenderedClusterSpiffeId, RenderedSelectors,
};
use crate::api::conditions::Condition;
use crate::config::Config;
use crate::reconcile::rules::reason::{ConditionType, Failure};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use std::borrow::Cow;

/// What a binding that renders puts in its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedIdentity {
    pub name: String,
    /// Where its pool comes from when KServe will create it, for the Ready message.
    pub pool_origin: Option<String>,
    pub spiffe_id: String,
    pub selectors: Vec<String>,
    pub fingerprint: String,
}

/// The condition history of the input binding: (type, status, lastTransitionTime).
pub type Previous<'a> = [(&'a str, &'a str, &'a str)];

/// A binding that renders, as its Ready condition says: its output's name and, when KServe
/// will create its pool, where the pool comes from.
#[derive(Debug, Clone, Copy)]
pub struct Reconciled<'s> {
    pub output: &'s str,
    pub pool_origin: Option<&'s str>,
}

/// The five conditions for an outcome. A condition whose status is unchanged keeps the
/// input's `lastTransitionTime`; any other takes `transition`.
pub fn conditions(
    outcome: Result<Reconciled<'_>, &Failure>,
    previous: &Previous<'_>,
    generation: Option<i64>,
    transition: Timestamp,
) -> Vec<Condition> {
    ConditionType::ALL
        .iter()
        .copied()
        .map(|kind| {
            let (status, reason, message): (_, _, Cow<'static, str>) = match (kind, outcome) {
                (ConditionType::Ready, Ok(Reconciled { output, pool_origin })) => {
                    let origin = pool_origin.map(|o| format!("; {o}")).unwrap_or_default();
                    (
                        "True",
                        "Reconciled",
                        format!("Binding reconciled as ClusterSPIFFEID {output}{origin}").into(),
                    )
                }
                (ConditionType::Ready, Err(f)) => ("False", f.reason.as_str(), f.message.clone().into()),
                (_, Err(f)) if f.reason.condition() == kind => {
                    ("True", f.reason.as_str(), f.message.clone().into())
                }
                _ => ("False", "Resolved", kind.resolved_message().into()),
            };
            let kept = previous
                .iter()
                .find(|(t, s, _)| *t == kind.as_str() && *s == status)
                .and_then(|(_, _, time)| time.parse::<Timestamp>().ok());
            Condition {
                type_: kind.as_str().into(),
                status: status.into(),
                reason: reason.into(),
                message,
                last_transition_time: Time(kept.unwrap_or(transition)),
                observed_generation: generation,
            }
        })
        .collect()
}

/// The whole status of one binding. The operator's ownership records are its durable
/// claims on objects in a cluster: the function can neither confirm nor clear them, so they
/// stay as the input had them (docs/reference.md#other-status-fields).
pub fn status(
    config: &Config,
    conditions: Vec<Condition>,
    rendered: Option<&RenderedIdentity>,
    conflicts: Vec<ConflictEntry>,
    records: OperatorRecords,
) -> InferenceIdentityBindingStatus {
    let mut status = InferenceIdentityBindingStatus {
        conditions,
        trust_domain: config.trust_domain.clone(),
        cluster_spiffeid_class_name: config.class_name.clone(),
        conflicts,
        pending_cluster_spiffeid: records.pending,
        owned_cluster_spiffeid: records.owned,
        ..Default::default()
    };
    if let Some(r) = rendered {
        status.computed_spiffe_ids = vec![ComputedSpiffeId { spiffe_id: r.spiffe_id.clone() }];
        status.rendered_selectors =
            vec![RenderedSelectors { spiffe_id: r.spiffe_id.clone(), selectors: r.selectors.clone() }];
        status.rendered_cluster_spiffeid = Some(RenderedClusterSpiffeId {
            name: r.name.clone(),
            spiffe_id: r.spiffe_id.clone(),
            selector_fingerprint: r.fingerprint.clone(),
            observed_generation: None,
        });
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::rules::reason::Reason;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn failure_sets_one_condition_and_ready_mirrors_it() {
        let f = Failure::new(Reason::TargetPoolNotFound, "pool x not found");
        let c = conditions(Err(&f), &[], Some(3), t("2026-01-01T00:00:00Z"));
        let got: Vec<(&str, &str, &str)> = c.iter().map(|c| (&*c.type_, &*c.status, &*c.reason)).collect();
        assert_eq!(
            got,
            [
                ("Ready", "False", "TargetPoolNotFound"),
                ("InvalidRef", "True", "TargetPoolNotFound"),
                ("UnsafeSelector", "False", "Resolved"),
                ("Conflict", "False", "Resolved"),
                ("RenderFailure", "False", "Resolved"),
            ]
        );
        assert_eq!(c[0].message, c[1].message);
        assert!(c.iter().all(|c| c.observed_generation == Some(3)));
    }

    #[test]
    fn time_is_kept_only_while_status_holds() {
        let previous = [
            ("Ready", "True", "2020-05-05T05:05:05Z"),
            ("InvalidRef", "False", "2021-01-01T00:00:00Z"),
            ("Conflict", "False", "not a time"),
        ];
        let f = Failure::new(Reason::InvalidPoolRef, "bad");
        let now = t("2026-01-01T00:00:00Z");
        let c = conditions(Err(&f), &previous, None, now);
        assert_eq!(c[0].last_transition_time.0, now, "Ready went True -> False");
        assert_eq!(c[1].last_transition_time.0, now, "InvalidRef went False -> True");
        assert_eq!(c[2].last_transition_time.0, now, "no previous UnsafeSelector");
        assert_eq!(c[3].last_transition_time.0, now, "unparsable previous time");
        let ok = conditions(Ok(Reconciled { output: "n", pool_origin: None }), &previous, None, now);
        assert_eq!(ok[0].last_transition_time.0, t("2020-05-05T05:05:05Z"));
        assert_eq!(ok[0].observed_generation, None);
    }
}
