//! `explain -o text`: the report aligned for a terminal, long values wrapped, the findings
//! under their names in the order of the findings table.

use super::report::{MadeIf, MayHold, Report, WorkloadRef};
use crate::io::wording;

/// The report as text, aligned for a terminal.
pub(super) fn text(report: &Report) -> String {
    let mut out =
        format!("Config: {}\n", report.config.as_deref().unwrap_or("none (flags and variables only)"));
    let ready = report.bindings.iter().filter(|b| b.ready).count();
    let reaching = report.bindings.iter().filter(|b| !b.workloads.is_empty()).count();
    let stale = match report.stale() {
        0 => String::new(),
        n => format!("; {n} stale output(s) in the input (StaleOutput below)"),
    };
    out.push_str(&format!(
        "Bindings: {}, {ready} ready, {} failing, {reaching} reaching pod templates of the input{stale}\n",
        report.bindings.len(),
        report.bindings.len() - ready
    ));
    if let Some(g) = &report.admission_guard {
        out.push_str(&format!(
            "Admission guard: ValidatingAdmissionPolicy {}, action {}, parameters in namespace {}\n",
            g.name, g.action, g.param_namespace
        ));
    }
    for b in &report.bindings {
        let name = match &b.namespace {
            Some(ns) => format!("{ns}/{}", b.name),
            None => b.name.clone(),
        };
        let verdict = if b.ready { "Ready".to_string() } else { format!("not ready: {}", b.reason) };
        out.push_str(&format!("\n{name}  {verdict}\n"));
        if !b.ready {
            field(&mut out, "message", std::slice::from_ref(&b.message));
            let removes: Vec<String> = b
                .removes
                .iter()
                .map(|r| {
                    format!(
                        "ClusterSPIFFEID {} of the input: its pods lose SPIFFE ID {} on the next apply",
                        r.cluster_spiffe_id, r.spiffe_id
                    )
                })
                .collect();
            field(&mut out, "removes", &removes);
        }
        if let (Some(id), Some(output)) = (&b.spiffe_id, &b.cluster_spiffe_id) {
            field(&mut out, "SPIFFE ID", std::slice::from_ref(id));
            field(&mut out, "ClusterSPIFFEID", std::slice::from_ref(output));
            field(&mut out, "selectors", &b.selectors);
            let mut reaches: Vec<String> = b.workloads.iter().map(workload_line).collect();
            if reaches.is_empty() {
                reaches.push("no pod template of the input".to_string());
            }
            field(&mut out, "reaches", &reaches);
            let without: Vec<String> = b.selected_without_identity.iter().map(workload_line).collect();
            field(&mut out, "selects, no SVID", &without);
            if let Some(admits) = &b.guard_admits {
                let mut lines: Vec<String> = admits.iter().map(workload_line).collect();
                if lines.is_empty() {
                    lines.push("no object of the input: it denies every pod of this identity".to_string());
                }
                field(&mut out, "guard admits", &lines);
            }
        } else {
            field(&mut out, "reaches", &["nothing: it renders no identity".to_string()]);
        }
    }
    if !report.workloads.is_empty() {
        out.push_str(&format!(
            "\nPod templates: {}, as SPIRE will give their pods SVIDs\n",
            report.workloads.len()
        ));
    }
    for w in &report.workloads {
        out.push_str(&format!("\n{}\n", workload_line(&w.workload())));
        let svids = if w.text.svids.is_empty() { vec!["none".to_string()] } else { w.text.svids.clone() };
        field(&mut out, "SVIDs", &svids);
        let maybe: Vec<String> = w.may_hold.iter().map(may_hold_line).collect();
        field(&mut out, "may also hold", &maybe);
        let powers: Vec<String> = w.powers.iter().map(power_line).collect();
        field(&mut out, "powers", &powers);
        field(&mut out, "ignored", w.text.ignored.as_slice());
        field(&mut out, "no identity from", &w.entries_without_identity);
        field(&mut out, "fallback skipped", &w.fallbacks_skipped);
        let not_made: Vec<String> =
            w.entries_not_made.iter().map(|n| format!("{}: {}", n.cluster_spiffe_id, n.reason)).collect();
        field(&mut out, "no entry from", &not_made);
    }
    if !report.unjudged.is_empty() {
        out.push_str(&format!(
            "\nCannot judge: {}, items and files that could reach an identity (diff counts a change of one as a possible grant)\n",
            report.unjudged.len()
        ));
        for u in &report.unjudged {
            let place = match &u.at {
                Some(at) => format!(
                    " ({}:{})",
                    at.file.as_deref().map_or("<stdin>".into(), |f| f.display().to_string()),
                    at.line
                ),
                None => String::new(),
            };
            out.push_str(&format!("\n{}{place}\n", u.words()));
            field(&mut out, "why", std::slice::from_ref(&u.message));
        }
    }
    let failing = report.bindings.len() - ready;
    if report.findings.is_empty() {
        out.push_str(&match failing {
            0 => "\nFindings: none\n".to_string(),
            n => format!("\nFindings: none beyond the {n} failing binding(s) above\n"),
        });
        return out;
    }
    out.push_str(&format!("\nFindings: {}\n", report.findings.len()));
    // Under each name, in the order of the findings table.
    let mut reasons: Vec<_> = report.findings.iter().map(|f| (f.kind(), f.reason.as_str())).collect();
    reasons.sort();
    reasons.dedup();
    for (_, reason) in reasons {
        out.push_str(&format!("\n  {reason}\n"));
        for f in report.findings.iter().filter(|f| f.reason == reason) {
            let lines = wrap(&f.message, WIDTH - 13);
            for (i, line) in lines.iter().enumerate() {
                let severity = if i == 0 { wording::severity(f.severity.into()) } else { "" };
                out.push_str(&format!("    {severity:<8} {line}\n"));
            }
        }
    }
    out
}

