//! `spireControllerManager`: the settings of the target SPIRE Controller Manager that decide
//! which objects it reads (docs/reference.md#what-spire-will-do), and their validation into
//! the [`SpireManager`] the model runs with.

use super::checks::{CLASS_NAME_PATTERN, ConfigError, needs_when_true, validate_class_name};
use crate::api::cluster_spiffe_id::LABEL_CLASS_NAME;
use crate::api::names;
use crate::pattern::IgnorePattern;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The settings of the target SPIRE Controller Manager that decide what it reads.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = |s: &mut schemars::Schema| needs_when_true(s, "filterByClassName", "className"))]
pub struct SpireManagerSpec {
    /// The manager's `className`: it reads the ClusterSPIFFEIDs of that class; empty, those without a
    /// class. Unset: the class rules are not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(CLASS_NAME_PATTERN))]
    pub class_name: Option<String>,
    /// The manager's `watchClassless`: it also reads ClusterSPIFFEIDs without a class (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_classless: Option<bool>,
    /// The manager's `ignoreNamespaces`: Go regular expressions, matched anywhere in a namespace's
    /// name; pods there get no entry. Unset: unknown, so a namespace the manager's own defaults
    /// (`kube-system`, `kube-public`, `spire-system`) or the SPIRE Helm chart's (`kube-system`,
    /// `kube-public`, `local-path-storage`, `openshift-.*`, `ibm-.*`) ignore may be ignored
    /// (and a manager started without a configuration file ignores none). Set `[]` for one that
    /// ignores none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_namespaces: Option<Vec<String>>,
    /// The manager's `filterByClassName` (default false): it reads only the ClusterSPIFFEIDs
    /// labelled `spire.spiffe.io/class-name: <its className>`, over any value
    /// `clusterSPIFFEIDLabelSelector` gives that key. Requires `className`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_by_class_name: Option<bool>,
    /// The manager's `clusterSPIFFEIDLabelSelector`: labels, each a key and its value, that a
    /// ClusterSPIFFEID must all carry for the manager to read it. In the string form
    /// `key=value,key=value`.
    #[serde(default, rename = "clusterSPIFFEIDLabelSelector", skip_serializing_if = "Option::is_none")]
    pub cluster_spiffe_id_label_selector: Option<BTreeMap<String, String>>,
}

/// SPIRE Controller Manager's `ignoreNamespaces` when its configuration file sets none
/// (api/v1alpha1/controllermanagerconfig_loader.go, v0.6.6).
pub const DEFAULT_IGNORE_NAMESPACES: [&str; 3] = ["kube-system", "kube-public", "spire-system"];

/// The `ignoreNamespaces` the SPIRE Helm chart writes into the manager's configuration file
/// (spiffe/helm-charts-hardened `charts/spire/charts/spire-server/values.yaml`,
/// `controllerManager.ignoreNamespaces`, at 8a28a1b9), which replaces the defaults.
pub const HELM_CHART_IGNORE_NAMESPACES: [&str; 5] =
    ["kube-system", "kube-public", "local-path-storage", "openshift-.*", "ibm-.*"];

/// The target manager's settings, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpireManager {
    /// `None` when the configuration does not give it: the class rules are then not
    /// checked and every object counts as read. `Some("")`: a manager without a class,
    /// which reads the objects without one.
    pub class_name: Option<String>,
    pub watch_classless: bool,
    /// The namespaces it surely ignores, compiled as Go compiles them (crate::pattern): those
    /// the configuration gives.
    pub ignore_namespaces: Vec<IgnorePattern>,
    /// The namespaces it may ignore: when the configuration does not give `ignoreNamespaces`,
    /// those of the manager's own defaults and of the SPIRE Helm chart, one of which (or none,
    /// for a manager without a configuration file) it runs with.
    pub may_ignore: Vec<IgnorePattern>,
    /// The labels a ClusterSPIFFEID must carry, each with its value, for the manager to read
    /// it: `clusterSPIFFEIDLabelSelector`, with `spire.spiffe.io/class-name: <className>` over
    /// it under `filterByClassName`. Empty: it reads them whatever their labels.
    pub label_selector: BTreeMap<String, String>,
}

impl SpireManager {
    /// The settings this manager was made of, as a config writes them: [`SpireManager::of_spec`]
    /// makes the same manager again (`filterByClassName` stands in the label selector).
    pub fn spec(&self) -> SpireManagerSpec {
        let given = self.may_ignore.is_empty();
        SpireManagerSpec {
            class_name: self.class_name.clone(),
            watch_classless: Some(self.watch_classless),
            ignore_namespaces: given.then(|| self.ignore_namespaces.iter().map(|p| p.text.clone()).collect()),
            filter_by_class_name: None,
            cluster_spiffe_id_label_selector: Some(self.label_selector.clone()).filter(|s| !s.is_empty()),
        }
    }

