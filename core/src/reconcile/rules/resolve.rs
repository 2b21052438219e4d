//! Pool resolution (docs/reference.md#pools, check 2 of #order-of-checks): the pool
//! reference is read, trimmed as the operator trims it, and looked up in the binding's
//! namespace among the served pool APIs. A name that is no object name can match no pool a
//! cluster admits. Beside the pools of the input stand those KServe will create for the
//! `LLMInferenceService`s of the input (`cluster/kserve/`), under every served API: under one
//! API, a pool of the input comes first.

use crate::api::fields;
use crate::api::names;
use crate::api::pool::{self, PoolApi};
use crate::api::value::Value;
use crate::reconcile::cluster::kserve;
use crate::reconcile::items::input::{self, Input};
use crate::reconcile::items::unusable::InputError;
use crate::reconcile::rules::not_found::PoolNames;
use crate::reconcile::rules::reason::{Failure, Reason};
use crate::reconcile::rules::renames::Renames;
use crate::reconcile::rules::served::ServedApis;
use std::collections::HashMap;

const NAME_FIELD: &str = "spec.poolRef.name";
const GROUP_FIELD: &str = "spec.poolRef.group";

/// The InferencePools of the input, by API, namespace and name; those KServe will create,
/// by namespace and name; their earlier names (kustomize renames); and all their names, for
/// not-found messages.
#[derive(Default)]
pub struct PoolIndex<'a> {
    /// Each pool with its position in the input.
    pools: HashMap<(PoolApi, &'a str, &'a str), (usize, &'a Value)>,
    /// Each pool KServe will create, as a pool item, with where it comes from.
    derived: HashMap<(String, String), (Value, String)>,
    /// The pool each service KServe refuses would have, by namespace and name: why KServe
    /// refuses it, and the service.
    refused: HashMap<(String, String), String>,
    renames: Renames<'a>,
    names: PoolNames<'a>,
}

impl<'a> PoolIndex<'a> {
    /// Indexes the pools; two pools with the same API, namespace and name are unusable input.
    pub fn build(items: &'a [Input]) -> Result<Self, InputError> {
        let mut pools = HashMap::new();
        for (i, item) in input::values(items) {
            let Some(api) = PoolApi::of_item(item) else {
                continue;
            };
            let (Some(ns), Some(name)) =
                (fields::str_at(item, "metadata.namespace"), fields::str_at(item, "metadata.name"))
            else {
                // A pool without namespace or name cannot be referenced; it passes through.
                continue;
            };
            if let Some((first, _)) = pools.insert((api, ns, name), (i, item)) {
                let message = format!(
                    "InferencePool {ns:?}/{name:?} ({}) appears twice in the input",
                    api.api_version()
                );
                return Err(InputError::repeating(i, first, message));
            }
        }
        let renames = Renames::build(items, pool::KIND, |item| {
            item.get("kind").and_then(Value::as_str) == Some(pool::KIND)
        })
        .map_err(InputError::from)?;
        let services = kserve::derive_all(&input::values(items).collect::<Vec<_>>());
        let derived = services
            .iter()
            .filter_map(|(_, d)| {
                let pool = d.pool_item()?;
                let name = fields::str_at(&pool, "metadata.name")?.to_string();
                Some(((d.namespace.clone()?, name), (Value::from(pool), d.origin())))
            })
            .collect();
        let refused = services
            .iter()
            .filter_map(|(_, d)| {
                let kserve::Pool::Refused(why) = &d.pool else { return None };
                let pool = kserve::child_name(&d.name, "-inference-pool");
                let message = format!(
                    "InferencePool {pool:?} is the one KServe would create for LLMInferenceService {}, which \
                     KServe refuses, so it creates neither pool nor pods: {why}",
                    d.describe()
                );
                Some(((d.namespace.clone()?, pool), message))
            })
            .collect();
        let names = PoolNames::build(items, services.into_iter().map(|(_, d)| d).collect());
        Ok(PoolIndex { pools, derived, refused, renames, names })
    }
}

/// A resolved pool: its API, name and the item itself, and where it comes from when KServe
/// will create it.
pub struct ResolvedPool<'a, 'p> {
    pub api: PoolApi,
    pub name: &'a str,
    pub item: &'p Value,
    pub origin: Option<&'p str>,
    /// Its input position; `None` for a pool KServe will create.
    pub position: Option<usize>,
    /// Whether the input holds a pool of that name under an API the binding prefers that
    /// the input says the cluster does not serve: a cluster that serves it resolves that one.
    pub shadowed: bool,
}