/// The width text lines are wrapped to, for a terminal.
const WIDTH: usize = 100;

/// `  label            value` lines, the label column aligned, long values wrapped.
fn field<T: AsRef<str>>(out: &mut String, label: &str, values: &[T]) {
    let mut first = true;
    for value in values {
        for line in wrap(value.as_ref(), WIDTH - 19) {
            let label = if first { label } else { "" };
            first = false;
            out.push_str(&format!("  {label:<16} {line}\n"));
        }
    }
}

/// `text` cut into lines of at most `width` characters at spaces (a longer word stands
/// alone on its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            // A run of spaces that ends a line is not kept at its end.
            lines.push(std::mem::take(&mut line).trim_end().to_string());
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

fn workload_line(w: &WorkloadRef) -> String {
    let name = match &w.namespace {
        Some(ns) => format!("{ns}/{}", w.name),
        None => w.name.clone(),
    };
    match w.path.as_deref().filter(|p| !p.is_empty()) {
        // A role in place of a path, as KServe's derived templates have: `(decode)`.
        Some(role) if role.starts_with('(') => format!("{} {name} {role}", w.kind),
        Some(path) => format!("{} {name}  {path}", w.kind),
        None => format!("{} {name}", w.kind),
    }
}

/// A SPIFFE ID, with the parts known only in the cluster said as such.
pub(super) fn svid_words(id: &str, unknown: &[String]) -> String {
    if unknown.is_empty() {
        return id.to_string();
    }
    format!("{id} ({} known only in the cluster)", unknown.join(", "))
}

/// What an SVID's entries let the pods do: `<SPIFFE ID>: admin, federatesWith partner.org`.
fn power_line(p: &super::report::Power) -> String {
    let mut powers: Vec<String> = Vec::new();
    if p.admin {
        powers.push("admin".into());
    }
    if p.downstream {
        powers.push("downstream".into());
    }
    if p.store_svid {
        powers.push("storeSVID".into());
    }
    powers.extend(p.federates_with.iter().map(|t| format!("federatesWith {t}")));
    powers.extend(p.dns_names.iter().map(|n| format!("dnsName {n}")));
    powers.extend(p.ttl.iter().map(|t| format!("ttl {t}")));
    powers.extend(p.jwt_ttl.iter().map(|t| format!("jwtTtl {t}")));
    if powers.is_empty() {
        powers.push("none".into());
    }
    format!("{}: {} (ClusterSPIFFEID {})", p.spiffe_id, powers.join(", "), p.object)
}

/// An SVID the pods may hold, with its object and what it hangs on.
fn may_hold_line(m: &MayHold) -> String {
    let kind = if m.made_if == Some(MadeIf::ParentNode) {
        crate::api::cluster_spiffe_id::STATIC_ENTRY_KIND
    } else {
        crate::api::cluster_spiffe_id::KIND
    };
    let mut line = format!("{} ({kind} {}", svid_words(&m.spiffe_id, &m.unknown), m.cluster_spiffe_id);
    if let Some(made_if) = m.made_if {
        line.push_str(", ");
        line.push_str(crate::reconcile::spire::Unsure::from(made_if).condition());
    }
    if !m.attests_if.is_empty() {
        line.push_str(&format!(", if {} hold in the cluster", m.attests_if.join(", ")));
    }
    line.push(')');
    line
}
