//! `IgnoredBySpire` for a rendered ClusterSPIFFEID that lacks a label of the configured
//! manager's label selector (`filterByClassName`, `clusterSPIFFEIDLabelSelector`): the manager
//! never has it in its cache, so it makes no entry from it and deletes those it made before.

use super::about::{Context, of_binding, source_ref};
use super::{Model, Origin, missing_labels};
use crate::api::cluster_spiffe_id::LABEL_CLASS_NAME;
use crate::reconcile::findings::{Finding, Kind, Level};

/// One warning per rendered object the label selector leaves out, naming the missing labels
/// and the fix.
pub(super) fn findings(model: &Model, cx: &Context<'_>, out: &mut Vec<Finding>) {
    for source in &model.sources {
        if !matches!(source.origin, Origin::Rendered { .. }) {
            continue;
        }
        let missing = missing_labels(&model.manager, source);
        if missing.is_empty() {
            continue;
        }
        let listed: Vec<String> = missing.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let class = missing.iter().find(|(k, _)| *k == LABEL_CLASS_NAME).map(|(_, v)| *v);
        let others: Vec<String> =
            missing.iter().filter(|(k, _)| *k != LABEL_CLASS_NAME).map(|(k, v)| format!("{k}={v}")).collect();
        let mut fixes = Vec::new();
        match class {
            Some(class) if source.class_name == class => {
                fixes.push("set classNameLabel: true, so every output carries the class label".to_string());
            }
            Some(class) => fixes.push(format!(
                "set className: {class} and classNameLabel: true, so every output carries the class label"
            )),
            None => {}
        }
        if !others.is_empty() {
            fixes.push(format!(
                "add {} to the object after the render, or remove {} from the manager's \
                 clusterSPIFFEIDLabelSelector (and from spireControllerManager.clusterSPIFFEIDLabelSelector)",
                others.join(", "),
                if others.len() == 1 { "it" } else { "them" }
            ));
        }
        out.push(Finding {
            kind: Kind::IgnoredBySpire,
            level: Level::Warning,
            message: format!(
                "ClusterSPIFFEID {}{} lacks the {} {} of the configured SPIRE Controller Manager's label selector \
                 (filterByClassName, clusterSPIFFEIDLabelSelector): the manager never reads it, makes no entry from \
                 it and deletes those it made from it before, so its pods get no SVID from it; {}",
                source.name,
                of_binding(source, cx),
                if listed.len() == 1 { "label" } else { "labels" },
                listed.join(", "),
                fixes.join("; ")
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
}
