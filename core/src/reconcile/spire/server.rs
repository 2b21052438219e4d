//! What the SPIRE server does with an entry SPIRE Controller Manager sends it: stores it, or
//! refuses it. The manager declares the entry all the same (it marks the pod in
//! `podsWithNonFallbackApplied`, reconciler.go, so no fallback steps in) and logs the failure
//! (`createEntries`); the pods hold nothing from it. Read in spiffe/spire, whose checks run
//! in this order:
//!
//! - the entry API converts it (`pkg/server/api/entry.go`, `ProtoToRegistrationEntryWithMask`):
//!   every DNS name must be one the server takes ([`super::dns`]);
//! - the datastore checks it (`pkg/server/datastore/sqlstore/sqlstore.go`,
//!   `validateRegistrationEntry`): an X.509 or JWT lifetime received below 0 is refused
//!   ([`super::lifetime`]);
//! - and stores it in one transaction with its federations (`createRegistrationEntry`,
//!   `makeFederatesWith`): a `federatesWith` trust domain whose bundle the server does not hold
//!   fails it ("unable to find federated bundle"). The server holds its own trust domain's
//!   bundle; another's only once a federation relationship or its configuration brought it,
//!   which only the cluster knows.

use super::Unsure;
use super::dns;
use super::lifetime::{Lifetime, whole_seconds};
use super::source::Source;

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

/// What the object settles for every entry it makes: its DNS names without actions, its
/// lifetimes, and its `federatesWith` (of a trust domain other than `own`, when given).
pub fn of_object<'a>(
    source: &Source,
    constant_dns_names: impl Iterator<Item = &'a str>,
    own: Option<&str>,
) -> Verdict {
    let fields =
        if source.static_parent.is_some() { ["x509SVIDTTL", "jwtSVIDTTL"] } else { ["ttl", "jwtTtl"] };
    let ttls = [(fields[0], source.ttls[0].as_deref()), (fields[1], source.ttls[1].as_deref())];
    of_entry(constant_dns_names, ttls, &source.federates_with, own)
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
    use crate::reconcile::spire::source::{Origin, Source};

    fn object(ttls: [Option<&str>; 2], federates_with: &[&str], static_entry: bool) -> Source {
        Source {
            name: "o".into(),
            origin: Origin::Input { item: 0 },
            class_name: String::new(),
            labels: Default::default(),
            fallback: false,
            pods: None,
            namespaces: None,
            spiffe_id_template: "spiffe://example.org/o".into(),
            selector_templates: Vec::new(),
            dns_name_templates: Vec::new(),
            federates_with: federates_with.iter().map(|td| td.to_string()).collect(),
            admin: false,
            downstream: false,
            static_parent: static_entry.then(|| "spiffe://example.org/spire/agent/x".to_string()),
            ttls: ttls.map(|t| t.map(str::to_string)),
            narrow: None,
            auto_dns: false,
            store_svid: false,
            committed: false,
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
        let Verdict::Refuses(why) = verdict(&object([None, Some("-1s")], &[], true)) else { panic!() };
        assert!(why.contains("jwtSVIDTTL"), "a static entry's field: {why}");
        // Under a second rounds to 0, the server's default; a wrap to a positive count is taken.
        for ttls in [[Some("-999ms"), None], [Some("4294967356s"), Some("1h")], [Some("forever"), None]] {
            assert_eq!(verdict(&object(ttls, &[], false)), Verdict::Takes, "{ttls:?}");
        }
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
