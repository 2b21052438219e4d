//! Which objects of the package hold which identities, as the policy reads pods (a pod holds
//! the identity of its namespace, service account and variant when it carries the pool's
//! labels): the objects the guard declares by kind and name, and a `NotAdmitted` finding for
//! each pod template that holds an identity the guard cannot admit (a kind whose controller
//! it does not know, a name its controller shortens, a name no parameter key can hold).

use super::Identity;
use super::controllers::{Acts, CONTROLLERS, Kind, Naming, kind_of};
use crate::api::cluster_spiffe_id::VARIANT_LABEL;
use crate::reconcile::cluster::workload::{PodTemplate, Workload};
use crate::reconcile::findings::{Finding, Kind as FindingKind, Level, Ref, binding_ref};
use std::collections::{BTreeSet, HashMap};

/// An object of the package whose pods hold identities, as the guard declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub kind: &'static Kind,
    pub namespace: String,
    pub name: String,
    /// The identities its pod templates hold, by position in the identities given.
    pub identities: BTreeSet<usize>,
    /// The object, for reports.
    pub about: Ref,
}

/// The longest parameter key the API server takes (a ConfigMap's `data` key).
pub const LONGEST_KEY: usize = 253;

/// Whether `key` can be a key of a ConfigMap's `data`: 1 to 253 of `[-._a-zA-Z0-9]`.
pub fn is_param_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= LONGEST_KEY
        && key.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// The parameter key of an identity, by the account and variant its pods carry.
pub fn identity_key(account: &str, variant: &str) -> String {
    format!("{}{account}_{variant}", super::cel::IDENTITY_KEY)
}

/// The objects of `workloads` (each with its input position) that hold an identity, and the
/// findings on those the guard cannot admit. A workload that names no namespace lands in
/// `namespace` when given, else in each namespace one of its templates holds an identity of.
pub fn declared(
    identities: &[Identity],
    workloads: &[(usize, &Workload)],
    namespace: Option<&str>,
) -> (Vec<Declared>, Vec<Finding>) {
    let mut by_pod: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let mut by_account: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (i, id) in identities.iter().enumerate() {
        by_pod.insert((&id.namespace, &id.service_account, &id.variant), i);
        by_account.entry((&id.service_account, &id.variant)).or_default().push(i);
    }
    let holds = |ns: Option<&str>, t: &PodTemplate| -> Vec<usize> {
        let (Some(account), Some(variant)) = (t.known_account(), t.label(VARIANT_LABEL)) else {
            return Vec::new();
        };
        let held = |i: &usize| identities[*i].pool_labels.iter().all(|(k, v)| t.label(k) == Some(v.as_str()));
        match ns {
            Some(ns) => by_pod.get(&(ns, account, variant)).copied().filter(held).into_iter().collect(),
            None => by_account.get(&(account, variant)).into_iter().flatten().copied().filter(held).collect(),
        }
    };
    // Each workload on its own, on all cores, in order.
    let judged = crate::parallel::map(workloads.to_vec(), |(item, w)| {
        let placed = w.namespace().or(namespace);
        let held: Vec<(usize, &PodTemplate)> =
            w.templates().iter().flat_map(|t| holds(placed, t).into_iter().map(move |i| (i, t))).collect();
        judge(identities, item, w, &held)
    });
    let (mut out, mut findings) = (Vec::new(), Vec::new());
    for (declared, found) in judged {
        out.extend(declared);
        findings.extend(found);
    }
    (out, findings)
}

