//! The judge is not the defendant: without `--config`, each side of a diff reads its own
//! Kptfile's config, so a pull request could describe another SPIRE Controller Manager (another
//! `className`, `watchClassless`, `ignoreNamespaces`, label selector) or another trust domain
//! (turning a grant into a foreign ID the manager would refuse) and have its own grants
//! judged away.
//! HEAD is judged by BASE's manager and trust domain, and a change of the description is a
//! change of its own, one that grants: the cluster's SPIRE does not change because a file says so.

use crate::config::SpireManager;
use crate::io::render::Judge;
use serde::Serialize;
use std::collections::BTreeMap;

/// The manager each side's config describes, when they differ.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct ManagerChange {
    pub before: Manager,
    pub after: Manager,
}

/// A manager's settings, as the config gives them, with the trust domain it issues in.
#[derive(Serialize, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Manager {
    pub trust_domain: Option<String>,
    /// `null` when the config does not say (the class rules are then not checked).
    pub class_name: Option<String>,
    pub watch_classless: bool,
    /// `null` when the config does not say: the namespaces it may ignore are then unknown.
    pub ignore_namespaces: Option<Vec<String>>,
    /// The labels it reads ClusterSPIFFEIDs by: `clusterSPIFFEIDLabelSelector`, with
    /// `filterByClassName`'s class label over it.
    #[serde(rename = "clusterSPIFFEIDLabelSelector")]
    pub label_selector: BTreeMap<String, String>,
}

impl From<&Judge> for Manager {
    fn from(judge: &Judge) -> Self {
        let m: &SpireManager = &judge.spire;
        Manager {
            trust_domain: judge.trust_domain.clone(),
            class_name: m.class_name.clone(),
            watch_classless: m.watch_classless,
            ignore_namespaces: m
                .may_ignore
                .is_empty()
                .then(|| m.ignore_namespaces.iter().map(|p| p.text.clone()).collect()),
            label_selector: m.label_selector.clone(),
        }
    }
}

impl Manager {
    /// `trustDomain example.org, className "a", watchClassless false, ignoreNamespaces
    /// ^kube-system$`, and `, clusterSPIFFEIDLabelSelector k=v` when it has one.
    pub fn words(&self) -> String {
        let class = self.class_name.as_ref().map_or("not set".to_string(), |c| format!("{c:?}"));
        let ignore = match &self.ignore_namespaces {
            None => "not set".to_string(),
            Some(list) if list.is_empty() => "none".to_string(),
            Some(list) => list.join(" "),
        };
        let domain = self.trust_domain.as_deref().unwrap_or("not set");
        let mut words = format!(
            "trustDomain {domain}, className {class}, watchClassless {}, ignoreNamespaces {ignore}",
            self.watch_classless
        );
        if !self.label_selector.is_empty() {
            let labels: Vec<String> = self.label_selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
            words.push_str(&format!(", clusterSPIFFEIDLabelSelector {}", labels.join(",")));
        }
        words
    }
}

/// The change, when BASE's and HEAD's configs describe different managers or trust domains.
pub(super) fn compare(before: Option<&Judge>, after: Option<&Judge>) -> Option<ManagerChange> {
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
        let judge = |spire: SpireManager| Judge { spire, trust_domain: Some("example.org".into()) };
        let plain =
            judge(SpireManager { class_name: Some("spire-system-spire".into()), ..SpireManager::default() });
        let filtering = judge(SpireManager {
            label_selector: [("spire.spiffe.io/class-name".to_string(), "spire-system-spire".to_string())]
                .into(),
            ..plain.spire.clone()
        });
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

    #[test]
    fn the_ignored_namespaces_are_worded_as_unknown_none_or_each_pattern() {
        let manager = |ignore: Option<Vec<&str>>| super::Manager {
            trust_domain: Some("example.org".into()),
            class_name: None,
            watch_classless: false,
            ignore_namespaces: ignore.map(|l| l.into_iter().map(String::from).collect()),
            label_selector: Default::default(),
        };
        let words = |ignore| manager(ignore).words();
        assert_eq!(
            words(None),
            "trustDomain example.org, className not set, watchClassless false, ignoreNamespaces not set"
        );
        assert!(words(Some(vec![])).ends_with("ignoreNamespaces none"), "an empty list ignores none");
        assert!(
            words(Some(vec!["^kube-system$", "^spire$"])).ends_with("ignoreNamespaces ^kube-system$ ^spire$")
        );
    }

    #[test]
    fn another_trust_domain_is_another_spire() {
        let at = |td: &str| Judge { spire: SpireManager::default(), trust_domain: Some(td.into()) };
        assert_eq!(compare(Some(&at("example.org")), Some(&at("example.org"))), None);
        let change = compare(Some(&at("example.org")), Some(&at("evil.org"))).expect("a change");
        assert!(change.after.words().starts_with("trustDomain evil.org, "), "{}", change.after.words());
    }
}
