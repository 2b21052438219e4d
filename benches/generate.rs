//! Writes a synthetic ResourceList to stdout, or the same items as 100 manifest files:
//! `cargo run --release --example generate -- BINDINGS [worst|first-run|shared-labels]`,
//! `cargo run --release --example generate -- BINDINGS files DIR`.

#[path = "synthetic/mod.rs"]
mod synthetic;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bindings: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    match args.get(1).map(String::as_str) {
        Some("files") => {
            let dir = std::path::PathBuf::from(args.get(2).expect("files DIR: the folder to write"));
            std::fs::create_dir_all(&dir).expect("the folder can be made");
            for (name, text) in synthetic::files(bindings, false, 100) {
                std::fs::write(dir.join(name), text).expect("a file can be written");
            }
        }
        Some("first-run") => print!("{}", synthetic::shaped(bindings, synthetic::Shape::FirstRun)),
        Some("shared-labels") => print!("{}", synthetic::shaped(bindings, synthetic::Shape::SharedLabels)),
        mode => print!("{}", synthetic::resource_list(bindings, mode == Some("worst"))),
    }
}
