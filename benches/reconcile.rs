//! Criterion benchmarks of the pure reconcile (no YAML, no process), and of the lexer
//! against the parser on the same item chunks: `cargo bench --bench reconcile`.

#[path = "synthetic/mod.rs"]
mod synthetic;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use render_inference_identity::config::Config;
use render_inference_identity::reconcile::input::Input;
use render_inference_identity::reconcile::{Context, reconcile};
use render_inference_identity::yaml;
use serde_json::Value;

// The binary's allocator, so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: render_inference_identity::allocator::Allocator =
    render_inference_identity::allocator::Allocator;

fn items(bindings: usize, worst_case: bool) -> Vec<Input> {
    let list = yaml::parse(&synthetic::resource_list(bindings, worst_case)).expect("generated YAML parses");
    match list.get("items") {
        Some(Value::Array(items)) => items.iter().cloned().map(Input::of).collect(),
        _ => unreachable!("the generator writes items"),
    }
}

fn bench(c: &mut Criterion) {
    render_inference_identity::allocator::configure();
    let config = Config { trust_domain: Some("example.org".into()), ..Config::default() };
    let ctx = Context::new(&config, Vec::new(), "2026-01-01T00:00:00Z".parse().unwrap());
    let mut group = c.benchmark_group("reconcile");
    group.sample_size(10);
    for (name, bindings, worst) in [("1k", 1_000, false), ("10k", 10_000, false), ("10k-worst", 10_000, true)]
    {
        let input = items(bindings, worst);
        group.bench_function(name, |b| {
            b.iter_batched(|| input.clone(), |items| reconcile(items, &ctx).unwrap(), BatchSize::LargeInput)
        });
    }
    // The same 10,000 bindings with the admission guard: its objects, parameters and findings.
    let guarded = Config {
        admission_guard: render_inference_identity::config::with_overrides(
            None,
            &[render_inference_identity::config::Override {
                key: "admissionGuard.action",
                source: "bench".into(),
                value: "Deny".into(),
            }],
        )
        .expect("the guard's defaults validate")
        .admission_guard,
        ..config.clone()
    };
    let ctx = Context::new(&guarded, Vec::new(), "2026-01-01T00:00:00Z".parse().unwrap());
    let input = items(10_000, false);
    group.bench_function("10k-guard", |b| {
        b.iter_batched(|| input.clone(), |items| reconcile(items, &ctx).unwrap(), BatchSize::LargeInput)
    });
    group.finish();
}

/// The events of every entry of a 1,000-binding ResourceList (4,000 items), from the
/// lexer and from the parser.
fn events(c: &mut Criterion) {
    use render_inference_identity::io::read::{lex, split};
    let text = synthetic::resource_list(1_000, false);
    let layout = split::list(&text).expect("the generated list cuts");
    let chunks: Vec<&str> = layout.entries.iter().map(|r| &text[r.clone()]).collect();
    let mut group = c.benchmark_group("events");
    group.sample_size(10);
    group.bench_function("lexer", |b| {
        b.iter(|| {
            chunks.iter().map(|chunk| lex::events(chunk).expect("plain block shape").len()).sum::<usize>()
        })
    });
    group.bench_function("parser", |b| {
        b.iter(|| {
            chunks
                .iter()
                .map(|chunk| serde_saphyr::granit_parser::Parser::new_from_str(chunk).count())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench, events);
criterion_main!(benches);
