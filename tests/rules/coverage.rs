//! Workload coverage (docs/reference.md#workload-coverage, #findings): which pods an identity
//! reaches, and that findings only ever report.

use super::*;
use render_inference_identity::config::{Config, WorkloadPolicy};
use render_inference_identity::reconcile::Severity;
use render_inference_identity::reconcile::findings::Kind;

const POOL: [(&str, &str); 1] = [("app", "llama")];

fn kinds(outcome: &Outcome) -> Vec<Kind> {
    outcome.findings.iter().map(|f| f.kind).collect()
}

fn finding(outcome: &Outcome, kind: Kind) -> &render_inference_identity::reconcile::findings::Finding {
    let found = outcome.findings.iter().find(|f| f.kind == kind);
    found.unwrap_or_else(|| panic!("no {kind:?} among {:?}", kinds(outcome)))
}

#[test]
fn findings_never_change_a_status_or_an_output() {
    let items = [
        pool("llama", &POOL),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        deployment("llama", &POOL, Some("vllm")),
    ];
    let reported = run(&items);
    assert!(kinds(&reported).contains(&Kind::WorkloadWithoutVariant), "{:?}", kinds(&reported));
    let ignored = run_with(&items, &Config { workload_policy: WorkloadPolicy::Ignore, ..config() }).unwrap();
    assert!(ignored.findings.is_empty(), "{:?}", kinds(&ignored));
    assert_eq!(values(&reported), values(&ignored));
}

#[test]
fn an_identity_reaches_pods_by_namespace_labels_variant_and_service_account() {
    let labels = [("app", "llama"), (VARIANT_LABEL, "prefill")];
    let items = |workload: Value| {
        [pool("llama", &POOL), binding("llama-prefill", "llama", "vllm", "prefill"), workload]
    };
    let reached = run(&items(deployment("llama", &labels, Some("vllm"))));
    assert!(!kinds(&reached).contains(&Kind::NoMatchingWorkload), "{:?}", kinds(&reached));
    for (what, workload) in [
        ("another namespace", in_namespace(deployment("llama", &labels, Some("vllm")), Some("staging"))),
        ("another account", deployment("llama", &labels, Some("router"))),
        (
            "another variant",
            deployment("llama", &[("app", "llama"), (VARIANT_LABEL, "decode")], Some("vllm")),
        ),
    ] {
        let out = run(&items(workload));
        assert!(kinds(&out).contains(&Kind::NoMatchingWorkload), "{what}: {:?}", kinds(&out));
    }
}

/// A template that carries the pool's label key with another value is no near spelling of
/// it: the message names the labels the templates lack, not a key spelt otherwise.
#[test]
fn a_pool_label_with_another_value_is_not_a_spelling_of_its_key() {
    let items = [
        pool("llama", &POOL),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        deployment("mistral", &[("app", "mistral"), (VARIANT_LABEL, "decode")], Some("vllm")),
    ];
    let out = run(&items);
    let message = &finding(&out, Kind::NoMatchingWorkload).message;
    assert!(!message.contains("differs only in case"), "{message}");
    assert!(message.contains("carries the pool's labels app=llama"), "{message}");
}

#[test]
fn pods_run_as_the_service_account_of_their_spec_else_the_deprecated_field_else_default() {
    let labels = [("app", "llama"), (VARIANT_LABEL, "prefill")];
    let mut deprecated = deployment("llama", &labels, None);
    deprecated["spec"]["template"]["spec"]["serviceAccount"] = json!("vllm");
    for (account, workload) in [("default", deployment("llama", &labels, None)), ("vllm", deprecated)] {
        let out =
            run(&[pool("llama", &POOL), binding("llama-prefill", "llama", account, "prefill"), workload]);
        assert!(!kinds(&out).contains(&Kind::NoMatchingWorkload), "{account}: {:?}", kinds(&out));
    }
}

#[test]
fn a_workload_without_a_namespace_matches_no_binding() {
    let labels = [("app", "llama"), (VARIANT_LABEL, "prefill")];
    let items = [
        pool("llama", &POOL),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        in_namespace(deployment("llama", &labels, Some("vllm")), None),
    ];
    assert!(kinds(&run(&items)).contains(&Kind::NoMatchingWorkload));
}

/// With no pod template in the binding's namespace the workloads may live elsewhere: a note,
/// not a warning.
#[test]
fn no_matching_workload_is_a_note_when_the_namespace_holds_no_pod_template() {
    let alone = run(&[pool("llama", &POOL), binding("llama-prefill", "llama", "vllm", "prefill")]);
    assert_eq!(alone.severity(finding(&alone, Kind::NoMatchingWorkload)), Severity::Info);
    let unlabelled = run(&[
        pool("llama", &POOL),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        deployment("llama", &POOL, Some("vllm")),
    ]);
    assert_eq!(unlabelled.severity(finding(&unlabelled, Kind::NoMatchingWorkload)), Severity::Warning);
}

#[test]
fn a_service_account_the_input_does_not_declare_is_noted_but_default_always_counts() {
    let account = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "router", "namespace": NS}});
    let undeclared =
        run(&[pool("llama", &POOL), account.clone(), binding("llama-prefill", "llama", "vllm", "prefill")]);
    let note = finding(&undeclared, Kind::ServiceAccountNotDeclared);
    assert_eq!(undeclared.severity(note), Severity::Info);
    let default =
        run(&[pool("llama", &POOL), account, binding("llama-prefill", "llama", "default", "prefill")]);
    assert!(!kinds(&default).contains(&Kind::ServiceAccountNotDeclared), "{:?}", kinds(&default));
}

static RELEASED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_release() {
    RELEASED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// A mode that does not read the simulated SPIRE Controller Manager lets the reconcile drop
/// it before coverage runs, and freed memory is handed back between the phases; the findings,
/// statuses and outputs are those of a run that keeps it.
#[test]
fn a_run_that_forgets_the_model_finds_and_writes_what_one_that_keeps_it_does() {
    let items = [
        pool("llama", &POOL),
        binding("llama-prefill", "llama", "vllm", "prefill"),
        deployment("llama", &POOL, Some("vllm")),
    ];
    let config = config();
    let run_under = |model| {
        let mut ctx = Context::new(&config, Vec::new(), NOW.parse().expect("a time"));
        (ctx.model, ctx.release_freed) = (model, count_release);
        reconcile::reconcile(items.iter().cloned().map(Input::of).collect(), &ctx).unwrap()
    };
    let kept = run_under(reconcile::Model::Keep);
    let released = RELEASED.swap(0, std::sync::atomic::Ordering::SeqCst);
    let forgot = run_under(reconcile::Model::Forget);
    assert!(!kept.coverage.spire.held.is_empty(), "the kept model holds the deployment's template");
    assert!(forgot.coverage.spire.held.is_empty() && forgot.coverage.spire.sources.is_empty());
    assert!(released >= 1, "coverage's working sets are handed back before the statuses");
    assert!(RELEASED.load(std::sync::atomic::Ordering::SeqCst) > released, "and the forgotten model's");
    assert_eq!(kinds(&kept), kinds(&forgot));
    assert_eq!(values(&kept), values(&forgot));
    assert_eq!(format!("{:?}", rendered(&kept)), format!("{:?}", rendered(&forgot)));
}
