//! Pure identity planning (docs/reference.md#rendering-one-binding): the SPIFFE ID, the
//! canonical selector set and its safety checks, the selector fingerprint, the output
//! object name, and the ClusterSPIFFEID object built of them.

use crate::api::cluster_spiffe_id::{
    ANNOTATION_RENDERED_BY, API_VERSION, ClusterSpiffeId, KIND, Metadata, NAMESPACE_NAME_LABEL, OutputLabels,
    PodSelector, RENDERED_BY, Spec,
};
use crate::api::labels::Labels;
use serde_json::{Map, Value};
use sha1::Sha1;
use sha2::{Digest, Sha256};

/// The pod label that carries a binding's variant.
pub const VARIANT_LABEL: &str = crate::api::cluster_spiffe_id::VARIANT_LABEL;

const NS_PREFIX: &str = "k8s:ns:";
const SA_PREFIX: &str = "k8s:sa:";
const POD_LABEL_PREFIX: &str = "k8s:pod-label:";

/// `spiffe://<td>/ns/<ns>/sa/<sa>/inference/pool/<pool>/variant/<variant>`.
pub fn spiffe_id(trust_domain: &str, ns: &str, sa: &str, pool: &str, variant: &str) -> String {
    format!("spiffe://{trust_domain}/ns/{ns}/sa/{sa}/inference/pool/{pool}/variant/{variant}")
}

/// Checks a SPIFFE ID against the SPIFFE specification.
pub fn validate_spiffe_id(id: &str) -> Result<(), String> {
    spiffe::SpiffeId::new(id).map(|_| ()).map_err(|e| format!("computed SPIFFE ID {id:?} is invalid: {e}"))
}

/// The canonical selectors: namespace, service account, one per pool label and the
/// variant, without duplicates, sorted by byte order.
pub fn selectors(ns: &str, sa: &str, pool_labels: &Labels, variant: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(pool_labels.len() + 3);
    out.push(format!("{NS_PREFIX}{ns}"));
    out.push(format!("{SA_PREFIX}{sa}"));
    out.extend(pool_labels.iter().map(|(k, v)| format!("{POD_LABEL_PREFIX}{k}:{v}")));
    out.push(format!("{POD_LABEL_PREFIX}{VARIANT_LABEL}:{variant}"));
    out.sort();
    out.dedup();
    out
}

/// The selector-set checks: exactly one namespace, service-account and variant selector,
/// each naming the binding's own value.
pub fn check_selector_set(selectors: &[String], ns: &str, sa: &str, variant: &str) -> Result<(), String> {
    let variant_prefix = format!("{POD_LABEL_PREFIX}{VARIANT_LABEL}:");
    let checks: [(&str, &str, &str); 3] = [
        (NS_PREFIX, ns, "namespace"),
        (SA_PREFIX, sa, "service account"),
        (&variant_prefix, variant, "variant"),
    ];
    for (prefix, own, what) in checks {
        let found: Vec<&str> = selectors.iter().filter_map(|s| s.strip_prefix(prefix)).collect();
        match found.as_slice() {
            [one] if *one == own => {}
            [] => return Err(format!("selectors must include {prefix}{own}")),
            _ => {
                let foreign = found.iter().find(|v| **v != own).unwrap_or(&own);
                return Err(format!(
                    "selector {prefix}{foreign} conflicts with the binding {what} {own:?}: \
                     the selector set must name exactly one {what}"
                ));
            }
        }
    }
    Ok(())
}

/// SHA-256 over each selector as `<decimal length> NUL <bytes> NUL`, as `sha256:<hex>`.
pub fn selector_fingerprint(selectors: &[String]) -> String {
    let mut hasher = Sha256::new();
    for s in selectors {
        hasher.update(s.len().to_string().as_bytes());
        hasher.update([0u8]);
        hasher.update(s.as_bytes());
        hasher.update([0u8]);
    }
    format!("sha256:{}", hex(&hasher.finalize()))
}

/// `<base>-pool-<hash>`: base is the sanitized `kleym-<ns>-<binding>` cut to 49
/// characters, hash the first 4 bytes of SHA-1 of the SPIFFE ID.
pub fn output_name(ns: &str, binding: &str, spiffe_id: &str) -> String {
    const MAX_BASE: usize = 49;
    let mut base = sanitize(&format!("kleym-{ns}-{binding}"));
    // Sanitized text is ASCII and never ends in '-', so for a base of at most 49 characters
    // both cuts change nothing; a longer one loses a '-' the cut leaves at its end. The
    // operator falls back to `kleym` for an empty cut base: this one starts with `kleym`.
    base.truncate(MAX_BASE);
    base.truncate(base.trim_end_matches('-').len());
    let digest = Sha1::digest(spiffe_id.as_bytes());
    format!("{base}-pool-{}", hex(&digest[..4]))
}

