//! KRM function results (`results` of the output ResourceList): what kpt shows the user.

use serde::Serialize;

#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct KrmResult {
    pub message: String,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_ref: Option<ResourceRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<FieldRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<FileRef>,
    /// What the result is about, for the edges that word it elsewhere (stderr, reports);
    /// not part of the KRM output.
    #[serde(skip)]
    pub topic: Topic,
}

/// What a result is about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Topic {
    /// The run as a whole: its summary.
    #[default]
    Run,
    /// The trust domain is missing: each mode adds how to set it there.
    TrustDomain,
    /// A binding's failure; the binding's position in the input.
    Binding(usize),
    /// A finding about the item at this position of the input.
    Finding(usize),
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct FieldRef {
    pub path: String,
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub path: String,
    pub index: u64,
}

impl KrmResult {
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        KrmResult {
            message: message.into(),
            severity,
            resource_ref: None,
            field: None,
            file: None,
            topic: Topic::Run,
        }
    }

    pub fn with_field(mut self, path: impl Into<String>) -> Self {
        self.field = Some(FieldRef { path: path.into() });
        self
    }
}
