//! The function's YAML reader held to kubectl's own (docs/yaml.md#held-to-kubectls-reader):
//! `yaml_oracle/` is a small Go program that reads files exactly as `kubectl apply -f` reads
//! them (k8s.io/apimachinery's document splitting, sigs.k8s.io/yaml v1.6.0 over go-yaml v2)
//! and prints each document as JSON. Over every corpus file, every YAML file under
//! `testdata/` and several thousand seeded mutations of them, each input is either refused
//! by the function, with a line and column, or read as exactly kubectl's objects; and no
//! corpus file (real manifests) is refused.

use crate::common::*;
use render_inference_identity::io::read::{self, Options};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Mutations made of each base input; with the bases, a few thousand inputs.
const MUTANTS_PER_INPUT: usize = 12;
const SEED: u64 = 0x5eed_1e55_0dd5_ca1e;

/// Builds the oracle into `target/yaml-oracle/` with `go` (the module proxy gives its
/// modules, pinned by its go.sum), and returns its path.
fn oracle() -> PathBuf {
    let go = require_tool("go");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target/yaml-oracle/yaml-oracle");
    let built = Command::new(go)
        .args(["build", "-mod=readonly", "-o"])
        .arg(&out)
        .arg(".")
        .current_dir(root.join("tests/integration/yaml_oracle"))
        .output()
        .expect("go runs");
    assert_success(&built);
    out
}

/// What kubectl reads of a file: its objects, or why it refuses it.
fn kubectl_reads(oracle: &Path, files: &[PathBuf]) -> Vec<Result<Vec<Value>, String>> {
    let mut child =
        Command::new(oracle).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("the oracle runs");
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, list.as_bytes()));
    let out = child.wait_with_output().expect("the oracle finishes");
    writer.join().expect("writing the list").expect("the list is written");
    assert!(out.status.success(), "the oracle failed: {}", describe(&out));
    let lines: Vec<Result<Vec<Value>, String>> = stdout(&out)
        .lines()
        .map(|line| {
            let read: Value = serde_json::from_str(line).expect("the oracle prints JSON");
            match (read.get("docs"), read.get("error")) {
                (_, Some(Value::String(e))) => Err(e.clone()),
                (Some(Value::Array(docs)), _) => Ok(docs.clone()),
                (None, None) => Ok(Vec::new()),
                other => panic!("unexpected oracle line {other:?}"),
            }
        })
        .collect();
    assert_eq!(lines.len(), files.len(), "one line a file");
    lines
}

/// Equal as JSON values, as the API server compares them: numbers by value (kubectl turns
/// `1e3` into `1000`, and holds `2^63` as a float), mappings whatever their key order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        // kubectl holds integers in an int64, and any other number in a float64.
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Where two documents first differ, and how: a JSON pointer and the two values there.
fn difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (x, y))| difference(x, y, &format!("{at}/{i}")))
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys());
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(v), Some(w)) => difference(v, w, &format!("{at}/{k}")),
                (v, w) => Some(format!("{at}/{k}: {v:?} / {w:?}")),
            })
        }
        _ if same(a, b) => None,
        _ => Some(format!("{at}: {a} / {b}")),
    }
}

/// A shortened input for a message.
fn shown(text: &str) -> String {
    let quoted = format!("{text:?}");
    let mut end = quoted.len().min(600);
    while !quoted.is_char_boundary(end) {
        end -= 1;
    }
    if end == quoted.len() { quoted } else { format!("{}...", &quoted[..end]) }
}

/// A refusal names where the input goes wrong.
fn placed(message: &str) -> bool {
    let words: Vec<&str> = message.split_whitespace().collect();
    words.windows(4).any(|w| {
        w[0] == "line" && w[1].parse::<usize>().is_ok() && w[2] == "column" && {
            let n = w[3].trim_end_matches(':');
            n.parse::<usize>().is_ok()
        }
    })
}

/// How the function reads `text`, as every mode reads a file; `Err` when it refuses it.
/// The modes' reader (fast, then exact) and the reader of whole documents must agree.
fn function_reads(text: &str) -> Result<Vec<Value>, String> {
    let mode = read::stream(text.to_string(), Options::default());
    let whole = read::values(text.to_string());
    match (mode, whole) {
        (Ok(_), Ok(values)) => Ok(values),
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "the two readers refuse {text:?} in other words");
            Err(a)
        }
        (mode, whole) => panic!(
            "the modes' reader and the whole reader disagree on {text:?}: {:?} / {:?}",
            mode.err(),
            whole.err()
        ),
    }
}

/// Where an input comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A file of the corpus of real manifests: never refused.
    Corpus,
    Golden,
    Mutant,
}

