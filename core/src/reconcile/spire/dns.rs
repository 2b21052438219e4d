//! A DNS name as the SPIRE server takes it in an entry. The server's entry API checks each
//! name before it stores the entry, and refuses the whole entry for one it does not take
//! (spiffe/spire `pkg/server/api/entry.go`, `ProtoToRegistrationEntryWithMask`: "invalid DNS
//! name"). Which names it takes hangs on the server's version, and on the Go release it was
//! built with, so each of the three rule sets SPIRE servers since v1.5.0 apply is held here:
//!
//! - v1.5.0 to v1.8.x: `x509util.ValidateDNS` (`pkg/common/x509util/dns.go` before commit
//!   acf500ab): trimmed of white space, at most 255 bytes, every label 1 to 63 bytes matching
//!   `^[a-zA-Z0-9]([-]*[a-zA-Z0-9])+$`;
//! - v1.9.0 and later: `x509util.ValidateLabel` (same file): ASCII only, one wildcard at most
//!   and only as a leading `*.`, then `validNonwildcardLabel`: trimmed, not empty, no trailing
//!   dot, and golang.org/x/net/idna's `ToASCII` under a profile with `StrictDomainName`,
//!   `ValidateLabels`, `VerifyDNSLength`, `CheckJoiners`, `BidiRule` and `CheckHyphens`
//!   (idna `Profile.process`, `validateLabel`, punycode `decode` and `encode`), whose output
//!   must be the name itself. Under Unicode 15's tables (Go 1.26 and earlier) that profile
//!   checks no ASCII character but the hyphen: `ops_admin` and `Web` pass. Under Unicode 16's
//!   and later (Go 1.27 on: `unicode16` in idna.go), `validateLabel` also refuses an upper-case
//!   letter and any character outside `a-z`, `0-9`, `-`.
//!
//! A name every rule set refuses is refused; one some refuse is refused by some servers only.
//! A label `xn--...` whose punycode decodes to non-ASCII text is judged further by Unicode's
//! tables (normalization, IDNA categories, the Bidi and joiner rules), which the build does not
//! carry: what is left after the checks that need none is unknown.

/// What one rule set answers for a name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Check {
    Takes,
    Refuses(String),
    /// Only Unicode's tables settle it.
    Unknown,
}

/// What the SPIRE servers the model knows answer for one DNS name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Every one takes it.
    Taken,
    /// Every one refuses it, for this reason (the current rules').
    Refused(String),
    /// Some refuse it, or only Unicode's tables settle it: which, in words.
    Varies(String),
}

/// The answer of every SPIRE server since v1.5.0 for `name`.
pub fn judge(name: &str) -> Answer {
    let checks = [
        ("SPIRE v1.9.0 and later built with Go 1.26 or earlier", label(name, false)),
        ("SPIRE v1.9.0 and later built with Go 1.27 or later", label(name, true)),
        ("SPIRE v1.5.0 to v1.8", legacy(name)),
    ];
    if checks.iter().all(|(_, c)| *c == Check::Takes) {
        return Answer::Taken;
    }
    if let (Check::Refuses(why), true) =
        (&checks[0].1, checks.iter().all(|(_, c)| matches!(c, Check::Refuses(_))))
    {
        return Answer::Refused(why.clone());
    }
    let refusing: Vec<String> = checks
        .iter()
        .filter_map(|(servers, c)| match c {
            Check::Refuses(why) => Some(format!("{servers} ({why})")),
            _ => None,
        })
        .collect();
    let unknown = checks.iter().any(|(_, c)| *c == Check::Unknown);
    let mut words =
        if refusing.is_empty() { String::new() } else { format!("refused by {}", refusing.join(", ")) };
    if unknown {
        if !words.is_empty() {
            words.push_str("; ");
        }
        words.push_str("an internationalized label only Unicode's tables settle");
    }
    Answer::Varies(words)
}

/// Go's `strings.TrimSpace`: Unicode white space at both ends.
fn trim_space(text: &str) -> &str {
    text.trim_matches(char::is_whitespace)
}

