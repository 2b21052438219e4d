//! The condition taxonomy: the five condition types, every failure reason, and which
//! condition each reason sets to `True` (docs/reference.md#conditions), and the failure a
//! check reports.

use crate::api::conditions::MESSAGE_MAX;

/// The five condition types, in the order they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr)]
pub enum ConditionType {
    Ready,
    InvalidRef,
    UnsafeSelector,
    Conflict,
    RenderFailure,
}

impl ConditionType {
    /// Every one, in order.
    pub const ALL: &'static [ConditionType] = <ConditionType as strum::VariantArray>::VARIANTS;

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The message of this condition when it is `False`/`Resolved`.
    pub fn resolved_message(self) -> &'static str {
        match self {
            ConditionType::Ready => "Binding reconciled",
            ConditionType::InvalidRef => "References are valid",
            ConditionType::UnsafeSelector => "Selectors are safe",
            ConditionType::Conflict => "Variant is exclusive",
            ConditionType::RenderFailure => "Rendering is healthy",
        }
    }
}

/// Every failure reason. Each belongs to exactly one condition type.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, strum::VariantArray, strum::IntoStaticStr,
)]
pub enum Reason {
    InvalidPoolRef,
    InferencePoolCRDMissing,
    TargetPoolNotFound,
    InvalidPoolSelector,
    UnsafeSelector,
    InvalidIdentityBoundary,
    VariantConflict,
    DuplicateSPIFFEID,
    MissingTrustDomain,
    InvalidServiceAccountName,
    InvalidSPIFFEID,
    ClusterSPIFFEIDCRDMissing,
    ManagedOutputApplyFailed,
}

impl Reason {
    /// Every one, in order.
    pub const ALL: &'static [Reason] = <Reason as strum::VariantArray>::VARIANTS;

    /// Whether a binding failing for this reason fails only because the folders do not say
    /// the cluster serves an API it needs: rendered in the cluster (the kleym operator, a
    /// plugin given the cluster's APIs), it may render.
    pub fn is_unserved(self) -> bool {
        matches!(self, Reason::InferencePoolCRDMissing | Reason::ClusterSPIFFEIDCRDMissing)
    }

    /// The condition this reason sets to `True`.
    pub fn condition(self) -> ConditionType {
        match self {
            Reason::InvalidPoolRef | Reason::InferencePoolCRDMissing | Reason::TargetPoolNotFound => {
                ConditionType::InvalidRef
            }
            Reason::InvalidPoolSelector | Reason::UnsafeSelector | Reason::InvalidIdentityBoundary => {
                ConditionType::UnsafeSelector
            }
            Reason::VariantConflict | Reason::DuplicateSPIFFEID => ConditionType::Conflict,
            Reason::MissingTrustDomain
            | Reason::InvalidServiceAccountName
            | Reason::InvalidSPIFFEID
            | Reason::ClusterSPIFFEIDCRDMissing
            | Reason::ManagedOutputApplyFailed => ConditionType::RenderFailure,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// What the reason is about, in one sentence (its rule's description in reports).
    pub fn description(self) -> &'static str {
        match self {
            Reason::InvalidPoolRef => "A binding's poolRef is not a valid reference.",
            Reason::InferencePoolCRDMissing => "The InferencePool API a binding refers to is not served.",
            Reason::TargetPoolNotFound => "The InferencePool a binding refers to is not in the input.",
            Reason::InvalidPoolSelector => "The selector of a binding's pool cannot be rendered.",
            Reason::UnsafeSelector => "The selectors of a binding would be unsafe.",
            Reason::InvalidIdentityBoundary => "A binding's identity boundary is not valid.",
            Reason::VariantConflict => "Two bindings bind the same variant of one pool.",
            Reason::DuplicateSPIFFEID => "Two bindings render the same SPIFFE ID.",
            Reason::MissingTrustDomain => "No trust domain is configured.",
            Reason::InvalidServiceAccountName => "A binding's service account name is not valid.",
            Reason::InvalidSPIFFEID => "A binding's SPIFFE ID is not valid.",
            Reason::ClusterSPIFFEIDCRDMissing => "The ClusterSPIFFEID API is not served.",
            Reason::ManagedOutputApplyFailed => "A binding's ClusterSPIFFEID could not be applied.",
        }
    }
}

/// Why one binding did not render: the first failing check, with a precise message and,
/// where one field is at fault, its path in the binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub reason: Reason,
    pub message: String,
    pub field: Option<&'static str>,
    /// Whether the input holds what the binding needs under an API the target cluster does
    /// not serve as far as the input says (a pool of an API only the input's CRDs leave
    /// out): a cluster that serves it may render the binding.
    pub unserved: bool,
}

impl Failure {
    pub fn new(reason: Reason, message: impl Into<String>) -> Self {
        Failure { reason, message: bounded(message.into()), field: None, unserved: reason.is_unserved() }
    }

    pub fn at(reason: Reason, field: &'static str, message: impl Into<String>) -> Self {
        Failure {
            reason,
            message: bounded(message.into()),
            field: Some(field),
            unserved: reason.is_unserved(),
        }
    }
}

/// A failure as every message names it, in each mode and in findings that quote it:
/// `<Type>/<Reason>: <message>`.
impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}: {}", self.reason.condition().as_str(), self.reason.as_str(), self.message)
    }
}

/// The message as a condition may hold it: at most [`MESSAGE_MAX`] characters, the API
/// server's limit. A longer one (it quotes a huge input value) is cut and ends in `...`.
fn bounded(message: String) -> String {
    match message.char_indices().nth(MESSAGE_MAX) {
        None => message,
        Some(_) => {
            let (cut, _) = message.char_indices().nth(MESSAGE_MAX - 3).expect("longer than the limit");
            format!("{}...", &message[..cut])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_fit_the_condition_limit() {
        let at_limit = "é".repeat(MESSAGE_MAX);
        assert_eq!(Failure::new(Reason::InvalidPoolRef, at_limit.clone()).message, at_limit);
        let cut = Failure::at(Reason::InvalidPoolRef, "f", "é".repeat(MESSAGE_MAX + 1)).message;
        assert_eq!(cut.chars().count(), MESSAGE_MAX);
        assert_eq!(cut, format!("{}...", "é".repeat(MESSAGE_MAX - 3)));
    }
}
