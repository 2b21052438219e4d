//! What coverage reads, gathered from the reconcile's own work: each binding's pool as it
//! resolves (rendered or not), the identities that render, and from the input the
//! workloads, declared service accounts, namespaces and other ClusterSPIFFEIDs.

use super::{Identity, PoolUse};
use crate::api::binding::BindingInput;
use crate::api::cluster_spiffe_id as csid;
use crate::api::labels::Labels;
use crate::api::pool::PoolApi;
use crate::api::value::Value;
use crate::api::{fields, names, pool};
use crate::reconcile::cluster::kserve;
use crate::reconcile::cluster::seen::{Federation, Other, Seen, Service};
use crate::reconcile::cluster::selector::Selector;
use crate::reconcile::items::input::{self, Input};
use crate::reconcile::rules::identity::hex;
use crate::reconcile::rules::renames::Renames;
use crate::reconcile::rules::resolve::{self, PoolIndex};
use crate::reconcile::rules::served::ServedApis;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The pool a binding uses, when its namespace is valid, its pool reference resolves and
/// the pool's selector is valid: the same resolution as check 1 and 2.
pub fn pool_use<'a>(
    binding: &BindingInput<'a>,
    pools: &PoolIndex<'a>,
    served: &ServedApis,
) -> Option<Arc<PoolUse>> {
    let namespace = binding.namespace.clone().ok().filter(|ns| names::dns1123_label(ns).is_ok())?;
    let resolved = resolve::resolve_pool(binding.value, namespace, pools, served).ok()?;
    let labels = pool::selector_labels(resolved.item).ok()?;
    let variant = fields::str_at(binding.value, "spec.identityBoundary.variant")
        .filter(|v| names::label_value(v).is_ok());
    Some(used(binding, namespace, (resolved.name, resolved.api), labels, variant))
}

/// The use by `binding` in `namespace` of `pool` (its name and API) with its selector
/// `labels`, for a binding that renders as its checks resolved it, or as [`pool_use`]
/// resolves it.
pub fn used(
    binding: &BindingInput<'_>,
    namespace: &str,
    (pool, pool_api): (&str, PoolApi),
    labels: Labels,
    variant: Option<&str>,
) -> Arc<PoolUse> {
    Arc::new(PoolUse {
        binding: binding.item,
        binding_name: binding.name.to_string(),
        namespace: namespace.to_string(),
        pool: pool.to_string(),
        pool_api,
        labels,
        variant: variant.map(str::to_string),
    })
}

/// The identity of a binding that renders as `output`.
pub fn identity(used: &Arc<PoolUse>, service_account: &str, variant: &str, output: String) -> Identity {
    Identity {
        used: Arc::clone(used),
        service_account: service_account.to_string(),
        variant: variant.to_string(),
        output,
    }
}

