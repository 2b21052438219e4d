//! The floor: parse a ResourceList from stdin into generic values with the function's YAML
//! layer and write it back, nothing else. `cargo run --release --example roundtrip < in.yaml`.

use std::io::{Read, Write};

// The same allocator as the function, so the floor measures the YAML layer alone.
#[global_allocator]
static ALLOCATOR: render_inference_identity::allocator::Allocator =
    render_inference_identity::allocator::Allocator;

fn main() {
    render_inference_identity::allocator::configure();
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).expect("stdin");
    let value = render_inference_identity::yaml::parse(&text).expect("valid YAML");
    let out = render_inference_identity::yaml::write(&value).expect("writable");
    std::io::stdout().write_all(out.as_bytes()).expect("stdout");
}
