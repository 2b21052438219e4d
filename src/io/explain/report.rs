//! The report `explain -o json` writes and `diff` reads back as a side: one set of types for
//! both directions (docs/reference.md#explain). Reading is strict: every field typed and
//! required, no other allowed, so a document that is not a report is refused naming the
//! field instead of read as "nothing there".

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::reconcile::findings::Kind;
use crate::reconcile::findings::Severity;
use crate::reconcile::spire::Unsure;

/// The stable document `-o json` prints.
#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// The config file used (`--config`, or a Kptfile's `configPath` with the Kptfile),
    /// `configMap of KPTFILE`, or null when flags and variables alone set the run.
    #[serde(deserialize_with = "required")]
    pub config: Option<String>,
    pub bindings: Vec<BindingReport>,
    /// Every pod template of the input with a namespace: what SPIRE gives its pods.
    pub workloads: Vec<HeldReport>,
    pub findings: Vec<FindingReport>,
    /// Every pod template of the input that gets a SPIFFE ID, with the IDs it gets: what
    /// `diff` compares, from a saved report too.
    pub reach: Vec<Reach>,
    /// The ClusterStaticEntries of the input, by name. Missing in a report saved before it
    /// was written, and then read as none (`diff` refuses such a report as HEAD).
    #[serde(default, rename = "staticEntries")]
    pub static_entries: Vec<StaticEntryReport>,
    /// The ClusterFederatedTrustDomains of the input, by name; missing as `staticEntries`.
    #[serde(default, rename = "federatedTrustDomains")]
    pub federated_trust_domains: Vec<FederationReport>,
    /// What the build cannot judge exactly and that could reach an identity: items and files
    /// (docs/review.md, "What the gate cannot judge"). `diff` counts one HEAD has and BASE has
    /// not as a possible grant. Missing in a report saved before it was written: read as none
    /// (`diff` refuses such a report as HEAD).
    #[serde(default)]
    pub unjudged: Vec<UnjudgedReport>,
    /// Every ClusterSPIFFEID and ClusterStaticEntry the model read, by name: an object HEAD
    /// shares with BASE is older than one HEAD adds, and the manager keeps the oldest of those
    /// that declare one entry. Missing in a report saved before it was written: read as none.
    #[serde(default, rename = "spireObjectNames")]
    pub object_names: Vec<String>,
    /// The admission guard the run writes; absent when it writes none.
    #[serde(default, rename = "admissionGuard", skip_serializing_if = "Option::is_none")]
    pub admission_guard: Option<GuardReport>,
    /// The SPIRE its config describes: `diff` judges HEAD by a saved BASE's, as by a BASE
    /// folder's config. Missing in a report saved before it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spire: Option<SpireReport>,
}

/// The SPIRE a run's config describes: its Controller Manager's settings, as a config writes
/// them, and its trust domain.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SpireReport {
    pub controller_manager: crate::config::SpireManagerSpec,
    pub trust_domain: Option<String>,
}

/// The admission guard of a run: its policy, what its bindings do, where its parameters
/// are, and the user name it trusts each controller under.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GuardReport {
    pub name: String,
    /// `Deny` or `Warn`.
    pub action: String,
    pub param_namespace: String,
    pub controllers: BTreeMap<String, String>,
    /// Whether the folder commits the guard's objects (its render written into the files);
    /// missing in a report saved before it was written: read as not.
    #[serde(default)]
    pub committed: bool,
}

/// Something the build cannot judge exactly that could reach an identity: an item, or a file
/// (a Kptfile's pipeline, a file kpt passes over).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UnjudgedReport {
    /// Where it is, as messages name it; not saved.
    #[serde(skip)]
    pub at: Option<At>,
    /// A file's path, relative to the folder given it was found under; null for an item.
    #[serde(deserialize_with = "required")]
    pub file: Option<String>,
    /// An item; null for a file.
    #[serde(deserialize_with = "required")]
    pub object: Option<WorkloadRef>,
    /// Where in it: a field's path, empty for the whole of it.
    pub field: String,
    pub message: String,
    /// SHA-256, hex, of what it depends on: its content and the identities it may reach.
    pub digest: String,
    /// Whether it is a copy of an object declared more than once: required of a saved report,
    /// as one without it could not say which of BASE's records HEAD may not drop.
    pub copy: bool,
}