/// What the guard declares of the workload at `item`, whose templates hold the identities of
/// `held` (each with its template), namespace by namespace, and why it cannot admit any.
fn judge(
    identities: &[Identity],
    item: usize,
    w: &Workload,
    held: &[(usize, &PodTemplate)],
) -> (Vec<Declared>, Vec<Finding>) {
    let (mut out, mut findings) = (Vec::new(), Vec::new());
    if held.is_empty() {
        return (out, findings);
    }
    let about = |t: Option<&PodTemplate>, ns: &str| Ref {
        item,
        api_version: w.api_version().to_string(),
        kind: w.kind().to_string(),
        namespace: Some(ns.to_string()),
        name: w.name().to_string(),
        path: t.map(|t| t.path().to_string()),
    };
    let kind = kind_of(w.api_version(), w.kind());
    let mut namespaces: Vec<&str> = held.iter().map(|(i, _)| identities[*i].namespace.as_str()).collect();
    namespaces.sort_unstable();
    namespaces.dedup();
    for ns in namespaces {
        // An identity whose key no ConfigMap can hold has no parameters: none of its pods is
        // admitted.
        let (here, keyless): (Vec<&(usize, &PodTemplate)>, Vec<_>) =
            held.iter().filter(|(i, _)| identities[*i].namespace == ns).partition(|(i, _)| {
                is_param_key(&identity_key(&identities[*i].service_account, &identities[*i].variant))
            });
        let refuse = |why: String, findings: &mut Vec<Finding>, here: &[&(usize, &PodTemplate)]| {
            for (i, t) in here {
                let id = &identities[*i];
                findings.push(Finding {
                    kind: FindingKind::NotAdmitted,
                    level: Level::Warning,
                    message: format!(
                        "{} would give its pods {}, but the admission guard will deny them: {why}",
                        about(Some(t), ns).describe(),
                        id.spiffe_id
                    ),
                    about: about(Some(t), ns),
                    also: vec![binding_ref(id.binding, Some(&id.namespace), &id.name)],
                });
            }
        };
        if !keyless.is_empty() {
            let why = format!(
                "its service account and variant make a parameter key longer than {LONGEST_KEY} characters: \
                 shorten the service account's name"
            );
            refuse(why, &mut findings, &keyless);
        }
        if here.is_empty() {
            continue;
        }
        let Some(kind) = kind else {
            let why = format!(
                "it knows no controller of {} {}: run these pods under a Deployment, StatefulSet, \
                 DaemonSet, Job, CronJob, LeaderWorkerSet, Rollout or KServe service",
                w.api_version(),
                w.kind()
            );
            refuse(why, &mut findings, &here);
            continue;
        };
        let key = format!("{}.{}", kind.kind, w.name());
        if !is_param_key(&key) {
            let why = format!(
                "its name cannot be a parameter key ({key:?} is not 1 to {LONGEST_KEY} letters, digits, \
                 '-', '_' and '.')"
            );
            refuse(why, &mut findings, &here);
            continue;
        }
        if let Some(why) = shortened(kind, w.name()) {
            refuse(why, &mut findings, &here);
        }
        out.push(Declared {
            kind,
            namespace: ns.to_string(),
            name: w.name().to_string(),
            identities: here.iter().map(|(i, _)| *i).collect(),
            about: about(None, ns),
        });
    }
    (out, findings)
}

