//! Each guarded namespace's facts, as the policy reads them from a ConfigMap's `data`, and
//! the policy binding that gives them for requests in that namespace:
//!
//! - `identity.<account>_<variant>`: the SPIFFE ID of the identity a pod of that account and
//!   variant holds, then the pool labels it must also carry, `key=value`, one a line (an
//!   account holds no `_`, so the key is the pair's alone);
//! - `<Kind>.<name>`: the SPIFFE IDs the package's object of that kind and name holds, one a
//!   line.
//!
//! A namespace whose facts pass [`SHARD_BYTES`] is cut into several ConfigMaps, each with
//! its own binding, by identity: each holds some identities and what declares them, and a
//! binding whose parameters do not know an identity lets its requests through to the one
//! that does.

use super::Identity;
use super::admits::{Declared, identity_key, is_param_key};
use crate::api::admission::{
    API_VERSION, BINDING_KIND, Binding, BindingSpec, CONFIG_MAP_KIND, GuardObject, MatchResources, Metadata,
    NamespaceSelector, ParamRef, Params,
};
use crate::config::{AdmissionGuard, GuardAction};
use std::collections::{BTreeMap, BTreeSet};

/// The most a ConfigMap of the guard holds, in bytes of keys and values: the API server
/// takes 1 MiB of `data` and 1.5 MiB of object; half of the first leaves room for the rest.
pub const SHARD_BYTES: usize = 512 * 1024;

/// The bindings and parameters of every namespace that holds an identity, namespace by
/// namespace; the identities whose key no ConfigMap can hold are left out (`admits.rs` says
/// so of their workloads).
/// Beside them, by binding position, the name of the ConfigMap that holds its identity's entry.
pub fn objects(
    guard: &AdmissionGuard,
    identities: &[Identity],
    declared: &[Declared],
) -> (Vec<GuardObject>, BTreeMap<usize, String>) {
    let mut by_namespace: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, id) in identities.iter().enumerate() {
        by_namespace.entry(&id.namespace).or_default().push(i);
    }
    // What declares each identity, found once for all namespaces.
    let mut holders: Vec<Vec<&Declared>> = vec![Vec::new(); identities.len()];
    for d in declared {
        for &i in &d.identities {
            holders[i].push(d);
        }
    }
    let (mut objects, mut placed) = (Vec::new(), BTreeMap::new());
    for (ns, mut members) in by_namespace {
        members.sort_by_key(|&i| (&identities[i].service_account, &identities[i].variant));
        for (shard, (data, held)) in shards(identities, &members, &holders).into_iter().enumerate() {
            let name = match shard {
                0 => format!("{}-{ns}", guard.name),
                n => format!("{}-{ns}.{}", guard.name, n + 1),
            };
            placed.extend(held.into_iter().map(|i| (identities[i].binding, name.clone())));
            objects.push(binding(guard, ns, &name));
            objects.push(GuardObject::Params(Box::new(Params {
                api_version: "v1",
                kind: CONFIG_MAP_KIND,
                metadata: Metadata::of(name, Some(guard.param_namespace.clone()), &guard.name, Some(ns)),
                data,
            })));
        }
    }
    (objects, placed)
}

/// A ConfigMap's data as it is gathered: the identities' entries, the SPIFFE IDs of each
/// object that declares one, and the identities it holds.
type Shard<'i> = (BTreeMap<String, String>, BTreeMap<String, BTreeSet<&'i str>>, Vec<usize>);

/// The data of each ConfigMap of one namespace, with the identities it holds: identities in
/// order, a new one started where the next identity and what declares it (`holders`, by
/// identity) would pass [`SHARD_BYTES`].
fn shards(
    identities: &[Identity],
    members: &[usize],
    holders: &[Vec<&Declared>],
) -> Vec<(BTreeMap<String, String>, Vec<usize>)> {
    let mut shards: Vec<Shard<'_>> = Vec::new();
    let mut size = 0;
    for &i in members {
        let id = &identities[i];
        let key = identity_key(&id.service_account, &id.variant);
        if !is_param_key(&key) {
            continue;
        }
        let mut entry = id.spiffe_id.clone();
        for (k, v) in &id.pool_labels {
            entry.push('\n');
            entry.push_str(k);
            entry.push('=');
            entry.push_str(v);
        }
        let adds = key.len()
            + entry.len()
            + holders[i]
                .iter()
                .map(|d| d.kind.kind.len() + d.name.len() + 2 + id.spiffe_id.len())
                .sum::<usize>();
        if shards.is_empty() || (size > 0 && size + adds > SHARD_BYTES) {
            shards.push(Default::default());
            size = 0;
        }
        let (entries, declared, held) = shards.last_mut().expect("a shard");
        entries.insert(key, entry);
        held.push(i);
        for d in &holders[i] {
            declared.entry(format!("{}.{}", d.kind.kind, d.name)).or_default().insert(&id.spiffe_id);
        }
        size += adds;
    }
    shards
        .into_iter()
        .map(|(mut entries, declared, held)| {
            entries.extend(
                declared.into_iter().map(|(k, ids)| (k, ids.into_iter().collect::<Vec<_>>().join("\n"))),
            );
            (entries, held)
        })
        .collect()
}