impl UnjudgedReport {
    /// What tells one record from another: the same file or item, field and digest is the
    /// same unknown.
    pub fn key(&self) -> (Option<&str>, Option<&WorkloadRef>, &str, &str) {
        (self.file.as_deref(), self.object.as_ref(), &self.field, &self.digest)
    }

    /// `file` or `Kind namespace/name`, and `, field` when it names one.
    pub fn words(&self) -> String {
        let what = match (&self.file, &self.object) {
            (Some(file), _) => file.clone(),
            // A List needs no name: kubectl applies its items.
            (None, Some(o)) if o.name.is_empty() => o.kind.clone(),
            (None, Some(o)) => match &o.namespace {
                Some(ns) => format!("{} {ns}/{}", o.kind, o.name),
                None => format!("{} {}", o.kind, o.name),
            },
            (None, None) => String::new(),
        };
        if self.field.is_empty() { what } else { format!("{what}, {}", self.field) }
    }
}

/// A ClusterStaticEntry: one entry SPIRE Controller Manager makes as written.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StaticEntryReport {
    /// Where it starts.
    #[serde(skip)]
    pub at: Option<At>,
    pub name: String,
    /// Whether the configured manager reads it (class rules) and can parse it.
    pub read: bool,
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    #[serde(rename = "parentID")]
    pub parent_id: String,
    pub selectors: Vec<String>,
    pub admin: bool,
    pub downstream: bool,
    pub federates_with: Vec<String>,
    pub dns_names: Vec<String>,
    #[serde(default, rename = "x509SVIDTTL")]
    pub x509_svid_ttl: Option<String>,
    #[serde(default, rename = "jwtSVIDTTL")]
    pub jwt_svid_ttl: Option<String>,
    #[serde(default, rename = "storeSVID")]
    pub store_svid: bool,
    /// Its `hint`, when some SPIRE servers refuse it (`server::of_hint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Why the cluster may not keep it (an owner, a field its schema does not know), if it
    /// may not: BASE never surely holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub may_not_be_kept: Option<String>,
}

impl StaticEntryReport {
    /// What its one entry lets the pods that hold its SVID do, as a pod template's powers.
    pub fn power(&self) -> Power {
        Power {
            spiffe_id: self.spiffe_id.clone(),
            object: self.name.clone(),
            entry: 0,
            admin: self.admin,
            downstream: self.downstream,
            federates_with: self.federates_with.clone(),
            dns_names: self.dns_names.clone(),
            ttl: self.x509_svid_ttl.clone(),
            jwt_ttl: self.jwt_svid_ttl.clone(),
            store_svid: self.store_svid,
            hangs_on: Vec::new(),
        }
    }
}

/// A ClusterFederatedTrustDomain: a foreign bundle SPIRE fetches and hands to workloads.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FederationReport {
    /// Where it starts.
    #[serde(skip)]
    pub at: Option<At>,
    pub name: String,
    /// Whether the configured manager reads it (class rules) and can parse it.
    pub read: bool,
    pub trust_domain: String,
    #[serde(rename = "bundleEndpointURL")]
    pub bundle_endpoint_url: String,
    /// `https_web`, or `https_spiffe <endpointSPIFFEID>`.
    pub bundle_endpoint_profile: String,
    /// The digest of the `trustDomainBundle` it carries (`sha256:<hex>`); a report saved
    /// before the field was written reads as carrying none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust_domain_bundle: Option<String>,
    /// Why the cluster may not keep it, if it may not ([`StaticEntryReport::may_not_be_kept`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub may_not_be_kept: Option<String>,
}

/// Where an item starts: its file (`None` for standard input), its name's bytes as they
/// are, and line. Known of manifests read now; a saved report holds none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub file: Option<PathBuf>,
    pub line: usize,
}