#[test]
fn the_function_reads_what_kubectl_reads_or_refuses_it() {
    let oracle = oracle();
    let mut rng = Rng(SEED);
    let mut inputs: Vec<(Origin, String)> = Vec::new();
    let bases: Vec<(Origin, String)> = texts_under(&corpus::dir())
        .into_iter()
        .map(|t| (Origin::Corpus, t))
        .chain(
            texts_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata"))
                .into_iter()
                .map(|t| (Origin::Golden, t)),
        )
        .collect();
    for (origin, base) in &bases {
        inputs.push((*origin, base.clone()));
        for _ in 0..MUTANTS_PER_INPUT {
            inputs.push((Origin::Mutant, mutate(base, &mut rng)));
        }
        inputs.extend(as_json(base, &mut rng).map(|t| (Origin::Mutant, t)));
    }
    let dir = TempDir::new("yaml-oracle");
    let files: Vec<PathBuf> = inputs
        .iter()
        .enumerate()
        .map(|(i, (_, text))| {
            let path = dir.path().join(format!("{i}.yaml"));
            std::fs::write(&path, text).expect("writing an input");
            path
        })
        .collect();
    let kubectl = kubectl_reads(&oracle, &files);
    let texts: Vec<&str> = inputs.iter().map(|(_, t)| t.as_str()).collect();
    let ours = on_all_cores(&texts, function_reads);
    let mut failures = Vec::new();
    let (mut refused, mut agreed) = (0, 0);
    for (((origin, text), kubectl), ours) in inputs.iter().zip(kubectl).zip(ours) {
        let failure = match (ours, kubectl) {
            (Err(message), _) if *origin == Origin::Corpus => {
                Some(format!("a real manifest is refused: {message}"))
            }
            (Err(message), _) if placed(&message) => {
                refused += 1;
                None
            }
            (Err(message), _) => Some(format!("refused without a line and column: {message}")),
            (Ok(ours), Ok(theirs)) => {
                let equal = ours.len() == theirs.len() && ours.iter().zip(&theirs).all(|(a, b)| same(a, b));
                agreed += usize::from(equal);
                let (ours, theirs) = (Value::Array(ours), Value::Array(theirs));
                (!equal).then(|| {
                    let at =
                        difference(&ours, &theirs, "").unwrap_or_else(|| "the number of documents".into());
                    format!("read otherwise (function / kubectl) at {at}")
                })
            }
            (Ok(ours), Err(theirs)) => {
                Some(format!("kubectl refuses ({theirs}), the function reads {} documents", ours.len()))
            }
        };
        failures.extend(failure.map(|what| (what, text)));
    }
    eprintln!(
        "{} inputs ({} files): {agreed} read alike, {refused} refused by the function, {} failures",
        inputs.len(),
        bases.len(),
        failures.len()
    );
    let report = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/yaml-oracle/failures.txt");
    let whole: Vec<String> = failures.iter().map(|(what, text)| format!("{what}\n{text:?}")).collect();
    std::fs::write(&report, whole.join("\n\n")).expect("writing the report");
    assert!(
        failures.is_empty(),
        "{} of {} inputs read otherwise than kubectl reads them (all in {}); the first:\n\n{}",
        failures.len(),
        inputs.len(),
        report.display(),
        failures
            .iter()
            .take(10)
            .map(|(what, text)| format!("{what}\n{}", shown(text)))
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// Without `go`, the test fails, with what to install: it never passes by skipping.
#[test]
fn without_go_the_differential_test_fails_saying_what_to_install() {
    let empty = TempDir::new("no-go");
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "yaml_oracle::the_function_reads_what_kubectl_reads_or_refuses_it"])
        .env("PATH", empty.path())
        .output()
        .expect("the test binary runs");
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("1 failed"), "{text}");
    assert!(text.contains(&missing_tool_message("go")), "{text}");
}

/// `read` of each text, on all cores, in order.
fn on_all_cores<T: Send>(texts: &[&str], read: impl Fn(&str) -> T + Sync) -> Vec<T> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = texts.len().div_ceil(cores).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = texts
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(|t| read(t)).collect::<Vec<T>>()))
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a reading thread")).collect()
    })
}

/// Every YAML file under `folder`, sorted by path, as text (the few over 64 KiB left out).
fn texts_under(folder: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()).filter(|t| t.len() <= 64 << 10).collect()
}

/// A seeded generator (SplitMix64): the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// Line breaks and marks the two readers take differently, alone and around markers.
const BREAKS: [&str; 16] = [
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\r",
    "\r\n",
    "\u{feff}",
    "\t",
    "\u{85}---\n",
    "\u{2028}zz: 1\n",
    "\r---\r",
    "\n...\n",
    "\n...\nzz: 1\n",
    "\n--- # c\n",
    "\n---#c\n",
    "\n--- {zz: 1}\n",
    "\n%YAML 1.1\n---\n",
];

