//! The judge is not the defendant: without `--config`, each side of a diff reads its own
//! Kptfile's config, so a pull request could describe another SPIRE Controller Manager (another
//! `className`, `watchClassless`, `ignoreNamespaces`) and have its own grants judged away.
//! HEAD is judged by BASE's manager, and a change of the description is a change of its own,
//! one that grants: the cluster's manager does not change because a file says so.

use crate::config::SpireManager;
use serde::Serialize;

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
}

impl From<&SpireManager> for Manager {
    fn from(m: &SpireManager) -> Self {
        Manager {
            class_name: m.class_name.clone(),
            watch_classless: m.watch_classless,
            ignore_namespaces: m.ignore_namespaces.iter().map(|p| p.text.clone()).collect(),
        }
    }
}

impl Manager {
    /// `className "a", watchClassless false, ignoreNamespaces ^kube-system$`.
    pub fn words(&self) -> String {
        let class = self.class_name.as_ref().map_or("not set".to_string(), |c| format!("{c:?}"));
        let ignore = if self.ignore_namespaces.is_empty() {
            "none".to_string()
        } else {
            self.ignore_namespaces.join(" ")
        };
        format!("className {class}, watchClassless {}, ignoreNamespaces {ignore}", self.watch_classless)
    }
}

/// The change, when BASE's and HEAD's configs describe different managers.
pub(super) fn compare(before: Option<&SpireManager>, after: Option<&SpireManager>) -> Option<ManagerChange> {
    match (before, after) {
        (Some(b), Some(a)) if b != a => Some(ManagerChange { before: b.into(), after: a.into() }),
        _ => None,
    }
}
