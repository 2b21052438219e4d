//! Hostile input that kubectl reads as another object than the function: one case per shape
//! the reader refuses (docs/yaml.md#held-to-kubectls-reader), each naming the rule of
//! go-yaml v2 (go.yaml.in/yaml/v2, which sigs.k8s.io/yaml v1.6.0 reads YAML through),
//! sigs.k8s.io/yaml or k8s.io/apimachinery it relies on. Every mode refuses each with exit
//! 1, the line and column, and what to write instead; render names the file.

use super::*;

/// A Deployment whose pod template's labels end with a comment line `# note`, and
/// `comment_tail` after `note`: a YAML 1.1 reader that ends the comment at a line break in
/// it reads what follows as a label.
fn deployment_with(comment_tail: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: team-a\nspec:\n  \
         template:\n    metadata:\n      labels:\n        app: model\n        # note{comment_tail}\n    \
         spec:\n      serviceAccountName: sa-a\n      containers: []\n"
    )
}

/// One shape kubectl reads otherwise: the document holding it, the words of its refusal,
/// and the modes it is refused in (a document marker has no place inside a ResourceList's
/// item).
struct Case {
    what: &'static str,
    document: String,
    words: &'static str,
    modes: &'static [Mode],
}

const STREAMS: &[Mode] = &[Mode::Plugin, Mode::Render];

/// Exit 1 with the words, placed at a line and column; render names the file it read.
fn assert_diverges(out: &Run, mode: Mode, words: &str) {
    out.assert_refused(&[&[words], &["line "], &[" column "]]);
    let placed = out.stderr.split("line ").skip(1).any(|rest| {
        let mut words = rest.split_whitespace();
        let numbered = |w: Option<&str>| w.is_some_and(|w| w.trim_end_matches(':').parse::<usize>().is_ok());
        numbered(words.next()) && words.next() == Some("column") && numbered(words.next())
    });
    assert!(placed, "no line and column:\n{}", out.describe());
    if matches!(mode, Mode::Render) {
        assert!(out.stderr.contains("input.yaml: line "), "render names the file:\n{}", out.describe());
    }
}

fn run_case(case: &Case) {
    let modes = if case.modes.is_empty() { &ALL_MODES[..] } else { case.modes };
    for &mode in modes {
        let out = run_items(case.what, mode, &[case.document.as_bytes()]);
        assert_diverges(&out, mode, case.words);
    }
}

/// NEL, LS and PS are line breaks to go-yaml v2 (`yamlprivateh.go`, `is_break`), where the
/// scanner ends a comment (`scannerc.go`, `yaml_parser_scan_to_next_token`): the variant
/// label after one in a comment is a label to kubectl, and comment text to YAML 1.2.
#[test]
fn a_yaml_1_1_line_break_in_a_comment_before_labels_is_refused() {
    for (name, brk) in
        [("NEL", '\u{85}'), ("line separator", '\u{2028}'), ("paragraph separator", '\u{2029}')]
    {
        let document = deployment_with(&format!("{brk}        identity.kleym.sonda.red/variant: prefill"));
        let words = format!("a {name} character");
        for mode in ALL_MODES {
            let out = run_items(&format!("{name} in a comment"), mode, &[document.as_bytes()]);
            assert_diverges(&out, mode, &words);
        }
    }
}

/// The same document, with the comment ending at a line feed, is read (the label is in the
/// pod template): the refusal is for the line break alone.
#[test]
fn the_same_label_after_a_line_feed_is_read() {
    let document = deployment_with("\n        identity.kleym.sonda.red/variant: prefill");
    for mode in ALL_MODES {
        run_items("a line feed in a comment", mode, &[document.as_bytes()]).assert_success();
    }
}