/// Plain scalars YAML 1.1 types otherwise than YAML 1.2, and quoted, escaped and tagged ones.
const SCALARS: [&str; 72] = [
    "yes",
    "Yes",
    "yEs",
    "y",
    "N",
    "on",
    "ON",
    "oN",
    "off",
    "true",
    "True",
    "tRUE",
    "null",
    "Null",
    "nULL",
    "~",
    "",
    "010",
    "0644",
    "09",
    "0o10",
    "0O10",
    "0x1F",
    "0X1F",
    "0b101",
    "-0b101",
    "+0x1F",
    "1_000",
    "1__0",
    "1_",
    "1e3",
    "1E3",
    "1.0",
    "1.",
    ".5",
    "+.5",
    "1_0.5",
    "-0",
    "+1",
    "1:20",
    "190:20:30",
    ".inf",
    "-.Inf",
    ".NaN",
    "9223372036854775808",
    "18446744073709551616",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    "\"a\\/b\"",
    "\"\\x41\"",
    "\"\\N\"",
    "\"\\L\"",
    "\"\\P\"",
    "\"\\_\"",
    "\"\\e\"",
    "\"\\'\"",
    "\"\\ud800\"",
    "\"\\U0001F600\"",
    "!!str 1",
    "!!int \"7\"",
    "!!float 1",
    "!!bool yes",
    "!!null \"\"",
    "!!binary aGk=",
    "! 7",
    "!x 7",
    "!!timestamp 2001-12-14",
    "&a 7",
    "'it''s'",
    "\"a\\\n  b\"",
];

/// Keys: the scalars above that make sense as keys, and merge keys.
const KEYS: [&str; 20] = [
    "yes",
    "on",
    "yEs",
    "y",
    "010",
    "0o10",
    "0x1F",
    "1e3",
    "1.0",
    "1.5",
    "0.1",
    "1_000",
    "~",
    "null",
    "<<",
    "=",
    "!!str 1",
    "\"1\"",
    "1",
    "18446744073709551615",
];

/// Characters YAML forbids or reads alike only by chance, and the white space around them.
const CHARACTERS: [&str; 10] =
    ["\u{0}", "\u{7}", "\u{1b}", "\u{7f}", "\u{9f}", "\u{a0}", "\u{fffe}", "\u{200b}", "\u{3000}", " \t "];

/// Shapes that span lines or bend indentation, set as a value: flow collections closed at
/// the margin, quoted and plain scalars over lines, explicit keys, a key past 1024 characters.
const SHAPES: [&str; 12] = [
    "[\n1, 2\n]",
    "{\nx: 1,\n y: 2\n}",
    "\"two\n  lines \\\n  joined\"",
    "\"trailing   \n\n  blank\"",
    "'single\n\n  quoted'",
    "plain\n  over\n\n  lines",
    "|\n  kept\n   indented\n",
    ">-\n  folded\n\n  text\n",
    "\n  ? explicit\n  : value",
    "\n  ? [a, b]\n  : c",
    "&a.b x",
    "[*a, &é 1]",
];

/// One to three mutations of `base`.
fn mutate(base: &str, rng: &mut Rng) -> String {
    let mut text = base.to_string();
    for _ in 0..1 + rng.below(3) {
        text = match rng.below(11) {
            0 => insert(&text, rng.pick(&BREAKS), rng),
            1 => insert_comment(&text, rng),
            2 => replace_value(&text, rng.pick(&SCALARS), rng),
            3 => add_entry(&text, rng.pick(&KEYS), rng.pick(&SCALARS), rng),
            4 => anchors(&text, rng),
            5 => replace_key(&text, rng.pick(&KEYS), rng),
            6 => insert(&text, rng.pick(&CHARACTERS), rng),
            7 => replace_value(&text, rng.pick(&SHAPES), rng),
            8 => replace_key(&text, &"k".repeat(1025), rng),
            9 => text.replace('\n', "\r\n"),
            _ => insert_at_line(&text, rng.pick(&BREAKS), rng),
        };
    }
    text
}