/// `ValidateDNS`, SPIRE v1.5.0 to v1.8.x.
fn legacy(name: &str) -> Check {
    let name = trim_space(name);
    if name.is_empty() {
        return Check::Refuses("empty or only white space".into());
    }
    if name.len() > 255 {
        return Check::Refuses("longer than 255 bytes".into());
    }
    for label in name.split('.') {
        // `^[a-zA-Z0-9]([-]*[a-zA-Z0-9])+$`: two characters at least, letters, digits and
        // hyphens, a letter or digit at each end.
        let ends = |b: Option<&u8>| b.is_some_and(u8::is_ascii_alphanumeric);
        let bytes = label.as_bytes();
        let why = if label.is_empty() {
            "an empty label"
        } else if label.len() > 63 {
            "a label longer than 63 bytes"
        } else if bytes.len() < 2
            || !ends(bytes.first())
            || !ends(bytes.last())
            || !bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        {
            "a label that is not letters, digits and inner hyphens, two characters at least"
        } else {
            continue;
        };
        return Check::Refuses(why.into());
    }
    Check::Takes
}

/// `ValidateLabel`, SPIRE v1.9.0 and later, under Unicode 16's IDNA tables or later
/// (`unicode16`) or earlier ones.
fn label(name: &str, unicode16: bool) -> Check {
    if !name.is_ascii() {
        return Check::Refuses("not ASCII".into());
    }
    let rest = match name.matches('*').count() {
        0 => name,
        1 => match name.strip_prefix("*.") {
            Some(rest) => rest,
            None => return Check::Refuses("a wildcard that is not a leading *.".into()),
        },
        _ => return Check::Refuses("more than one wildcard".into()),
    };
    // `validNonwildcardLabel`; an ASCII name trims ASCII white space only.
    let domain = rest.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\u{0B}');
    if domain.is_empty() {
        return Check::Refuses("empty or only white space".into());
    }
    if domain.ends_with('.') {
        return Check::Refuses("a trailing dot".into());
    }
    if domain.starts_with("*.") {
        return Check::Refuses("a wildcard after the first label".into());
    }
    idna(domain, unicode16)
}

/// idna's `Profile.process` with `ToASCII`, for an ASCII domain without a trailing dot,
/// then `validNonwildcardLabel`'s check that its output is the domain itself. Every error
/// refuses, whichever comes first, so the checks run in any order.
fn idna(domain: &str, unicode16: bool) -> Check {
    let mut unknown = false;
    for label in domain.split('.') {
        if label.is_empty() {
            return Check::Refuses("an empty label".into());
        }
        if let Some(encoded) = label.strip_prefix("xn--") {
            match punycode_label(encoded, label) {
                Check::Takes => {}
                Check::Unknown => unknown = true,
                refused => return refused,
            }
            continue;
        }
        let bytes = label.as_bytes();
        // `validateLabel`, CheckHyphens.
        if bytes.len() > 4 && bytes[2] == b'-' && bytes[3] == b'-' {
            return Check::Refuses(format!("label {label:?} has hyphens in its third and fourth places"));
        }
        if bytes[0] == b'-' || bytes[bytes.len() - 1] == b'-' {
            return Check::Refuses(format!("label {label:?} starts or ends with a hyphen"));
        }
        // Unicode 16 on: an upper-case letter is mapped, so not valid (V7); any other
        // character outside a-z, 0-9 and the hyphen fails StrictDomainName (U1).
        if unicode16 && let Some(c) = label.chars().find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-')) {
            return Check::Refuses(format!("label {label:?} holds {c:?}"));
        }
        if label.len() > 63 {
            return Check::Refuses(format!("label {label:?} is longer than 63 bytes"));
        }
    }
    if domain.len() > 253 {
        return Check::Refuses("longer than 253 bytes".into());
    }
    if unknown { Check::Unknown } else { Check::Takes }
}

