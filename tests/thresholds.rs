//! The parallel paths against the serial ones, and the reader at its edges. Every piece of
//! work spread over the cores (the reader's parts, the reconcile's checks, statuses and
//! workload coverage, the writer's second thread) is driven just below and past its real
//! threshold, and the output compared byte for byte with one core's and with the exact
//! reader's. Then the shapes at the edges of the fast reader: its limits just below and at
//! them, and texts it once read wrongly.

mod common;

use common::TempDir;
use render_inference_identity::io::read::fast::{self, Bounds, FULL};
use render_inference_identity::io::read::walk::Counts;
use render_inference_identity::io::read::{self, Options, Reader};
use render_inference_identity::io::render::Request;
use render_inference_identity::io::{Env, RunOutput, write};
use render_inference_identity::parallel::{self, with_cores};

// ---------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------

const CONFIG: &str = "apiVersion: fn.kleym.sonda.red/v1alpha1
kind: RenderInferenceIdentity
metadata:
  name: identities
spec:
  trustDomain: example.org
  transitionTime: \"2026-01-01T00:00:00Z\"
  workloadPolicy: Report
";

/// Pools the bindings share.
const POOLS: usize = 10;

/// InferencePool `pool-<p>` in `ns-<ns>`, selecting `app: model-<p>`.
fn pool(p: usize, ns: usize) -> String {
    format!(
        "apiVersion: inference.networking.k8s.io/v1\nkind: InferencePool\n\
         metadata: {{name: pool-{p}, namespace: ns-{ns}}}\n\
         spec:\n  selector:\n    matchLabels: {{app: model-{p}}}\n  targetPorts: [{{number: 8000}}]\n"
    )
}

/// The documents of an input: `bindings` bindings over a few namespaces and [`POOLS`]
/// pools, a Deployment per pool (every third without a variant label, a coverage finding),
/// and `config_maps` ConfigMaps, in several styles: statuses old and missing, comments,
/// flow mappings, a block scalar last in a binding.
fn documents(bindings: usize, config_maps: usize) -> Vec<String> {
    let mut docs = Vec::new();
    for p in 0..POOLS {
        let ns = p % 5;
        docs.push(pool(p, ns));
        let variant =
            if p % 3 == 0 { String::new() } else { format!(", identity.kleym.sonda.red/variant: v-{p}") };
        docs.push(format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: model-{p}\n  namespace: ns-{ns}\n\
             spec:\n  selector: {{matchLabels: {{app: model-{p}}}}}\n  template:\n    \
             metadata: {{labels: {{app: model-{p}{variant}}}}}\n    spec:\n      serviceAccountName: sa-{p}\n      \
             containers: [{{name: vllm, image: vllm/vllm-openai:v0.16.0}}]\n"
        ));
    }
    for b in 0..bindings {
        let p = b % POOLS;
        let ns = p % 5;
        let variant = if b < POOLS { format!("v-{p}") } else { format!("v-{b}") };
        let status = match b % 4 {
            0 => "status:\n  conditions: []\n".to_string(),
            1 => String::new(),
            2 => "status: {}  # old\n".to_string(),
            _ => "notes: |\n  kept as written\n\n  across lines\n".to_string(),
        };
        docs.push(format!(
            "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\n\
             metadata:\n  name: binding-{b}\n  namespace: ns-{ns}\n  annotations:\n    \
             config.kubernetes.io/path: bindings/{p}.yaml\n    config.kubernetes.io/index: \"{b}\"\n\
             spec:\n  poolRef: {{name: pool-{p}}}\n  serviceAccountName: sa-{p}   # the pool's\n  \
             identityBoundary:\n    variant: {variant}\n{status}"
        ));
    }
    for c in 0..config_maps {
        let data = if c % 2 == 0 { format!("{{k: \"{c}\"}}") } else { format!("\n    k: '{c}'  # quoted\n") };
        docs.push(format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{c}\n  namespace: ns-0\ndata: {data}\n"
        ));
    }
    docs
}

/// The documents as a ResourceList, entries indented by two spaces.
fn resource_list(docs: &[String]) -> String {
    let mut text = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n{}items:\n",
        indent(CONFIG, 2)
    );
    for doc in docs {
        let entry = indent(doc, 4);
        text.push_str("  - ");
        text.push_str(&entry[4..]);
    }
    text
}

