//! The findings read off the simulated manager (docs/reference.md#what-spire-will-do):
//! `FallbackShadowed`, `EntriesWithoutIdentity`, `IgnoredBySpire` and
//! `WorkloadMatchesSeveralIdentities`. Results only: they never change an output.

use super::{Answer, Held, Model, Origin, Source};
use crate::api::cluster_spiffe_id as csid;
use crate::config::SelectorScope;
use crate::reconcile::coverage::Seen;
use crate::reconcile::findings::{Finding, Kind, Level, Ref};
use std::collections::BTreeMap;

/// What the findings need beside the model.
pub struct Context<'a> {
    pub seen: &'a Seen<'a>,
    pub scope: SelectorScope,
    pub binding_refs: &'a dyn Fn(usize) -> Ref,
}

/// Every finding of the model.
pub fn findings(model: &Model, cx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    class_findings(model, cx, &mut out);
    let mut without: BTreeMap<usize, Vec<&Held>> = BTreeMap::new();
    for held in &model.held {
        for e in held.without_identity() {
            if matches!(model.sources[e.source].origin, Origin::Rendered { .. }) {
                without.entry(e.source).or_default().push(held);
            }
        }
        shadowed(model, held, cx, &mut out);
        several(model, held, cx, &mut out);
    }
    let hint = match cx.scope {
        SelectorScope::Pool => {
            "; selectorScope: Binding makes the object select only its binding's namespace and variant"
        }
        SelectorScope::Binding => "",
    };
    for (s, held) in without {
        let source = &model.sources[s];
        let named: Vec<String> = held.iter().map(|h| template_ref(cx.seen, h).describe()).collect();
        out.push(Finding {
            kind: Kind::EntriesWithoutIdentity,
            level: Level::Info,
            message: format!(
                "ClusterSPIFFEID {}{} selects {} pod {} whose entries never attest (the SPIRE server stores \
                 them and agents sync them for nothing): {}{hint}",
                source.name,
                of_binding(source, cx),
                named.len(),
                if named.len() == 1 { "template" } else { "templates" },
                listed(&named, 3)
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
    out
}

/// `IgnoredBySpire`: a rendered object the configured manager does not read; or, with no
/// manager configured and no className, one note that a manager with a class ignores them.
fn class_findings(model: &Model, cx: &Context<'_>, out: &mut Vec<Finding>) {
    let rendered =
        || model.sources.iter().enumerate().filter(|(_, s)| matches!(s.origin, Origin::Rendered { .. }));
    let manager = &model.manager;
    let patterns: Vec<regex::Regex> =
        manager.ignore_namespaces.iter().filter_map(|p| regex::Regex::new(p).ok()).collect();
    for (_, source) in rendered() {
        let Origin::Rendered { binding } = source.origin else { continue };
        let namespace = (cx.binding_refs)(binding).namespace.unwrap_or_default();
        let Some(pattern) = patterns.iter().find(|p| p.is_match(&namespace)) else { continue };
        out.push(Finding {
            kind: Kind::IgnoredBySpire,
            level: Level::Warning,
            message: format!(
                "ClusterSPIFFEID {}{} is for pods of namespace {namespace}, which SPIRE Controller Manager ignores \
                 (its ignoreNamespaces pattern {:?} matches the name): no pod there gets an entry from any \
                 ClusterSPIFFEID; run the workloads in another namespace, or remove the pattern from the manager's \
                 ignoreNamespaces (and from spireControllerManager.ignoreNamespaces)",
                source.name,
                of_binding(source, cx),
                pattern.as_str()
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
    if !manager.configured {
        let classless: Vec<&Source> =
            rendered().map(|(_, s)| s).filter(|s| s.class_name.is_empty()).collect();
        if let Some(first) = classless.first() {
            out.push(Finding {
                kind: Kind::IgnoredBySpire,
                level: Level::Info,
                // No count in the words: `diff` compares findings by them, and a binding added
                // elsewhere does not make this note new.
                message: "the rendered ClusterSPIFFEIDs have no className: a SPIRE Controller Manager with a \
                          class (the SPIRE Helm chart gives it <release namespace>-<release name>) ignores them \
                          unless it sets watchClassless; set className to that class, and spireControllerManager \
                          (className, watchClassless, ignoreNamespaces) to check the outputs against the manager"
                    .to_string(),
                about: source_ref(first, cx),
                also: Vec::new(),
            });
        }
        return;
    }
    let own = manager.class_name.as_deref().unwrap_or_default();
    for (s, source) in rendered() {
        if !model.ignored[s] {
            continue;
        }
        let reads = match (own.is_empty(), manager.watch_classless) {
            (true, true) => "only ClusterSPIFFEIDs without a class".to_string(),
            (true, false) => {
                "no ClusterSPIFFEID at all (it has no className and does not watchClassless)".to_string()
            }
            (false, true) => format!("className {own:?} and ClusterSPIFFEIDs without a class"),
            (false, false) => format!("className {own:?} only"),
        };
        let has = if source.class_name.is_empty() {
            "no className".to_string()
        } else {
            format!("className {:?}", source.class_name)
        };
        out.push(Finding {
            kind: Kind::IgnoredBySpire,
            level: Level::Warning,
            message: format!(
                "ClusterSPIFFEID {}{} has {has}, and the SPIRE Controller Manager configured reads {reads}: it makes \
                 no entry from it and its pods get no SVID from it; set className to the manager's class",
                source.name,
                of_binding(source, cx)
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
}

/// `FallbackShadowed`: the pods get no SVID because a rendered object's entry, which never
/// attests, makes the manager skip a fallback that would give them one.
fn shadowed(model: &Model, held: &Held, cx: &Context<'_>, out: &mut Vec<Finding>) {
    if held.svids().next().is_some() {
        return;
    }
    let Some(fallback) = held.skipped.iter().find(|k| k.would_attest == Answer::Yes) else { return };
    let Some(culprit) =
        held.without_identity().find(|e| matches!(model.sources[e.source].origin, Origin::Rendered { .. }))
    else {
        return;
    };
    let source = &model.sources[culprit.source];
    let fallback_source = &model.sources[fallback.source];
    let fix = match cx.scope {
        SelectorScope::Pool => {
            "set selectorScope: Binding, so the rendered object selects only its binding's namespace and variant, \
             or make the selectors that miss hold for these pods"
        }
        SelectorScope::Binding => "make the selectors that miss hold for these pods",
    };
    let about = template_ref(cx.seen, held);
    out.push(Finding {
        kind: Kind::FallbackShadowed,
        level: Level::Warning,
        message: format!(
            "{} gets no SVID: ClusterSPIFFEID {}{} selects its pods but its entry never attests for them ({} \
             {} not hold), and that entry makes SPIRE skip fallback ClusterSPIFFEID {}, which would give them {}; {fix}",
            about.describe(),
            source.name,
            of_binding(source, cx),
            culprit.misses.join(", "),
            if culprit.misses.len() == 1 { "does" } else { "do" },
            fallback_source.name,
            fallback.spiffe_id.text
        ),
        about,
        also: vec![source_ref(source, cx), source_ref(fallback_source, cx)],
    });
}

/// `WorkloadMatchesSeveralIdentities`: pods a rendered object gives its SVID to that also
/// get (or may get) another object's.
fn several(model: &Model, held: &Held, cx: &Context<'_>, out: &mut Vec<Finding>) {
    let giving: Vec<_> = held.entries.iter().filter(|e| e.attests != Answer::No).collect();
    let Some(mine) = giving.iter().find(|e| {
        e.attests == Answer::Yes && matches!(model.sources[e.source].origin, Origin::Rendered { .. })
    }) else {
        return;
    };
    if giving.len() < 2 {
        return;
    }
    // Two SVIDs for sure are a warning; one that hangs on what the input does not say, a note.
    let sure = giving.iter().filter(|e| e.attests == Answer::Yes && e.selected == Answer::Yes).count() >= 2;
    let ids: Vec<String> = giving
        .iter()
        .map(|e| {
            let source = &model.sources[e.source];
            let mut text = format!("{} (ClusterSPIFFEID {}", e.spiffe_id.text, source.name);
            if e.selected == Answer::Unknown {
                text.push_str(", if the namespace carries the labels its namespaceSelector asks for");
            }
            if e.attests == Answer::Unknown {
                text.push_str(&format!(", if {} hold", e.misses.join(", ")));
            }
            text.push(')');
            text
        })
        .collect();
    let others: Vec<&str> = giving
        .iter()
        .filter(|e| e.source != mine.source)
        .map(|e| model.sources[e.source].name.as_str())
        .collect();
    let about = template_ref(cx.seen, held);
    out.push(Finding {
        kind: Kind::WorkloadMatchesSeveralIdentities,
        level: if sure { Level::Warning } else { Level::Info },
        message: format!(
            "{} would hold {} SVIDs: {}; narrow the podSelector or namespaceSelector of {}, or set {} \
             spec.fallback: true",
            about.describe(),
            giving.len(),
            ids.join(", "),
            others.join(", "),
            if others.len() == 1 { "its" } else { "their" }
        ),
        about,
        also: giving.iter().map(|e| source_ref(&model.sources[e.source], cx)).collect(),
    });
}

/// What the model adds to a binding's `NoMatchingWorkload`: the pod templates its object
/// selects without an SVID, and the SPIFFE IDs their pods hold instead; `None` when it
/// selects none.
pub fn selected_instead(model: &Model, binding: usize, seen: &Seen<'_>) -> Option<String> {
    let source = model.rendered(binding)?;
    let held: Vec<String> = model
        .held
        .iter()
        .filter(|h| h.entries.iter().any(|e| e.source == source && e.attests == Answer::No))
        .map(|h| {
            let ids: Vec<&str> = h.svids().map(|e| e.spiffe_id.text.as_str()).collect();
            let holds = if ids.is_empty() { "no SVID".to_string() } else { ids.join(", ") };
            format!("{} (its pods hold {holds})", template_ref(seen, h).describe())
        })
        .collect();
    if held.is_empty() {
        return None;
    }
    Some(format!(
        "SPIRE still makes entries for the {} pod {} its ClusterSPIFFEID selects, which never attest: {}",
        held.len(),
        if held.len() == 1 { "template" } else { "templates" },
        listed(&held, 3)
    ))
}

/// ` (binding ns/name)` for a rendered object.
fn of_binding(source: &Source, cx: &Context<'_>) -> String {
    match source.origin {
        Origin::Rendered { binding } => {
            let r = (cx.binding_refs)(binding);
            format!(" (binding {}/{})", r.namespace.unwrap_or_default(), r.name)
        }
        Origin::Input { .. } => String::new(),
    }
}

/// The item a finding about an object is about: its binding, or the object of the input.
fn source_ref(source: &Source, cx: &Context<'_>) -> Ref {
    match source.origin {
        Origin::Rendered { binding } => (cx.binding_refs)(binding),
        Origin::Input { item } => Ref {
            item,
            api_version: csid::API_VERSION.to_string(),
            kind: csid::KIND.to_string(),
            namespace: None,
            name: source.name.clone(),
            path: None,
        },
    }
}

/// The reference of a held pod template.
pub fn template_ref(seen: &Seen<'_>, held: &Held) -> Ref {
    // The workloads are in input order.
    let at = seen.workloads.binary_search_by_key(&held.item, |(item, _)| *item);
    let workload = &seen.workloads[at.expect("a held template is of a workload of the input")].1;
    Ref {
        item: held.item,
        api_version: workload.api_version().to_string(),
        kind: workload.kind().to_string(),
        namespace: workload.namespace().map(str::to_string),
        name: workload.name().to_string(),
        path: workload.templates().get(held.template).map(|t| t.path().to_string()),
    }
}

/// The first `most` names and how many more.
fn listed(names: &[String], most: usize) -> String {
    let shown = names.iter().take(most).cloned().collect::<Vec<_>>().join(", ");
    match names.len().saturating_sub(most) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}