/// A stream of documents written as JSON, as kubectl reads a file opening with `{`: each
/// document the function reads of `base`, on its own line or pretty, escapes and odd white
/// space spliced in.
fn as_json(base: &str, rng: &mut Rng) -> Option<String> {
    let documents = read::values(base.to_string()).ok()?;
    let mut text = String::new();
    for (i, document) in documents.iter().enumerate() {
        if i > 0 {
            text.push_str(rng.pick(&["---\n", "\n", ""]));
        }
        let json = if rng.below(2) == 0 {
            serde_json::to_string(document).ok()?
        } else {
            serde_json::to_string_pretty(document).ok()?
        };
        text.push_str(&json);
        text.push('\n');
    }
    let lead = rng.pick(&["", " ", "\u{a0}", "\n\n", "\u{85}", "\u{feff}"]);
    let text = format!("{lead}{text}");
    Some(match rng.below(4) {
        0 => text.replacen(
            "\": \"",
            rng.pick(&["\": \"\\/", "\": \"\\ud83d\\ude00", "\": \"\\u0085", "\": \"\\ud800"]),
            1,
        ),
        1 => text.replacen(", ", ",\t", 1),
        _ => text,
    })
}

/// The byte offsets where lines start.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i <= text.len())
        .collect()
}

fn char_boundary(text: &str, rng: &mut Rng) -> usize {
    let mut at = rng.below(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn insert(text: &str, piece: &str, rng: &mut Rng) -> String {
    let at = char_boundary(text, rng);
    format!("{}{piece}{}", &text[..at], &text[at..])
}

fn insert_at_line(text: &str, piece: &str, rng: &mut Rng) -> String {
    let starts = line_starts(text);
    let at = starts[rng.below(starts.len())];
    format!("{}{piece}{}", &text[..at], &text[at..])
}

/// A comment holding an odd line break and what a YAML 1.1 reader then reads as a key.
fn insert_comment(text: &str, rng: &mut Rng) -> String {
    let starts = line_starts(text);
    let line = rng.below(starts.len());
    let at = starts[line];
    let indent: String = text[at..].chars().take_while(|c| *c == ' ').collect();
    let brk = rng.pick(&["\u{85}", "\u{2028}", "\u{2029}", "\r"]);
    let key = rng.pick(&["app", "identity.kleym.sonda.red/variant", "zz"]);
    format!("{}{indent}# note{brk}{indent}{key}: hidden\n{}", &text[..at], &text[at..])
}

/// The value of a `key: value` line, replaced.
fn replace_value(text: &str, value: &str, rng: &mut Rng) -> String {
    let lines: Vec<(usize, &str)> = line_starts(text)
        .into_iter()
        .map(|s| (s, text[s..].split('\n').next().unwrap_or("")))
        .filter(|(_, l)| l.contains(": ") && !l.trim_start().starts_with('#'))
        .collect();
    if lines.is_empty() {
        return insert(text, value, rng);
    }
    let (start, line) = lines[rng.below(lines.len())];
    let colon = line.find(": ").expect("a colon");
    format!("{}{}: {value}{}", &text[..start], &line[..colon], &text[start + line.len()..])
}

/// The key of a `key: value` line, replaced.
fn replace_key(text: &str, key: &str, rng: &mut Rng) -> String {
    let lines: Vec<(usize, &str)> = line_starts(text)
        .into_iter()
        .map(|s| (s, text[s..].split('\n').next().unwrap_or("")))
        .filter(|(_, l)| {
            let t = l.trim_start_matches([' ', '-']);
            t.contains(':') && !t.starts_with(['#', '"', '\''])
        })
        .collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let (start, line) = lines[rng.below(lines.len())];
    let body = line.len() - line.trim_start_matches([' ', '-']).len();
    let colon = line[body..].find(':').expect("a colon") + body;
    format!("{}{}{key}{}", &text[..start], &line[..body], &text[start + colon..])
}

/// A `key: value` line beside another line of a mapping, at its indentation.
fn add_entry(text: &str, key: &str, value: &str, rng: &mut Rng) -> String {
    let starts = line_starts(text);
    let candidates: Vec<usize> = starts
        .iter()
        .copied()
        .filter(|&s| {
            let line = text[s..].split('\n').next().unwrap_or("");
            let t = line.trim_start();
            !t.starts_with(['-', '#']) && t.contains(": ") || t.ends_with(':')
        })
        .collect();
    let Some(&at) = candidates.get(rng.below(candidates.len().max(1))) else {
        return format!("{text}\n{key}: {value}\n");
    };
    let indent: String = text[at..].chars().take_while(|c| *c == ' ').collect();
    format!("{}{indent}{key}: {value}\n{}", &text[..at], &text[at..])
}

/// An anchor on one value and an alias or a merge of it later.
fn anchors(text: &str, rng: &mut Rng) -> String {
    let anchored = replace_value(text, "&a {app: web, v: \"1\"}", rng);
    match rng.below(3) {
        0 => replace_value(&anchored, "*a", rng),
        1 => add_entry(&anchored, "<<", "*a", rng),
        _ => add_entry(&anchored, "<<", "{app: merged}", rng),
    }
}
