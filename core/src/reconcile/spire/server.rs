//! What the SPIRE server does with an entry SPIRE Controller Manager sends it: stores it, or
//! refuses it. The manager declares the entry all the same (it marks the pod in
//! `podsWithNonFallbackApplied`, reconciler.go, so no fallback steps in) and logs the failure
//! (`createEntries`); the pods hold nothing from it. Read in spiffe/spire, whose checks run
//! in this order:
//!
//! - the entry API converts it (`pkg/server/api/entry.go`, `ProtoToRegistrationEntryWithMask`):
//!   its parent must be of the server's trust domain with a path (`TrustDomainMemberIDFromProto`,
//!   `pkg/server/api/id.go`: a static entry's `parentID`; a pod's is the manager's agent ID), its
//!   SPIFFE ID must have a path outside SPIRE's reserved `/spire` namespace
//!   (`VerifyTrustDomainWorkloadID`, `idutil.IsReservedPath`), and every DNS name must be one
//!   the server takes ([`super::dns`]);
//!   A hint over 1024 bytes is refused by servers since v1.6.3 (`hintMaximumLength`); older
//!   ones take the entry;
//! - the datastore checks it (`pkg/server/datastore/sqlstore/sqlstore.go`,
//!   `validateRegistrationEntry`): an entry without selectors is refused, and so is one that
//!   stores its SVID (`storeSVID`) with selectors of more than one type, as is an X.509 or
//!   JWT lifetime received below 0 ([`super::lifetime`]);
//! - and stores it in one transaction with its federations (`createRegistrationEntry`,
//!   `makeFederatesWith`): a `federatesWith` trust domain whose bundle the server does not hold
//!   fails it ("unable to find federated bundle"). The server holds its own trust domain's
//!   bundle; another's only once a federation relationship or its configuration brought it,
//!   which only the cluster knows.

use super::Unsure;
use super::dns;
use super::lifetime::{Lifetime, whole_seconds};
use super::source::Source;
use super::spiffe_id;

/// The server's answer for an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Takes,
    /// It refuses it, for every server the model knows: why, in words.
    Refuses(String),
    /// It may refuse it: on what its taking hangs.
    MayRefuse(Unsure),
}

impl Verdict {
    /// Both answers: a refusal first, in the server's order, then a may.
    pub fn and(self, then: Verdict) -> Verdict {
        match (self, then) {
            (refused @ Verdict::Refuses(_), _) | (_, refused @ Verdict::Refuses(_)) => refused,
            (may @ Verdict::MayRefuse(_), _) | (_, may @ Verdict::MayRefuse(_)) => may,
            _ => Verdict::Takes,
        }
    }
}

/// What the object settles for every entry it makes: a static entry's parent, its DNS names
/// without actions, its lifetimes, and its `federatesWith` (of a trust domain other than
/// `own`, when given).
pub fn of_object<'a>(
    source: &Source,
    constant_dns_names: impl Iterator<Item = &'a str>,
    own: Option<&str>,
) -> Verdict {
    let fields =
        if source.static_parent.is_some() { ["x509SVIDTTL", "jwtSVIDTTL"] } else { ["ttl", "jwtTtl"] };
    let ttls = [(fields[0], source.ttls[0].as_deref()), (fields[1], source.ttls[1].as_deref())];
    let parent = match source.static_parent.as_deref().map(|p| (p, spiffe_id::parse(p))) {
        Some((parent, Ok((td, _)))) if own.is_some_and(|own| own != td) => Verdict::Refuses(format!(
            "the SPIRE server refuses its entry: its parentID {parent} is not of its trust domain"
        )),
        Some((parent, Ok((_, "")))) => {
            Verdict::Refuses(format!("the SPIRE server refuses its entry: its parentID {parent} has no path"))
        }
        _ => Verdict::Takes,
    };
    let selectors = match source.static_parent {
        Some(_) => of_static_selectors(&source.selector_templates, source.store_svid),
        None => Verdict::Takes,
    };
    parent
        .and(selectors)
        .and(of_entry(constant_dns_names, ttls, &source.federates_with, own))
        .and(of_hint(&source.hint))
}