/// Why what a controller makes of an object of `kind` named `name` would be named past the
/// guard's reach: a name it shortens with a hash.
fn shortened(kind: &Kind, name: &str) -> Option<String> {
    CONTROLLERS.iter().filter(|c| c.acts == Acts::Makes && c.owner == kind).find_map(|c| {
        let Naming::Suffix { suffixes, longest: Some(longest) } = c.naming else { return None };
        let suffix = suffixes.iter().find(|s| name.len() + s.len() > longest)?;
        Some(format!(
            "the {} it makes of it, {name}{suffix}, is longer than {longest} characters, so its controller \
             names it with a hash the guard cannot follow: shorten the name",
            c.makes.kind
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;
    use crate::reconcile::cluster::workload::workload_of;

    fn identity(ns: &str, account: &str, variant: &str) -> Identity {
        Identity {
            binding: 0,
            namespace: ns.into(),
            name: format!("{account}-{variant}"),
            service_account: account.into(),
            variant: variant.into(),
            pool_labels: vec![("app".into(), "m".into())],
            spiffe_id: format!("spiffe://td/ns/{ns}/sa/{account}/variant/{variant}"),
        }
    }

    fn workload(
        kind: &str,
        api_version: &str,
        ns: Option<&str>,
        labels: crate::api::value::Value,
    ) -> Workload {
        let mut metadata = json!({"name": "w"});
        if let Some(ns) = ns {
            metadata["namespace"] = json!(ns);
        }
        let template =
            json!({"metadata": {"labels": labels}, "spec": {"serviceAccountName": "sa", "containers": []}});
        let item = json!({"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": {"template": template}});
        workload_of(&item).unwrap()
    }

    #[test]
    fn an_object_holds_the_identity_of_its_account_variant_and_pool_labels() {
        let ids = [identity("a", "sa", "prefill"), identity("b", "sa", "prefill")];
        let labels = json!({"app": "m", "identity.kleym.sonda.red/variant": "prefill"});
        let d = workload("Deployment", "apps/v1", Some("a"), labels.clone());
        let (found, findings) = declared(&ids, &[(3, &d)], None);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].kind.kind, found[0].namespace.as_str(), &found[0].identities),
            ("Deployment", "a", &BTreeSet::from([0]))
        );
        assert!(findings.is_empty());
        // Without the pool's label, or of another variant, it holds none.
        let none = workload(
            "Deployment",
            "apps/v1",
            Some("a"),
            json!({"identity.kleym.sonda.red/variant": "prefill"}),
        );
        assert!(declared(&ids, &[(3, &none)], None).0.is_empty());
        // Naming no namespace: in the one given, else in each it would hold an identity of.
        let floating = workload("Deployment", "apps/v1", None, labels.clone());
        let placed: Vec<String> =
            declared(&ids, &[(3, &floating)], Some("b")).0.iter().map(|d| d.namespace.clone()).collect();
        assert_eq!(placed, ["b"]);
        let everywhere: Vec<String> =
            declared(&ids, &[(3, &floating)], None).0.iter().map(|d| d.namespace.clone()).collect();
        assert_eq!(everywhere, ["a", "b"]);
    }

    #[test]
    fn a_kind_whose_controller_the_guard_does_not_know_is_not_admitted() {
        let ids = [identity("a", "sa", "prefill")];
        let labels = json!({"app": "m", "identity.kleym.sonda.red/variant": "prefill"});
        let other = workload("ModelServer", "example.org/v1", Some("a"), labels);
        let (found, findings) = declared(&ids, &[(1, &other)], None);
        assert!(found.is_empty());
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].kind, FindingKind::NotAdmitted);
        assert!(
            findings[0].message.contains("knows no controller of example.org/v1 ModelServer"),
            "{}",
            findings[0].message
        );
    }

    #[test]
    fn an_identity_whose_key_no_configmap_can_hold_is_not_admitted() {
        let long = "s".repeat(250);
        let ids = [identity("a", &long, "prefill")];
        let d = workload_of(&json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "a"},
            "spec": {"template": {
                "metadata": {"labels": {"app": "m", "identity.kleym.sonda.red/variant": "prefill"}},
                "spec": {"serviceAccountName": long, "containers": []}}}
        }))
        .unwrap();
        let (found, findings) = declared(&ids, &[(2, &d)], None);
        assert!(found.is_empty());
        assert_eq!(findings.len(), 1);
        assert!(findings[0].message.contains("longer than 253 characters"), "{}", findings[0].message);
    }

    #[test]
    fn kserve_names_past_63_characters_are_not_followed() {
        use super::super::controllers::LLM_INFERENCE_SERVICE;
        assert_eq!(shortened(&LLM_INFERENCE_SERVICE, "llama"), None);
        let long = "l".repeat(50);
        let why = shortened(&LLM_INFERENCE_SERVICE, &long).unwrap();
        assert!(why.contains("-kserve-prefill, is longer than 63"), "{why}");
        assert!(
            is_param_key("Deployment.a-b.c_d") && !is_param_key("Deployment.{{ name }}") && !is_param_key("")
        );
        assert!(!is_param_key(&"a".repeat(254)));
    }
}
