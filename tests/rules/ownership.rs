//! Output ownership (docs/reference.md#output-and-ownership, #stale-outputs): where new
//! outputs go, and what becomes of the function's earlier outputs when a binding fails or
//! renders another name.

use super::*;
use render_inference_identity::config::Config;
use render_inference_identity::reconcile::findings::Kind;
use render_inference_identity::reconcile::stale::Lost;

/// The earlier output of `items`: what a first run rendered, as the input of the next.
fn earlier_output(items: &[Value]) -> Value {
    let first = run(items);
    let [(object, _)] = rendered(&first)[..] else { panic!("one output: {:?}", first.failures) };
    serde_json::to_value(object).unwrap()
}

#[test]
fn new_outputs_come_last_sorted_by_name_each_with_a_free_slot_of_its_file() {
    let config = Config { output_path: "identities.yaml".into(), prune: false, ..config() };
    // A managed output whose binding is gone, kept under `prune: false`, takes index 0.
    let mut kept =
        earlier_output(&[pool("old", &[("app", "old")]), binding("old", "old", "vllm", "prefill")]);
    kept["metadata"]["annotations"]["internal.config.kubernetes.io/path"] = json!("identities.yaml");
    let items = [
        kept,
        pool("llama", &[("app", "llama")]),
        binding("z-binding", "llama", "vllm", "prefill"),
        binding("a-binding", "llama", "vllm", "decode"),
    ];
    let out = run_with(&items, &config).unwrap();
    assert!(matches!(
        out.items[..4],
        [Item::Input(0, _), Item::Input(1, _), Item::Binding(2, ..), Item::Binding(3, ..)]
    ));
    let placed: Vec<(&str, Option<&(String, u64)>)> =
        rendered(&out).iter().map(|(object, slot)| (object.metadata.name.as_str(), *slot)).collect();
    let [(first, first_slot), (second, second_slot)] = placed[..] else { panic!("two outputs: {placed:?}") };
    assert!(first.starts_with("kleym-serving-a-binding-") && second.starts_with("kleym-serving-z-binding-"));
    assert_eq!(first_slot, Some(&("identities.yaml".to_string(), 1)));
    assert_eq!(second_slot, Some(&("identities.yaml".to_string(), 2)));
    // The slot is data: the objects carry no file annotation of their own, which only an
    // edge that writes files adds.
    for (object, _) in rendered(&out) {
        assert!(
            !object.metadata.annotations.keys().any(|k| k.contains("config.kubernetes.io/")),
            "{object:?}"
        );
    }
}

#[test]
fn a_failing_binding_removes_its_earlier_output_whatever_prune_says_and_names_it() {
    let pools = pool("llama", &[("app", "llama")]);
    let earlier = earlier_output(&[pools, binding("llama-prefill", "llama", "vllm", "prefill")]);
    let name = earlier["metadata"]["name"].as_str().unwrap().to_string();
    let spiffe_id = earlier["spec"]["spiffeIDTemplate"].as_str().unwrap().to_string();
    let config = Config { prune: false, ..config() };
    // The pool is gone: the binding fails.
    let out = run_with(&[earlier, binding("llama-prefill", "llama", "vllm", "prefill")], &config).unwrap();
    assert_eq!(out.items.len(), 1, "only the binding stays");
    assert_eq!(failure(&out, "llama-prefill").removes, [Lost { output: name, spiffe_id }]);
    assert_eq!(out.counts.outputs.removed, 1);
    // Its own failure says it: no StaleOutput besides.
    assert!(out.findings.iter().all(|f| f.kind != Kind::StaleOutput), "{:?}", out.findings);
}

#[test]
fn an_output_its_binding_no_longer_renders_is_removed_as_stale() {
    let earlier = earlier_output(&[
        pool("llama", &[("app", "llama")]),
        binding("llama-prefill", "llama", "vllm", "prefill"),
    ]);
    let old = earlier["metadata"]["name"].as_str().unwrap().to_string();
    // The binding moves to another pool: a new SPIFFE ID, so a new name.
    let out = run(&[
        earlier,
        pool("mixtral", &[("app", "mixtral")]),
        binding("llama-prefill", "mixtral", "vllm", "prefill"),
    ]);
    let [(new, Some(_))] = rendered(&out)[..] else { panic!("one new output") };
    assert_ne!(new.metadata.name, old);
    let outputs = out.counts.outputs;
    assert_eq!((outputs.added, outputs.replaced, outputs.removed), (1, 0, 1));
    let [stale] = &out.findings.iter().filter(|f| f.kind == Kind::StaleOutput).collect::<Vec<_>>()[..] else {
        panic!("one StaleOutput: {:?}", out.findings)
    };
    assert_eq!(stale.about.name, old);
    assert!(stale.message.contains(&new.metadata.name), "{}", stale.message);
}

#[test]
fn an_output_replaced_with_the_same_content_is_not_stale() {
    let items = [pool("llama", &[("app", "llama")]), binding("llama-prefill", "llama", "vllm", "prefill")];
    let mut again = vec![earlier_output(&items)];
    again.extend(items);
    let out = run(&again);
    let [(_, None)] = rendered(&out)[..] else { panic!("replaced in place") };
    assert!(matches!(out.items[0], Item::Rendered(_, None)), "at the position of the one it replaces");
    assert_eq!(out.counts.outputs.replaced, 1);
    assert!(out.findings.iter().all(|f| f.kind != Kind::StaleOutput), "{:?}", out.findings);
}