/// The binding that gives the ConfigMap `name` to the policy for requests in namespace `ns`.
fn binding(guard: &AdmissionGuard, ns: &str, name: &str) -> GuardObject {
    let action = match guard.action {
        GuardAction::Deny => "Deny",
        GuardAction::Warn => "Warn",
    };
    GuardObject::Binding(Box::new(Binding {
        api_version: API_VERSION,
        kind: BINDING_KIND,
        metadata: Metadata::of(name.to_string(), None, &guard.name, Some(ns)),
        spec: BindingSpec {
            policy_name: guard.name.clone(),
            validation_actions: vec![action],
            param_ref: ParamRef {
                name: name.to_string(),
                namespace: guard.param_namespace.clone(),
                // A namespace whose parameters are missing is closed, not open.
                parameter_not_found_action: "Deny",
            },
            match_resources: MatchResources { namespace_selector: NamespaceSelector::named(ns) },
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::super::controllers::DEPLOYMENT;
    use super::*;
    use crate::reconcile::findings::Ref;

    fn identity(account: &str, variant: &str) -> Identity {
        Identity {
            binding: 0,
            namespace: "ns".into(),
            name: "b".into(),
            service_account: account.into(),
            variant: variant.into(),
            pool_labels: vec![("app".into(), "m".into()), ("tier".into(), String::new())],
            spiffe_id: format!("spiffe://td/{account}/{variant}"),
        }
    }

    fn holders<'d>(ids: &[Identity], declared: &'d [Declared]) -> Vec<Vec<&'d Declared>> {
        (0..ids.len()).map(|i| declared.iter().filter(|d| d.identities.contains(&i)).collect()).collect()
    }

    fn deployment(name: &str, identities: &[usize]) -> Declared {
        Declared {
            kind: &DEPLOYMENT,
            namespace: "ns".into(),
            name: name.into(),
            identities: identities.iter().copied().collect(),
            about: Ref {
                item: 0,
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                namespace: Some("ns".into()),
                name: name.into(),
                path: None,
            },
        }
    }

    #[test]
    fn a_namespace_lists_its_identities_and_what_declares_them() {
        let ids = [identity("sa", "decode"), identity("sa", "prefill")];
        let declared = [deployment("both", &[0, 1]), deployment("d", &[0])];
        let members = [0, 1];
        let shards = shards(&ids, &members, &holders(&ids, &declared));
        assert_eq!(shards.len(), 1);
        let (data, held) = &shards[0];
        assert_eq!(held, &[0, 1]);
        assert_eq!(data["identity.sa_decode"], "spiffe://td/sa/decode\napp=m\ntier=");
        assert_eq!(data["Deployment.both"], "spiffe://td/sa/decode\nspiffe://td/sa/prefill");
        assert_eq!(data["Deployment.d"], "spiffe://td/sa/decode");
    }

    #[test]
    fn a_shard_holds_up_to_its_limit_exactly() {
        let bytes = |ids: &[Identity]| {
            let members: Vec<usize> = (0..ids.len()).collect();
            let shards = shards(ids, &members, &holders(ids, &[]));
            (
                shards.len(),
                shards.iter().flat_map(|(d, _)| d.iter()).map(|(k, v)| k.len() + v.len()).sum::<usize>(),
            )
        };
        let b = identity("b", "v");
        let (_, alone) = bytes(std::slice::from_ref(&b));
        let sized = |total: usize| {
            let mut a = identity("a", "v");
            let (_, now) = bytes(std::slice::from_ref(&a));
            a.spiffe_id.push_str(&"x".repeat(total - alone - now));
            [a, b.clone()]
        };
        assert_eq!(bytes(&sized(SHARD_BYTES)), (1, SHARD_BYTES), "at the limit, one");
        assert_eq!(bytes(&sized(SHARD_BYTES + 1)).0, 2, "past it, two");
    }

    #[test]
    fn a_large_namespace_is_cut_by_identity() {
        let ids: Vec<Identity> = (0..6000).map(|i| identity(&format!("sa{i:05}"), "v")).collect();
        let declared: Vec<Declared> =
            (0..6000).map(|i| deployment(&format!("workload-with-a-long-name-{i:05}"), &[i])).collect();
        let members: Vec<usize> = (0..ids.len()).collect();
        let shards = shards(&ids, &members, &holders(&ids, &declared));
        assert!(shards.len() > 1, "{}", shards.len());
        for (data, held) in &shards {
            for i in held {
                assert!(data.contains_key(&format!("identity.sa{i:05}_v")), "{i} is where it is said to be");
            }
            let bytes: usize = data.iter().map(|(k, v)| k.len() + v.len()).sum();
            assert!(bytes <= SHARD_BYTES, "{bytes}");
            // Each workload stands beside the identity it holds.
            for key in data.keys().filter(|k| k.starts_with("Deployment.")) {
                let n = &key[key.len() - 5..];
                assert!(data.contains_key(&format!("identity.sa{n}_v")), "{key}");
            }
        }
        assert_eq!(shards.iter().map(|(data, _)| data.len()).sum::<usize>(), 12000);
        assert_eq!(shards.iter().map(|(_, held)| held.len()).sum::<usize>(), 6000);
    }
}