/// What servers do with an entry of this hint: since v1.6.3 they refuse one over 1024 bytes
/// (`pkg/server/api/entry.go`, `hintMaximumLength`), older ones take it; and a server on MySQL
/// refuses one over 255 characters or with a character of four UTF-8 bytes (its column is a
/// `varchar(255)` of 3-byte `utf8`: gorm's default size, `pkg/server/datastore/sqlstore/models.go`,
/// `migration.go`), which SQLite and Postgres take.
pub fn of_hint(hint: &str) -> Verdict {
    let mysql = hint.chars().count() > 255 || hint.chars().any(|c| c.len_utf8() == 4);
    if hint.len() > 1024 || mysql { Verdict::MayRefuse(Unsure::Hint) } else { Verdict::Takes }
}

/// What the datastore says of a static entry's `selectors` (`validateRegistrationEntry`):
/// none at all is refused, and, when it stores its SVID, selectors of more than one type. A
/// pod's entry always holds the manager's own `k8s` selectors.
pub fn of_static_selectors(selectors: &[String], store_svid: bool) -> Verdict {
    fn kind(selector: &str) -> &str {
        super::source::type_and_value(selector).map_or(selector, |(kind, _)| kind)
    }
    let refused = |why: &str| Verdict::Refuses(format!("the SPIRE server refuses its entry: {why}"));
    match selectors.first() {
        None => refused("it has no selectors"),
        Some(first) if store_svid && selectors.iter().any(|s| kind(s) != kind(first)) => {
            refused("it stores its SVID (storeSVID) and its selectors are of more than one type")
        }
        _ => Verdict::Takes,
    }
}

/// What the server does with an entry of this SPIFFE ID (`text`, with actions only the cluster
/// settles kept as written when `known` is false): it refuses an ID without a path, or one in
/// SPIRE's reserved namespace (`/spire`, `/spire/...`). A partly known ID is judged only when
/// its known beginning already puts it under `/spire/`.
pub fn of_spiffe_id(text: &str, known: bool) -> Verdict {
    let refused = |why: &str| {
        Verdict::Refuses(format!("the SPIRE server refuses its entry: its SPIFFE ID {text} {why}"))
    };
    let reserved = "is in SPIRE's reserved /spire namespace";
    if known {
        return match spiffe_id::parse(text) {
            Ok((_, "")) => refused("has no path"),
            Ok((_, path)) if path == "/spire" || path.starts_with("/spire/") => refused(reserved),
            _ => Verdict::Takes,
        };
    }
    let path = text.strip_prefix(spiffe_id::SCHEME).and_then(|rest| rest.find('/').map(|at| &rest[at..]));
    match path {
        Some(path) if path.split("{{").next().is_some_and(|known| known.starts_with("/spire/")) => {
            refused(reserved)
        }
        _ => Verdict::Takes,
    }
}

/// What the server does with an entry of these known DNS names, lifetimes (each with the
/// field that asks for it) and `federatesWith` trust domains, the server's own being `own`.
pub fn of_entry<'a>(
    dns_names: impl Iterator<Item = &'a str>,
    ttls: [(&str, Option<&str>); 2],
    federates_with: &[String],
    own: Option<&str>,
) -> Verdict {
    let mut verdict = Verdict::Takes;
    for name in dns_names {
        verdict = verdict.and(of_dns_name(name, &[]));
    }
    for (field, written) in ttls {
        let Some(written) = written else { continue };
        if Lifetime::of(Some(written)) == Lifetime::NotADuration {
            // The field is a metav1.Duration: the manager's webhook cannot decode the object
            // and refuses it (controller-runtime `validator_custom.go`, `Handle`: a decode
            // error is a denial), so no entry is made of it.
            verdict = verdict.and(Verdict::Refuses(format!(
                "its {field} {written:?} is no Go duration: the manager's webhook cannot decode the object and \
                 refuses it"
            )));
            continue;
        }
        if let Lifetime::Refused(sent) = Lifetime::of(Some(written)) {
            let wrapped = match whole_seconds(written) {
                Some(whole) if whole != i64::from(sent) => {
                    format!(" ({whole} whole seconds, which the manager's int32 conversion wraps)")
                }
                _ => String::new(),
            };
            verdict = verdict.and(Verdict::Refuses(format!(
                "the SPIRE server refuses its entry: {field} {written:?} reaches it as {sent} seconds{wrapped}, \
                 and it refuses a lifetime below 0"
            )));
        }
    }
    if federates_with.iter().any(|td| Some(td.as_str()) != own) {
        verdict = verdict.and(Verdict::MayRefuse(Unsure::FederatedBundles));
    }
    verdict
}

