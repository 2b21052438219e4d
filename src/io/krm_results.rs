//! KRM function results (`results` of the output ResourceList, what kpt shows the user): the
//! wire types, and [`each_part`], the results of an outcome in the order of
//! docs/reference.md#results-and-exit-codes.

use super::wording;
use crate::api::binding;
use crate::reconcile::file_slots::file_of;
use crate::reconcile::findings::Ref;
use crate::reconcile::item::Item;
use crate::reconcile::{Outcome, Severity};
use serde::{Serialize, Serializer};
use std::collections::{HashMap, HashSet};

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct KrmResult {
    pub message: String,
    #[serde(serialize_with = "severity")]
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_ref: Option<ResourceRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<FieldRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<FileRef>,
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

fn severity<S: Serializer>(severity: &Severity, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(wording::severity(*severity))
}

impl KrmResult {
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        KrmResult { message: message.into(), severity, resource_ref: None, field: None, file: None }
    }

    pub fn with_field(mut self, path: impl Into<String>) -> Self {
        self.field = Some(FieldRef { path: path.into() });
        self
    }
}

/// How many findings become results at a time: a first run on a large repository has tens
/// of thousands, which held as results all at once (and then as text) would cost more memory
/// than its items.
const PART: usize = 4096;

/// The results of a reconcile, in order: the missing trust domain (with `hint`, how to set it
/// in the KRM modes), each failing binding, each finding, the summary; handed to `take` a part
/// at a time. `items` are the outcome's (the output's, which it no longer holds).
pub fn each_part(
    outcome: &Outcome,
    items: &[Item],
    hint: &str,
    mut take: impl FnMut(&[KrmResult]) -> Result<(), String>,
) -> Result<(), String> {
    let mut first = Vec::new();
    if outcome.trust_domain_missing {
        first.push(
            KrmResult::new(Severity::Error, wording::trust_domain_missing(hint))
                .with_field("spec.trustDomain"),
        );
    }
    let wanted: HashSet<usize> = outcome
        .failures
        .iter()
        .map(|f| f.item)
        .chain(outcome.findings.iter().map(|f| f.about.item))
        .collect();
    let items: HashMap<usize, &Item> = items
        .iter()
        .filter_map(|item| Some((item.position()?, item)))
        .filter(|(position, _)| wanted.contains(position))
        .collect();
    for f in &outcome.failures {
        let mut result = KrmResult::new(f.severity, wording::failure(f));
        result.resource_ref = Some(ResourceRef {
            api_version: binding::API_VERSION.to_string(),
            kind: binding::KIND.to_string(),
            name: f.name.clone(),
            namespace: f.namespace.clone(),
        });
        if let Some(field) = f.failure.field {
            result = result.with_field(field);
        }
        result.file = match items.get(&f.item) {
            Some(Item::Binding(_, value, _)) => file_of(value).map(|(path, index)| FileRef { path, index }),
            _ => None,
        };
        first.push(result);
    }
    take(&first)?;
    for part in outcome.findings.chunks(PART) {
        take(&crate::parallel::map(part.iter().collect(), |finding| {
            let about = &finding.about;
            let mut result = KrmResult::new(outcome.severity(finding), wording::finding(finding));
            result.resource_ref = Some(resource_ref(about));
            // A role in place of a path (KServe's derived templates, `(decode)`) is no field.
            if let Some(path) = about.path.as_deref().filter(|p| !p.is_empty() && !p.starts_with('(')) {
                result = result.with_field(path);
            }
            result.file = items.get(&about.item).and_then(|item| {
                let (path, index) = item.slots().first().copied()?;
                Some(FileRef { path: path.to_string(), index })
            });
            result
        }))?;
    }
    take(&[KrmResult::new(Severity::Info, wording::summary(&outcome.counts, outcome.findings.len()))])
}

fn resource_ref(about: &Ref) -> ResourceRef {
    ResourceRef {
        api_version: about.api_version.clone(),
        kind: about.kind.clone(),
        name: about.name.clone(),
        namespace: about.namespace.clone(),
    }
}