    /// The manager of these settings, validated as a config's are.
    pub fn of_spec(spec: SpireManagerSpec) -> Result<SpireManager, String> {
        manager(Some(spec), &|f: &str| f.to_string()).map_err(|e| e.to_string())
    }
}

impl Default for SpireManager {
    fn default() -> Self {
        SpireManager {
            class_name: None,
            watch_classless: false,
            ignore_namespaces: Vec::new(),
            may_ignore: unknown_ignores(),
            label_selector: BTreeMap::new(),
        }
    }
}

/// The namespaces a manager may ignore when its `ignoreNamespaces` is not given: its own
/// defaults and the SPIRE Helm chart's, each once.
fn unknown_ignores() -> Vec<IgnorePattern> {
    let patterns = DEFAULT_IGNORE_NAMESPACES.iter().chain(&HELM_CHART_IGNORE_NAMESPACES).copied();
    let mut seen = std::collections::BTreeSet::new();
    patterns
        .into_iter()
        .filter(|p| seen.insert(*p))
        .map(|p| IgnorePattern::new(p).expect("the defaults are valid patterns"))
        .collect()
}

/// Validates the `spireControllerManager` section; `field` names a setting in messages.
pub(super) fn manager(
    spec: Option<SpireManagerSpec>,
    field: &dyn Fn(&str) -> String,
) -> Result<SpireManager, ConfigError> {
    let Some(m) = spec else { return Ok(SpireManager::default()) };
    if let Some(class) = &m.class_name {
        validate_class_name(class)
            .map_err(|e| ConfigError::new(field("spireControllerManager.className"), e))?;
    }
    let given = m.ignore_namespaces.is_some();
    let patterns = m.ignore_namespaces.unwrap_or_default();
    let mut ignore_namespaces = Vec::with_capacity(patterns.len());
    for (i, pattern) in patterns.iter().enumerate() {
        let compiled = IgnorePattern::new(pattern).map_err(|e| {
            ConfigError::new(
                format!("{}[{i}]", field("spireControllerManager.ignoreNamespaces")),
                format!("{pattern:?} is not a regular expression SPIRE Controller Manager can read: {e}"),
            )
        })?;
        ignore_namespaces.push(compiled);
    }
    let mut label_selector = m.cluster_spiffe_id_label_selector.unwrap_or_default();
    let selector_field = field("spireControllerManager.clusterSPIFFEIDLabelSelector");
    for (key, value) in &label_selector {
        names::qualified_name(key).map_err(|e| {
            ConfigError::new(&selector_field, format!("label key {key:?} is not a label key: {e}"))
        })?;
        // An empty value is a label value: the object must carry the label, empty.
        if !value.is_empty() {
            names::label_value(value).map_err(|e| {
                ConfigError::new(
                    &selector_field,
                    format!("the value {value:?} of {key} is not a label value: {e}"),
                )
            })?;
        }
    }
    if m.filter_by_class_name == Some(true) {
        let filter_field = field("spireControllerManager.filterByClassName");
        let class = m.class_name.as_deref().unwrap_or_default();
        if class.is_empty() {
            return Err(ConfigError::new(
                filter_field,
                "requires spireControllerManager.className: the manager filters by its own class, and \
                 SPIRE Controller Manager requires className with filterByClassName",
            ));
        }
        names::label_value(class).map_err(|e| {
            ConfigError::new(
                filter_field,
                format!(
                    "the manager's className {class:?} is not a label value ({e}): no ClusterSPIFFEID can carry \
                     {LABEL_CLASS_NAME} with it, so the manager would read none"
                ),
            )
        })?;
        label_selector.insert(LABEL_CLASS_NAME.to_string(), class.to_string());
    }
    Ok(SpireManager {
        class_name: m.class_name,
        watch_classless: m.watch_classless.unwrap_or(false),
        ignore_namespaces,
        may_ignore: if given { Vec::new() } else { unknown_ignores() },
        label_selector,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::with_all;
    use super::super::{Config, ConfigError};
    use super::*;

    fn with(key: &'static str, value: &str) -> Result<Config, ConfigError> {
        with_all(&[(key, value)])
    }

    #[test]
    fn one_manager_setting_leaves_the_others_unknown() {
        let only_namespaces = with("spireControllerManager.ignoreNamespaces", "^team-").unwrap().spire;
        assert_eq!(only_namespaces.class_name, None, "the class rules stay unchecked");
        assert_eq!(
            only_namespaces.ignore_namespaces.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(),
            ["^team-"]
        );
        let empty_class = with("spireControllerManager.className", "").unwrap().spire;
        assert_eq!(empty_class.class_name.as_deref(), Some(""), "an empty class is a class rule");
        // Not given: no namespace is surely ignored, and those of the manager's defaults and the
        // SPIRE Helm chart's may be, each once.
        let unset = Config::default().spire;
        assert!(unset.ignore_namespaces.is_empty());
        let may: Vec<&str> = unset.may_ignore.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            may,
            ["kube-system", "kube-public", "spire-system", "local-path-storage", "openshift-.*", "ibm-.*"]
        );
        assert!(only_namespaces.may_ignore.is_empty(), "given, it is known");
        assert!(with("spireControllerManager.ignoreNamespaces", "").unwrap().spire.may_ignore.is_empty());
        assert!(Config::default().spire.label_selector.is_empty(), "no selector: every label set is read");
    }

    #[test]
    fn ignore_namespaces_are_read_as_go_reads_them() {
        let quoted = with("spireControllerManager.ignoreNamespaces", r"\Qteam.a\E").unwrap().spire;
        assert!(
            quoted.ignore_namespaces[0].is_match("team.a") && !quoted.ignore_namespaces[0].is_match("teamxa")
        );
        let err = with("spireControllerManager.ignoreNamespaces", r"kube-system,\C").unwrap_err().to_string();
        assert!(err.contains("[1]") && err.contains(r"\C"), "{err}");
    }

    #[test]
    fn filter_by_class_name_lays_the_class_label_over_the_selector() {
        let selector = "spire.spiffe.io/class-name=other, tier=child,empty=";
        let only_map = with("spireControllerManager.clusterSPIFFEIDLabelSelector", selector).unwrap().spire;
        let pairs = |m: &SpireManager| {
            m.label_selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
        };
        assert_eq!(pairs(&only_map), "empty=,spire.spiffe.io/class-name=other,tier=child");
        let both = with_all(&[
            ("spireControllerManager.className", "spire-system-spire"),
            ("spireControllerManager.filterByClassName", "true"),
            ("spireControllerManager.clusterSPIFFEIDLabelSelector", selector),
        ])
        .unwrap()
        .spire;
        assert_eq!(pairs(&both), "empty=,spire.spiffe.io/class-name=spire-system-spire,tier=child");
        let off = with_all(&[
            ("spireControllerManager.className", "spire-system-spire"),
            ("spireControllerManager.filterByClassName", "false"),
        ])
        .unwrap()
        .spire;
        assert!(off.label_selector.is_empty());
    }

    #[test]
    fn filter_by_class_name_needs_a_class_that_is_a_label_value() {
        let err = with("spireControllerManager.filterByClassName", "true").unwrap_err();
        assert_eq!(err.field, "--spireControllerManager.filterByClassName");
        assert!(err.message.contains("requires spireControllerManager.className"), "{err}");
        let empty = with_all(&[
            ("spireControllerManager.className", ""),
            ("spireControllerManager.filterByClassName", "true"),
        ]);
        assert!(empty.unwrap_err().message.contains("requires spireControllerManager.className"));
        let long = "c".repeat(64);
        let err = with_all(&[
            ("spireControllerManager.className", &long),
            ("spireControllerManager.filterByClassName", "true"),
        ])
        .unwrap_err();
        assert!(err.message.contains("is not a label value"), "{err}");
    }

    #[test]
    fn the_selector_holds_label_keys_and_values_only() {
        let field = "spireControllerManager.clusterSPIFFEIDLabelSelector";
        for (text, why) in [
            ("Bad Key=x", "label key \"Bad Key\" is not a label key"),
            ("a/b/c=x", "is not a label key"),
            ("tier=no good", "the value \"no good\" of tier is not a label value"),
            ("tier", "is not key=value"),
            ("tier=a,tier=b", "tier twice"),
        ] {
            let err = with(field, text).unwrap_err();
            assert_eq!(err.field, format!("--{field}"), "{text}");
            assert!(err.message.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn a_manager_is_made_again_of_its_own_settings() {
        let spec = SpireManagerSpec {
            class_name: Some("spire-system-spire".into()),
            watch_classless: Some(true),
            ignore_namespaces: Some(vec!["kube-.*".into()]),
            filter_by_class_name: Some(true),
            cluster_spiffe_id_label_selector: Some([("team".to_string(), "a".to_string())].into()),
        };
        let made = SpireManager::of_spec(spec).unwrap();
        assert_eq!(SpireManager::of_spec(made.spec()).unwrap(), made);
        let unknown = SpireManager::default();
        assert_eq!(unknown.spec().ignore_namespaces, None, "unknown stays unknown");
        assert_eq!(SpireManager::of_spec(unknown.spec()).unwrap(), unknown);
    }
}
