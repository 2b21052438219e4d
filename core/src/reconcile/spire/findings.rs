//! The findings read off the simulated manager (docs/reference.md#what-spire-will-do):
//! `FallbackShadowed`, `EntriesWithoutIdentity`, `IgnoredBySpire` and
//! `WorkloadMatchesSeveralIdentities`. Results only: they never change an output.

pub use super::about::Context;
use super::about::{of_binding, source_ref, template_ref};
use super::{Answer, Held, Model, Origin, Source};
use crate::api::cluster_spiffe_id as csid;
use crate::config::SelectorScope;
use crate::reconcile::cluster::seen::Seen;
use crate::reconcile::findings::{Finding, Kind, Level, Ref};
use std::collections::HashMap;

/// Per object: how many pod templates it selects whose entries never attest, and the first
/// few of them (positions in [`Model::held`]).
pub struct Without {
    pub count: Vec<usize>,
    pub first: Vec<Vec<usize>>,
    /// Whether it gives any pod template its SVID for sure.
    pub gives: Vec<bool>,
}

/// How many templates the findings name before "and N more".
const NAMED: usize = 3;

/// From this many entries that never attest, `EntryVolume` is a note; below, each
/// identity's `EntriesWithoutIdentity` says all there is (docs/reference.md#findings).
pub const SOME_NEVER_ATTEST: u64 = 100;
/// Past this many, `EntryVolume` is a warning.
pub const MANY_NEVER_ATTEST: u64 = 10_000;

impl Without {
    /// One pass over every entry; a group's entries are counted once per namespace.
    pub fn of(model: &Model) -> Without {
        let n = model.sources.len();
        let mut out = Without { count: vec![0; n], first: vec![Vec::new(); n], gives: vec![false; n] };
        // By group: the held templates it lists, with their namespace, in order.
        let mut grouped: Vec<Vec<(usize, u32)>> = vec![Vec::new(); model.groups.len()];
        for (h, held) in model.held.iter().enumerate() {
            for e in held.svids() {
                out.gives[e.source] = true;
                for &s in &e.same_as {
                    out.gives[s] = true;
                }
            }
            for &s in &held.without {
                let s = s as usize;
                out.count[s] += 1;
                if out.first[s].len() < NAMED {
                    out.first[s].push(h);
                }
            }
            for &(g, ns) in &held.without_groups {
                grouped[g as usize].push((h, ns));
            }
        }
        for (group, listed) in model.groups.iter().zip(&grouped) {
            if listed.is_empty() {
                continue;
            }
            let mut in_namespace: HashMap<u32, usize> = HashMap::new();
            for &(_, ns) in listed {
                *in_namespace.entry(ns).or_insert(0) += 1;
            }
            // The first templates listed for a member: those of the other namespaces.
            let mut first_of: HashMap<u32, Vec<usize>> = HashMap::new();
            for (&s, &ns) in group.members.iter().zip(&group.namespaces) {
                let s = s as usize;
                out.count[s] += listed.len() - in_namespace.get(&ns).copied().unwrap_or(0);
                let first = first_of.entry(ns).or_insert_with(|| {
                    listed.iter().filter(|(_, n)| *n != ns).take(NAMED).map(|(h, _)| *h).collect()
                });
                // A member's own namespace lists it one by one: both lists are in order.
                let mut both: Vec<usize> = out.first[s].iter().chain(first.iter()).copied().collect();
                both.sort_unstable();
                both.truncate(NAMED);
                out.first[s] = both;
            }
        }
        out
    }
}