/// A label `xn--<encoded>`: what the checks that need no Unicode table say of it. Its
/// punycode must decode (the idna crate's RFC 3492, as golang.org/x/net/idna's punycode.go;
/// a code point no char holds, a surrogate, Go makes U+FFFD, which IDNA disallows), to text
/// that is not ASCII, whose encoding gives the label back (the output is compared with the
/// input) in 63 bytes at most; Unicode's tables judge the rest.
fn punycode_label(encoded: &str, label: &str) -> Check {
    let refused = |why: &str| Check::Refuses(format!("label {label:?} {why}"));
    let Some(text) = idna::punycode::decode_to_string(encoded) else {
        return refused("is not valid punycode");
    };
    if text.is_empty() {
        return refused("decodes to nothing");
    }
    if text.is_ascii() {
        return refused("is the punycode of ASCII text");
    }
    if text.contains('\u{FFFD}') {
        return refused("decodes to U+FFFD");
    }
    match idna::punycode::encode_str(&text) {
        Some(again) if again == encoded && label.len() <= 63 => Check::Unknown,
        Some(_) if label.len() > 63 => refused("is longer than 63 bytes"),
        _ => refused("is not the punycode idna would write"),
    }
}

#[cfg(test)]
mod tests {
    use super::{Answer, Check, judge, label, legacy};

    fn refused(check: Check) -> bool {
        matches!(check, Check::Refuses(_))
    }

    #[test]
    fn names_every_server_takes() {
        for name in [
            "example.org",
            "web.serving.svc",
            "web.serving.svc.cluster.local",
            "a1-b2.example",
            " web.example ",
            &format!("{}.example", "a".repeat(63)),
        ] {
            assert_eq!(judge(name), Answer::Taken, "{name}");
        }
    }

    #[test]
    fn names_every_server_refuses() {
        for name in [
            "",
            "   ",
            "web.example.",
            "web..example",
            ".web.example",
            "-web.example",
            "web-.example",
            "web.*.example",
            "*.*.example",
            "w*b.example",
            "wéb.example",
            &format!("{}.example", "a".repeat(64)),
            &format!("{}.example", ["abcdefgh"; 29].join(".")),
        ] {
            assert!(matches!(judge(name), Answer::Refused(_)), "{name}: {:?}", judge(name));
        }
    }

    #[test]
    fn the_current_rules_take_what_older_servers_refused() {
        // ValidateDNS wanted two characters a label and no wildcard, and took 254 bytes.
        assert!(refused(legacy("a.example")) && label("a.example", true) == Check::Takes);
        assert!(refused(legacy("*.example")) && label("*.example", true) == Check::Takes);
        assert!(matches!(judge("a.example"), Answer::Varies(w) if w.contains("v1.5.0 to v1.8")));
        // ...and took hyphens in the third and fourth places, which idna's CheckHyphens refuses.
        assert_eq!(legacy("ab--cd.example"), Check::Takes);
        assert!(refused(label("ab--cd.example", false)));
        assert!(refused(label("ab--", false)), "a hyphen at the end");
        assert_eq!(label("a--b", false), Check::Takes, "four bytes: no third-and-fourth rule");
        let long = format!("{}.abc", ["abcdefgh"; 28].join("."));
        assert_eq!(long.len(), 255);
        assert_eq!(legacy(&long), Check::Takes);
        assert!(refused(label(&long, false)));
    }

    #[test]
    fn unicode_16_tables_refuse_what_earlier_ones_take() {
        // Under Unicode 15's tables the profile checks no ASCII character but the hyphen.
        for name in ["ops_admin.serving.svc", "Web.example", "a b.example", "<no value>.svc"] {
            assert_eq!(label(name, false), Check::Takes, "{name}");
            assert!(refused(label(name, true)), "{name}");
            assert!(matches!(judge(name), Answer::Varies(w) if w.contains("Go 1.27")), "{name}");
        }
        // Upper case is one ValidateDNS took.
        assert_eq!(legacy("Web.example"), Check::Takes);
        assert!(refused(legacy("ops_admin.serving.svc")));
    }

    #[test]
    fn white_space_is_trimmed_before_the_checks() {
        assert_eq!(label("\t web.example \n", true), Check::Takes);
        assert_eq!(legacy("\u{a0}web.example\u{3000}"), Check::Takes, "Go's TrimSpace trims Unicode spaces");
        assert!(refused(label("\u{a0}web.example", false)), "but ValidateLabel wants ASCII first");
        // A wildcard must start the name itself, before any white space.
        assert!(refused(label(" *.example", false)));
        assert_eq!(label("*. example", false), Check::Takes);
    }