/// Lowercases, trims, turns every run of characters outside `[a-z0-9]` into one `-`,
/// and trims `-` from both ends.
fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.trim().to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Bytes as lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the reconcile renders for one binding.
pub struct RenderInput<'a> {
    pub name: String,
    pub binding_name: &'a str,
    pub binding_namespace: &'a str,
    pub spiffe_id: &'a str,
    pub pool_labels: Labels,
    pub selectors: Vec<String>,
    pub class_name: Option<&'a str>,
    /// The value of the `spire.spiffe.io/class-name` label, under `classNameLabel`.
    pub class_label: Option<&'a str>,
    /// `Some(variant)` under `selectorScope: Binding`: the object then selects the binding's
    /// namespace by name and the variant label beside the pool's.
    pub binding_scope: Option<&'a str>,
}

/// The `spec.hint` of a binding's output: `<namespace>/<name>` of the binding.
pub fn output_hint(binding_name: &str, binding_namespace: &str) -> String {
    format!("{binding_namespace}/{binding_name}")
}

/// The labels of a binding's ClusterSPIFFEID, with the class label when `class_label` gives it.
pub fn output_labels(binding_name: &str, binding_namespace: &str, class_label: Option<&str>) -> OutputLabels {
    OutputLabels {
        binding_name: binding_name.to_string(),
        binding_namespace: binding_namespace.to_string(),
        class_name: class_label.map(str::to_string),
    }
}