impl From<(Option<PathBuf>, usize)> for At {
    fn from((file, line): (Option<PathBuf>, usize)) -> Self {
        At { file, line }
    }
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BindingReport {
    #[serde(skip)]
    pub at: Option<At>,
    #[serde(deserialize_with = "required")]
    pub namespace: Option<String>,
    pub name: String,
    pub ready: bool,
    pub reason: String,
    pub message: String,
    #[serde(rename = "spiffeID", deserialize_with = "required")]
    pub spiffe_id: Option<String>,
    #[serde(rename = "clusterSPIFFEID", deserialize_with = "required")]
    pub cluster_spiffe_id: Option<String>,
    /// `spec.className` of its ClusterSPIFFEID.
    #[serde(deserialize_with = "required")]
    pub class_name: Option<String>,
    /// The `spire.spiffe.io/class-name` label of its ClusterSPIFFEID (`classNameLabel`);
    /// absent when it carries none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_label: Option<String>,
    /// What its ClusterSPIFFEID makes entries for: the pods its `podSelector` selects, in the
    /// namespaces its `namespaceSelector` selects (all when null): its scope.
    #[serde(deserialize_with = "required")]
    pub pod_selector: Option<LabelSelector>,
    #[serde(deserialize_with = "required")]
    pub namespace_selector: Option<LabelSelector>,
    pub selectors: Vec<String>,
    /// The pod templates that get its SVID.
    pub workloads: Vec<WorkloadRef>,
    /// The pod templates its ClusterSPIFFEID selects that never get its SVID.
    pub selected_without_identity: Vec<WorkloadRef>,
    /// For a failing binding, the managed outputs of the input its failure removes.
    pub removes: Vec<Removed>,
    /// Under the admission guard, the objects of the input whose pods (and what their
    /// controllers make of them) it lets hold this binding's identity; absent without a guard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_admits: Option<Vec<WorkloadRef>>,
    /// Under the admission guard, the ConfigMap of its parameters that holds this binding's
    /// identity (one of several where a namespace's are cut); absent without an identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_parameters: Option<String>,
}

/// A label selector of a rendered ClusterSPIFFEID (`matchLabels` is all it uses).
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Removed {
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: String,
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
}

/// A pod template or another item a report names.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkloadRef {
    pub api_version: String,
    pub kind: String,
    #[serde(deserialize_with = "required")]
    pub namespace: Option<String>,
    pub name: String,
    /// Left out for an item that is not a pod template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// One pod template, as SPIRE Controller Manager will treat its pods. Its first fields are
/// a [`WorkloadRef`]'s, spelled out: a strict read cannot take them flattened.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HeldReport {
    /// Where its item starts.
    #[serde(skip)]
    pub at: Option<At>,
    pub api_version: String,
    pub kind: String,
    #[serde(deserialize_with = "required")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The SPIFFE IDs its pods hold, in the manager's order.
    pub svids: Vec<String>,
    /// ClusterSPIFFEIDs whose entries for its pods never attest.
    pub entries_without_identity: Vec<String>,
    /// Fallback ClusterSPIFFEIDs the manager skips for its pods.
    pub fallbacks_skipped: Vec<String>,
    /// The `svids` that hold template actions only the cluster settles, with those actions.
    #[serde(rename = "svidsWithUnknowns")]
    pub svids_with_unknowns: Vec<UnknownSvid>,
    /// ClusterSPIFFEIDs that select its pods but whose entry the manager cannot make, and why.
    pub entries_not_made: Vec<NotMade>,
    /// The SVIDs its pods may hold, in the manager's order: what only the cluster settles
    /// decides. Missing in a report saved before it was written, and then read as none
    /// (`diff` refuses such a report as HEAD: it cannot say what HEAD may grant).
    #[serde(default)]
    pub may_hold: Vec<MayHold>,
    /// What the entries of its SVIDs, held or possibly held, let its pods do beyond holding
    /// them; SVIDs whose entries carry no power are left out. Missing in a report saved
    /// before it was written, and then read as none (`diff` refuses such a report as HEAD).
    #[serde(default)]
    pub powers: Vec<Power>,
    /// For the text, from the model (a saved report has none): each SVID with what of it is
    /// known only in the cluster, and the namespace the manager ignores, when it does.
    #[serde(skip)]
    pub text: HeldText,
}

/// What the text says of a pod template beyond the document.
#[derive(Debug, Default)]
pub struct HeldText {
    pub svids: Vec<String>,
    pub ignored: Option<String>,
}