fn indent(text: &str, spaces: usize) -> String {
    let pad = " ".repeat(spaces);
    text.split_inclusive('\n')
        .map(|line| if line == "\n" { line.to_string() } else { format!("{pad}{line}") })
        .collect()
}

/// The documents as a stream.
fn stream(docs: &[String]) -> String {
    docs.join("---\n")
}

// ---------------------------------------------------------------------------------------
// Comparing
// ---------------------------------------------------------------------------------------

fn assert_same(what: &str, serial: &RunOutput, other: &RunOutput) {
    assert_eq!(serial.exit_code, other.exit_code, "{what}: exit code; stderr {}", other.stderr);
    assert!(serial.stderr == other.stderr, "{what}: stderr differs");
    if serial.stdout != other.stdout {
        let at = serial.stdout.bytes().zip(other.stdout.bytes()).take_while(|(a, b)| a == b).count();
        let around =
            |s: &str| s.get(at.saturating_sub(200)..(at + 200).min(s.len())).unwrap_or("").to_string();
        panic!(
            "{what}: stdout differs at byte {at} (lengths {} and {}):\n--- one core ---\n{}\n--- other ---\n{}",
            serial.stdout.len(),
            other.stdout.len(),
            around(&serial.stdout),
            around(&other.stdout)
        );
    }
}

/// The run on one core, after checking it matches the run on four (the writer's two
/// threads, four for the rest).
fn on_all_cores(what: &str, run: impl Fn() -> RunOutput) -> RunOutput {
    let serial = with_cores(1, &run);
    assert_same(&format!("{what} on four cores"), &serial, &with_cores(4, &run));
    serial
}

/// What a successful run must hold: every binding with a status, one ClusterSPIFFEID per
/// binding, every ConfigMap, and the coverage findings.
fn assert_complete(what: &str, out: &RunOutput, bindings: usize, config_maps: usize) {
    assert_eq!(out.exit_code, 0, "{what}: {}", out.stderr);
    // A ResourceList's results name the bindings again.
    let items = out.stdout.split("\nresults:").next().expect("a first part");
    let lines = |start: &str| items.lines().filter(|line| line.trim_start().starts_with(start)).count();
    assert_eq!(lines("name: binding-"), bindings, "{what}: bindings");
    assert_eq!(lines("type: Ready"), bindings, "{what}: statuses");
    assert_eq!(lines("kind: ClusterSPIFFEID"), bindings, "{what}: ClusterSPIFFEIDs");
    assert_eq!(lines("name: cm-"), config_maps, "{what}: ConfigMaps");
    assert_eq!(items.matches("kept as written\n\n").count(), bindings / 4, "{what}: block scalars");
    if bindings > 0 {
        assert!(out.stderr.contains("WorkloadWithoutVariant"), "{what}: coverage findings: {}", out.stderr);
    }
    // Every status starts a line of its own, also after an item with no final newline.
    let glued =
        out.stdout.match_indices("status:").filter(|&(at, _)| !out.stdout[..at].ends_with([' ', '\n']));
    assert_eq!(glued.count(), 0, "{what}: a status glued to the line before");
}

fn krm_run(input: &str, reader: Reader) -> RunOutput {
    common::krm_with(input, &Env::default(), reader)
}

/// The ResourceList on one core and on four, and, when `exact`, against the exact reader.
fn check_list(bindings: usize, config_maps: usize, exact: bool) {
    let input = resource_list(&documents(bindings, config_maps));
    let what = format!("a ResourceList of {bindings} bindings and {config_maps} ConfigMaps");
    let fast = on_all_cores(&what, || krm_run(&input, Reader::Fast));
    if exact {
        assert_same(&format!("{what}, the exact reader"), &krm_run(&input, Reader::Exact), &fast);
    }
    assert_complete(&what, &fast, bindings, config_maps);
}

