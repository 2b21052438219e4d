//! The per-binding checks, in the order of docs/reference.md#order-of-checks: namespace,
//! then the operator's order (identity boundary, pool reference, pool selector, trust
//! domain, service account, selector set, SPIFFE ID). The first failure is the binding's
//! one failure.

use crate::api::binding::BindingInput;
use crate::api::labels::Labels;
use crate::api::names;
use crate::api::pool::PoolApi;
use crate::api::{fields, pool};
use crate::reconcile::rules::identity;
use crate::reconcile::rules::reason::{Failure, Reason};
use crate::reconcile::rules::renames::Renames;
use crate::reconcile::rules::resolve::{self, PoolIndex};
use crate::reconcile::rules::served::ServedApis;

const NAMESPACE_FIELD: &str = "metadata.namespace";
const VARIANT_FIELD: &str = "spec.identityBoundary.variant";
const SA_FIELD: &str = "spec.serviceAccountName";

/// What checks 1 to 7 produce for a binding that passes them.
#[derive(Debug, Clone)]
pub struct Planned<'a> {
    pub namespace: &'a str,
    /// The pool the binding resolved to: its final name and its API.
    pub pool: &'a str,
    pub pool_api: PoolApi,
    /// Where the pool comes from when KServe will create it ([`crate::reconcile::cluster::kserve`]).
    pub pool_origin: Option<String>,
    /// The pool's input position; `None` for one KServe will create.
    pub pool_position: Option<usize>,
    /// Whether a cluster serving an API the input leaves out would resolve another pool
    /// ([`resolve::ResolvedPool::shadowed`]).
    pub pool_shadowed: bool,
    pub service_account: &'a str,
    pub variant: &'a str,
    pub pool_labels: Labels,
    pub spiffe_id: String,
    pub selectors: Vec<String>,
}

/// Everything the checks read beside the binding.
pub struct Inputs<'i, 'a> {
    pub pools: &'i PoolIndex<'a>,
    pub served: &'i ServedApis,
    pub trust_domain: Option<&'i str>,
    /// Earlier names of the service accounts (kustomize renames).
    pub service_accounts: &'i Renames<'a>,
}

/// Runs the checks in order and returns the first failure.
pub fn evaluate<'a>(binding: &BindingInput<'a>, inputs: &Inputs<'_, 'a>) -> Result<Planned<'a>, Failure> {
    let value = binding.value;

    // Before any other check: without a valid namespace the namespace selector cannot exist.
    let namespace = binding
        .namespace
        .clone()
        .and_then(|ns| names::dns1123_label(ns).map(|()| ns).map_err(|e| format!("{NAMESPACE_FIELD} {ns:?} {e}")))
        .map_err(|m| {
            Failure::at(
                Reason::UnsafeSelector,
                NAMESPACE_FIELD,
                format!("{m}; the namespace selector k8s:ns:<namespace> cannot be rendered without a valid namespace, and it is never guessed"),
            )
        })?;

    // 1. The identity boundary: the operator validates it before it resolves the pool.
    let variant = fields::required_str(value, VARIANT_FIELD)
        .and_then(|v| names::label_value(v).map(|()| v).map_err(|e| format!("{VARIANT_FIELD} {v:?} {e}")))
        .map_err(|m| Failure::at(Reason::InvalidIdentityBoundary, VARIANT_FIELD, m))?;

    // 2. InvalidRef.
    let pool = resolve::resolve_pool(value, namespace, inputs.pools, inputs.served)?;

    // 3. The pool selector.
    let pool_labels = pool::selector_labels(pool.item).map_err(|m| {
        let origin = pool.origin.map(|o| format!(" ({o})")).unwrap_or_default();
        Failure::new(
            Reason::InvalidPoolSelector,
            format!("InferencePool {namespace}/{} ({}): {m}{origin}", pool.name, pool.api.api_version()),
        )
    })?;
    let pool_origin = pool.origin.map(str::to_string);

    // 4. The trust domain.
    let trust_domain = inputs.trust_domain.ok_or_else(|| {
        Failure::new(
            Reason::MissingTrustDomain,
            "no trust domain is configured (trustDomain), so no SPIFFE ID can be rendered".to_string(),
        )
    })?;

    // 5. The service account, under its final name.
    let service_account = fields::required_str(value, SA_FIELD)
        .map(|sa| inputs.service_accounts.final_name(value, namespace, sa))
        .and_then(|v| names::dns1123_subdomain(v).map(|()| v).map_err(|e| format!("{SA_FIELD} {v:?} {e}")))
        .map_err(|m| Failure::at(Reason::InvalidServiceAccountName, SA_FIELD, m))?;

    // 6. The selector set.
    let selectors = identity::selectors(namespace, service_account, &pool_labels, variant);
    identity::check_selector_set(&selectors, namespace, service_account, variant).map_err(|m| {
        Failure::new(
            Reason::UnsafeSelector,
            format!("{m} (from InferencePool {namespace}/{} labels)", pool.name),
        )
    })?;

    // 7. The SPIFFE ID.
    let spiffe_id = identity::spiffe_id(trust_domain, namespace, service_account, pool.name, variant);
    identity::validate_spiffe_id(&spiffe_id).map_err(|m| Failure::new(Reason::InvalidSPIFFEID, m))?;

    let (pool_position, pool_shadowed) = (pool.position, pool.shadowed);
    let (pool, pool_api) = (pool.name, pool.api);
    Ok(Planned {
        namespace,
        pool,
        pool_api,
        pool_origin,
        pool_position,
        pool_shadowed,
        service_account,
        variant,
        pool_labels,
        spiffe_id,
        selectors,
    })
}
