//! Manifests embedded as text in a ConfigMap or a Secret: a pod template file (Airflow's
//! `pod_template_file`, Spark's `spark.kubernetes.*.podTemplateFile`), a controller's defaults
//! (Argo Workflows' `workflowDefaults` in `workflow-controller-configmap`, which it merges into
//! every workflow: argo-workflows `workflow/controller/controller.go`, `setWorkflowDefaults`).
//! Whatever reads the text may make pods with the labels and the service account it names, in
//! any namespace, where the build does not see: a text that names labels and a key an identity
//! selects, or a pod's service account that an identity requires (`workflowDefaults` that set
//! `spec.serviceAccountName` run every workflow's pods as it that sets none: argo-workflows
//! `workflow/controller/workflowpod.go`, `setupServiceAccount`), is may gain.

use crate::api::value::Value;
use std::borrow::Cow;
use std::collections::HashMap;

/// What the identities read of a pod, each with the identities that read it (their indexes):
/// label keys, service accounts.
pub(super) struct Named<'m, 'k> {
    pub keys: &'m HashMap<&'k str, Vec<usize>>,
    pub accounts: &'m HashMap<&'k str, Vec<usize>>,
}

/// The fields of a pod, a pod template or a controller's spec that name the service account
/// its pods run as (`serviceAccount` is the Pod's older name of `serviceAccountName`, and a
/// part of it).
const ACCOUNT_FIELDS: [&str; 2] = ["serviceAccountName", "serviceAccount"];

/// The service accounts of `accounts` that `text` names as its pods' (a field of
/// [`ACCOUNT_FIELDS`] and the word after it, plain or escaped), each once, in the order met.
pub(super) fn named_accounts<'k>(text: &str, accounts: &HashMap<&'k str, Vec<usize>>) -> Vec<&'k str> {
    let mut out: Vec<&'k str> = Vec::new();
    let binary = super::BINARY_TAGS.iter().any(|tag| text.contains(tag));
    let named = text.to_ascii_lowercase().contains(&ACCOUNT_FIELDS[1].to_ascii_lowercase());
    if accounts.is_empty() || !(named || text.contains('\\') || binary) {
        return out;
    }
    let plain = super::unescaped(text);
    for text in std::iter::once(text).chain(plain.iter().map(String::as_str)) {
        let words: Vec<&str> = super::tokens(text).collect();
        for pair in words.windows(2) {
            // The field's own name, in any case (Go's `encoding/json` matches `ServiceAccountName`),
            // or the last part of a dotted setting (Spark's
            // `spark.kubernetes.authenticate.executor.serviceAccountName`).
            let field = pair[0].rsplit('.').next().unwrap_or_default();
            if ACCOUNT_FIELDS.iter().any(|f| f.eq_ignore_ascii_case(field))
                && let Some((account, _)) = accounts.get_key_value(pair[1])
                && !out.contains(account)
            {
                out.push(account);
            }
        }
    }
    out
}