/// What the server does with an entry for one DNS name rendered for its pods, `text` with
/// the actions in `unknown` kept as written. A name with actions only the cluster settles is judged when they may read the pod template (an
/// annotation, the hostname, the node): such text may be any, so the server may refuse it.
/// Actions that read what the cluster itself writes as names (the pod's generated name or
/// UID, a label a controller sets) or the manager's own settings (`.ClusterDomain`,
/// `.ClusterName`) are taken to give a name it takes.
pub fn of_dns_name(text: &str, unknown: &[String]) -> Verdict {
    if !unknown.is_empty() {
        let by_cluster = |action: &String| {
            let inner = action.trim_start_matches("{{").trim_end_matches("}}");
            let inner = inner.trim_start_matches('-').trim_end_matches('-').trim();
            super::source::cluster_only(action) || matches!(inner, ".ClusterDomain" | ".ClusterName")
        };
        return if unknown.iter().all(by_cluster) {
            Verdict::Takes
        } else {
            Verdict::MayRefuse(Unsure::DnsNames)
        };
    }
    match dns::judge(text) {
        dns::Answer::Taken => Verdict::Takes,
        dns::Answer::Refused(why) => Verdict::Refuses(format!(
            "the SPIRE server refuses its entry: its DNS name {text:?} is one it does not take ({why})"
        )),
        dns::Answer::Varies(_) => Verdict::MayRefuse(Unsure::DnsNames),
    }
}

#[cfg(test)]
mod tests {
    use super::{Unsure, Verdict, of_dns_name, of_object};
    use crate::reconcile::spire::source::Source;

    fn object(ttls: [Option<&str>; 2], federates_with: &[&str], static_entry: bool) -> Source {
        Source {
            federates_with: federates_with.iter().map(|td| td.to_string()).collect(),
            static_parent: static_entry.then(|| "spiffe://example.org/spire/agent/x".to_string()),
            ttls: ttls.map(|t| t.map(str::to_string)),
            selector_templates: if static_entry { vec!["k8s:ns:shop".into()] } else { Vec::new() },
            ..Source::bare("o")
        }
    }

    fn verdict(source: &Source) -> Verdict {
        of_object(source, std::iter::empty(), Some("example.org"))
    }

    #[test]
    fn a_lifetime_received_below_zero_is_refused() {
        for (ttls, field, sent) in [
            ([Some("-1h"), None], "ttl", "-3600"),
            ([None, Some("-5m")], "jwtTtl", "-300"),
            ([Some("2147483648s"), None], "ttl", "-2147483648 seconds (2147483648 whole seconds"),
        ] {
            let Verdict::Refuses(why) = verdict(&object(ttls, &[], false)) else { panic!("{ttls:?}") };
            assert!(why.contains(field) && why.contains(sent), "{why}");
        }
        // Only a cast that wraps is told as one.
        let Verdict::Refuses(why) = verdict(&object([Some("-1h"), None], &[], false)) else { panic!() };
        assert!(!why.contains("wraps"), "{why}");
        let Verdict::Refuses(why) = verdict(&object([Some("2147483648s"), None], &[], false)) else {
            panic!()
        };
        assert!(why.contains("wraps"), "{why}");
        let Verdict::Refuses(why) = verdict(&object([None, Some("-1s")], &[], true)) else { panic!() };
        assert!(why.contains("jwtSVIDTTL"), "a static entry's field: {why}");
        // Under a second rounds to 0, the server's default; a wrap to a positive count is taken.
        for ttls in [[Some("-999ms"), None], [Some("4294967356s"), Some("1h")]] {
            assert_eq!(verdict(&object(ttls, &[], false)), Verdict::Takes, "{ttls:?}");
        }
        // Text that is no Go duration fails the manager's decoding: the object is refused.
        for ttls in [[Some("forever"), None], [None, Some("1 hour")], [Some("3600"), None]] {
            let Verdict::Refuses(why) = verdict(&object(ttls, &[], false)) else { panic!("{ttls:?}") };
            assert!(why.contains("is no Go duration"), "{why}");
        }
    }