/// The same documents as a plugin stream and as `render` files, on all cores.
fn check_streams(bindings: usize, config_maps: usize) {
    let docs = documents(bindings, config_maps);
    let input = stream(&docs);
    let what = format!("a stream of {bindings} bindings and {config_maps} ConfigMaps");
    let plugin = on_all_cores(&what, || common::plugin(CONFIG, &input, &Env::default()));
    assert_complete(&what, &plugin, bindings, config_maps);
    // The exact reader reads the same stream into the same parts.
    let fast = read::stream(input.clone(), Options { reader: Reader::Fast }).unwrap();
    let exact = read::stream(input.clone(), Options { reader: Reader::Exact }).unwrap();
    assert!(fast.parts == exact.parts, "{what}: the parts read differ");

    // Files: the documents over several files, the last of each without a final newline.
    let dir = TempDir::new("thresholds");
    let files = 7;
    for f in 0..files {
        let text: Vec<String> = docs.iter().skip(f).step_by(files).cloned().collect();
        dir.write(&format!("m/{f}.yaml"), stream(&text).trim_end());
    }
    let config = dir.write("config.yaml", CONFIG);
    let request = || Request {
        paths: vec![dir.join("m")],
        config_file: Some(config.clone()),
        env: Env::default(),
        ..Request::default()
    };
    let rendered = on_all_cores(&format!("{what} in files"), || common::render(&request()));
    assert_complete(&format!("{what} in files"), &rendered, bindings, config_maps);
}

// ---------------------------------------------------------------------------------------
// 1. Parallel paths past their thresholds
// ---------------------------------------------------------------------------------------

/// The most items any threshold needs before its parallel path runs: the reconcile's and
/// reader's (items, bindings, documents) and the writer's (bindings' statuses and renders
/// to write, two per binding).
fn past_every_threshold() -> usize {
    parallel::PARALLEL_FROM.max(write::PARALLEL_FROM) + 100
}

#[test]
fn thresholds_are_crossed_by_the_inputs_below() {
    let bindings = past_every_threshold();
    assert!(parallel::threads_for(bindings, 4) > 1);
    assert!(parallel::threads_for(parallel::PARALLEL_FROM, 4) > 1);
    assert_eq!(parallel::threads_for(parallel::PARALLEL_FROM - 1, 4), 1);
    assert!(write::two_threads(2 * bindings, 4));
    assert!(write::two_threads(write::PARALLEL_FROM, 2));
    assert!(!write::two_threads(write::PARALLEL_FROM - 1, 2));
}

/// 2,100 bindings and 2,100 ConfigMaps: every parallel path runs.
#[test]
fn a_large_resource_list_reads_and_writes_the_same_on_every_core_count() {
    let n = past_every_threshold();
    check_list(n, n, true);
}

#[test]
fn a_large_stream_and_files_read_and_write_the_same_on_every_core_count() {
    // Past the writer's threshold with two writes per binding.
    let n = parallel::PARALLEL_FROM.max(write::PARALLEL_FROM / 2) + 100;
    check_streams(n, n);
}

/// The first run on a large repository: a pool per binding, and pods that carry no variant
/// label yet. Coverage words each identity's and each pool's findings on all cores from
/// [`parallel::PARALLEL_FROM`] identities and pools on; the findings are the same on one core.
#[test]
fn the_first_runs_findings_are_the_same_on_every_core_count() {
    let n = parallel::PARALLEL_FROM + 10;
    let mut docs = Vec::new();
    for p in 0..n {
        let ns = p % 7;
        docs.push(pool(p, ns));
        docs.push(format!(
            "apiVersion: kleym.sonda.red/v1alpha1\nkind: InferenceIdentityBinding\n\
             metadata: {{name: binding-{p}, namespace: ns-{ns}}}\n\
             spec:\n  poolRef: {{name: pool-{p}}}\n  serviceAccountName: sa-{p}\n  identityBoundary: {{variant: decode}}\n"
        ));
        docs.push(format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: model-{p}, namespace: ns-{ns}}}\n\
             spec:\n  template:\n    metadata: {{labels: {{app: model-{p}}}}}\n    spec:\n      \
             serviceAccountName: sa-{p}\n      containers: [{{name: vllm, image: vllm/vllm-openai:v0.16.0}}]\n"
        ));
    }
    let input = resource_list(&docs);
    let out = on_all_cores("the first run of a pool per binding", || krm_run(&input, Reader::Fast));
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    let lines = |kind: &str| out.stderr.lines().filter(|l| l.contains(&format!(": {kind}: "))).count();
    assert_eq!(lines("NoMatchingWorkload"), n, "one per identity");
    assert_eq!(lines("WorkloadWithoutVariant"), n, "one per pool's template");
    assert!(
        out.stderr.contains("binding ns-2/binding-1003 reaches no pod: Deployment ns-2/model-1003"),
        "{}",
        out.stderr
    );
}