/// What the input holds for coverage: its workloads, declared service accounts, namespaces,
/// and the other ClusterSPIFFEIDs, each marked `committed` when `stays` says a render does
/// not keep it (this function's outputs it replaces or removes): applied as committed, they
/// reach pods all the same.
pub fn seen<'a>(items: &'a [Input], stays: impl Fn(&Value) -> bool) -> Seen<'a> {
    let mut seen = Seen::default();
    for ((position, input), workload) in items.iter().enumerate().zip(input::workloads(items)) {
        if let Some(workload) = workload {
            // The accounts KServe creates for an LLMInferenceService's pods are declared by it.
            if workload.kind() == kserve::SERVICE_KIND
                && let Some(ns) = workload.namespace()
            {
                for t in workload.templates() {
                    if kserve::creates_account(workload.name(), t.service_account()) {
                        seen.service_accounts.insert((ns.to_string(), t.service_account().to_string()));
                    }
                }
            }
            seen.workloads.push((position, workload));
        }
        let Some(value) = input.value() else { continue };
        let kind = fields::str_at(value, "kind").unwrap_or_default();
        let api_version = fields::str_at(value, "apiVersion").unwrap_or_default();
        let name = || fields::str_at(value, "metadata.name").unwrap_or_default().to_string();
        let flag = |pointer: &str| value.pointer(pointer).and_then(Value::as_bool) == Some(true);
        let texts = |paths: [&str; 2]| paths.map(|p| fields::str_at(value, p).map(str::to_string));
        match (api_version, kind) {
            ("v1", "ServiceAccount") => {
                let ns = fields::str_at(value, "metadata.namespace").unwrap_or("default").to_string();
                seen.service_accounts.insert((ns, name()));
            }
            ("v1", "Namespace") => {
                seen.namespaces.insert(name(), labels(value.pointer("/metadata/labels")));
            }
            ("v1", "Service") => {
                // The endpoints controller makes no Endpoints of an ExternalName Service,
                // selector or not (kubernetes pkg/controller/endpoint/endpoints_controller.go,
                // `syncService`).
                let external = fields::str_at(value, "spec.type") == Some("ExternalName");
                let selector = labels(value.pointer("/spec/selector"));
                if !selector.is_empty() && !external {
                    let namespace = fields::str_at(value, "metadata.namespace").filter(|ns| !ns.is_empty());
                    seen.services.push(Service {
                        item: position,
                        namespace: namespace.map(str::to_string),
                        name: name(),
                        selector,
                    });
                }
            }
            _ if csid::is_cluster_spiffe_id(value) => seen.others.push(Other {
                item: position,
                name: name(),
                fallback: value.pointer("/spec/fallback").and_then(Value::as_bool) == Some(true),
                pods: Selector::read(value.pointer("/spec/podSelector")),
                namespaces: Selector::read(value.pointer("/spec/namespaceSelector")),
                class_name: fields::str_at(value, "spec.className").unwrap_or_default().to_string(),
                labels: labels(value.pointer("/metadata/labels")),
                spiffe_id_template: fields::str_at(value, "spec.spiffeIDTemplate")
                    .unwrap_or_default()
                    .to_string(),
                selector_templates: strings(value.pointer("/spec/workloadSelectorTemplates")),
                dns_name_templates: strings(value.pointer("/spec/dnsNameTemplates")),
                federates_with: strings(value.pointer("/spec/federatesWith")),
                admin: flag("/spec/admin"),
                downstream: flag("/spec/downstream"),
                static_parent: None,
                ttls: texts(["spec.ttl", "spec.jwtTtl"]),
                committed: !stays(value),
                may_not_be_kept: crate::api::kept::may_not_be_kept(csid::KIND, value),
                auto_dns: flag("/spec/autoPopulateDNSNames"),
                store_svid: false,
                hint: fields::str_at(value, "spec.hint").unwrap_or_default().to_string(),
                refusal: csid::schema_refusal(csid::KIND, value),
            }),
            // A static entry is one entry, not one per pod: it reaches every pod on the node of
            // its parent whose selectors hold (docs/reference.md#what-spire-will-do).
            _ if csid::is_spire_kind(value, csid::STATIC_ENTRY_KIND) => seen.others.push(Other {
                item: position,
                name: name(),
                fallback: false,
                pods: Some(Selector::default()),
                namespaces: Some(Selector::default()),
                class_name: fields::str_at(value, "spec.className").unwrap_or_default().to_string(),
                labels: labels(value.pointer("/metadata/labels")),
                spiffe_id_template: fields::str_at(value, "spec.spiffeID").unwrap_or_default().to_string(),
                selector_templates: strings(value.pointer("/spec/selectors")),
                dns_name_templates: strings(value.pointer("/spec/dnsNames")),
                federates_with: strings(value.pointer("/spec/federatesWith")),
                admin: flag("/spec/admin"),
                downstream: flag("/spec/downstream"),
                static_parent: Some(fields::str_at(value, "spec.parentID").unwrap_or_default().to_string()),
                ttls: texts(["spec.x509SVIDTTL", "spec.jwtSVIDTTL"]),
                committed: false,
                may_not_be_kept: crate::api::kept::may_not_be_kept(csid::STATIC_ENTRY_KIND, value),
                auto_dns: false,
                store_svid: flag("/spec/storeSVID"),
                hint: fields::str_at(value, "spec.hint").unwrap_or_default().to_string(),
                refusal: csid::schema_refusal(csid::STATIC_ENTRY_KIND, value),
            }),
            _ if csid::is_spire_kind(value, csid::FEDERATED_TRUST_DOMAIN_KIND) => {
                let text = |path: &str| fields::str_at(value, path).unwrap_or_default().to_string();
                let profile = match (
                    text("spec.bundleEndpointProfile.type"),
                    text("spec.bundleEndpointProfile.endpointSPIFFEID"),
                ) {
                    (kind, id) if id.is_empty() => kind,
                    (kind, id) => format!("{kind} {id}"),
                };
                seen.federations.push(Federation {
                    item: position,
                    name: name(),
                    class_name: text("spec.className"),
                    trust_domain: text("spec.trustDomain"),
                    bundle_endpoint_url: text("spec.bundleEndpointURL"),
                    bundle_endpoint_profile: profile,
                    trust_domain_bundle: fields::str_at(value, "spec.trustDomainBundle").map(bundle_digest),
                    refusal: csid::schema_refusal(csid::FEDERATED_TRUST_DOMAIN_KIND, value),
                    may_not_be_kept: crate::api::kept::may_not_be_kept(
                        csid::FEDERATED_TRUST_DOMAIN_KIND,
                        value,
                    ),
                });
            }
            _ => {}
        }
    }
    seen
}

