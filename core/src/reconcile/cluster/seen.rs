//! What the model and coverage read of the cluster the input describes, beside the bindings:
//! the workloads and their pod templates, service accounts, namespaces, the other
//! ClusterSPIFFEIDs and static entries, and the federations.

use super::selector::Selector;
use super::workload::Workload;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Another ClusterSPIFFEID the input holds (not this run's render): it selects pods too.
#[derive(Debug, Clone)]
pub struct Other {
    pub item: usize,
    pub name: String,
    pub fallback: bool,
    /// `None` when a selector cannot be read.
    pub pods: Option<Selector>,
    pub namespaces: Option<Selector>,
    /// `spec.className`, empty when none.
    pub class_name: String,
    /// `metadata.labels`, those with a string value: a manager's label selector reads them.
    pub labels: BTreeMap<String, String>,
    pub spiffe_id_template: String,
    pub selector_templates: Vec<String>,
    pub dns_name_templates: Vec<String>,
    pub federates_with: Vec<String>,
    /// `spec.admin` and `spec.downstream`: powers its entries carry.
    pub admin: bool,
    pub downstream: bool,
    /// For a ClusterStaticEntry (its SPIFFE ID, selectors and DNS names stand in the template
    /// fields, as text): its `spec.parentID`.
    pub static_parent: Option<String>,
    /// The X.509 and JWT SVID lifetimes it asks for (`ttl`, `jwtTtl`; a static entry's
    /// `x509SVIDTTL`, `jwtSVIDTTL`), as written.
    pub ttls: [Option<String>; 2],
    /// Whether it is one of this function's outputs that a render replaces or removes: it is
    /// applied only when the folder is applied as committed, without a render first.
    pub committed: bool,
    /// Why the cluster may not keep it though the manifests declare it
    /// (`api::kept::may_not_be_kept`): an owner, a field its schema does not know.
    pub may_not_be_kept: Option<String>,
    /// `spec.autoPopulateDNSNames`: its entries carry the DNS names of the Services whose
    /// endpoints are the pod.
    pub auto_dns: bool,
    /// A ClusterStaticEntry's `spec.storeSVID`: the SPIRE server hands its SVID and key to an
    /// SVIDStore plugin, out of the cluster.
    pub store_svid: bool,
    /// Its `spec.hint`, which the SPIRE server bounds.
    pub hint: String,
    /// Why the API server refuses the object (`csid::schema_refusal`), if it does: then the
    /// cluster never holds it.
    pub refusal: Option<String>,
}

/// A Service of the input that selects pods: the endpoints controller makes its Endpoints of
/// the pods its selector picks in its namespace, and SPIRE Controller Manager gives an entry
/// with `autoPopulateDNSNames` those endpoints' DNS names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// Its input position.
    pub item: usize,
    /// `None`: the item names no namespace.
    pub namespace: Option<String>,
    pub name: String,
    pub selector: BTreeMap<String, String>,
}

/// A ClusterFederatedTrustDomain of the input: SPIRE fetches the bundle of another trust
/// domain from its endpoint and hands it to workloads, which then trust its identities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Federation {
    pub item: usize,
    pub name: String,
    pub class_name: String,
    pub trust_domain: String,
    pub bundle_endpoint_url: String,
    /// `https_web`, or `https_spiffe <endpointSPIFFEID>`.
    pub bundle_endpoint_profile: String,
    /// The `trustDomainBundle` it carries, by digest: SPIRE takes it as the foreign trust
    /// domain's bundle whenever the manager creates or updates the relationship.
    pub trust_domain_bundle: Option<String>,
    /// Why the API server refuses the object (`csid::schema_refusal`), if it does.
    pub refusal: Option<String>,
    /// Why the cluster may not keep it (`api::kept::may_not_be_kept`), if it may not.
    pub may_not_be_kept: Option<String>,
}

/// What coverage reads beside the identities and pool uses.
#[derive(Default)]
pub struct Seen<'a> {
    /// Items with pod templates, by input position.
    pub workloads: Vec<(usize, Cow<'a, Workload>)>,
    /// Declared service accounts: (namespace, name).
    pub service_accounts: BTreeSet<(String, String)>,
    /// Namespace objects: name to labels.
    pub namespaces: HashMap<String, BTreeMap<String, String>>,
    pub others: Vec<Other>,
    pub federations: Vec<Federation>,
    /// The Services with a selector.
    pub services: Vec<Service>,
    /// By (item position, template index): the service account a template's pods run as
    /// once kustomize has fixed name references, where that differs from what it says now.
    pub accounts: HashMap<(usize, usize), String>,
    /// By item position, the workloads an applier may leave unapplied
    /// ([`crate::reconcile::context::Context::unapplied`]).
    pub unapplied: std::collections::BTreeSet<usize>,
}

impl Seen<'_> {
    /// Places every workload whose item names no namespace in `namespace`, where `kubectl
    /// -n` or an Argo CD application's destination puts it.
    pub fn place_namespaceless(&mut self, namespace: &str) {
        for (_, workload) in &mut self.workloads {
            if workload.namespace().is_none() {
                *workload = Cow::Owned(workload.placed_in(namespace));
            }
        }
    }
}