/// Just below and at the thresholds: the reconcile's and the reader's (bindings, items)
/// and the writer's (two writes per binding, its status and its ClusterSPIFFEID).
#[test]
fn just_below_and_at_each_threshold_the_output_is_the_same() {
    let at = parallel::PARALLEL_FROM;
    assert_eq!(write::PARALLEL_FROM, 2 * at, "one binding count is at both thresholds");
    check_list(at - 1, 0, false);
    check_list(at, 0, false);
    // Items: pools, Deployments and ConfigMaps.
    check_list(0, at - 2 * POOLS - 1, false);
    check_list(0, at - 2 * POOLS, false);
}

// ---------------------------------------------------------------------------------------
// 2. The fast reader's bounds, just below and at them
// ---------------------------------------------------------------------------------------

/// A ResourceList the fast reader reads: a header with a comment, entries in block and flow
/// style with comments, a tail.
const LIST: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList  # the kind
# before the items
items:
- apiVersion: v1
  kind: ConfigMap  # one
  data: {a: [1, 2], b: {c: d}}
# between
- kind: InferenceIdentityBinding
  apiVersion: kleym.sonda.red/v1alpha1
  metadata:
    name: b
    namespace: ns
  spec: {poolRef: {name: p}}
functionConfig:
  kind: X  # last
";

/// A stream the fast reader reads: documents with comments, one empty.
const STREAM: &str = "# lead
a: {b: [1, [2, [3]]]}  # one
---
---
kind: InferenceIdentityBinding
apiVersion: kleym.sonda.red/v1alpha1
metadata: {name: b}
# trailing
...
---
c: d
";

/// What the full reader's parser counts in `text`: nodes, the deepest level (the
/// outermost node at 1), and the documents.
fn parsed(text: &str) -> (usize, usize, usize) {
    use serde_saphyr::granit_parser::{Event, Parser};
    let (mut nodes, mut depth, mut deepest, mut documents) = (0, 0, 0, 0);
    for event in Parser::new_from_str(text) {
        match event.expect("readable YAML").0 {
            Event::Scalar(..) => {
                nodes += 1;
                deepest = deepest.max(depth + 1);
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                nodes += 1;
                depth += 1;
                deepest = deepest.max(depth);
            }
            Event::SequenceEnd | Event::MappingEnd => depth -= 1,
            Event::DocumentStart(..) => documents += 1,
            _ => {}
        }
    }
    (nodes, deepest, documents)
}

fn list_reads(text: &str, bounds: Bounds) -> bool {
    fast::list(text, bounds).is_some()
}

fn stream_reads(text: &str, bounds: Bounds) -> bool {
    fast::streams(&[text], bounds).pop().expect("one answer per text").is_some()
}

/// `reads` holds at `at` and fails one below it.
fn bound_is(what: &str, at: usize, reads: impl Fn(usize) -> bool) {
    assert!(reads(at), "{what}: refused at {at}");
    assert!(!reads(at - 1), "{what}: read at {}, one below what it needs", at - 1);
}

#[test]
fn the_fast_reader_reads_up_to_each_bound_and_leaves_the_input_past_it() {
    assert!(list_reads(LIST, FULL) && stream_reads(STREAM, FULL));
    let (nodes, depth, _) = parsed(LIST);
    bound_is("list size", LIST.len(), |n| list_reads(LIST, Bounds { input_bytes: n, ..FULL }));
    // The fast reader counts more nodes than the full reader: the header and the tail are
    // read as mappings of their own (one more), each entry as a sequence of its own (two
    // more). Stricter, never looser.
    bound_is("list nodes", nodes + 1 + 2, |n| {
        list_reads(LIST, Bounds { counts: Counts { nodes: n, ..FULL.counts }, ..FULL })
    });
    bound_is("list depth", depth, |n| list_reads(LIST, Bounds { depth: n, ..FULL }));

    let (nodes, depth, documents) = parsed(STREAM);
    bound_is("stream size", STREAM.len(), |n| stream_reads(STREAM, Bounds { input_bytes: n, ..FULL }));
    // The empty document's null counts, as the full reader counts it, and so does the empty
    // part between `...` and the next `---`, which the full reader does not count: stricter.
    bound_is("stream nodes", nodes + 1, |n| {
        stream_reads(STREAM, Bounds { counts: Counts { nodes: n, ..FULL.counts }, ..FULL })
    });
    bound_is("stream depth", depth, |n| stream_reads(STREAM, Bounds { depth: n, ..FULL }));
    // The part between `...` and `---` is one more.
    bound_is("documents", documents + 1, |n| stream_reads(STREAM, Bounds { documents: n, ..FULL }));
}

