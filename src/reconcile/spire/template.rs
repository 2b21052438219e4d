//! The Go templates of a ClusterSPIFFEID (`spiffeIDTemplate`, `workloadSelectorTemplates`),
//! evaluated for one pod template. Only what a pod template settles is evaluated: the
//! field references `.TrustDomain`, `.PodMeta.Namespace`, `.PodMeta.Labels.<key>` (also
//! as `index .PodMeta.Labels "<key>"`) and `.PodSpec.ServiceAccountName`. Every other
//! action (`.ClusterName`, `.ClusterDomain`, `.NodeMeta`, `.NodeSpec`, the pod's name or
//! UID, functions, pipelines) is left in the text as written and reported as unknown:
//! those values exist only in the cluster, so nothing here guesses them.
//!
//! Written by hand rather than with a Go-template crate: the one on crates.io (`gtmpl`)
//! would need the whole pod and node as data and would print a value for node fields this
//! function cannot know, where the rule here is to say "unknown"; the subset SPIRE users
//! write is field references, which this file reads in a few lines.

/// What a template evaluates from: one pod template, as its pods would run.
pub struct Data<'a> {
    /// The manager's trust domain, when the configuration gives it.
    pub trust_domain: Option<&'a str>,
    pub namespace: &'a str,
    pub labels: &'a dyn Fn(&str) -> Option<&'a str>,
    pub service_account: &'a str,
}

/// A template's text as far as it can be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluated {
    /// The text, with each action that could not be evaluated kept as written.
    pub text: String,
    /// The actions that could not be evaluated, as written (`{{ .NodeMeta.Name }}`).
    pub unknown: Vec<String>,
}

impl Evaluated {
    pub fn is_known(&self) -> bool {
        self.unknown.is_empty()
    }
}

/// What Go prints for a map key that is missing, under text/template's default option.
const NO_VALUE: &str = "<no value>";

/// Evaluates `template` for `data`; `None` when it is not a template Go can parse (an
/// action without its end), which the manager refuses.
pub fn evaluate(template: &str, data: &Data<'_>) -> Option<Evaluated> {
    let mut out = Evaluated { text: String::new(), unknown: Vec::new() };
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let mut literal = &rest[..start];
        let after = &rest[start + 2..];
        let end = after.find("}}")?;
        let mut inner = &after[..end];
        let mut next = &after[end + 2..];
        // `{{- ` trims the space before, ` -}}` the space after.
        if let Some(trimmed) = inner.strip_prefix("- ") {
            literal = literal.trim_end();
            inner = trimmed;
        }
        if let Some(trimmed) = inner.strip_suffix(" -") {
            next = next.trim_start();
            inner = trimmed;
        }
        out.text.push_str(literal);
        let written = &rest[start..start + 2 + end + 2];
        let action = inner.trim();
        if action.starts_with("/*") {
            // A comment prints nothing.
        } else {
            match value(action, data) {
                Some(v) => out.text.push_str(&v),
                None => {
                    out.text.push_str(written);
                    out.unknown.push(written.to_string());
                }
            }
        }
        rest = next;
    }
    out.text.push_str(rest);
    Some(out)
}

/// The value of one action, when a pod template settles it.
fn value(action: &str, data: &Data<'_>) -> Option<String> {
    let words: Vec<&str> = action.split_whitespace().collect();
    match words.as_slice() {
        [".TrustDomain"] => data.trust_domain.map(str::to_string),
        [".PodMeta.Namespace"] => Some(data.namespace.to_string()),
        [".PodSpec.ServiceAccountName"] => Some(data.service_account.to_string()),
        [field] => {
            let key = field.strip_prefix(".PodMeta.Labels.")?;
            // A map key reached as a field must be a Go identifier.
            if key.is_empty() || key.contains('.') {
                return None;
            }
            Some((data.labels)(key).unwrap_or(NO_VALUE).to_string())
        }
        // `index` of a missing key gives the map's zero value, the empty string.
        ["index", ".PodMeta.Labels", key] => {
            let key = key.strip_prefix('"')?.strip_suffix('"')?;
            Some((data.labels)(key).unwrap_or_default().to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data<'a>(labels: &'a dyn Fn(&str) -> Option<&'a str>) -> Data<'a> {
        Data { trust_domain: Some("example.org"), namespace: "serving", labels, service_account: "llama" }
    }

    #[test]
    fn the_spire_helm_charts_default_template_evaluates() {
        let labels = |_: &str| None;
        let got = evaluate(
            "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}",
            &data(&labels),
        )
        .unwrap();
        assert_eq!(got.text, "spiffe://example.org/ns/serving/sa/llama");
        assert!(got.is_known());
    }

    #[test]
    fn labels_by_field_and_by_index_and_missing_ones_as_go_prints_them() {
        let labels = |k: &str| (k == "app").then_some("llama");
        let d = data(&labels);
        assert_eq!(evaluate("{{.PodMeta.Labels.app}}", &d).unwrap().text, "llama");
        assert_eq!(evaluate(r#"{{ index .PodMeta.Labels "app" }}"#, &d).unwrap().text, "llama");
        assert_eq!(evaluate("{{ .PodMeta.Labels.tier }}", &d).unwrap().text, "<no value>");
        assert_eq!(evaluate(r#"{{ index .PodMeta.Labels "tier" }}"#, &d).unwrap().text, "");
    }

    #[test]
    fn node_and_cluster_data_stay_unknown_never_guessed() {
        let labels = |_: &str| None;
        let got =
            evaluate("spiffe://{{ .TrustDomain }}/{{ .ClusterName }}/{{.NodeMeta.Name}}", &data(&labels))
                .unwrap();
        assert_eq!(got.text, "spiffe://example.org/{{ .ClusterName }}/{{.NodeMeta.Name}}");
        assert_eq!(got.unknown, vec!["{{ .ClusterName }}", "{{.NodeMeta.Name}}"]);
        let no_td = Data { trust_domain: None, ..data(&labels) };
        assert!(!evaluate("spiffe://{{ .TrustDomain }}/x", &no_td).unwrap().is_known());
    }

    #[test]
    fn trim_markers_comments_and_an_unclosed_action() {
        let labels = |_: &str| None;
        let d = data(&labels);
        assert_eq!(evaluate("a {{- .PodMeta.Namespace -}} b{{/* c */}}", &d).unwrap().text, "aservingb");
        assert_eq!(evaluate("spiffe://x/{{ .PodMeta.Namespace", &d), None);
    }
}