    #[test]
    fn punycode_labels_are_judged_as_far_as_no_table_is_needed() {
        // bücher: decodes to non-ASCII text and encodes back; Unicode's tables judge the rest,
        // and refuse the C1 controls `abc` decodes to, which the build cannot tell apart.
        assert_eq!(label("xn--bcher-kva.example", false), Check::Unknown);
        assert_eq!(label("xn--abc.example", false), Check::Unknown);
        assert_eq!(
            label("xn--BCHER-kva.example", false),
            Check::Unknown,
            "its upper case comes back as written"
        );
        assert!(
            matches!(judge("xn--bcher-kva.example"), Answer::Varies(w) if w.contains("Unicode's tables"))
        );
        for bad in [
            "xn--zz",         // ends inside a number
            "xn--abc-",       // ASCII only
            "xn--",           // nothing
            "xn---",          // a delimiter with nothing before
            "xn--bcher-KVA",  // decodes, but encodes back in lower case
            "xn--bcher-kva!", // not a digit
        ] {
            assert!(refused(label(&format!("{bad}.example"), false)), "{bad}");
        }
        // `XN--` is no punycode prefix: its hyphens are in the third and fourth places.
        assert!(refused(label("XN--bcher-kva.example", false)));
        // What some servers refuse and what only the tables settle are both said.
        let Answer::Varies(words) = judge("xn--bcher-kva.a") else { panic!("varies") };
        assert!(
            words.contains("SPIRE v1.5.0 to v1.8 (") && words.contains("; an internationalized"),
            "{words}"
        );
    }

    #[test]
    fn a_name_of_253_bytes_is_the_longest_current_servers_take() {
        let name =
            |n: usize| format!("{}.{}.{}.{}", "a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(n));
        assert_eq!(name(61).len(), 253);
        assert_eq!(label(&name(61), true), Check::Takes);
        assert!(refused(label(&name(62), true)));
        // Refused by some, with nothing only the tables settle: no word of the tables.
        let Answer::Varies(words) = judge("ops_admin.example") else { panic!("varies") };
        assert!(!words.contains("Unicode's tables"), "{words}");
    }

    #[test]
    fn a_punycode_label_past_63_bytes_is_refused_for_its_length() {
        let text = format!("{}\u{fc}", "a".repeat(70));
        let encoded = idna::punycode::encode_str(&text).unwrap();
        let Check::Refuses(why) = label(&format!("xn--{encoded}.example"), false) else { panic!("refused") };
        assert!(why.contains("longer than 63 bytes"), "{why}");
        let Check::Refuses(why) = label("xn--bcher-KVA.example", false) else { panic!("refused") };
        assert!(why.contains("not the punycode idna would write"), "{why}");
    }

    #[test]
    fn a_label_of_two_characters_is_the_shortest_older_servers_take() {
        assert_eq!(legacy("ab.cd"), Check::Takes);
        assert!(refused(legacy("a.cd")));
    }

    #[test]
    fn punycode_round_trips_as_rfc_3492_writes_it() {
        for (text, encoded) in [
            ("bücher", "bcher-kva"),
            ("ü", "tda"),
            ("例え", "r8jz45g"),
            ("aé-x", "a-x-bma"),
            ("a-é", "a--cja"),
        ] {
            assert_eq!(idna::punycode::encode_str(text).as_deref(), Some(encoded), "{text}");
            assert_eq!(idna::punycode::decode_to_string(encoded).as_deref(), Some(text));
        }
        assert_eq!(idna::punycode::decode_to_string("abc").as_deref(), Some("\u{82}\u{81}\u{80}"));
        for bad in ["zz", &"9".repeat(20)] {
            assert!(idna::punycode::decode_to_string(bad).is_none(), "{bad}");
            assert!(matches!(label(&format!("xn--{bad}.example"), false), Check::Refuses(_)), "{bad}");
        }
    }
}
