//! The judge is not the defendant: without `--config`, each side of a diff reads its own
//! Kptfile's config, so a pull request could describe another SPIRE Controller Manager (another
//! `className`, `watchClassless`, `ignoreNamespaces`, label selector) and have its own grants
//! judged away.
//! HEAD is judged by BASE's manager, and a change of the description is a change of its own,
//! one that grants: the cluster's manager does not change because a file says so.

use crate::config::SpireManager;
use serde::Serialize;
use std::collections::BTreeMap;

/// The manager each side's config describes, when they differ.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct ManagerChange {
    pub before: Manager,
    pub after: Manager,
}

/// A manager's settings, as the config gives them.
#[derive(Serialize, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Manager {
    /// `null` when the config does not say (the class rules are then not checked).
    pub class_name: Option<String>,
    pub watch_classless: bool,
    pub ignore_namespaces: Vec<String>,
    /// The labels it reads ClusterSPIFFEIDs by: `clusterSPIFFEIDLabelSelector`, with
    /// `filterByClassName`'s class label over it.
    #[serde(rename = "clusterSPIFFEIDLabelSelector")]
    pub label_selector: BTreeMap<String, String>,
}

impl From<&SpireManager> for Manager {
    fn from(m: &SpireManager) -> Self {
        Manager {
            class_name: m.class_name.clone(),
            watch_classless: m.watch_classless,
            ignore_namespaces: m.ignore_namespaces.iter().map(|p| p.text.clone()).collect(),
            label_selector: m.label_selector.clone(),
        }
    }
}

impl Manager {
    /// `className "a", watchClassless false, ignoreNamespaces ^kube-system$`, and
    /// `, clusterSPIFFEIDLabelSelector k=v` when it has one.
    pub fn words(&self) -> String {
        let class = self.class_name.as_ref().map_or("not set".to_string(), |c| format!("{c:?}"));
        let ignore = if self.ignore_namespaces.is_empty() {
            "none".to_string()
        } else {
            self.ignore_namespaces.join(" ")
        };
        let mut words =
            format!("className {class}, watchClassless {}, ignoreNamespaces {ignore}", self.watch_classless);
        if !self.label_selector.is_empty() {
            let labels: Vec<String> = self.label_selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
            words.push_str(&format!(", clusterSPIFFEIDLabelSelector {}", labels.join(",")));
        }
        words
    }
}

/// The change, when BASE's and HEAD's configs describe different managers.
pub(super) fn compare(before: Option<&SpireManager>, after: Option<&SpireManager>) -> Option<ManagerChange> {
    match (before, after) {
        (Some(b), Some(a)) if b != a => Some(ManagerChange { before: b.into(), after: a.into() }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_selector_is_part_of_the_manager_a_side_describes() {
        let plain = SpireManager { class_name: Some("spire-system-spire".into()), ..SpireManager::default() };
        let filtering = SpireManager {
            label_selector: [("spire.spiffe.io/class-name".to_string(), "spire-system-spire".to_string())]
                .into(),
            ..plain.clone()
        };
        assert_eq!(compare(Some(&plain), Some(&plain.clone())), None);
        let change = compare(Some(&plain), Some(&filtering)).expect("another selector is another manager");
        assert!(
            change
                .after
                .words()
                .ends_with(", clusterSPIFFEIDLabelSelector spire.spiffe.io/class-name=spire-system-spire"),
            "{}",
            change.after.words()
        );
        assert!(!change.before.words().contains("clusterSPIFFEIDLabelSelector"), "{}", change.before.words());
    }
}
