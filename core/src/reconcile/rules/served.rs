//! Which APIs the target cluster serves (docs/reference.md#served-apis): from the
//! functionConfig, `KUBE_API_VERSIONS` and the CustomResourceDefinitions in the input. With
//! no source, every API is taken as served.

use crate::api::cluster_spiffe_id as csid;
use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::rules::reason::{Failure, Reason};
use std::collections::HashSet;

#[derive(Debug, Default)]
pub struct ServedApis {
    /// `None`: no source said anything, so everything is served.
    known: Option<Known>,
}

#[derive(Debug, Default)]
struct Known {
    /// `group/version` served for every kind.
    versions: HashSet<String>,
    /// `group/version/Kind` served for that kind only.
    kinds: HashSet<String>,
}

impl ServedApis {
    /// Collects the served APIs from listed entries and from CRD items.
    pub fn collect<'a, 'v>(
        listed: impl IntoIterator<Item = &'a str>,
        items: impl IntoIterator<Item = &'v Value>,
    ) -> Self {
        let mut known = Known::default();
        let mut any = false;
        for entry in listed {
            any = true;
            match entry.matches('/').count() {
                2 => known.kinds.insert(entry.to_string()),
                _ => known.versions.insert(entry.to_string()),
            };
        }
        for item in items.into_iter().filter(|i| is_crd(i)) {
            any = true;
            let Some(group) = fields::str_at(item, "spec.group") else {
                continue;
            };
            let kind = fields::str_at(item, "spec.names.kind");
            let Some(Value::Array(versions)) = item.pointer("/spec/versions") else {
                continue;
            };
            for version in versions {
                let served = version.get("served").and_then(Value::as_bool).unwrap_or(true);
                if let (true, Some(name)) = (served, version.get("name").and_then(Value::as_str)) {
                    match kind {
                        Some(kind) => known.kinds.insert(format!("{group}/{name}/{kind}")),
                        None => known.versions.insert(format!("{group}/{name}")),
                    };
                }
            }
        }
        ServedApis { known: any.then_some(known) }
    }

    /// Whether `group/version` serves `kind`.
    pub fn serves(&self, group: &str, version: &str, kind: &str) -> bool {
        let Some(known) = &self.known else {
            return true;
        };
        let gv = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
        known.kinds.contains(&format!("{gv}/{kind}")) || known.versions.contains(&gv)
    }
}

fn is_crd(item: &Value) -> bool {
    fields::str_at(item, "kind") == Some("CustomResourceDefinition")
        && fields::str_at(item, "apiVersion").is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
}

/// Splits `KUBE_API_VERSIONS` (comma-separated) into entries.
pub fn split_list(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// Check 9: the failure of every binding that passed checks 1 to 8 when the target cluster
/// does not serve the ClusterSPIFFEID API; `None` when it does.
pub fn cluster_spiffe_id_missing(served: &ServedApis) -> Option<Failure> {
    if served.serves(csid::GROUP, csid::VERSION, csid::KIND) {
        return None;
    }
    Some(Failure::new(
        Reason::ClusterSPIFFEIDCRDMissing,
        format!(
            "the target cluster does not serve {}/{}: install SPIRE Controller Manager's CRD or list the API \
             in apiVersions",
            csid::API_VERSION,
            csid::KIND
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn nothing_known_serves_everything() {
        assert!(ServedApis::collect([], &[]).serves("any.io", "v9", "Thing"));
    }

    #[test]
    fn listed_versions_and_kinds() {
        let s = ServedApis::collect(["v1", "apps/v1", "spire.spiffe.io/v1alpha1/ClusterSPIFFEID"], &[]);
        assert!(s.serves("", "v1", "ConfigMap"));
        assert!(s.serves("apps", "v1", "Deployment"));
        assert!(s.serves("spire.spiffe.io", "v1alpha1", "ClusterSPIFFEID"));
        assert!(!s.serves("spire.spiffe.io", "v1alpha1", "ClusterFederatedTrustDomain"));
        assert!(!s.serves("inference.networking.k8s.io", "v1", "InferencePool"));
    }

    #[test]
    fn only_apiextensions_crds_count() {
        let crd = |api_version: &str| {
            json!({
                "apiVersion": api_version, "kind": "CustomResourceDefinition",
                "spec": {"group": "spire.spiffe.io", "names": {"kind": "ClusterSPIFFEID"},
                         "versions": [{"name": "v1alpha1", "served": true}]}
            })
        };
        // Outside apiextensions.k8s.io the item is no CRD: nothing is known, all is served.
        let s = ServedApis::collect([], &[crd("example.com/v1")]);
        assert!(s.serves("inference.networking.k8s.io", "v1", "InferencePool"));
        let s = ServedApis::collect([], &[crd("apiextensions.k8s.io/v1")]);
        assert!(!s.serves("inference.networking.k8s.io", "v1", "InferencePool"));
        assert!(s.serves("spire.spiffe.io", "v1alpha1", "ClusterSPIFFEID"));
        let other_kind = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "APIService"});
        assert!(ServedApis::collect([], &[other_kind]).serves("x.io", "v1", "X"));
    }

    #[test]
    fn crds_serve_their_served_versions() {
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "spec": {"group": "inference.networking.k8s.io", "names": {"kind": "InferencePool"},
                     "versions": [{"name": "v1", "served": true}, {"name": "v1beta1", "served": false}]}
        });
        let s = ServedApis::collect([], &[crd]);
        assert!(s.serves("inference.networking.k8s.io", "v1", "InferencePool"));
        assert!(!s.serves("inference.networking.k8s.io", "v1beta1", "InferencePool"));
        assert!(!s.serves("spire.spiffe.io", "v1alpha1", "ClusterSPIFFEID"));
    }
}