/// Check 2: `InvalidPoolRef`, then `InferencePoolCRDMissing`, then `TargetPoolNotFound`.
pub fn resolve_pool<'a, 'p>(
    binding: &'a Value,
    namespace: &str,
    pools: &'p PoolIndex<'a>,
    served: &ServedApis,
) -> Result<ResolvedPool<'a, 'p>, Failure> {
    let invalid = |field, message: String| Failure::at(Reason::InvalidPoolRef, field, message);
    let written = fields::required_str(binding, NAME_FIELD).map_err(|m| invalid(NAME_FIELD, m))?;
    // The operator's CRD admits padding around the name, and the operator trims it
    // (`BindingPoolRef`): the same binding must find the same pool here.
    let trimmed = written.trim();
    if trimmed.is_empty() {
        return Err(invalid(
            NAME_FIELD,
            format!("{NAME_FIELD} {written:?} is empty once trimmed: name the InferencePool to bind"),
        ));
    }
    // Under kustomize, the pool's final name (namePrefix, nameSuffix).
    let (reference, name) = (trimmed, pools.renames.final_name(binding, namespace, trimmed));
    let group = fields::optional_str(binding, GROUP_FIELD).map_err(|m| invalid(GROUP_FIELD, m))?;
    let candidates: Vec<PoolApi> = match group.filter(|g| !g.is_empty()) {
        None => PoolApi::PREFERENCE.to_vec(),
        Some(g) => vec![PoolApi::for_group(g).ok_or_else(|| {
            invalid(
                GROUP_FIELD,
                format!(
                    "{GROUP_FIELD} {g:?} is not a supported InferencePool group: use {} or {}",
                    PoolApi::V1.group(),
                    PoolApi::V1Alpha2.group()
                ),
            )
        })?],
    };
    let served_apis: Vec<PoolApi> = candidates
        .iter()
        .copied()
        .filter(|api| served.serves(api.group(), api.version(), pool::KIND))
        .collect();
    let listed = |apis: &[PoolApi]| apis.iter().map(|a| a.api_version()).collect::<Vec<_>>().join(", ");
    if served_apis.is_empty() {
        return Err(Failure::new(
            Reason::InferencePoolCRDMissing,
            format!(
                "the target cluster serves no InferencePool API this binding can use (wanted {}): \
                 install the GAIE CRD or list the API in apiVersions",
                listed(&candidates)
            ),
        ));
    }
    if let Err(e) = names::dns1123_subdomain(name) {
        return Err(Failure::at(
            Reason::TargetPoolNotFound,
            NAME_FIELD,
            format!(
                "InferencePool {name:?} can match no pool in namespace {namespace}: it is no object name \
                 ({e}); fix {NAME_FIELD}"
            ),
        ));
    }
    // Whether the input holds a pool of that name under `api`.
    let held = |api: PoolApi| pools.pools.contains_key(&(api, namespace, name));
    // KServe creates its pool in every served pool API (`scheduler.go` lines 221-260), so
    // under an API the binding prefers it stands before a pool of the input under a later one.
    let derived = |api: PoolApi| {
        let (item, origin) = pools.derived.get(&(namespace.to_string(), name.to_string()))?;
        Some(ResolvedPool { api, name, item, origin: Some(origin), position: None, shadowed: false })
    };
    served_apis
        .iter()
        .find_map(|&api| {
            let Some(&(position, item)) = pools.pools.get(&(api, namespace, name)) else {
                return derived(api);
            };
            // The candidates stand in the binding's order of preference.
            let preferred = candidates.iter().take_while(|c| **c != api);
            let shadowed = preferred.into_iter().any(|c| held(*c));
            Some(ResolvedPool { api, name, item, origin: None, position: Some(position), shadowed })
        })
        .ok_or_else(|| {
            let message = match pools.refused.get(&(namespace.to_string(), name.to_string())) {
                Some(refused) => refused.clone(),
                None => pools.names.message(name, reference, namespace, &served_apis),
            };
            // A pool of that name under an API the input says the cluster does not serve: a
            // cluster that serves it (the kleym operator reads the cluster's) may render.
            let unserved = candidates.iter().any(|api| held(*api));
            Failure { unserved, ..Failure::at(Reason::TargetPoolNotFound, NAME_FIELD, message) }
        })
}
