//! What the SPIRE server does with the entries the manager sends, one rule per test: it
//! refuses a lifetime received below 0 and a DNS name it does not take, and stores an entry
//! that federates only when it holds the bundles (spiffe/spire `pkg/server/api/entry.go`,
//! `ProtoToRegistrationEntryWithMask`; `pkg/server/datastore/sqlstore/sqlstore.go`,
//! `validateRegistrationEntry`, `makeFederatesWith`). The manager declares the entry either
//! way, so no fallback steps in (reconciler.go, `addClusterSPIFFEIDEntriesState`).

use super::*;

/// A change to the object under test.
type Edit = fn(&mut Source);

/// The model of one object over the serving prefill pods, beside the Helm chart's fallback.
fn with_fallback(edit: impl FnOnce(&mut Source)) -> Model {
    let items = [prefill("serving")];
    let sources = vec![
        foreign_with(8, "admin", "spiffe://example.org/ops/admin", false, edit),
        foreign(9, "fallback", HELM_DEFAULT, true),
    ];
    simulate(sources, &seen(&items, &[]), &SpireManager::default(), Some(TD))
}

#[test]
fn an_entry_the_server_refuses_gives_nothing_and_still_skips_the_fallback() {
    let refusals: [(Edit, &str); 5] = [
        (|s| s.ttls[0] = Some("-1h".into()), r#"ttl "-1h" reaches it as -3600 seconds"#),
        (|s| s.ttls[1] = Some("2147483648s".into()), "jwtTtl \"2147483648s\" reaches it as -2147483648"),
        (|s| s.dns_name_templates = vec!["web..svc".into()], r#"DNS name "web..svc""#),
        (
            |s| s.dns_name_templates = vec!["{{ .PodMeta.Namespace }}-.svc".into()],
            r#"DNS name "serving-.svc""#,
        ),
        // The first refusal, in the server's order: DNS names before lifetimes.
        (
            |s| {
                s.ttls[0] = Some("-1s".into());
                s.dns_name_templates = vec!["-web.svc".into()];
            },
            "DNS name",
        ),
    ];
    for (edit, why) in refusals.into_iter().chain([
        (
            (|s| s.spiffe_id_template = "spiffe://example.org/spire/agent/x".into()) as Edit,
            "is in SPIRE's reserved /spire namespace",
        ),
        (|s| s.spiffe_id_template = "spiffe://{{ .TrustDomain }}".into(), "has no path"),
    ]) {
        let model = with_fallback(edit);
        let held = &model.held[0];
        assert!(svids(&model, 0).is_empty(), "{why}: {:?}", svids(&model, 0));
        assert!(held.entries.is_empty(), "{why}");
        assert_eq!(names(&model, held.failed.iter().map(|f| f.source)), ["admin"], "{why}");
        assert!(
            held.failed[0].why.starts_with("the SPIRE server refuses its entry"),
            "{}",
            held.failed[0].why
        );
        assert!(held.failed[0].why.contains(why), "{why}: {}", held.failed[0].why);
        assert_eq!(names(&model, held.skipped.iter().map(|k| k.source)), ["fallback"], "{why}");
    }
    // A static entry's lifetimes, by their own names.
    let mut entry = static_entry(9, "edge", "spiffe://example.org/edge", &["k8s:sa:llama"]);
    entry.ttls[0] = Some("-10m".into());
    let model = simulate(vec![entry], &seen(&[prefill("serving")], &[]), &SpireManager::default(), Some(TD));
    assert!(model.held[0].failed[0].why.contains(r#"x509SVIDTTL "-10m""#), "{:?}", model.held[0].failed);
}

#[test]
fn an_entry_the_server_takes_is_made_as_before() {
    let takes: [Edit; 4] = [
        |s| s.ttls = [Some("4294967356s".into()), Some("-999ms".into())],
        |s| s.dns_name_templates = vec!["{{ .PodMeta.Namespace }}.svc".into(), "web.serving.svc".into()],
        |s| s.dns_name_templates = vec!["{{ .PodMeta.Name }}.{{ .ClusterDomain }}".into()],
        |s| s.federates_with = vec![TD.into()],
    ];
    for edit in takes {
        let model = with_fallback(edit);
        assert_eq!(svids(&model, 0), ["spiffe://example.org/ops/admin"], "{:?}", model.held[0].failed);
    }
}

#[test]
fn an_entry_the_server_may_refuse_may_be_held_and_still_skips_the_fallback() {
    let may: [(Edit, Unsure); 4] = [
        (|s| s.federates_with = vec!["partner.org".into()], Unsure::FederatedBundles),
        (|s| s.dns_name_templates = vec!["ops_admin.serving.svc".into()], Unsure::DnsNames),
        // A wildcard: SPIRE before v1.9.0 took none.
        (|s| s.dns_name_templates = vec!["*.serving.svc".into()], Unsure::DnsNames),
        (
            |s| s.dns_name_templates = vec![r#"{{ index .PodMeta.Annotations "dns" }}.svc"#.into()],
            Unsure::DnsNames,
        ),
    ];
    for (edit, why) in may {
        let model = with_fallback(edit);
        let held = &model.held[0];
        assert!(svids(&model, 0).is_empty(), "{why:?}");
        assert_eq!(held.entries.len(), 1, "{why:?}");
        let entry = &held.entries[0];
        assert_eq!((entry.selected, entry.unsure, entry.attests), (Answer::Unknown, Some(why), Answer::Yes));
        assert_eq!(names(&model, held.skipped.iter().map(|k| k.source)), ["fallback"], "{why:?}");
        assert!(held.failed.is_empty(), "{why:?}");
    }
}
