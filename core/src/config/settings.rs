//! The string form of the settings (ConfigMap `data`, command-line flags, `ARGOCD_ENV_*`
//! variables), read off the JSON schema of [`ConfigSpec`]: the typed struct is each
//! setting's one declaration, and its key, type, allowed values and description come from
//! it. A nested setting's key is dotted (`spireControllerManager.className`); its flag
//! shortens the section to `spire-` (`--spire-class-name`).

use super::{ConfigError, ConfigSpec, json_schema};
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// One setting of the string form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// `trustDomain`; `spireControllerManager.className` for a nested one.
    pub key: String,
    pub form: Form,
    /// The field's doc comment, as the schema holds it.
    pub description: String,
    /// `trust-domain`, `spire-class-name`.
    pub flag: String,
    /// `ARGOCD_ENV_TRUST_DOMAIN`: what Argo CD sets for a plugin env entry `TRUST_DOMAIN`.
    pub env: String,
    /// `PARAM_TRUST_DOMAIN`: what Argo CD sets for a plugin parameter named as the flag
    /// (`trust-domain`), its name upper-cased with every other character than a letter, digit
    /// or `_` made `_`.
    pub param: String,
    /// What the flag given without a value stands for (`--admission-guard` for `Deny`); `None`:
    /// the flag takes a value.
    pub bare: Option<&'static str>,
}

/// How a setting's text reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// As written.
    Text,
    /// `true` or `false`, nothing else.
    Bool,
    /// Comma-separated, each entry trimmed, empty ones dropped.
    List,
    /// Comma-separated `key=value` entries, each trimmed, empty ones dropped; a key once.
    Map,
    /// One of these words.
    OneOf(Vec<String>),
}

impl Setting {
    /// Its description's first sentence, for `--help`.
    pub fn summary(&self) -> String {
        let text = self.description.split_whitespace().collect::<Vec<_>>().join(" ");
        match text.find(". ") {
            Some(end) => text[..=end].to_string(),
            None => text,
        }
    }
}

/// Every setting, in the order the struct declares them.
pub fn settings() -> &'static [Setting] {
    static SETTINGS: LazyLock<Vec<Setting>> = LazyLock::new(|| {
        let schema = json_schema();
        let mut out = Vec::new();
        collect(&schema, &schema["$defs"]["ConfigSpec"], "", &mut out);
        out
    });
    &SETTINGS
}

/// The settings of the object schema `node`, under the key prefix `prefix`.
fn collect(root: &Value, node: &Value, prefix: &str, out: &mut Vec<Setting>) {
    let Some(properties) = resolve(root, node).get("properties").and_then(Value::as_object) else { return };
    for (name, property) in properties {
        let key = format!("{prefix}{name}");
        let description = property.get("description").and_then(Value::as_str).unwrap_or_default();
        let target = not_null(root, property);
        let types: Vec<&str> = match target.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
            _ => Vec::new(),
        };
        let form = if let Some(values) = one_of(target) {
            Form::OneOf(values)
        } else if types == ["object"] && target.get("properties").is_none() {
            Form::Map
        } else if types == ["object"] {
            collect(root, target, &format!("{key}."), out);
            continue;
        } else if types == ["boolean"] {
            Form::Bool
        } else if types == ["array"] {
            Form::List
        } else {
            Form::Text
        };
        let flag = kebab(&flag_key(&key));
        let env = format!("ARGOCD_ENV_{}", flag.to_ascii_uppercase().replace('-', "_"));
        let param = format!("PARAM_{}", flag.to_ascii_uppercase().replace('-', "_"));
        let bare = (key == "admissionGuard.action").then_some("Deny");
        out.push(Setting { key, form, description: description.to_string(), flag, env, param, bare });
    }
}

/// The key a setting's flag is made of: the SPIRE manager's section shortened to `spire`,
/// and the guard's action the section's own flag (`--admission-guard`, `--admission-guard=Warn`).
fn flag_key(key: &str) -> String {
    match key {
        "admissionGuard.action" => "admissionGuard".to_string(),
        _ => key.replacen("spireControllerManager.", "spire.", 1),
    }
}

/// `node`, its `$ref` followed.
fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => &root["$defs"][name],
        None => node,
    }
}

/// The schema of an optional field without its `null`: the other branch of an `anyOf`.
fn not_null<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    let branches = node.get("anyOf").and_then(Value::as_array);
    let branch =
        branches.and_then(|b| b.iter().find(|b| b.get("type").and_then(Value::as_str) != Some("null")));
    resolve(root, branch.unwrap_or(node))
}