/// An SVID a pod template's pods may hold: its entry is made, or attests, only if what the
/// input does not say holds in the cluster.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MayHold {
    /// As in `svids`: the actions only the cluster settles kept as written.
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    /// The object whose entry it is.
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: String,
    /// What the manager makes the entry on; null when it makes it for sure.
    #[serde(deserialize_with = "required")]
    pub made_if: Option<MadeIf>,
    /// The entry's workload selectors the build cannot judge: it attests only if they hold.
    pub attests_if: Vec<String>,
    /// What of the input the entry's unknowns hang on: the pod template's containers as
    /// written (`container <name>: <image>`) that a container or image selector of
    /// `attestsIf` reads, the declared namespace label a `k8s:ns-label` selector reads, and
    /// the pod template as written (with a digest of it) when its SPIFFE ID, a DNS name or
    /// a selector is unknown in a way the template may settle. `diff` counts a change of any
    /// of them as a change of what the pods may hold. Left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hangs_on: Vec<String>,
    /// The actions of `spiffeID` only the cluster settles, as in `svidsWithUnknowns`.
    pub unknown: Vec<String>,
}

/// The powers one object's entry gives a pod template's pods over one SVID. Objects that
/// declare the same entry (SPIFFE ID, parent, selectors) share its `entry` number: the manager
/// keeps one of them, the oldest, which only the cluster knows.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Power {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    /// The ClusterSPIFFEID (or ClusterStaticEntry) whose entry it is. Empty in a report saved
    /// before it was written, whose powers are those of all objects together.
    #[serde(default)]
    pub object: String,
    /// The entry, numbered within the pod template; objects of one number declare one entry.
    #[serde(default)]
    pub entry: u32,
    /// The SPIRE server's admin API.
    pub admin: bool,
    /// Minting SVIDs as a downstream SPIRE server.
    pub downstream: bool,
    /// Foreign trust domains whose bundles the pods are given.
    pub federates_with: Vec<String>,
    /// DNS names in the X.509 SVID, rendered for the pods.
    pub dns_names: Vec<String>,
    /// The X.509 SVID lifetime asked for, as written; null for the server's default.
    #[serde(default)]
    pub ttl: Option<String>,
    /// The JWT SVID lifetime asked for, as written; null for the server's default.
    #[serde(default)]
    pub jwt_ttl: Option<String>,
    /// The SPIRE server hands the SVID and its key to an SVIDStore plugin, out of the cluster
    /// (a ClusterStaticEntry's `storeSVID`).
    #[serde(default, rename = "storeSVID")]
    pub store_svid: bool,
    /// What of the input its entry's unknowns hang on, as in `mayHold[].hangsOn`: `diff`
    /// counts a DNS name only the cluster settles as gained when this changes. Left out when
    /// none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hangs_on: Vec<String>,
}

/// Why the manager may or may not make an entry ([`crate::reconcile::spire::Unsure`]).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum MadeIf {
    /// If the namespace carries the labels the object's `namespaceSelector` asks for: the
    /// input has no Namespace object for it.
    NamespaceLabels,
    /// If the labels controllers add to the pods hold the object's `podSelector`.
    PodLabels,
    /// A fallback object: unless an entry above, itself unsure, is made.
    NoEntryAbove,
    /// A ClusterStaticEntry: if the pods run on the node its parentID names.
    ParentNode,
    /// If the pods land in a namespace it selects: the item names no namespace.
    NamespaceUnset,
    /// If the folder is applied as committed: the object is an output a render replaces or
    /// removes.
    AppliedAsCommitted,
    /// Unless the manager ignores the namespace: the config does not give its ignoreNamespaces.
    NamespaceNotIgnored,
    /// If their object is applied: one applier of the folder leaves it unapplied, another
    /// applies it.
    Applied,
    /// If the cluster keeps the object: an owner's deletion or a field its schema does not know
    /// may leave it out.
    Kept,
    /// If the SPIRE server holds the bundle of every trust domain of the object's
    /// `federatesWith`: it refuses the entry otherwise.
    FederatedBundlesHeld,
    /// If the SPIRE server takes the entry's DNS names: some SPIRE versions refuse one, or
    /// only the cluster settles one.
    DnsNamesTaken,
    /// If the SPIRE server takes the entry's hint: servers since v1.6.3 refuse one over 1024
    /// bytes, and MySQL-backed ones one over 255 characters.
    HintTaken,
    /// If the manager keeps the object's declaration of the entry rather than another
    /// object's that the SPIRE server refuses or may refuse (it keeps the oldest).
    Preferred,
    /// If the folder is rendered before it is applied: the output committed for the object's
    /// binding is another.
    Rendered,
    /// If the kleym operator renders the object's binding: one whose conflicting peers do not
    /// stand beside it, or of two whose outputs share a name, the one it reconciles first.
    PeersAbsent,
    /// Unless the manager runs with `enableEntryRenderCache`, which skips an object a template
    /// of which writes a number constant.
    NoRenderCache,
}