/// Comment bytes: the text of every comment, after its `#`.
fn comment_bytes(text: &str) -> usize {
    text.lines().filter_map(|line| line.find('#').map(|at| line.len() - at - 1)).sum()
}

#[test]
fn comment_bytes_are_read_up_to_their_bound() {
    let comments = |n: usize| Bounds { counts: Counts { comment_bytes: n, ..FULL.counts }, ..FULL };
    bound_is("list comment bytes", comment_bytes(LIST), |n| list_reads(LIST, comments(n)));
    bound_is("stream comment bytes", comment_bytes(STREAM), |n| stream_reads(STREAM, comments(n)));
}

/// The least `n` for which `reads(n)` holds, `reads` holding from some point on.
fn least(reads: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, 1);
    while !reads(high) {
        (low, high) = (high, high * 2);
    }
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if reads(mid) { high = mid } else { low = mid }
    }
    high
}

/// Parser events have no count outside the reader to hold them to: the bound where the
/// reader stops grows by the same amount with each entry or document added, on one core
/// and on all (the parts are then read on several threads sharing one budget).
#[test]
fn events_add_up_over_the_parts_on_every_core_count() {
    let events = |n: usize| Bounds { counts: Counts { events: n, ..FULL.counts }, ..FULL };
    let entry = "- apiVersion: v1  # c\n  kind: ConfigMap\n  data: {a: [1, 2]}\n";
    let list = |k: usize| format!("kind: ResourceList\nitems:\n{}functionConfig: {{}}\n", entry.repeat(k));
    let document = "---\napiVersion: v1  # c\nkind: ConfigMap\ndata: {a: [1, 2]}\n";
    let stream = |k: usize| format!("a: 1\n{}", document.repeat(k));
    let k = parallel::PARALLEL_FROM;
    let list_reads_within = |text: &str, n: usize| list_reads(text, events(n));
    let stream_reads_within = |text: &str, n: usize| stream_reads(text, events(n));
    let (one, two) = (least(|n| list_reads_within(&list(1), n)), least(|n| list_reads_within(&list(2), n)));
    let (first, second) =
        (least(|n| stream_reads_within(&stream(1), n)), least(|n| stream_reads_within(&stream(2), n)));
    assert!(two > one && second > first);
    let (many, more) = (list(k), stream(k));
    for cores in [1, 4] {
        with_cores(cores, || {
            bound_is("list events", one + (k - 1) * (two - one), |n| list_reads_within(&many, n));
            bound_is("stream events", first + (k - 1) * (second - first), |n| stream_reads_within(&more, n));
        });
    }
}

// ---------------------------------------------------------------------------------------
// 3. Shapes the fast reader and the writer once got wrong
// ---------------------------------------------------------------------------------------

/// A binding with no status, its last line `variant: v` with no line end after it.
const BARE_BINDING: &str = "apiVersion: kleym.sonda.red/v1alpha1
kind: InferenceIdentityBinding
metadata: {name: b, namespace: ns}
spec:
  poolRef: {name: pool}
  serviceAccountName: sa
  identityBoundary:
    variant: v";

const POOL: &str = "apiVersion: inference.networking.k8s.io/v1
kind: InferencePool
metadata: {name: pool, namespace: ns}
spec:
  selector:
    matchLabels: {app: m}
  targetPorts: [{number: 8000}]
";

/// The binding's text as written: its own lines, then its status at column `column`.
fn assert_status_follows(what: &str, out: &RunOutput, column: usize) {
    assert_eq!(out.exit_code, 0, "{what}: {}", out.stderr);
    let pad = " ".repeat(column);
    let expected =
        format!("{pad}  identityBoundary:\n{pad}    variant: v\n{pad}status:\n{pad}  conditions:\n");
    assert!(out.stdout.contains(&expected), "{what}:\n{}", out.stdout);
}

