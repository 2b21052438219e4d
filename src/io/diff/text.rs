//! `diff -o text`: the summary line, then the identity, workload and finding changes, for a
//! terminal.

use super::changes::Diff;
use super::words::{
    finding_line, hangs_on_line, identity_line, in_place_of, power_line, qualified, summary, unjudged_line,
    workload_name,
};

/// The diff as text for a terminal.
pub(super) fn text(diff: &Diff) -> String {
    let mut out = format!("{}\n", summary(diff));
    if let Some(m) = &diff.manager {
        out.push_str(&format!(
            "\nSPIRE Controller Manager\n  BASE  {}\n  HEAD  {}\n  HEAD is judged by BASE's manager and trust domain: change them in the cluster, then in BASE\n",
            m.before.words(),
            m.after.words()
        ));
    }
    if !diff.identities.is_empty() {
        out.push_str("\nIdentities\n");
        for c in &diff.identities {
            out.push_str(&format!(
                "  {:<8} {}  {}\n",
                c.change,
                qualified(&c.namespace, &c.name),
                identity_line(c)
            ));
        }
    }
    if !diff.spire_objects.is_empty() {
        out.push_str("\nSPIRE objects\n");
        for c in &diff.spire_objects {
            out.push_str(&format!("  {:<8} {} {}{}\n", c.change, c.kind, c.name, in_place_of(c)));
            for grant in &c.grants {
                out.push_str(&format!("    grants  {grant}\n"));
            }
        }
    }
    if let Some(g) = &diff.guard {
        out.push_str(&format!("\nAdmission guard\n  {}\n", g.change));
        for line in &g.weakens {
            out.push_str(&format!("    weakens  {line}\n"));
        }
        for line in &g.other {
            out.push_str(&format!("    also     {line}\n"));
        }
    }
    if !diff.workloads.is_empty() {
        out.push_str("\nWorkloads\n");
        for w in &diff.workloads {
            out.push_str(&format!("  {}\n", workload_name(w)));
            for id in &w.gains {
                out.push_str(&format!("    gains  {id}\n"));
            }
            for p in &w.gains_powers {
                out.push_str(&format!("    gains power  {}\n", power_line(p)));
            }
            for id in &w.loses {
                out.push_str(&format!("    loses  {id}\n"));
            }
            // What the cluster settles: `explain` HEAD (or BASE) says on what.
            for id in &w.may_gain {
                out.push_str(&format!("    may gain  {id}\n"));
            }
            for id in &w.may_lose {
                out.push_str(&format!("    may lose  {id}\n"));
            }
            for fact in &w.hangs_on {
                out.push_str(&format!("    because  {}\n", hangs_on_line(fact)));
            }
        }
    }
    if !diff.unjudged.is_empty() {
        // What the gate cannot judge counts as a grant: it may be one.
        out.push_str("\nMay gain: what the build cannot judge, new or changed\n");
        for u in &diff.unjudged {
            out.push_str(&format!("  {}\n", unjudged_line(u)));
        }
    }
    for (title, list) in
        [("New findings", &diff.findings.new), ("Resolved findings", &diff.findings.resolved)]
    {
        if !list.is_empty() {
            out.push_str(&format!("\n{title}\n"));
            for f in list {
                out.push_str(&format!("  {}\n", finding_line(f)));
            }
        }
    }
    out
}