/// The words an enum allows: its `enum`, or the `const` of each `oneOf` branch.
fn one_of(node: &Value) -> Option<Vec<String>> {
    let words = |values: &Vec<Value>| values.iter().filter_map(Value::as_str).map(str::to_string).collect();
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return Some(words(values));
    }
    let branches = node.get("oneOf").and_then(Value::as_array)?;
    Some(words(&branches.iter().filter_map(|b| b.get("const").cloned()).collect()))
}

/// `spire.className` as `spire-class-name`; an acronym is one word
/// (`spire.clusterSPIFFEIDLabelSelector` as `spire-cluster-spiffeid-label-selector`).
fn kebab(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1);
        match c {
            '.' => out.push('-'),
            c if c.is_ascii_uppercase() => {
                let starts_word = before.is_some_and(|b| b.is_ascii_lowercase())
                    || (before.is_some_and(|b| b.is_ascii_uppercase())
                        && after.is_some_and(char::is_ascii_lowercase));
                if starts_word {
                    out.push('-');
                }
                out.push(c.to_ascii_lowercase());
            }
            c => out.push(c),
        }
    }
    out
}

/// `A`, `A or B`, `A, B or C`.
fn or_list(words: &[String]) -> String {
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The entries of a comma-separated string form, each trimmed, empty ones dropped.
fn entries(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// `key=value,key=value` as a mapping (a value may be empty).
fn pairs(text: &str) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    for entry in entries(text) {
        let Some((key, value)) = entry.split_once('=') else {
            return Err(format!("{entry:?} is not key=value: write key=value,key=value"));
        };
        if map.insert(key.trim().to_string(), Value::from(value.trim())).is_some() {
            return Err(format!("gives the key {} twice", key.trim()));
        }
    }
    Ok(map)
}

/// Sets one field from its string form; `field` names where the text came from.
pub(super) fn set_from_string(
    spec: &mut ConfigSpec,
    key: &str,
    text: &str,
    field: &str,
) -> Result<(), ConfigError> {
    let Some(setting) = settings().iter().find(|s| s.key == key) else {
        let keys: Vec<&str> = settings().iter().map(|s| s.key.as_str()).collect();
        return Err(ConfigError::new(field, format!("unknown field: expected one of {}", keys.join(", "))));
    };
    // No trimming: padding in a trust domain or a policy is an error, not something to guess.
    let value = match &setting.form {
        Form::Text => Value::String(text.to_string()),
        Form::Bool => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(ConfigError::new(field, format!("{text:?} is not true or false"))),
        },
        Form::List => entries(text).map(Value::from).collect(),
        Form::Map => Value::Object(pairs(text).map_err(|m| ConfigError::new(field, m))?),
        Form::OneOf(words) if words.iter().any(|w| w == text) => Value::String(text.to_string()),
        Form::OneOf(words) => {
            return Err(ConfigError::new(field, format!("{text:?} is not {}", or_list(words))));
        }
    };
    let mut typed = serde_json::to_value(&*spec).expect("the settings serialize");
    let mut at = &mut typed;
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        let map = at.as_object_mut().expect("settings are mappings");
        if parts.peek().is_none() {
            map.insert(part.to_string(), value);
            break;
        }
        at = map.entry(part).or_insert_with(|| Value::Object(Map::new()));
    }
    *spec = serde_json::from_value(typed).map_err(|e| ConfigError::new(field, e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_of_the_struct_is_a_setting_with_its_flag_and_variable() {
        let found: Vec<(&str, &str, &str)> =
            settings().iter().map(|s| (s.key.as_str(), s.flag.as_str(), s.env.as_str())).collect();
        assert_eq!(
            found,
            [
                ("trustDomain", "trust-domain", "ARGOCD_ENV_TRUST_DOMAIN"),
                ("className", "class-name", "ARGOCD_ENV_CLASS_NAME"),
                ("classNameLabel", "class-name-label", "ARGOCD_ENV_CLASS_NAME_LABEL"),
                ("failurePolicy", "failure-policy", "ARGOCD_ENV_FAILURE_POLICY"),
                ("workloadPolicy", "workload-policy", "ARGOCD_ENV_WORKLOAD_POLICY"),
                ("prune", "prune", "ARGOCD_ENV_PRUNE"),
                ("apiVersions", "api-versions", "ARGOCD_ENV_API_VERSIONS"),
                ("transitionTime", "transition-time", "ARGOCD_ENV_TRANSITION_TIME"),
                ("outputPath", "output-path", "ARGOCD_ENV_OUTPUT_PATH"),
                ("selectorScope", "selector-scope", "ARGOCD_ENV_SELECTOR_SCOPE"),
                ("spireControllerManager.className", "spire-class-name", "ARGOCD_ENV_SPIRE_CLASS_NAME"),
                (
                    "spireControllerManager.watchClassless",
                    "spire-watch-classless",
                    "ARGOCD_ENV_SPIRE_WATCH_CLASSLESS"
                ),
                (
                    "spireControllerManager.ignoreNamespaces",
                    "spire-ignore-namespaces",
                    "ARGOCD_ENV_SPIRE_IGNORE_NAMESPACES"
                ),
                (
                    "spireControllerManager.filterByClassName",
                    "spire-filter-by-class-name",
                    "ARGOCD_ENV_SPIRE_FILTER_BY_CLASS_NAME"
                ),
                (
                    "spireControllerManager.clusterSPIFFEIDLabelSelector",
                    "spire-cluster-spiffeid-label-selector",
                    "ARGOCD_ENV_SPIRE_CLUSTER_SPIFFEID_LABEL_SELECTOR"
                ),
                ("admissionGuard.action", "admission-guard", "ARGOCD_ENV_ADMISSION_GUARD"),
                ("admissionGuard.name", "admission-guard-name", "ARGOCD_ENV_ADMISSION_GUARD_NAME"),
                (
                    "admissionGuard.paramNamespace",
                    "admission-guard-param-namespace",
                    "ARGOCD_ENV_ADMISSION_GUARD_PARAM_NAMESPACE"
                ),
                (
                    "admissionGuard.outputPath",
                    "admission-guard-output-path",
                    "ARGOCD_ENV_ADMISSION_GUARD_OUTPUT_PATH"
                ),
                (
                    "admissionGuard.controllers",
                    "admission-guard-controllers",
                    "ARGOCD_ENV_ADMISSION_GUARD_CONTROLLERS"
                ),
            ]
        );
        // Only the guard's action stands alone: `--admission-guard` is `--admission-guard=Deny`.
        let bare: Vec<(&str, &str)> =
            settings().iter().filter_map(|s| Some((s.key.as_str(), s.bare?))).collect();
        assert_eq!(bare, [("admissionGuard.action", "Deny")]);
        for s in settings() {
            assert_eq!(s.param, s.env.replacen("ARGOCD_ENV_", "PARAM_", 1), "{}", s.key);
        }
        let form = |key: &str| settings().iter().find(|s| s.key == key).unwrap().form.clone();
        assert_eq!(
            form("workloadPolicy"),
            Form::OneOf(vec!["Report".into(), "Fail".into(), "Ignore".into()])
        );
        assert_eq!(
            (form("prune"), form("apiVersions"), form("trustDomain")),
            (Form::Bool, Form::List, Form::Text)
        );
        assert_eq!(form("spireControllerManager.clusterSPIFFEIDLabelSelector"), Form::Map);
        assert_eq!(form("admissionGuard.controllers"), Form::Map);
        assert_eq!(form("admissionGuard.action"), Form::OneOf(vec!["Deny".into(), "Warn".into()]));
    }

    #[test]
    fn the_string_form_sets_the_typed_field() {
        let mut spec = ConfigSpec::default();
        set_from_string(&mut spec, "failurePolicy", "Fail", "f").unwrap();
        set_from_string(&mut spec, "apiVersions", " a/v1, ,b/v2", "f").unwrap();
        set_from_string(&mut spec, "spireControllerManager.watchClassless", "true", "f").unwrap();
        assert_eq!(spec.failure_policy, Some(super::super::FailurePolicy::Fail));
        assert_eq!(spec.api_versions, Some(vec!["a/v1".to_string(), "b/v2".to_string()]));
        set_from_string(&mut spec, "spireControllerManager.clusterSPIFFEIDLabelSelector", " a=1, ,b= ", "f")
            .unwrap();
        let manager = spec.spire_controller_manager.unwrap();
        assert_eq!(manager.watch_classless, Some(true));
        let selector = manager.cluster_spiffe_id_label_selector.unwrap();
        assert_eq!(
            selector.into_iter().collect::<Vec<_>>(),
            [("a".into(), "1".into()), ("b".into(), String::new())]
        );
        let mut spec = ConfigSpec::default();
        let refused = set_from_string(&mut spec, "selectorScope", "pool", "f").unwrap_err();
        assert_eq!(refused.to_string(), "functionConfig f: \"pool\" is not Pool or Binding");
        assert!(set_from_string(&mut spec, "prune", "yes", "f").is_err());
        assert!(
            set_from_string(&mut spec, "nope", "x", "f").unwrap_err().to_string().contains("unknown field")
        );
    }
}
