//! The admission guard (docs/security.md#the-admission-guard): from the identities the
//! bindings render and the workloads of the input, the ValidatingAdmissionPolicy, its
//! bindings and parameters that let only those workloads, and what trusted controllers make
//! of them, hold the identities in the cluster. Pure: it reads the run's facts and returns
//! objects and findings, which the reconcile places among the outputs (`outputs/guard.rs`).
//!
//! - `controllers.rs`: the kinds it judges and the controllers it trusts, one table;
//! - `cel.rs`, `policy.rs`: the policy's expressions, made from that table;
//! - `admits.rs`: which objects of the input hold which identity;
//! - `params.rs`: each namespace's parameters and binding.

mod admits;
mod cel;
pub mod controllers;
mod params;
mod policy;

pub use admits::{Declared, is_param_key};
pub use params::SHARD_BYTES;

use crate::api::admission::GuardObject;
use crate::config::{AdmissionGuard, Config, ConfigError, GuardAction};
use crate::reconcile::cluster::workload::Workload;
use crate::reconcile::findings::{Finding, Ref};
use std::collections::BTreeMap;

/// An identity a binding renders, as the guard reads pods for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The binding's position in the input.
    pub binding: usize,
    pub namespace: String,
    /// The binding's name.
    pub name: String,
    pub service_account: String,
    pub variant: String,
    /// The pool's labels, sorted by key.
    pub pool_labels: Vec<(String, String)>,
    pub spiffe_id: String,
}

/// What the guard of a run is: its objects, what it says of the workloads it cannot admit,
/// and what `explain` shows of it.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    pub objects: Vec<GuardObject>,
    pub findings: Vec<Finding>,
    pub summary: Summary,
}

/// What the guard admits, for reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub name: String,
    pub action: GuardAction,
    pub param_namespace: String,
    /// Each controller and the user name it is trusted under.
    pub controllers: Vec<(&'static str, String)>,
    /// By binding position: the objects of the input the guard admits its identity's pods of
    /// (their controllers' objects beside them).
    pub admits: BTreeMap<usize, Vec<Ref>>,
    /// By binding position: the ConfigMap that holds its identity's entry (one of several
    /// where a namespace's parameters are cut).
    pub parameters: BTreeMap<usize, String>,
    /// Whether the input commits objects of the guard (a folder that holds its render), set
    /// beside the records of what they admit that it does not (`unjudged::guard_edits`).
    pub committed: bool,
}

/// Refuses an `admissionGuard.controllers` key that names no controller the guard knows.
pub fn check(config: &Config) -> Result<(), ConfigError> {
    let Some(guard) = &config.admission_guard else { return Ok(()) };
    let known = controllers::keys();
    match guard.controllers.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => Err(ConfigError {
            field: guard.controllers_field.clone(),
            message: format!("{key:?} is no controller the admission guard knows: use {}", known.join(", ")),
        }),
    }
}

/// Each controller's user name: the one given, else its default.
fn users(guard: &AdmissionGuard) -> BTreeMap<&'static str, String> {
    controllers::CONTROLLERS
        .iter()
        .map(|c| (c.key, guard.controllers.get(c.key).cloned().unwrap_or_else(|| c.user.to_string())))
        .collect()
}

/// The guard of `identities` over `workloads` (each with its input position); `namespace`
/// is where workloads that name none land, when the caller knows.
pub fn render(
    guard: &AdmissionGuard,
    identities: &[Identity],
    workloads: &[(usize, &Workload)],
    namespace: Option<&str>,
) -> Guard {
    let users = users(guard);
    let (declared, findings) = admits::declared(identities, workloads, namespace);
    let mut objects = vec![policy::policy(&guard.name, &users)];
    let (params, parameters) = params::objects(guard, identities, &declared);
    objects.extend(params);
    let mut admits: BTreeMap<usize, Vec<Ref>> = BTreeMap::new();
    for d in &declared {
        for &i in &d.identities {
            admits.entry(identities[i].binding).or_default().push(d.about.clone());
        }
    }
    let summary = Summary {
        name: guard.name.clone(),
        action: guard.action,
        param_namespace: guard.param_namespace.clone(),
        controllers: controllers::keys().into_iter().map(|k| (k, users[k].clone())).collect(),
        admits,
        parameters,
        committed: false,
    };
    Guard { objects, findings, summary }
}