/// A federation's `trustDomainBundle` by digest (`sha256:<hex>`), over its JSON as
/// serde_json writes it back when it parses, so that spaces and line breaks are no change;
/// over the text as written when it does not (the manager then ignores the object, and the
/// gate errs towards a grant).
fn bundle_digest(text: &str) -> String {
    let json = serde_json::from_str::<serde_json::Value>(text).map(|v| v.to_string());
    let digest = Sha256::digest(json.as_deref().unwrap_or(text).as_bytes());
    format!("sha256:{}", hex(&digest))
}

/// The service accounts the templates of `seen` run as once kustomize has fixed name
/// references, where they differ from the names the templates carry now (a transformer sees
/// the ServiceAccount renamed, the templates not yet).
/// Takes in `seen` what an applier may leave unapplied (`seen.unapplied`, an Argo CD hook no
/// sync runs or that it deletes once run, a file it passes over, an object marked
/// local-config) beyond the workloads and SPIRE objects the model marks itself: a Namespace
/// so marked is one the input does not declare (its labels are the cluster's), a
/// ClusterFederatedTrustDomain one the cluster may not keep, a binding whose pool
/// (`pools_of`: by binding, its pool's position) is so marked renders only where it is
/// applied, and an `LLMInferenceServiceConfig` so marked makes KServe's services' pods `may`.
/// What they give is then `may`, never surely held (docs/review.md).
pub fn mark_unapplied(seen: &mut Seen<'_>, items: &[Input], pools_of: &[(usize, usize)]) {
    if seen.unapplied.is_empty() {
        return;
    }
    for &(binding, pool) in pools_of {
        if seen.unapplied.contains(&pool) {
            seen.unapplied.insert(binding);
        }
    }
    let mut preset_unapplied = false;
    for &position in &seen.unapplied {
        let Some(value) = items.get(position).and_then(Input::value) else { continue };
        let text = |path: &str| fields::str_at(value, path).unwrap_or_default();
        if (text("apiVersion"), text("kind")) == ("v1", "Namespace") {
            seen.namespaces.remove(text("metadata.name"));
        }
        preset_unapplied |= kserve::is_config(value);
    }
    // KServe refuses a service whose preset the cluster lacks (ConfigNotFound): where a preset
    // may be left unapplied, every LLMInferenceService's pods are `may`, whichever preset each
    // names.
    if preset_unapplied {
        let services: Vec<usize> = seen
            .workloads
            .iter()
            .filter(|(_, w)| w.kind() == kserve::SERVICE_KIND)
            .map(|(i, _)| *i)
            .collect();
        seen.unapplied.extend(services);
    }
    for federation in seen.federations.iter_mut().filter(|f| seen.unapplied.contains(&f.item)) {
        federation.may_not_be_kept.get_or_insert_with(|| {
            "an applier may leave it unapplied (an Argo CD hook or skipped file, or marked local-config), \
             which kubectl applies"
                .to_string()
        });
    }
}

pub fn renamed_accounts(seen: &Seen<'_>, accounts: &Renames<'_>) -> HashMap<(usize, usize), String> {
    let mut renamed = HashMap::new();
    for (item, workload) in &seen.workloads {
        // Only the kinds whose `serviceAccountName` kustomize's built-in nameReference
        // rewrites: any other (a LeaderWorkerSet, a custom resource) keeps the name it has,
        // and its pods run as that.
        let fixed = workload.owner().controller.is_some_and(|c| c.kustomize_fixes_account);
        let (Some(namespace), true) = (workload.namespace(), fixed) else {
            continue;
        };
        for (at, template) in workload.templates().iter().enumerate() {
            let name = template.service_account();
            let fixed = accounts.final_name(&Value::Null, namespace, name);
            if fixed != name {
                renamed.insert((*item, at), fixed.to_string());
            }
        }
    }
    renamed
}

