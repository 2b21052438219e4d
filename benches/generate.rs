//! Writes a synthetic ResourceList to stdout:
//! `cargo run --release --example generate -- BINDINGS [worst]`.

#[path = "synthetic/mod.rs"]
mod synthetic;

fn main() {
    let mut args = std::env::args().skip(1);
    let bindings: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let worst = args.next().as_deref() == Some("worst");
    print!("{}", synthetic::resource_list(bindings, worst));
}