impl From<Unsure> for MadeIf {
    fn from(unsure: Unsure) -> Self {
        match unsure {
            Unsure::NamespaceLabels => MadeIf::NamespaceLabels,
            Unsure::PodLabels => MadeIf::PodLabels,
            Unsure::FallbackSkipped => MadeIf::NoEntryAbove,
            Unsure::ParentNode => MadeIf::ParentNode,
            Unsure::NamespaceUnset => MadeIf::NamespaceUnset,
            Unsure::Committed => MadeIf::AppliedAsCommitted,
            Unsure::NamespaceMayBeIgnored => MadeIf::NamespaceNotIgnored,
            Unsure::Unapplied => MadeIf::Applied,
            Unsure::NotKept => MadeIf::Kept,
            Unsure::FederatedBundles => MadeIf::FederatedBundlesHeld,
            Unsure::DnsNames => MadeIf::DnsNamesTaken,
            Unsure::Hint => MadeIf::HintTaken,
            Unsure::Preferred => MadeIf::Preferred,
            Unsure::Rendered => MadeIf::Rendered,
            Unsure::Withheld => MadeIf::PeersAbsent,
            Unsure::RenderCache => MadeIf::NoRenderCache,
        }
    }
}

impl From<MadeIf> for Unsure {
    fn from(made_if: MadeIf) -> Self {
        match made_if {
            MadeIf::NamespaceLabels => Unsure::NamespaceLabels,
            MadeIf::PodLabels => Unsure::PodLabels,
            MadeIf::NoEntryAbove => Unsure::FallbackSkipped,
            MadeIf::ParentNode => Unsure::ParentNode,
            MadeIf::NamespaceUnset => Unsure::NamespaceUnset,
            MadeIf::AppliedAsCommitted => Unsure::Committed,
            MadeIf::NamespaceNotIgnored => Unsure::NamespaceMayBeIgnored,
            MadeIf::Applied => Unsure::Unapplied,
            MadeIf::Kept => Unsure::NotKept,
            MadeIf::FederatedBundlesHeld => Unsure::FederatedBundles,
            MadeIf::DnsNamesTaken => Unsure::DnsNames,
            MadeIf::HintTaken => Unsure::Hint,
            MadeIf::Preferred => Unsure::Preferred,
            MadeIf::Rendered => Unsure::Rendered,
            MadeIf::PeersAbsent => Unsure::Withheld,
            MadeIf::NoRenderCache => Unsure::RenderCache,
        }
    }
}

/// An SVID whose SPIFFE ID is known only in the cluster in part.
#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct UnknownSvid {
    #[serde(rename = "spiffeID")]
    pub spiffe_id: String,
    /// The actions kept as written (`{{ .NodeMeta.Name }}`).
    pub unknown: Vec<String>,
    /// What of the input those actions may read, as `mayHold[].hangsOn` says it (the pod
    /// template as written, with a digest): `diff` counts a change of it as a change of the
    /// SVID. Left out when none.
    #[serde(default, rename = "hangsOn", skip_serializing_if = "Vec::is_empty")]
    pub hangs_on: Vec<String>,
}

/// An entry the manager cannot make for a pod template's pods.
#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct NotMade {
    #[serde(rename = "clusterSPIFFEID")]
    pub cluster_spiffe_id: String,
    pub reason: String,
}

/// A pod template and the SPIFFE IDs (SVIDs) its pods get; its first fields are a
/// [`WorkloadRef`]'s, as [`HeldReport`]'s are.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Reach {
    pub api_version: String,
    pub kind: String,
    #[serde(deserialize_with = "required")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(rename = "spiffeIDs")]
    pub spiffe_ids: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct FindingReport {
    /// Where the item it is about starts.
    #[serde(skip)]
    pub at: Option<At>,
    pub severity: FindingSeverity,
    /// The finding's name ([`Kind::as_str`]).
    pub reason: String,
    pub message: String,
    pub refs: Vec<WorkloadRef>,
}

/// A finding's severity as the document spells it.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FindingSeverity {
    Error,
    Warning,
    Info,
}

