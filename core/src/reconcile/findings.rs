//! The findings the reconcile reports beside statuses and outputs: what the identities
//! reach (workload coverage, what SPIRE will do) and what becomes of the function's earlier
//! outputs. Each is data: its kind, level, message, and the items it is about and names. The
//! message is a sentence of its own, the same in every mode, naming no flag or file of one;
//! each mode words the rest (the kind's name, the severity, where the item is) where it
//! reports it (docs/reference.md#results-and-exit-codes). Findings never change a status
//! or an output.

use crate::api::binding;
use crate::config::WorkloadPolicy;

/// The findings, in the order docs/reference.md#findings lists them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::VariantArray, strum::IntoStaticStr,
)]
pub enum Kind {
    StaleOutput,
    NotABinding,
    NoMatchingWorkload,
    WorkloadWithoutVariant,
    VariantNotBound,
    ServiceAccountMismatch,
    ServiceAccountNotDeclared,
    WorkloadMatchesSeveralIdentities,
    FallbackShadowed,
    EntriesWithoutIdentity,
    IgnoredBySpire,
    IssuedOutsideBinding,
    EntryVolume,
    KServeUnknown,
    NotAdmitted,
}

impl Kind {
    /// Every one, in order.
    pub const ALL: &'static [Kind] = <Kind as strum::VariantArray>::VARIANTS;

    /// What the finding is about, in one sentence (the rule's description in reports).
    pub fn description(self) -> &'static str {
        match self {
            Kind::StaleOutput => "A managed ClusterSPIFFEID of the input that a render replaces or removes.",
            Kind::NotABinding => "An object like a binding, of another kind or apiVersion, read as none.",
            Kind::NoMatchingWorkload => "A rendered identity reaches no pod template of the input.",
            Kind::WorkloadWithoutVariant => "A pod template a pool in use selects carries no variant label.",
            Kind::VariantNotBound => {
                "A pod template a pool in use selects carries a variant no binding binds."
            }
            Kind::ServiceAccountMismatch => {
                "A pod template has a binding's labels but runs as another service account."
            }
            Kind::ServiceAccountNotDeclared => {
                "A binding names a service account the input does not declare."
            }
            Kind::WorkloadMatchesSeveralIdentities => "SPIRE would issue a pod template several SVIDs.",
            Kind::FallbackShadowed => {
                "A rendered identity selects pods it does not attest for, which so lose a fallback identity."
            }
            Kind::EntriesWithoutIdentity => "An identity's entries for pod templates that never attest.",
            Kind::EntryVolume => {
                "How many entries SPIRE Controller Manager makes for the pod templates, and how many never attest."
            }
            Kind::IgnoredBySpire => {
                "SPIRE Controller Manager would ignore an output (class, ignored namespace)."
            }
            Kind::KServeUnknown => {
                "What a KServe LLMInferenceService makes that the build cannot know or must say: a preset it lacks, a custom pool selector, a field only KServe evaluates."
            }
            Kind::NotAdmitted => {
                "A pod template holds an identity whose pods the admission guard will deny: a kind whose controller it does not know, or a name it cannot follow."
            }
            Kind::IssuedOutsideBinding => {
                "A ClusterStaticEntry issues a binding's SPIFFE ID, or one in its namespace's path; a ClusterFederatedTrustDomain trusts a foreign bundle for a binding's trust domain."
            }
        }
    }

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// How much a failure or finding weighs: an `Error` makes the run exit 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// How much a finding matters, before `workloadPolicy` has its say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Warning,
    Info,
}

/// An item a finding is about, or names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ref {
    /// Its position in the input.
    pub item: usize,
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    /// The pod template's place in the item, for workloads.
    pub path: Option<String>,
}

impl Ref {
    /// The reference of the workload at input position `item`, and of its template at `path`
    /// when given.
    pub fn of_workload(
        item: usize,
        workload: &crate::reconcile::cluster::workload::Workload,
        path: Option<&str>,
    ) -> Ref {
        Ref {
            item,
            api_version: workload.api_version().to_string(),
            kind: workload.kind().to_string(),
            namespace: workload.namespace().map(str::to_string),
            name: workload.name().to_string(),
            path: path.map(str::to_string),
        }
    }

    /// `Kind namespace/name`, and the template's path, for messages.
    pub fn describe(&self) -> String {
        let name = match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        };
        match self.path.as_deref() {
            // A role in place of a path, as KServe's derived templates have: `(decode)`.
            Some(path) if path.starts_with('(') => format!("{} {name} {path}", self.kind),
            Some(path) if !path.is_empty() => format!("{} {name} ({path})", self.kind),
            _ => format!("{} {name}", self.kind),
        }
    }
}

/// One finding: its kind, level and message, the item it is about, and items it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    pub level: Level,
    /// The message, without the kind's name.
    pub message: String,
    pub about: Ref,
    pub also: Vec<Ref>,
}

impl Finding {
    /// The severity of its result. `workloadPolicy` governs the workload findings: under
    /// `Fail` their warnings are errors, and the run exits 1. `StaleOutput` is about the
    /// function's own outputs, which every writing mode replaces or removes itself, and
    /// `NotABinding` and `KServeUnknown` about an input object, not a workload: they stay
    /// warnings.
    pub fn severity(&self, policy: WorkloadPolicy) -> Severity {
        match (self.kind, self.level, policy) {
            (_, Level::Info, _) => Severity::Info,
            (Kind::StaleOutput | Kind::NotABinding | Kind::KServeUnknown, Level::Warning, _) => {
                Severity::Warning
            }
            (_, Level::Warning, WorkloadPolicy::Fail) => Severity::Error,
            (_, Level::Warning, _) => Severity::Warning,
        }
    }
}

/// A binding's reference, for findings about it.
pub fn binding_ref(item: usize, namespace: Option<&str>, name: &str) -> Ref {
    Ref {
        item,
        api_version: binding::API_VERSION.to_string(),
        kind: binding::KIND.to_string(),
        namespace: namespace.map(str::to_string),
        name: name.to_string(),
        path: None,
    }
}
