//! What the reconcile returns, as data (docs/reference.md#results-and-exit-codes): the items,
//! the failing bindings, the findings, the run's counts and the weight of each; or the input
//! error that stops it. Nothing here is worded for a mode: each edge words these once, for
//! the results, stderr or report it writes.

use super::cluster::workload::Workload;
use super::coverage::Coverage;
use super::findings::Finding;
use super::findings::Severity;
use super::guard::Summary;
use super::items::input::{self, Input};
use super::items::item::Item;
use super::outputs::ownership::OutputCounts;
use super::outputs::stale::Lost;
use super::rules::reason::Failure;
use crate::config::WorkloadPolicy;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

/// The reconciled items and what the run found.
#[derive(Debug)]
pub struct Outcome {
    pub items: Vec<Item>,
    /// No trust domain is configured: an error of the run, beside each binding's failure.
    pub trust_domain_missing: bool,
    /// Each failing binding, in input order.
    pub failures: Vec<BindingFailure>,
    /// Every finding, ordered by the item it is about: stale outputs, and workload coverage
    /// (none of those under `workloadPolicy: Ignore`). Shared: an edge may write them twice,
    /// in its output and on stderr after it.
    pub findings: Arc<Vec<Finding>>,
    /// What the run did: bindings rendered and failed, outputs placed.
    pub counts: Counts,
    /// What each identity reaches (its findings are in `findings`).
    pub coverage: Coverage,
    /// The policy that weighs the findings ([`Outcome::severity`]).
    pub workload_policy: WorkloadPolicy,
    /// What the admission guard admits, when the run writes it.
    pub guard: Option<Summary>,
}

/// A binding that does not render: which one, its failure, and what the failure costs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingFailure {
    /// Its position in the input.
    pub item: usize,
    /// `None` when it has no readable namespace.
    pub namespace: Option<String>,
    pub name: String,
    /// The failing check: its reason (and so its condition), the message its status holds,
    /// the field at fault.
    pub failure: Failure,
    /// `Warning` under `failurePolicy: Report`, `Error` under `Fail`.
    pub severity: Severity,
    /// The managed outputs of the input its failure removes, each an identity its pods lose.
    pub removes: Vec<Lost>,
}

/// What the run did, counted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub bindings: usize,
    pub failed: usize,
    pub outputs: OutputCounts,
    /// The admission guard's objects.
    pub guard: OutputCounts,
}

impl Counts {
    pub fn rendered(&self) -> usize {
        self.bindings - self.failed
    }
}

impl Outcome {
    /// The severity of a finding's result, under the run's `workloadPolicy`.
    pub fn severity(&self, finding: &Finding) -> Severity {
        finding.severity(self.workload_policy)
    }

    /// Whether the run exits 1: the trust domain is missing, or a failure or finding is an
    /// error.
    pub fn has_errors(&self) -> bool {
        self.trust_domain_missing
            || self.failures.iter().any(|f| f.severity == Severity::Error)
            || self.findings.iter().any(|f| self.severity(f) == Severity::Error)
    }

    /// The pod templates of the input items by position, as coverage read them: with those
    /// KServe makes of an `LLMInferenceService`, which no item holds on its own.
    pub fn workloads(&self) -> HashMap<usize, Cow<'_, Workload>> {
        let inputs: Vec<(usize, &Input)> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Input(position, input) => Some((*position, input)),
                _ => None,
            })
            .collect();
        let found = input::workloads_of(inputs.iter().map(|&(_, i)| i));
        inputs.iter().zip(found).filter_map(|(&(p, _), w)| Some((p, w?))).collect()
    }

    /// The failure of the binding at `item`, when it fails.
    pub fn failure_of(&self, item: usize) -> Option<&BindingFailure> {
        self.failures.iter().find(|f| f.item == item)
    }

    /// Frees the pod templates of the items passed on, which only coverage and `explain`
    /// read, before a large output is written.
    pub fn forget_workloads(&mut self) {
        for item in &mut self.items {
            if let Item::Input(_, Input::Passed(passed)) = item {
                passed.workload = None;
            }
        }
    }
}
