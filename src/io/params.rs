//! The settings given outside the config file: command-line flags, the `ARGOCD_ENV_*`
//! variables of an Argo CD application's plugin env entries, and the `PARAM_*` variables of
//! its plugin parameters. Argo CD passes a parameter as `PARAM_<NAME>`, its name upper-cased
//! with every character other than a letter, digit or `_` made `_` (an array's items as
//! `PARAM_<NAME>_0`, `PARAM_<NAME>_1`, ...), and all of them as JSON in
//! `ARGOCD_APP_PARAMETERS`. A parameter is named as the setting's flag (`trust-domain`).
//!
//! Precedence: a flag wins over both variables. When a setting's env entry and its parameter
//! are both set they must agree: two different trust domains for one application are a
//! mistake to refuse, not one to settle by a rule its author may not know.

use crate::config::{Form, Override, Setting, settings};
use serde_json::Value;

/// A setting's value as clap found it: from its flag, or from its `ARGOCD_ENV_*` variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    pub value: String,
    pub from_flag: bool,
}

/// The overrides of every setting, from `given` (flags and `ARGOCD_ENV_*`) and the
/// variables `var` reads (`PARAM_*`, `ARGOCD_APP_PARAMETERS`); or every reason they cannot
/// be taken, one a line, each naming its setting or parameter.
pub fn overrides(
    given: impl Fn(&Setting) -> Option<Given>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Vec<Override>, String> {
    let mut refused = unknown_parameters(&var);
    let mut out = Vec::new();
    for setting in settings() {
        let flag_source = || format!("--{} ({})", setting.flag, setting.env);
        let param = match param_value(setting, &var) {
            Ok(param) => param,
            Err(message) => {
                refused.push(message);
                continue;
            }
        };
        let (source, value) = match (given(setting), param) {
            (Some(g), _) if g.from_flag => (flag_source(), g.value),
            (Some(g), Some((name, p))) if g.value != p => {
                refused.push(format!(
                    "{} is {:?} and {name} is {p:?}: the Argo CD plugin env entry and the plugin parameter \
                     of {} disagree; set one of them",
                    setting.env, g.value, setting.key
                ));
                continue;
            }
            (Some(g), _) => (flag_source(), g.value),
            (None, Some((name, p))) => (format!("{name} (Argo CD parameter {})", setting.flag), p),
            (None, None) => continue,
        };
        out.push(Override { key: &setting.key, source, value });
    }
    if refused.is_empty() { Ok(out) } else { Err(refused.join("\n")) }
}

/// The parameter of one setting: the variable it came in and its text; an array's items
/// joined by commas, as a list setting reads them.
fn param_value(
    setting: &Setting,
    var: &impl Fn(&str) -> Option<String>,
) -> Result<Option<(String, String)>, String> {
    let string = var(&setting.param);
    let items: Vec<String> = (0..).map_while(|i| var(&format!("{}_{i}", setting.param))).collect();
    match (string, items.is_empty()) {
        (string, true) => Ok(string.map(|s| (setting.param.clone(), s))),
        (Some(_), false) => Err(format!(
            "{} and {}_0 are both set: the Argo CD parameter {} is given both as a string and as an array",
            setting.param, setting.param, setting.flag
        )),
        (None, false) if setting.form != Form::List => Err(format!(
            "{}_0 is set: the Argo CD parameter {} takes a string, not an array",
            setting.param, setting.flag
        )),
        (None, false) => Ok(Some((format!("{}_*", setting.param), items.join(",")))),
    }
}

/// Argo CD's escaping of a parameter name into its variable: `trust-domain` as `TRUST_DOMAIN`.
fn escaped(name: &str) -> String {
    name.chars()
        .map(|c| match c.to_ascii_uppercase() {
            c @ ('A'..='Z' | '0'..='9' | '_') => c,
            _ => '_',
        })
        .collect()
}

/// A parameter of `ARGOCD_APP_PARAMETERS` that names no setting, or comes as a map: refused,
/// so that a misspelt parameter cannot leave its setting at the default unseen.
fn unknown_parameters(var: &impl Fn(&str) -> Option<String>) -> Vec<String> {
    let Some(text) = var("ARGOCD_APP_PARAMETERS") else { return Vec::new() };
    let parsed: Value = match serde_json::from_str(&text) {
        Ok(parsed) => parsed,
        Err(e) => return vec![format!("ARGOCD_APP_PARAMETERS is not the JSON list Argo CD passes: {e}")],
    };
    let Some(list) = parsed.as_array() else {
        return vec!["ARGOCD_APP_PARAMETERS is not the JSON list Argo CD passes".to_string()];
    };
    let names: Vec<&str> = settings().iter().map(|s| s.flag.as_str()).collect();
    let mut refused = Vec::new();
    for entry in list {
        let name = entry.get("name").and_then(Value::as_str).unwrap_or_default();
        let param = format!("PARAM_{}", escaped(name));
        if !settings().iter().any(|s| s.param == param) {
            refused.push(format!(
                "Argo CD parameter {name:?} is not a setting of this plugin: expected one of {}",
                names.join(", ")
            ));
        } else if entry.get("map").is_some() {
            refused.push(format!("Argo CD parameter {name:?} is a map: it takes a string"));
        }
    }
    refused
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn run(
        given: &[(&str, &str, bool)],
        vars: &[(&str, &str)],
    ) -> Result<Vec<(String, String, String)>, String> {
        let given: BTreeMap<String, Given> = given
            .iter()
            .map(|(flag, value, from_flag)| {
                (flag.to_string(), Given { value: value.to_string(), from_flag: *from_flag })
            })
            .collect();
        let vars: BTreeMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        overrides(|s| given.get(&s.flag).cloned(), |name| vars.get(name).cloned())
            .map(|found| found.into_iter().map(|o| (o.key.to_string(), o.source, o.value)).collect())
    }

    #[test]
    fn a_parameter_sets_its_setting_and_says_where_it_came_from() {
        let found = run(&[], &[("PARAM_TRUST_DOMAIN", "prod.example.org"), ("PARAM_FAILURE_POLICY", "Fail")]);
        assert_eq!(
            found.unwrap(),
            [
                (
                    "trustDomain".to_string(),
                    "PARAM_TRUST_DOMAIN (Argo CD parameter trust-domain)".to_string(),
                    "prod.example.org".to_string()
                ),
                (
                    "failurePolicy".to_string(),
                    "PARAM_FAILURE_POLICY (Argo CD parameter failure-policy)".to_string(),
                    "Fail".to_string()
                ),
            ]
        );
    }

    #[test]
    fn an_array_parameter_of_a_list_setting_is_its_items_and_of_another_is_refused() {
        let found = run(&[], &[("PARAM_API_VERSIONS_0", "v1"), ("PARAM_API_VERSIONS_1", "apps/v1")]).unwrap();
        assert_eq!(found[0].0, "apiVersions");
        assert_eq!(
            (found[0].1.as_str(), found[0].2.as_str()),
            ("PARAM_API_VERSIONS_* (Argo CD parameter api-versions)", "v1,apps/v1")
        );
        let refused = run(&[], &[("PARAM_TRUST_DOMAIN_0", "a")]).unwrap_err();
        assert!(refused.contains("trust-domain takes a string, not an array"), "{refused}");
        let refused = run(&[], &[("PARAM_API_VERSIONS", "v1"), ("PARAM_API_VERSIONS_0", "v1")]).unwrap_err();
        assert!(refused.contains("both as a string and as an array"), "{refused}");
    }

    #[test]
    fn a_flag_wins_and_an_env_entry_must_agree_with_the_parameter() {
        let flag = run(&[("trust-domain", "a.org", true)], &[("PARAM_TRUST_DOMAIN", "b.org")]).unwrap();
        assert_eq!(
            flag,
            [("trustDomain".into(), "--trust-domain (ARGOCD_ENV_TRUST_DOMAIN)".into(), "a.org".into())]
        );
        let same = run(&[("trust-domain", "a.org", false)], &[("PARAM_TRUST_DOMAIN", "a.org")]).unwrap();
        assert_eq!(same, flag);
        let refused =
            run(&[("trust-domain", "a.org", false)], &[("PARAM_TRUST_DOMAIN", "b.org")]).unwrap_err();
        assert_eq!(
            refused,
            "ARGOCD_ENV_TRUST_DOMAIN is \"a.org\" and PARAM_TRUST_DOMAIN is \"b.org\": the Argo CD plugin env \
             entry and the plugin parameter of trustDomain disagree; set one of them"
        );
    }

    #[test]
    fn a_parameter_that_names_no_setting_or_comes_as_a_map_is_refused() {
        let params = r#"[{"name":"trust-domian","string":"x"},{"name":"class-name","map":{"a":"b"}},{"name":"TRUST_DOMAIN","string":"x"}]"#;
        let refused =
            run(&[], &[("ARGOCD_APP_PARAMETERS", params), ("PARAM_TRUST_DOMAIN", "x")]).unwrap_err();
        let lines: Vec<&str> = refused.lines().collect();
        assert_eq!(lines.len(), 2, "{refused}");
        assert!(lines[0].starts_with("Argo CD parameter \"trust-domian\" is not a setting of this plugin: expected one of trust-domain, class-name,"), "{refused}");
        assert_eq!(lines[1], "Argo CD parameter \"class-name\" is a map: it takes a string");
        let refused = run(&[], &[("ARGOCD_APP_PARAMETERS", "{")]).unwrap_err();
        assert!(
            refused.starts_with("ARGOCD_APP_PARAMETERS is not the JSON list Argo CD passes: "),
            "{refused}"
        );
        assert_eq!(escaped("spire.ignore-namespaces"), "SPIRE_IGNORE_NAMESPACES");
    }
}