#[test]
fn a_binding_without_status_last_in_a_file_without_a_final_newline_gets_its_status_on_a_line_of_its_own() {
    // The plugin stream and a render file: the binding is the last document.
    let stream = format!("{POOL}---\n{BARE_BINDING}");
    assert_status_follows("the plugin stream", &common::plugin(CONFIG, &stream, &Env::default()), 0);
    let dir = TempDir::new("bare-binding");
    let file = dir.write("m.yaml", &stream);
    let config = dir.write("config.yaml", CONFIG);
    let request = Request { paths: vec![file], config_file: Some(config), ..Request::default() };
    assert_status_follows("a render file", &common::render(&request), 0);
    // A ResourceList whose last entry ends the input.
    let list = resource_list(&[POOL.to_string(), BARE_BINDING.to_string()]);
    assert!(!list.ends_with('\n'));
    let out = krm_run(&list, Reader::Fast);
    assert_same("the ResourceList", &krm_run(&list, Reader::Exact), &out);
    assert_status_follows("the ResourceList", &out, 4);
}

/// Every way an item is written, as the last of a file: the output is the same whether
/// the file ends with a newline or not.
#[test]
fn a_file_without_a_final_newline_renders_as_with_one() {
    let binding = |name: &str, rest: &str| BARE_BINDING.replace("name: b,", &format!("name: {name},")) + rest;
    let files = [
        // No status: it is appended.
        binding("append", ""),
        // A status last: it is replaced, nothing after it.
        binding("replace-last", "\nstatus: {}"),
        // A status before another field: replaced, the field after it.
        binding("replace-before", "\nstatus:\n  conditions: []\nnotes: kept"),
        // A status in flow style in a flow mapping: the binding is written from its value.
        "{apiVersion: kleym.sonda.red/v1alpha1, kind: InferenceIdentityBinding, metadata: {name: flow, namespace: ns}, \
         spec: {poolRef: {name: pool}, serviceAccountName: sa, identityBoundary: {variant: w}}}"
            .to_string(),
        // Copied as it stands.
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}  # kept".to_string(),
    ];
    let render_with = |end: &str| {
        let dir = TempDir::new("final-newline");
        dir.write("0.yaml", POOL);
        for (i, text) in files.iter().enumerate() {
            dir.write(&format!("{}.yaml", i + 1), &format!("{text}{end}"));
        }
        let config = dir.write("config.yaml", CONFIG);
        let request = Request {
            paths: vec![dir.path().to_path_buf()],
            config_file: Some(config),
            ..Request::default()
        };
        let mut out = common::render(&request);
        out.stderr = out.stderr.replace(&dir.path().display().to_string(), "DIR");
        out
    };
    let with_newline = render_with("\n");
    assert_eq!(with_newline.exit_code, 0, "{}", with_newline.stderr);
    assert!(with_newline.stdout.contains("notes: kept\n---\n") && with_newline.stdout.contains("# kept\n"));
    assert_eq!(with_newline.stdout.matches("type: Ready").count(), 4, "{}", with_newline.stdout);
    assert_same("files without a final newline", &with_newline, &render_with(""));
    // The plugin stream, each shape last.
    for text in &files {
        let stream = |end: &str| format!("{POOL}---\n{text}{end}");
        let plugin = |end: &str| common::plugin(CONFIG, &stream(end), &Env::default());
        assert_same(&format!("a stream ending {text:?}"), &plugin("\n"), &plugin(""));
    }
}