/// The strings of a list.
fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| Some(v.as_str()?.to_string()))
        .collect()
}

fn labels(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.to_string(), v.as_str()?.to_string())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn pool(namespace: &str, name: &str, selector: Value) -> Input {
        Input::of(json!({
            "apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"selector": selector}
        }))
    }

    fn binding(namespace: &str, pool: &str, variant: &str) -> Value {
        json!({
            "metadata": {"name": "b", "namespace": namespace},
            "spec": {"poolRef": {"name": pool}, "identityBoundary": {"variant": variant}}
        })
    }

    /// A federation's bundle is known by digest: spaces and line breaks in its JSON are no
    /// change, another key is, and no bundle is none.
    #[test]
    fn a_federation_knows_its_bundle_by_digest_of_its_json() {
        let federation = |bundle: Option<&str>| {
            let mut spec = json!({"trustDomain": "partner.org", "bundleEndpointURL": "https://p.org/b"});
            if let Some(bundle) = bundle {
                spec = json!({"trustDomain": "partner.org", "bundleEndpointURL": "https://p.org/b", "trustDomainBundle": bundle});
            }
            let item = Input::of(json!({
                "apiVersion": "spire.spiffe.io/v1alpha1", "kind": "ClusterFederatedTrustDomain",
                "metadata": {"name": "partner"}, "spec": spec
            }));
            seen(&[item], |_| true).federations.remove(0).trust_domain_bundle
        };
        let one = federation(Some(r#"{"keys": [{"kty": "EC"}]}"#));
        assert!(one.as_deref().is_some_and(|d| d.starts_with("sha256:") && d.len() == 71), "{one:?}");
        assert_eq!(one, federation(Some("{\n  \"keys\":[ {\"kty\":\"EC\"} ]\n}\n")), "spaces");
        assert_ne!(one, federation(Some(r#"{"keys": [{"kty": "RSA"}]}"#)), "another key");
        assert_ne!(federation(Some("not json")), federation(Some("not  json")), "text as written");
        assert_eq!(federation(None), None);
    }

    /// An ExternalName Service gets no Endpoints, so its selector gives pods no DNS name.
    #[test]
    fn only_services_the_endpoints_controller_fills_give_dns_names() {
        let service = |kind: &str| {
            Input::of(json!({
                "apiVersion": "v1", "kind": "Service", "metadata": {"name": kind, "namespace": "serving"},
                "spec": {"type": kind, "selector": {"app": "llama"}, "externalName": "db.example.org"}
            }))
        };
        let items = [service("ExternalName"), service("ClusterIP")];
        let names: Vec<String> = seen(&items, |_| true).services.into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["ClusterIP"]);
    }

    /// A binding that does not render still uses the pool it resolves: coverage then warns
    /// of the pods that pool selects and that no identity of it reaches.
    #[test]
    fn a_binding_uses_the_pool_it_resolves_with_a_valid_selector() {
        let app = json!({"matchLabels": {"app": "llama"}});
        let items = vec![
            pool("serving", "llama", app.clone()),
            pool("Serving", "llama", app),
            pool("serving", "refused", json!({"matchExpressions": []})),
        ];
        let bindings = [
            binding("serving", "llama", "v1"),
            binding("serving", "llama", "not a label"),
            binding("Serving", "llama", "v1"),
            binding("serving", "missing", "v1"),
            binding("serving", "refused", "v1"),
        ];
        let pools = PoolIndex::build(&items).unwrap();
        let served = ServedApis::collect([], &[]);
        let use_of = |b: usize| pool_use(&BindingInput::read(3, &bindings[b]).unwrap(), &pools, &served);

        let used = use_of(0).expect("the pool resolves");
        assert_eq!((used.binding, used.binding_name.as_str(), used.namespace.as_str()), (3, "b", "serving"));
        assert_eq!((used.pool.as_str(), used.pool_api), ("llama", PoolApi::V1));
        assert_eq!(used.labels.iter().collect::<Vec<_>>(), [("app", "llama")]);
        assert_eq!(used.variant.as_deref(), Some("v1"));
        let odd = use_of(1).expect("the pool resolves");
        assert_eq!(odd.variant, None, "a variant that is no label value is no variant");

        for (b, why) in [
            (2, "a namespace that is no DNS label"),
            (3, "a pool the input lacks"),
            (4, "a pool whose selector is refused"),
        ] {
            assert!(use_of(b).is_none(), "{why}");
        }
    }
}