    #[test]
    fn a_static_entry_without_selectors_or_storing_its_svid_under_mixed_types_is_refused_and_a_long_hint_may_be()
     {
        let mut edge = object([None, None], &[], true);
        edge.selector_templates.clear();
        assert!(matches!(verdict(&edge), Verdict::Refuses(w) if w.contains("no selectors")));
        edge.selector_templates = vec!["k8s:ns:shop".into(), "unix:uid:0".into()];
        assert_eq!(verdict(&edge), Verdict::Takes);
        edge.store_svid = true;
        assert!(matches!(verdict(&edge), Verdict::Refuses(w) if w.contains("more than one type")));
        edge.selector_templates = vec!["k8s:ns:shop".into(), "k8s:sa:web".into()];
        assert_eq!(verdict(&edge), Verdict::Takes);
        // A pod's entry always holds the manager's selectors.
        let mut pod = object([None, None], &[], false);
        assert_eq!(verdict(&pod), Verdict::Takes);
        pod.hint = "h".repeat(255);
        assert_eq!(verdict(&pod), Verdict::Takes);
        for hint in ["h".repeat(256), "h\u{1F600}".to_string(), "\u{e9}".repeat(513)] {
            pod.hint = hint;
            assert_eq!(verdict(&pod), Verdict::MayRefuse(Unsure::Hint), "{}", pod.hint);
        }
        pod.hint = "\u{e9}".repeat(255);
        assert_eq!(verdict(&pod), Verdict::Takes, "255 characters of two bytes");
        // A sure refusal wins over the hint's may.
        edge.hint = "h".repeat(1025);
        edge.selector_templates.clear();
        assert!(matches!(verdict(&edge), Verdict::Refuses(_)));
    }

    #[test]
    fn federating_with_another_trust_domain_may_be_refused() {
        assert_eq!(
            verdict(&object([None, None], &["partner.org"], false)),
            Verdict::MayRefuse(Unsure::FederatedBundles)
        );
        assert_eq!(verdict(&object([None, None], &["example.org"], false)), Verdict::Takes, "its own bundle");
        // A sure refusal wins.
        assert!(matches!(
            verdict(&object([Some("-1h"), None], &["partner.org"], false)),
            Verdict::Refuses(_)
        ));
    }

    #[test]
    fn an_id_without_a_path_or_in_spires_reserved_namespace_is_refused() {
        use super::of_spiffe_id;
        for id in ["spiffe://example.org", "spiffe://example.org/spire", "spiffe://example.org/spire/agent/x"]
        {
            assert!(matches!(of_spiffe_id(id, true), Verdict::Refuses(_)), "{id}");
        }
        for id in ["spiffe://example.org/spirex", "spiffe://example.org/ns/spire", "spiffe://example.org/a"] {
            assert_eq!(of_spiffe_id(id, true), Verdict::Takes, "{id}");
        }
        let node = "{{ .NodeMeta.Name }}";
        assert!(matches!(
            of_spiffe_id(&format!("spiffe://example.org/spire/{node}"), false),
            Verdict::Refuses(_)
        ));
        assert_eq!(of_spiffe_id(&format!("spiffe://example.org/spire{node}"), false), Verdict::Takes);
        assert_eq!(of_spiffe_id(&format!("spiffe://example.org/{node}"), false), Verdict::Takes);
        // A static entry's parent: of the trust domain, with a path.
        let mut edge = object([None, None], &[], true);
        assert_eq!(verdict(&edge), Verdict::Takes);
        for parent in ["spiffe://other.org/spire/agent/x", "spiffe://example.org"] {
            edge.static_parent = Some(parent.into());
            assert!(matches!(verdict(&edge), Verdict::Refuses(w) if w.contains("parentID")), "{parent}");
        }
    }

    #[test]
    fn a_dns_name_is_judged_when_known_or_when_it_reads_the_template() {
        assert_eq!(of_dns_name("web.serving.svc", &[]), Verdict::Takes);
        assert!(matches!(of_dns_name("web..svc", &[]), Verdict::Refuses(_)));
        assert_eq!(of_dns_name("ops_admin.serving.svc", &[]), Verdict::MayRefuse(Unsure::DnsNames));
        let unknown = |action: &str| of_dns_name(&format!("{action}.svc"), &[action.to_string()]);
        assert_eq!(unknown("{{ .PodMeta.Name }}"), Verdict::Takes);
        assert_eq!(unknown("{{- .ClusterDomain }}"), Verdict::Takes);
        assert_eq!(
            unknown(r#"{{ index .PodMeta.Annotations "dns" }}"#),
            Verdict::MayRefuse(Unsure::DnsNames)
        );
    }
}
