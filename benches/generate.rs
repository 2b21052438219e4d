//! Writes a synthetic ResourceList to stdout, or the same items as 100 manifest files:
//! `cargo run --release --example generate -- BINDINGS [worst|first-run|shared-labels] [KEY=VALUE...]`,
//! `cargo run --release --example generate -- BINDINGS files DIR`. Each `KEY=VALUE` is set in
//! the functionConfig's spec (`selectorScope=Binding`, `workloadPolicy=Ignore`).

#[path = "synthetic/mod.rs"]
mod synthetic;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bindings: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let mode = args.get(1).map(String::as_str).filter(|m| !m.contains('='));
    let settings: Vec<(&str, &str)> = args.iter().skip(1).filter_map(|a| a.split_once('=')).collect();
    let text = match mode {
        Some("files") => {
            let dir = std::path::PathBuf::from(args.get(2).expect("files DIR: the folder to write"));
            std::fs::create_dir_all(&dir).expect("the folder can be made");
            for (name, text) in synthetic::files(bindings, false, 100) {
                std::fs::write(dir.join(name), text).expect("a file can be written");
            }
            return;
        }
        Some("first-run") => synthetic::shaped(bindings, synthetic::Shape::FirstRun),
        Some("shared-labels") => synthetic::shaped(bindings, synthetic::Shape::SharedLabels),
        mode => synthetic::resource_list(bindings, mode == Some("worst")),
    };
    let spec = "    trustDomain: example.org\n";
    let extra: String = settings.iter().map(|(k, v)| format!("    {k}: {v}\n")).collect();
    print!("{}", text.replacen(spec, &format!("{spec}{extra}"), 1));
}