/// Inputs the fast reader answers for itself, with the exact reader's answer: an entry or
/// a document holding a scalar it leaves to the full reader (`0o10`), a kind spelled with an
/// escape (read whole all the same), the items first (no header) or last (no tail).
#[test]
fn the_fast_reader_answers_for_deferred_scalars_escaped_kinds_and_missing_parts() {
    let binding = "kind: \"InferenceIdentity\\x42inding\"\n  metadata: {name: b}";
    for list in [
        "kind: ResourceList\nitems:\n- kind: ConfigMap\n  data: {a: 0o10}\n".to_string(),
        format!("kind: ResourceList\nitems:\n- {binding}\n"),
        "items:\n- kind: ConfigMap\nkind: ResourceList\n".to_string(),
        "kind: ResourceList\nitems:\n- kind: ConfigMap\n".to_string(),
    ] {
        let fast = read::list(list.clone(), Options { reader: Reader::Fast }).expect("read");
        let exact = read::list(list.clone(), Options { reader: Reader::Exact }).expect("read");
        assert!(fast::list(&list, FULL).is_some(), "{list:?}");
        assert!(fast.parts == exact.parts && fast.function_config == exact.function_config, "{list:?}");
    }
    for stream in ["a: 0o10\n".to_string(), "a: 1\n---\nb: 0o10\n".to_string(), binding.replace("\n  ", "\n")]
    {
        let fast = read::stream(stream.clone(), Options { reader: Reader::Fast }).expect("read");
        let exact = read::stream(stream.clone(), Options { reader: Reader::Exact }).expect("read");
        assert!(fast::streams(&[&stream], FULL).pop().unwrap().is_some(), "{stream:?}");
        assert!(fast.parts == exact.parts, "{stream:?}");
    }
}

#[test]
fn an_items_key_glued_to_a_comment_sign_is_no_items_key() {
    // `items:#c` is one plain scalar, not the key `items` and a comment: the full reader
    // refuses the mapping, and so must the fast one.
    for text in [
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:#c\n",
        "kind: ResourceList\nitems:#c\n- a: 1\n",
    ] {
        assert!(fast::list(text, FULL).is_none(), "{text:?}");
        assert!(read::list(text.to_string(), Options::default()).is_err(), "{text:?}");
    }
    // With a space, it is the key and a comment.
    assert!(fast::list("kind: ResourceList\nitems: #c\n- a: 1\n", FULL).is_some());
}

/// An 8.4 MB ResourceList of 4.2 million scalars, past the node limit.
fn millions_of_scalars() -> String {
    let head =
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: ConfigMap\n  data: [";
    let scalars = 4_200_000;
    assert!(scalars > render_inference_identity::yaml::MAX_NODES);
    format!("{head}{}1]\n", "1,".repeat(scalars - 1))
}

/// The same shape held to a small bound: one flow list in one entry.
#[test]
fn a_flow_list_of_scalars_is_read_up_to_the_node_bound() {
    let list = |scalars: usize| {
        format!("kind: ResourceList\nitems:\n- kind: ConfigMap\n  data: [{}1]\n", "1,".repeat(scalars - 1))
    };
    for scalars in [1, 1_000] {
        let text = list(scalars);
        // One more than the full reader counts: the entry read as a sequence of its own.
        assert_eq!(parsed(&text).0, scalars + 10);
        bound_is("nodes", scalars + 10 + 1, |n| {
            list_reads(&text, Bounds { counts: Counts { nodes: n, ..FULL.counts }, ..FULL })
        });
    }
}

#[test]
#[ignore = "full size (4.2 million nodes, 16 s in a debug build): run with --release --ignored"]
fn a_list_of_millions_of_scalars_is_refused_at_the_node_limit() {
    let input = millions_of_scalars();
    assert!(fast::list(&input, FULL).is_none(), "the fast reader leaves it to the exact one");
    let error = read::list(input, Options::default()).err().expect("refused").message;
    assert!(error.contains("nodes"), "{error}");
}

/// A stream at the node limit, then `---` and nothing: the empty document's null is one
/// node more for the full reader, which refuses the stream; so must the fast reader.
#[test]
#[ignore = "full size (4,000,000 nodes): run with --release --ignored"]
fn an_empty_document_past_the_node_limit_is_refused() {
    // The mapping, its key and the sequence: three nodes besides the scalars.
    let scalars = render_inference_identity::yaml::MAX_NODES - 3;
    let at_limit = format!("a: [{}1]\n", "1,".repeat(scalars - 1));
    assert!(read::stream(at_limit.clone(), Options::default()).is_ok(), "at the limit");
    let past = format!("{at_limit}---\n");
    assert!(
        fast::streams(&[&past], FULL).pop().unwrap().is_none(),
        "the fast reader leaves it to the exact one"
    );
    let error = read::stream(past, Options::default()).err().expect("refused");
    assert!(error.contains("nodes"), "{error}");
}