/// Every finding of the model.
pub fn findings(model: &Model, without: &Without, cx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    class_findings(model, cx, &mut out);
    super::unlabelled::findings(model, cx, &mut out);
    refused_findings(model, cx, &mut out);
    issued_outside(model, cx, &mut out);
    for held in &model.held {
        shadowed(model, held, cx, &mut out);
        several(model, held, cx, &mut out);
    }
    let hint = match cx.scope {
        SelectorScope::Pool => {
            "; selectorScope: Binding makes the object select only its binding's namespace and variant"
        }
        SelectorScope::Binding => "",
    };
    for (s, source) in model.sources.iter().enumerate() {
        let count = without.count[s];
        // An identity that reaches no pod says the same in its NoMatchingWorkload.
        if count == 0 || !without.gives[s] || !matches!(source.origin, Origin::Rendered { .. }) {
            continue;
        }
        let named: Vec<String> =
            without.first[s].iter().map(|&h| template_ref(cx.seen, &model.held[h]).describe()).collect();
        out.push(Finding {
            kind: Kind::EntriesWithoutIdentity,
            level: Level::Info,
            message: format!(
                "ClusterSPIFFEID {}{} selects {count} pod {} whose entries never attest (the SPIRE server stores \
                 them and agents sync them for nothing): {}{hint}",
                source.name,
                of_binding(source, cx),
                if count == 1 { "template" } else { "templates" },
                listed(&named, count)
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
    volume(model, without, cx, &mut out);
    out
}

/// `EntryVolume`: the run's entries, when many never attest, about the object with the
/// most of those; under `Pool`, with what `Binding` would make.
fn volume(model: &Model, without: &Without, cx: &Context<'_>, out: &mut Vec<Finding>) {
    let totals = model.totals;
    if totals.never < SOME_NEVER_ATTEST {
        return;
    }
    let Some(most) = (0..model.sources.len()).rev().max_by_key(|&s| without.count[s]) else { return };
    let fix = if totals.pool_only > 0 {
        format!(
            "; under selectorScope: Binding the rendered objects would make {}: set selectorScope: Binding, so that each \
             selects only its binding's namespace and variant",
            totals.made - totals.pool_only
        )
    } else {
        "; make the objects that select these pod templates select only the pods they attest for".to_string()
    };
    out.push(Finding {
        kind: Kind::EntryVolume,
        level: if totals.never > MANY_NEVER_ATTEST { Level::Warning } else { Level::Info },
        message: format!(
            "SPIRE Controller Manager makes {} entries for the pod templates of the input, {} of which never attest \
             (the SPIRE server stores them and every agent syncs them for nothing){fix}",
            totals.made, totals.never
        ),
        about: source_ref(&model.sources[most], cx),
        also: Vec::new(),
    });
}

/// `IgnoredBySpire` for an object of the output the manager reads but skips whole, because
/// its spec does not parse: it gives no pod an entry, and its admission webhook refuses it.
fn refused_findings(model: &Model, cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (source, why) in model.sources.iter().zip(&model.refused) {
        let Some(why) = why else { continue };
        out.push(Finding {
            kind: Kind::IgnoredBySpire,
            level: Level::Warning,
            message: format!(
                "{} {}{}: SPIRE Controller Manager skips it whole, because {why}: no pod gets an entry \
                 from it, and the manager's admission webhook refuses to store it; fix the spec",
                source.kind(),
                source.name,
                of_binding(source, cx)
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
}

/// `IssuedOutsideBinding`: a ClusterStaticEntry the manager reads that issues a binding's
/// SPIFFE ID, or any ID under its namespace's `spiffe://<td>/ns/<namespace>/` path. It reaches
/// every pod on its parent's node whose selectors hold, past the pool, variant and service
/// account the binding checks. Also a ClusterFederatedTrustDomain the manager reads whose trust
/// domain is a binding's: its bundle would vouch for SVIDs of the binding's SPIFFE IDs.
fn issued_outside(model: &Model, cx: &Context<'_>, out: &mut Vec<Finding>) {
    // Each rendered object: its SPIFFE ID, its binding, and its namespace's path.
    let bindings: Vec<(&str, Ref, String)> = model
        .sources
        .iter()
        .filter_map(|s| {
            let Origin::Rendered { binding } = s.origin else { return None };
            let owner = (cx.binding_refs)(binding);
            let td = s.spiffe_id_template.strip_prefix("spiffe://")?.split('/').next()?;
            let prefix = format!("spiffe://{td}/ns/{}/", owner.namespace.as_deref()?);
            Some((s.spiffe_id_template.as_str(), owner, prefix))
        })
        .collect();
    for (s, source) in model.sources.iter().enumerate() {
        let Some(parent) = &source.static_parent else { continue };
        if model.ignored[s] || model.refused[s].is_some() {
            continue;
        }
        let id = &source.spiffe_id_template;
        for (binding_id, owner, prefix) in &bindings {
            let namespace = owner.namespace.as_deref().unwrap_or_default();
            let whose = format!("binding {namespace}/{}", owner.name);
            let how = if id == binding_id {
                format!("issues the SPIFFE ID of {whose}")
            } else if id.starts_with(prefix.as_str()) {
                format!("issues {id}, in the path of namespace {namespace} of {whose}")
            } else {
                continue;
            };
            out.push(Finding {
                kind: Kind::IssuedOutsideBinding,
                level: Level::Warning,
                message: format!(
                    "ClusterStaticEntry {} {how}: SPIRE gives it to every pod on the node of {parent} whose \
                     selectors ({}) hold, whatever its pool, variant or service account; remove the static entry, \
                     or give it a SPIFFE ID outside the binding's namespace",
                    source.name,
                    source.selector_templates.join(", "),
                ),
                about: source_ref(source, cx),
                also: vec![owner.clone()],
            });
        }
    }
    // A federation with a binding's own trust domain: the foreign server's bundle would be
    // trusted for the binding's SPIFFE IDs.
    for (federation, read) in &model.federations {
        let Some((binding_id, owner, _)) = bindings.iter().find(|(id, ..)| {
            id.strip_prefix("spiffe://").and_then(|rest| rest.split('/').next())
                == Some(&federation.trust_domain)
        }) else {
            continue;
        };
        if !read {
            continue;
        }
        let namespace = owner.namespace.as_deref().unwrap_or_default();
        out.push(Finding {
            kind: Kind::IssuedOutsideBinding,
            level: Level::Warning,
            message: format!(
                "ClusterFederatedTrustDomain {} trusts the bundle at {} for trust domain {}, that of binding \
                 {namespace}/{} ({binding_id}): workloads given that bundle accept SVIDs its server signs as the \
                 binding's identity; remove it, or federate only with other trust domains",
                federation.name, federation.bundle_endpoint_url, federation.trust_domain, owner.name,
            ),
            about: Ref {
                item: federation.item,
                api_version: csid::API_VERSION.to_string(),
                kind: csid::FEDERATED_TRUST_DOMAIN_KIND.to_string(),
                namespace: None,
                name: federation.name.clone(),
                path: None,
            },
            also: vec![owner.clone()],
        });
    }
}

/// `IgnoredBySpire`: a rendered object the configured manager does not read; or, with no
/// manager configured and no className, one note that a manager with a class ignores them.
fn class_findings(model: &Model, cx: &Context<'_>, out: &mut Vec<Finding>) {
    let rendered =
        || model.sources.iter().enumerate().filter(|(_, s)| matches!(s.origin, Origin::Rendered { .. }));
    let manager = &model.manager;
    for (_, source) in rendered() {
        let Origin::Rendered { binding } = source.origin else { continue };
        let namespace = (cx.binding_refs)(binding).namespace.unwrap_or_default();
        let Some(pattern) = manager.ignore_namespaces.iter().find(|p| p.is_match(&namespace)) else {
            continue;
        };
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
                pattern.text
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
    let Some(own) = manager.class_name.as_deref() else {
        // The class rules unknown: a note, unless the manager is said to read classless objects.
        let classless: Vec<&Source> =
            rendered().map(|(_, s)| s).filter(|s| s.class_name.is_empty()).collect();
        if let (Some(first), false) = (classless.first(), manager.watch_classless) {
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
    };
    for (_, source) in rendered() {
        // The class rules alone: a label the object lacks is its own finding (unlabelled.rs).
        if super::reads(manager, &source.class_name) {
            continue;
        }
        let reads = match (own.is_empty(), manager.watch_classless) {
            // An empty class equals an empty className (reconciler.go:295).
            (true, _) => "only ClusterSPIFFEIDs without a class".to_string(),
            (false, true) => format!("className {own:?} and ClusterSPIFFEIDs without a class"),
            (false, false) => format!("className {own:?} only"),
        };
        // A manager without a class reads only objects without one: no className matches it.
        let fix = if own.is_empty() {
            "render it without className, as the manager has no class"
        } else {
            "set className to the manager's class"
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
                 no entry from it and its pods get no SVID from it; {fix}",
                source.name,
                of_binding(source, cx)
            ),
            about: source_ref(source, cx),
            also: Vec::new(),
        });
    }
}

/// `FallbackShadowed`: the pods get no SVID because a rendered object's entry, which never
/// attests, makes the manager skip a fallback that would give them one. When another entry
/// may still give them one, or the fallback is skipped only if an unsure entry is made, the
/// finding says "may" and is a note.
fn shadowed(model: &Model, held: &Held, cx: &Context<'_>, out: &mut Vec<Finding>) {
    if held.svids().next().is_some() {
        return;
    }
    let sure = held.skipped.iter().find(|k| k.would_attest == Answer::Yes).map(|k| (k.source, &k.spiffe_id));
    let maybe = || {
        held.entries
            .iter()
            .find(|e| e.unsure == Some(super::Unsure::FallbackSkipped) && e.attests == Answer::Yes)
            .map(|e| (e.source, &e.spiffe_id))
    };
    let Some((fallback, fallback_id)) = sure.or_else(maybe) else { return };
    let Some(culprit) =
        model.first_without(held, |s| matches!(model.sources[s].origin, Origin::Rendered { .. }))
    else {
        return;
    };
    let certain = sure.is_some() && held.entries.iter().all(|e| model.sources[e.source].committed);
    let source = &model.sources[culprit];
    let fallback_source = &model.sources[fallback];
    let fix = match cx.scope {
        SelectorScope::Pool => {
            "set selectorScope: Binding, so the rendered object selects only its binding's namespace and variant, \
             or make the selectors that miss hold for these pods"
        }
        SelectorScope::Binding => "make the selectors that miss hold for these pods",
    };
    let misses = model.misses(cx.seen, held, culprit);
    let about = template_ref(cx.seen, held);
    let (gets, skips) = if certain {
        ("gets no SVID", "makes SPIRE skip")
    } else {
        (
            "may get no SVID",
            "may make SPIRE skip (the other entries for its pods hang on what only the cluster knows)",
        )
    };
    out.push(Finding {
        kind: Kind::FallbackShadowed,
        level: if certain { Level::Warning } else { Level::Info },
        message: format!(
            "{} {gets}: ClusterSPIFFEID {}{} selects its pods but its entry never attests for them ({} \
             {} not hold), and that entry {skips} fallback ClusterSPIFFEID {}, which would give them {}; {fix}",
            about.describe(),
            source.name,
            of_binding(source, cx),
            misses.join(", "),
            if misses.len() == 1 { "does" } else { "do" },
            fallback_source.name,
            fallback_id.text
        ),
        about,
        also: vec![source_ref(source, cx), source_ref(fallback_source, cx)],
    });
}

/// `WorkloadMatchesSeveralIdentities`: pods a rendered object gives its SVID to that also
/// get (or may get) another object's.
fn several(model: &Model, held: &Held, cx: &Context<'_>, out: &mut Vec<Finding>) {
    // A static entry's SVID is said apart (`explain`'s may-hold list): no selector narrows it.
    // Nor an output as committed, which a render replaces: `StaleOutput` says what it does.
    let giving: Vec<_> = held
        .entries
        .iter()
        .filter(|e| model.sources[e.source].static_parent.is_none() && !model.sources[e.source].committed)
        .collect();
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
            if let Some(unsure) = e.unsure {
                text.push_str(", ");
                text.push_str(unsure.condition());
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

/// What the model adds to each binding's `NoMatchingWorkload`, by binding position: the pod
/// templates its object selects without an SVID, and the SPIFFE IDs those pods hold instead.
pub fn selected_instead(model: &Model, without: &Without, seen: &Seen<'_>) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    for (s, source) in model.sources.iter().enumerate() {
        let (Origin::Rendered { binding }, count @ 1..) = (source.origin, without.count[s]) else { continue };
        let held: Vec<String> = without.first[s]
            .iter()
            .map(|&h| {
                let h = &model.held[h];
                let ids: Vec<&str> = h.svids().map(|e| e.spiffe_id.text.as_str()).collect();
                let holds = if ids.is_empty() { "no SVID".to_string() } else { ids.join(", ") };
                format!("{} (its pods hold {holds})", template_ref(seen, h).describe())
            })
            .collect();
        out.insert(
            binding,
            format!(
                "SPIRE still makes entries for the {count} pod {} its ClusterSPIFFEID selects, which never attest: {}",
                if count == 1 { "template" } else { "templates" },
                listed(&held, count)
            ),
        );
    }
    out
}

/// The names shown of `count` in all, and how many more.
fn listed(shown: &[String], count: usize) -> String {
    match count.saturating_sub(shown.len()) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}