/// The texts of a core ConfigMap's `data` and `binaryData` or a Secret's `stringData` and
/// `data` (each base64 field decoded, when it decodes to text), each with its field; none for
/// another kind. A ConfigMap mounted as a volume writes the bytes of its `binaryData` as files
/// beside those of its `data` (kubernetes `pkg/volume/configmap/configmap.go`, `MakePayload`),
/// so a pod template file there is read all the same.
pub(super) fn texts<'v>(api_version: &str, kind: &str, value: &'v Value) -> Vec<(String, Cow<'v, str>)> {
    let fields: &[(&str, bool)] = match (api_version, kind) {
        ("v1", "ConfigMap") => &[("data", false), ("binaryData", true)],
        ("v1", "Secret") => &[("stringData", false), ("data", true)],
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (field, encoded) in fields {
        let Some(entries) = value.get(field).and_then(Value::as_object) else { continue };
        for (key, text) in entries.iter() {
            let Some(text) = text.as_str() else { continue };
            let text = if *encoded {
                match base64(text).and_then(|bytes| String::from_utf8(bytes).ok()) {
                    Some(decoded) => Cow::Owned(decoded),
                    None => continue,
                }
            } else {
                Cow::Borrowed(text)
            };
            out.push((format!("{field}.{key}"), text));
        }
    }
    out
}

/// Whether a text may embed a pod's labels: a word of it names `label` in any case (`labels`,
/// `podLabels`, Go's `Labels`, which `encoding/json` matches to `labels`, Spark's
/// `spark.kubernetes.executor.label.<key>`), plain, written with a quoted string's escapes
/// (`"\x6Cabels"`, which a YAML or JSON reader reads as `labels`: [`super::quoted`]) or in
/// a `!!binary` scalar ([`super::binaries`]).
pub(super) fn names_labels(text: &str) -> bool {
    let named = |text: &str| {
        super::tokens(text).any(|t| t.as_bytes().windows(5).any(|w| w.eq_ignore_ascii_case(b"label")))
    };
    named(text)
        || (text.contains('\\') && named(&super::quoted(text)))
        || super::binaries(text).iter().any(|b| named(b))
}

/// The bytes of standard base64 text (padding optional, line breaks skipped), as the API
/// server decodes a Secret's `data` (Go's `base64.StdEncoding`, which skips line breaks),
/// or more leniently; `None` when it is not base64.
pub(super) fn base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let text: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    LENIENT.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    #[test]
    fn labels_and_accounts_are_named_in_any_case_and_in_dotted_settings() {
        for text in
            ["labels: {a: b}", "podLabels: {a: b}", "Labels: {a: b}", "spark.kubernetes.executor.label.a=b"]
        {
            assert!(names_labels(text), "{text}");
        }
        assert!(!names_labels("annotations: {a: b}"));
        let accounts: HashMap<&str, Vec<usize>> = [("runner", vec![0])].into();
        for text in [
            "serviceAccountName: runner",
            "ServiceAccountName: runner",
            "spark.kubernetes.authenticate.executor.serviceAccountName=runner",
        ] {
            assert_eq!(named_accounts(text, &accounts), ["runner"], "{text}");
        }
        assert!(named_accounts("accountName: runner", &accounts).is_empty());
    }

    #[test]
    fn base64_decodes_as_the_api_server_does() {
        assert_eq!(base64("bGFiZWxz").as_deref(), Some(&b"labels"[..]));
        assert_eq!(base64("YXBw").as_deref(), Some(&b"app"[..]));
        assert_eq!(base64("YQ==").as_deref(), Some(&b"a"[..]));
        assert_eq!(base64("YWI=").as_deref(), Some(&b"ab"[..]));
        assert_eq!(base64("YW\nJj").as_deref(), Some(&b"abc"[..]));
        assert_eq!(base64("not base64!"), None);
        assert_eq!(base64("+/8=").as_deref(), Some(&[0xfb, 0xff][..]), "the last two of the alphabet");
        assert_eq!(base64("Y"), None);
    }

    #[test]
    fn a_config_maps_and_a_secrets_texts_are_read_with_their_fields() {
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"pod.yaml": "labels: {app: x}"}});
        let texts_of = |v: &Value| -> Vec<(String, String)> {
            let text = |p: &str| v.get(p).and_then(Value::as_str).unwrap_or_default().to_string();
            texts(&text("apiVersion"), &text("kind"), v)
                .into_iter()
                .map(|(f, t)| (f, t.into_owned()))
                .collect()
        };
        assert_eq!(texts_of(&map), [("data.pod.yaml".to_string(), "labels: {app: x}".to_string())]);
        let secret = json!({"apiVersion": "v1", "kind": "Secret",
                            "stringData": {"a": "plain"}, "data": {"b": "bGFiZWxz", "c": "//79"}});
        assert_eq!(
            texts_of(&secret),
            [("stringData.a".to_string(), "plain".to_string()), ("data.b".to_string(), "labels".to_string())]
        );
        let binary = json!({"apiVersion": "v1", "kind": "ConfigMap",
                            "data": {"a": "plain"}, "binaryData": {"b": "bGFiZWxz", "c": "//79"}});
        assert_eq!(
            texts_of(&binary),
            [("data.a".to_string(), "plain".to_string()), ("binaryData.b".to_string(), "labels".to_string())]
        );
        let other = json!({"apiVersion": "example.org/v1", "kind": "ConfigMap", "data": {"a": "labels"}});
        assert!(texts_of(&other).is_empty());
        assert!(names_labels("metadata:\n  labels: {app: x}") && !names_labels("podAnnotations: x"));
        assert!(names_labels(r#"metadata: {"\x6Cabels": {app: x}}"#));
        assert!(names_labels(r#"{"metadata": {"\u006cabels": {"app": "x"}}}"#));
        assert!(!names_labels(r#"{"metadata": {"\u006cabe": {"app": "x"}}}"#));
    }
}