impl From<Severity> for FindingSeverity {
    fn from(severity: Severity) -> Self {
        match severity {
            Severity::Error => FindingSeverity::Error,
            Severity::Warning => FindingSeverity::Warning,
            Severity::Info => FindingSeverity::Info,
        }
    }
}

impl From<FindingSeverity> for Severity {
    fn from(severity: FindingSeverity) -> Self {
        match severity {
            FindingSeverity::Error => Severity::Error,
            FindingSeverity::Warning => Severity::Warning,
            FindingSeverity::Info => Severity::Info,
        }
    }
}

impl FindingReport {
    /// The kind its reason names: every finding this version writes names one.
    pub fn kind(&self) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.as_str() == self.reason)
    }
}

impl HeldReport {
    /// The pod template it is.
    pub fn workload(&self) -> WorkloadRef {
        WorkloadRef {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            path: self.path.clone(),
        }
    }
}

/// An `Option` field that must be there, null or not: serde reads a missing `Option` as
/// `None` unless told otherwise.
fn required<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::deserialize(d)
}

impl Report {
    /// How many managed outputs of the input are stale.
    pub fn stale(&self) -> usize {
        self.findings.iter().filter(|f| f.kind() == Some(Kind::StaleOutput)).count()
    }

    /// The document as `-o json` prints it.
    pub fn json(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("a report serializes");
        json.push('\n');
        json
    }