#[test]
fn each_shape_kubectl_reads_otherwise_is_refused_in_every_mode() {
    let config_map =
        |data: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n{data}");
    let cases = [
        // apimachinery cuts documents at line feeds (`util/yaml/decoder.go`,
        // `LineReader.Read`); go-yaml v2 takes a carriage return for a line break
        // (`is_break`) and reads one document of each part (`yaml.go`, `Unmarshal`): the
        // `---` after it starts a document kubectl drops.
        Case {
            what: "a lone carriage return",
            document: config_map("  a: b\r---\rapiVersion: v1\n"),
            words: "a carriage return without a line feed",
            modes: &[],
        },
        // go-yaml v2 skips a byte-order mark that opens a line (`scannerc.go`,
        // `yaml_parser_scan_to_next_token`) and reads one elsewhere as a character
        // (`readerc.go`, `yaml_parser_update_buffer`).
        Case {
            what: "a byte-order mark in a value",
            document: config_map("  a: \"x\u{feff}y\"\n"),
            words: "a byte-order mark",
            modes: &[],
        },
        // apimachinery cuts at a line opening with `---` and a comment (`YAMLReader.Read`);
        // YAML reads `---#c` as text.
        Case {
            what: "a marker line with a comment and no space",
            document: config_map("  a: b\n---#c\n"),
            words: "opening with `---`",
            modes: STREAMS,
        },
        // go-yaml v2 reads one document of each part apimachinery cuts (`yaml.go`,
        // `Unmarshal`; `parserc.go`, `yaml_parser_parse_document_start`): after `...`, the
        // document no `---` starts is dropped.
        Case {
            what: "a document after `...`",
            document: config_map("  a: b\n...\napiVersion: v1\nkind: Secret\n"),
            words: "a document after a `...`",
            modes: STREAMS,
        },
        // apimachinery cuts a directive from the `---` it needs (`YAMLReader.Read`), and
        // go-yaml v2 refuses a part of only a directive (`yaml_parser_parse_document_start`).
        Case {
            what: "a directive",
            document: format!("%YAML 1.1\n---\n{}", config_map("  a: b\n")),
            words: "a `%` directive",
            modes: STREAMS,
        },
        // go-yaml v2 skips tabs between tokens only where no simple key may start
        // (`scannerc.go`, `yaml_parser_scan_to_next_token`): after `-`, one is a token.
        Case {
            what: "a tab after a sequence entry's dash",
            document: config_map("  a: |\n    x\nlist:\n-\tb\n"),
            words: "a tab where kubectl",
            modes: &[],
        },
        // go-yaml v2 keeps a plain scalar under a tag it does not know a string, and
        // decodes `!!binary` (`resolve.go`, `resolve`; `decode.go`, `scalar`).
        Case { what: "a local tag", document: config_map("  a: !x 7\n"), words: "the tag `!x`", modes: &[] },
        Case {
            what: "a binary tag",
            document: config_map("  a: !!binary aGk=\n"),
            words: "the tag `!!binary`",
            modes: &[],
        },
        // go-yaml v2 knows YAML 1.1's escapes, without `\/`, and refuses a surrogate's code
        // (`scannerc.go`, `yaml_parser_scan_flow_scalar`), also one of a pair YAML 1.2 joins.
        Case {
            what: "the escape \\/",
            document: config_map("  a: \"x\\/y\"\n"),
            words: "the escape `\\/`",
            modes: &[],
        },
        Case {
            what: "a surrogate pair's escapes",
            document: config_map("  a: \"\\ud83d\\ude00\"\n"),
            words: "the escape `\\ud83d`",
            modes: &[],
        },
        // go-yaml v2 lets a later merge override the keys before it (`decode.go`,
        // `mapping`, `merge`).
        Case {
            what: "a merge key",
            document: config_map("  a: b\n  <<: {a: c}\n"),
            words: "a `<<` merge key",
            modes: &[],
        },
        // go-yaml v2 drops a simple key that does not stand on one line
        // (`scannerc.go`, `yaml_parser_stale_simple_keys`), and refuses what follows.
        Case {
            what: "a key over two lines",
            document: config_map("  a: {b\n    c: d}\n"),
            words: "a key written over more than one line",
            modes: &[],
        },
        // go-yaml v2 reads anchor names of letters, digits, `_` and `-` (`scannerc.go`,
        // `yaml_parser_scan_anchor`); YAML 1.2 allows `.` and `:` in them.
        Case {
            what: "an anchor named with a dot",
            document: config_map("  a: &a.b x\n  c: *a.b\n"),
            words: "the anchor or alias `&a.b`",
            modes: &[],
        },
        // go-yaml v2 resolves only three spellings of each YAML 1.1 word (`resolve.go`,
        // `init`) and a number in Go's syntax, `0X` prefixes and `_` anywhere
        // (`resolve`: `strconv.ParseInt(plain, 0, 64)`).
        Case {
            what: "a boolean word in another case",
            document: config_map("  a: yEs\n"),
            words: "the value `yEs` is unquoted",
            modes: &[],
        },
        Case {
            what: "an upper-case hex prefix",
            document: config_map("  a: 0X1F\n"),
            words: "the value `0X1F` is unquoted",
            modes: &[],
        },
        Case {
            what: "underscores side by side",
            document: config_map("  a: 1__0\n"),
            words: "the value `1__0` is unquoted",
            modes: &[],
        },
        // sigs.k8s.io/yaml prints a float key at 32-bit precision and refuses a key past
        // int64 (`yaml.go`, `convertToJSONableObject`).
        Case { what: "a float key", document: config_map("  1.5: x\n"), words: "the key `1.5`", modes: &[] },
        Case {
            what: "a key past int64",
            document: config_map("  18446744073709551615: x\n"),
            words: "the key `18446744073709551615`",
            modes: &[],
        },
    ];
    for case in &cases {
        run_case(case);
    }
}
