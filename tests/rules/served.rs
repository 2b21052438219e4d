//! Served APIs (docs/reference.md#served-apis): what the sources say together, and what an
//! entry naming one kind serves.

use super::*;
use render_inference_identity::config::Config;

const POOL_API: &str = "inference.networking.k8s.io/v1";
const SPIRE_API: &str = "spire.spiffe.io/v1alpha1";

fn items() -> [Value; 2] {
    [pool("llama", &[("app", "llama")]), binding("llama-prefill", "llama", "vllm", "prefill")]
}

fn listing(entries: &[&str]) -> Config {
    Config { api_versions: entries.iter().map(|e| e.to_string()).collect(), ..config() }
}

#[test]
fn an_entry_with_a_kind_serves_that_kind_only() {
    let other_kind = listing(&[POOL_API, &format!("{SPIRE_API}/ClusterStaticEntry")]);
    let out = run_with(&items(), &other_kind).unwrap();
    assert_eq!(reason(&out, "llama-prefill"), Reason::ClusterSPIFFEIDCRDMissing);
    let this_kind = listing(&[POOL_API, &format!("{SPIRE_API}/ClusterSPIFFEID")]);
    assert_eq!(ready_reason(&run_with(&items(), &this_kind).unwrap(), "llama-prefill"), "Reconciled");
}

#[test]
fn the_configuration_and_the_environment_list_served_apis_together() {
    let out = run_in_env(&items(), &listing(&[POOL_API]), &[SPIRE_API]).unwrap();
    assert_eq!(ready_reason(&out, "llama-prefill"), "Reconciled");
    // Either alone leaves the other API out.
    let out = run_in_env(&items(), &config(), &[SPIRE_API]).unwrap();
    assert_eq!(reason(&out, "llama-prefill"), Reason::InferencePoolCRDMissing);
    let out = run_in_env(&items(), &listing(&[POOL_API]), &[]).unwrap();
    assert_eq!(reason(&out, "llama-prefill"), Reason::ClusterSPIFFEIDCRDMissing);
}