    /// A saved report's text, read strictly: the error names the field at fault.
    pub fn read(text: &str) -> Result<Report, String> {
        let mut json = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut json).map_err(|e| {
            let inner = e.inner().to_string();
            // serde_json ends its words with the place in the text; the path says more.
            let inner = inner.split(" at line ").next().unwrap_or_default().to_string();
            match e.path().to_string().as_str() {
                "." => inner,
                path => format!("{path}: {inner}"),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_report_explain_writes_reads_back_and_writes_the_same_bytes() {
        // One set of types both ways: a saved report is what `-o json` wrote, field for field.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut read = 0;
        for case in std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()) {
            let file = case.join("expected.json");
            if case.file_name().unwrap().to_string_lossy().starts_with("explain-") && file.is_file() {
                let text = std::fs::read_to_string(&file).unwrap();
                let report = Report::read(&text).unwrap_or_else(|e| panic!("{file:?}: {e}"));
                assert_eq!(report.json(), text, "{file:?}");
                read += 1;
            }
        }
        assert!(read >= 10, "{read} reports");
    }

    #[test]
    fn a_saved_report_is_read_strictly_naming_the_field() {
        let read = |text: &str| Report::read(text).unwrap_err();
        let binding = || {
            serde_json::json!({"namespace": "ns", "name": "a", "ready": true, "reason": "Reconciled",
                "message": "", "spiffeID": "spiffe://x/a", "clusterSPIFFEID": "a", "className": null,
                "podSelector": {"matchLabels": {"app": "a"}}, "namespaceSelector": null,
                "selectors": [], "workloads": [], "selectedWithoutIdentity": [], "removes": []})
        };
        let empty = r#""config": null, "workloads": [], "findings": [], "reach": []"#;
        assert!(Report::read(&format!(r#"{{"bindings": [{}], {empty}}}"#, binding())).is_ok());
        assert_eq!(read(r#"{"bindings": [], "findings": []}"#), "missing field `config`");
        let unknown = read(&format!(r#"{{"bindings": [{{"foo": 1}}], {empty}}}"#));
        assert!(unknown.starts_with("bindings[0].foo: unknown field `foo`"), "{unknown}");
        let mut b = binding();
        b["ready"] = serde_json::json!("yes");
        let wrong = read(&format!(r#"{{"bindings": [{b}], {empty}}}"#));
        assert!(
            wrong.starts_with("bindings[0].ready: invalid type: string \"yes\", expected a boolean"),
            "{wrong}"
        );
        let mut b = binding();
        b["selectors"] = serde_json::json!(42);
        assert!(
            read(&format!(r#"{{"bindings": [{b}], {empty}}}"#))
                .starts_with("bindings[0].selectors: invalid type")
        );
        let reach =
            r#"[{"apiVersion": "v1", "kind": "Pod", "namespace": "ns", "name": "p", "spiffeIDs": "zz"}]"#;
        let ids = read(&format!(
            r#"{{"bindings": [], "config": null, "workloads": [], "findings": [], "reach": {reach}}}"#
        ));
        assert!(ids.starts_with("reach[0].spiffeIDs: invalid type"), "{ids}");
        let mut b = binding();
        b.as_object_mut().unwrap().remove("namespace");
        let missing = read(&format!(r#"{{"bindings": [{b}], {empty}}}"#));
        assert!(missing.starts_with("bindings[0]: missing field `namespace`"), "{missing}");
        let finding = r#"[{"severity": "bad", "reason": "X", "message": "", "refs": []}]"#;
        let severity = read(&format!(
            r#"{{"bindings": [], "config": null, "workloads": [], "reach": [], "findings": {finding}}}"#
        ));
        assert!(severity.starts_with("findings[0].severity: unknown variant `bad`"), "{severity}");
    }

    #[test]
    fn what_a_pod_template_may_hold_is_read_strictly_and_none_when_a_report_predates_it() {
        let workload = |may_hold: Option<serde_json::Value>| {
            let mut w = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ns",
                "name": "d", "path": "spec.template", "svids": [], "entriesWithoutIdentity": [],
                "fallbacksSkipped": [], "svidsWithUnknowns": [], "entriesNotMade": []});
            if let Some(may_hold) = may_hold {
                w["mayHold"] = may_hold;
            }
            format!(r#"{{"config": null, "bindings": [], "findings": [], "reach": [], "workloads": [{w}]}}"#)
        };
        let may = |made_if: serde_json::Value| {
            serde_json::json!([{"spiffeID": "spiffe://x/a", "clusterSPIFFEID": "c", "madeIf": made_if,
                "attestsIf": ["k8s:node-name:n"], "unknown": []}])
        };
        let read = Report::read(&workload(Some(may(serde_json::json!("namespaceLabels"))))).unwrap();
        let held = &read.workloads[0].may_hold;
        assert_eq!((held.len(), held[0].made_if), (1, Some(MadeIf::NamespaceLabels)));
        assert_eq!(held[0].attests_if, ["k8s:node-name:n"]);
        assert!(
            Report::read(&workload(Some(may(serde_json::Value::Null)))).unwrap().workloads[0].may_hold[0]
                .made_if
                .is_none()
        );
        // Saved before reports said what pods may hold: none, which `diff` knows of.
        assert!(Report::read(&workload(None)).unwrap().workloads[0].may_hold.is_empty());
        let wrong = Report::read(&workload(Some(may(serde_json::json!("always"))))).unwrap_err();
        assert!(wrong.starts_with("workloads[0].mayHold[0].madeIf: unknown variant `always`"), "{wrong}");
        let mut missing = may(serde_json::Value::Null);
        missing[0].as_object_mut().unwrap().remove("madeIf");
        let missing = Report::read(&workload(Some(missing))).unwrap_err();
        assert!(missing.starts_with("workloads[0].mayHold[0]: missing field `madeIf`"), "{missing}");
        for unsure in [
            Unsure::NamespaceLabels,
            Unsure::PodLabels,
            Unsure::FallbackSkipped,
            Unsure::FederatedBundles,
            Unsure::DnsNames,
            Unsure::Hint,
            Unsure::Preferred,
            Unsure::Rendered,
            Unsure::Withheld,
            Unsure::RenderCache,
        ] {
            assert_eq!(Unsure::from(MadeIf::from(unsure)), unsure);
        }
    }

    /// A saved report whose records do not say whether they are copies, from an earlier
    /// version, is refused: it could not say which of BASE's records HEAD may not drop.
    #[test]
    fn a_record_without_copy_is_refused() {
        let text = include_str!("../../../testdata/explain-blame/expected.json");
        assert!(Report::read(text).is_ok());
        let old = text.replace(",\n      \"copy\": false", "");
        assert_ne!(old, text);
        let refused = Report::read(&old).unwrap_err();
        assert!(refused.contains("missing field `copy`"), "{refused}");
    }

    #[test]
    fn a_severity_is_spelled_as_the_text_words_it() {
        for severity in [Severity::Error, Severity::Warning, Severity::Info] {
            let spelled = serde_json::to_value(FindingSeverity::from(severity)).unwrap();
            assert_eq!(spelled, crate::io::wording::severity(severity));
            assert_eq!(Severity::from(FindingSeverity::from(severity)), severity);
        }
    }
}