/// Builds the ClusterSPIFFEID object of docs/reference.md#the-rendered-clusterspiffeid.
pub fn render(input: RenderInput<'_>) -> ClusterSpiffeId {
    let labels = output_labels(input.binding_name, input.binding_namespace, input.class_label);
    // Room for the file path and index annotations, in both forms, added on placing.
    let mut annotations = Map::with_capacity(5);
    annotations.insert(ANNOTATION_RENDERED_BY.to_string(), Value::from(RENDERED_BY));
    ClusterSpiffeId {
        api_version: API_VERSION,
        kind: KIND,
        metadata: Metadata { name: input.name, labels, annotations },
        spec: Spec {
            spiffe_id_template: input.spiffe_id.to_string(),
            namespace_selector: input.binding_scope.map(|_| PodSelector {
                match_labels: std::iter::once((
                    NAMESPACE_NAME_LABEL.to_string(),
                    input.binding_namespace.to_string(),
                ))
                .collect(),
            }),
            pod_selector: PodSelector {
                match_labels: match input.binding_scope {
                    None => input.pool_labels,
                    Some(variant) => input
                        .pool_labels
                        .into_vec()
                        .into_iter()
                        .chain(std::iter::once((VARIANT_LABEL.to_string(), variant.to_string())))
                        .collect(),
                },
            },
            workload_selector_templates: input.selectors,
            fallback: false,
            hint: output_hint(input.binding_name, input.binding_namespace),
            class_name: input.class_name.map(str::to_string),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_example_name() {
        let id = spiffe_id(
            "kleym.sonda.red",
            "kleym-reference-inference",
            "reference-inference",
            "reference-pool",
            "reference",
        );
        assert_eq!(
            id,
            "spiffe://kleym.sonda.red/ns/kleym-reference-inference/sa/reference-inference/inference/pool/reference-pool/variant/reference"
        );
        assert_eq!(
            output_name("kleym-reference-inference", "binding", &id),
            "kleym-kleym-reference-inference-binding-pool-18b7ab03"
        );
    }

    #[test]
    fn long_bases_are_cut_to_49_without_trailing_dash() {
        let name = output_name(&"a".repeat(41), "b-c", "spiffe://x/y");
        let base = name.rsplit_once("-pool-").unwrap().0;
        assert_eq!(base.len(), 49);
        assert_eq!(base, format!("kleym-{}-b", "a".repeat(41)));
        // A cut that lands on a dash drops it.
        let name = output_name(&"a".repeat(42), "b", "spiffe://x/y");
        assert_eq!(name.rsplit_once("-pool-").unwrap().0, format!("kleym-{}", "a".repeat(42)));
    }

    #[test]
    fn sanitize_collapses_runs_and_trims() {
        assert_eq!(sanitize("  Kleym--A..B__c- "), "kleym-a-b-c");
        assert_eq!(sanitize("---"), "");
    }

    #[test]
    fn selectors_are_canonical() {
        let labels: Labels = [("app".to_string(), "m".to_string())].into_iter().collect();
        let s = selectors("ns", "sa", &labels, "decode");
        assert_eq!(
            s,
            [
                "k8s:ns:ns",
                "k8s:pod-label:app:m",
                "k8s:pod-label:identity.kleym.sonda.red/variant:decode",
                "k8s:sa:sa"
            ]
        );
        assert!(check_selector_set(&s, "ns", "sa", "decode").is_ok());
        // A pool label with the same variant is a duplicate, removed.
        let same: Labels = [(VARIANT_LABEL.to_string(), "decode".to_string())].into_iter().collect();
        assert_eq!(selectors("ns", "sa", &same, "decode").len(), 3);
    }

    #[test]
    fn a_pool_selecting_another_variant_is_unsafe() {
        let labels: Labels = [(VARIANT_LABEL.to_string(), "prefill".to_string())].into_iter().collect();
        let s = selectors("ns", "sa", &labels, "decode");
        let err = check_selector_set(&s, "ns", "sa", "decode").unwrap_err();
        assert!(err.contains("identity.kleym.sonda.red/variant:prefill"), "{err}");
        let missing = vec!["k8s:ns:ns".to_string()];
        assert!(check_selector_set(&missing, "ns", "sa", "v").unwrap_err().contains("k8s:sa:sa"));
    }

    #[test]
    fn spiffe_ids_are_checked_against_the_spec() {
        assert_eq!(validate_spiffe_id(&spiffe_id("example.org", "ns", "sa", "pool", "v")), Ok(()));
        for bad in [
            "spiffe://example.org/ns/../sa",
            "spiffe://example.org/a//b",
            "spiffe://example.org/a@b",
            "http://x/y",
        ] {
            let err = validate_spiffe_id(bad).unwrap_err();
            assert!(err.starts_with(&format!("computed SPIFFE ID {bad:?} is invalid: ")), "{err}");
        }
    }

    #[test]
    fn a_base_of_exactly_49_characters_is_kept_whole() {
        // "kleym-" + 41 characters + "-b" is 49 characters: the limit itself.
        let name = output_name(&"a".repeat(41), "b", "spiffe://x/y");
        assert_eq!(name.rsplit_once("-pool-").unwrap().0, format!("kleym-{}-b", "a".repeat(41)));
    }

    #[test]
    fn a_set_naming_one_foreign_value_is_unsafe() {
        let variant = |v: &str| format!("{POD_LABEL_PREFIX}{VARIANT_LABEL}:{v}");
        let set =
            |ns: &str, sa: &str, v: &str| vec![format!("k8s:ns:{ns}"), format!("k8s:sa:{sa}"), variant(v)];
        assert_eq!(check_selector_set(&set("ns", "sa", "v"), "ns", "sa", "v"), Ok(()));
        assert_eq!(
            check_selector_set(&set("other", "sa", "v"), "ns", "sa", "v").unwrap_err(),
            "selector k8s:ns:other conflicts with the binding namespace \"ns\": the selector set must name exactly one namespace"
        );
        assert_eq!(
            check_selector_set(&set("ns", "other", "v"), "ns", "sa", "v").unwrap_err(),
            "selector k8s:sa:other conflicts with the binding service account \"sa\": the selector set must name exactly one service account"
        );
        assert_eq!(
            check_selector_set(&set("ns", "sa", "w"), "ns", "sa", "v").unwrap_err(),
            format!(
                "selector {} conflicts with the binding variant \"v\": the selector set must name exactly one variant",
                variant("w")
            )
        );
        // The binding's own value twice over is still one selector too many.
        let mut twice = set("ns", "sa", "v");
        twice.push("k8s:ns:ns".to_string());
        assert!(check_selector_set(&twice, "ns", "sa", "v").unwrap_err().contains("k8s:ns:ns conflicts"));
        let no_variant = vec!["k8s:ns:ns".to_string(), "k8s:sa:sa".to_string()];
        assert_eq!(
            check_selector_set(&no_variant, "ns", "sa", "v").unwrap_err(),
            format!("selectors must include {}", variant("v"))
        );
    }

    #[test]
    fn the_operators_fingerprint_vector() {
        // From the operator's identity tests: the same set, canonicalized, in another order.
        let set =
            ["k8s:ns:default", "k8s:pod-label:app:model-server", "k8s:sa:inference-sa"].map(String::from);
        assert_eq!(
            selector_fingerprint(&set),
            "sha256:d2ef4ccce3e70ad8c81e2084bfa52d5c0692f66c842487adb0f13c97e794b64c"
        );
    }

    #[test]
    fn two_bindings_can_render_one_name() {
        // x.1 and x-1 sanitize to the same base; these two variants were found by a search
        // for SPIFFE IDs sharing the first 4 bytes of their SHA-1.
        let id = |v| spiffe_id("example.org", "serving", "llama", "llama", v);
        let (a, b) = (id("v31367"), id("v92036"));
        assert_ne!(a, b);
        assert_eq!(output_name("serving", "x.1", &a), "kleym-serving-x-1-pool-2abb29d3");
        assert_eq!(output_name("serving", "x-1", &b), "kleym-serving-x-1-pool-2abb29d3");
    }

    #[test]
    fn fingerprint_frames_each_selector() {
        // Framing makes ["ab"] and ["a", "b"] differ.
        let one = selector_fingerprint(&["ab".to_string()]);
        let two = selector_fingerprint(&["a".to_string(), "b".to_string()]);
        assert_ne!(one, two);
        // sha256("2\0ab\0")
        let mut h = Sha256::new();
        h.update(b"2\0ab\0");
        assert_eq!(one, format!("sha256:{}", hex(&h.finalize())));
    }
}
