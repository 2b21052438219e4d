//! `diff -o markdown`: the diff as a pull request comment, tables under GitHub's comment
//! limit; when the rows do not all fit, what grants is kept first.

use super::changes::Diff;
use super::words::{
    count, hangs_on_line, identity_line, in_place_of, qualified, severity, summary, workload_name,
};

/// Most characters of the markdown: under GitHub's 65,536-character limit of a comment,
/// with room for what a workflow adds around it.
pub const MARKDOWN_LIMIT: usize = 60_000;

/// Text for markdown outside code spans, one line: what GitHub would read as markup
/// (emphasis, links, headings, code, a table's `|`) escaped with `\`, and `<`, `>`, `&` as
/// entities, since GitHub strips what it takes for HTML (`<release name>`).
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A code span holding `text` as it is, in a table cell: a fence longer than any run of
/// backticks inside, the `|` escaped (GitHub splits cells on it even in code).
fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A row of the markdown: the section it goes in, how much it matters (0 first: what
/// grants), and its text.
struct Row {
    section: usize,
    rank: u8,
    text: String,
}

/// The diff as a pull request comment: a summary line, then tables; at most `limit`
/// characters. When the rows do not all fit, those that grant come first, then the other
/// identity and workload changes, then the findings, and a last line says how many were
/// left out and where the whole diff is.
pub(super) fn markdown(diff: &Diff, limit: usize) -> String {
    let mut rows = Vec::new();
    for c in &diff.identities {
        let text = format!(
            "| {} | {} | {} |\n",
            c.change,
            code(&qualified(&c.namespace, &c.name)),
            md(&identity_line(c))
        );
        rows.push(Row { section: 0, rank: u8::from(!c.grants()), text });
    }
    for c in &diff.spire_objects {
        let over = in_place_of(c);
        let grants = match over.trim_start() {
            "" => c.grants.join("; "),
            over => format!("{over}: {}", c.grants.join("; ")),
        };
        let text =
            format!("| {} | {} | {} |\n", c.change, code(&format!("{} {}", c.kind, c.name)), md(&grants));
        rows.push(Row { section: 1, rank: u8::from(!c.grants()), text });
    }
    for w in &diff.workloads {
        // An ID that may be gained or lost stands in the same column, marked "may".
        let ids = |sure: &[String], may: &[String], powers: &[super::reach::PowerGain]| {
            let sure = sure.iter().map(|id| code(id));
            let may = may.iter().map(|id| format!("may {}", code(id)));
            let powers = powers
                .iter()
                .map(|p| format!("power over {}: {}", code(&p.spiffe_id), md(&p.gains.join(", "))));
            sure.chain(may).chain(powers).collect::<Vec<_>>().join("<br>")
        };
        let because = w.hangs_on.iter().map(|fact| format!("<br>because {}", md(&hangs_on_line(fact))));
        let text = format!(
            "| {} | {}{} | {} |\n",
            md(&workload_name(w)),
            ids(&w.gains, &w.may_gain, &w.gains_powers),
            because.collect::<String>(),
            ids(&w.loses, &w.may_lose, &[])
        );
        rows.push(Row { section: 2, rank: u8::from(!w.grants()), text });
    }
    for u in &diff.unjudged {
        let text = format!("| {} | {} |\n", code(&u.words()), md(&u.message));
        rows.push(Row { section: 3, rank: 0, text });
    }
    for f in &diff.findings.new {
        let text = format!("- **{}** {}: {}\n", severity(f), md(&f.reason), md(&f.message));
        rows.push(Row { section: 4, rank: 2, text });
    }
    const HEADS: [&str; 5] = [
        "\n| change | binding | identity |\n| --- | --- | --- |\n",
        "\n| change | SPIRE object | grants |\n| --- | --- | --- |\n",
        "\n| workload | gains | loses |\n| --- | --- | --- |\n",
        "\n| may gain: the build cannot judge | why |\n| --- | --- |\n",
        "\nNew findings:\n\n",
    ];
    let mut out = format!("**Identity changes:** {}\n", md(&summary(diff)));
    if let Some(m) = &diff.manager {
        out.push_str(&format!(
            "\nSPIRE Controller Manager, BASE: {}; HEAD: {}. HEAD is judged by BASE's manager and trust domain.\n",
            md(&m.before.words()),
            md(&m.after.words())
        ));
    }
    if let Some(g) = &diff.guard {
        let lines: Vec<String> = g
            .weakens
            .iter()
            .map(|l| format!("- weakens: {}\n", md(l)))
            .chain(g.other.iter().map(|l| format!("- {}\n", md(l))))
            .collect();
        out.push_str(&format!("\nAdmission guard {}:\n\n{}", g.change, lines.concat()));
    }
    // Room for the heads and the line that says what was left out.
    let room = limit
        .saturating_sub(out.chars().count() + HEADS.iter().map(|h| h.chars().count()).sum::<usize>() + 400);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| (rows[i].rank, rows[i].section, i));
    let mut kept = vec![false; rows.len()];
    let mut used = 0;
    for i in order {
        let len = rows[i].text.chars().count();
        if used + len <= room {
            used += len;
            kept[i] = true;
        }
    }
    let mut left = [0; 5];
    for (section, head) in HEADS.iter().enumerate() {
        let mut wrote = false;
        for (row, _) in rows.iter().zip(&kept).filter(|(r, k)| r.section == section && **k) {
            if !wrote {
                out.push_str(head);
                wrote = true;
            }
            out.push_str(&row.text);
        }
        left[section] = rows.iter().zip(&kept).filter(|(r, k)| r.section == section && !**k).count();
    }
    if left.iter().any(|&n| n > 0) {
        let parts: Vec<String> = [
            ("identity change", "identity changes"),
            ("SPIRE object", "SPIRE objects"),
            ("workload", "workloads"),
            ("change the build cannot judge", "changes the build cannot judge"),
            ("new finding", "new findings"),
        ]
        .iter()
        .zip(left)
        .filter(|(_, n)| *n > 0)
        .map(|((one, many), n)| count(n, one, many))
        .collect();
        out.push_str(&format!(
            "\n_Left out to stay under GitHub's comment limit: {}. The whole diff: `render-inference-identity diff` with `-o text` or `-o json`._\n",
            parts.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::changes::compare;
    use super::super::testing::{binding, report};
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn markdown_escapes_what_github_would_take_for_markup() {
        assert_eq!(
            md("<release namespace>-<name> & *x* a|b\nc"),
            "&lt;release namespace&gt;-&lt;name&gt; &amp; \\*x\\* a\\|b c"
        );
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
    }

    /// Rows of each section and rank, each rank's rows longer than the rank's before: 20
    /// identities added and 20 removed, 20 pod templates that gain an SVID and 20 that lose
    /// one, 20 new findings.
    fn ranked_diff() -> crate::io::diff::changes::Diff {
        let (mut before, mut after, mut lost, mut gained) = (vec![], vec![], vec![], vec![]);
        let template = |name: String, id: String| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ns", "name": name,
                   "path": "spec.template", "spiffeIDs": [id]})
        };
        for i in 0..20 {
            after.push(binding(&format!("a{i:02}"), &[]));
            before.push(binding(&format!("removed-binding-{i:02}"), &[]));
            gained.push(template(format!("g{i:02}"), format!("spiffe://x/g{i:02}")));
            lost.push(template(format!("lost-workload-{i:02}"), format!("spiffe://x/lost-workload-{i:02}")));
        }
        let mut diff = compare(&report(json!(before), json!(lost)), &report(json!(after), json!(gained)));
        for i in 0..20 {
            let message = format!("finding {i:02}: a message longer than any row of a change above it");
            let finding = json!({"severity": "warning", "reason": "NoMatchingWorkload",
                                 "message": message, "refs": []});
            diff.findings.new.push(serde_json::from_value(finding).unwrap());
        }
        diff
    }

    #[test]
    fn a_cut_keeps_what_grants_first_and_counts_what_it_left_out_per_section() {
        let diff = ranked_diff();
        // (the rows' start, their rank)
        let kinds = [
            ("| added |", 0),
            ("| Deployment ns/g", 0),
            ("| removed |", 1),
            ("| Deployment ns/lost", 1),
            ("- **", 2),
        ];
        let rank = |line: &str| kinds.iter().find(|(start, _)| line.starts_with(start)).map(|k| k.1);
        let whole = markdown(&diff, usize::MAX);
        let lengths = |r: u8| whole.lines().filter(move |l| rank(l) == Some(r)).map(|l| l.chars().count());
        for r in 0..2 {
            assert_eq!(lengths(r).count(), 40, "rank {r}");
            assert!(lengths(r).max() < lengths(r + 1).min(), "rank {r}'s rows are the shorter");
        }
        let mut cuts = 0;
        for limit in (1_000..whole.chars().count()).step_by(97) {
            let cut = markdown(&diff, limit);
            assert!(cut.chars().count() <= limit, "{limit}");
            let shown = |r: u8| cut.lines().filter(|l| rank(l) == Some(r)).count();
            // A row of a rank is kept only when every row of the ranks before it is.
            for r in 1..3 {
                assert!(shown(r) == 0 || (0..r).all(|before| shown(before) == 40), "{limit}: {cut}");
            }
            let section = |starts: &[&str]| {
                20 * starts.len() - cut.lines().filter(|l| starts.iter().any(|s| l.starts_with(s))).count()
            };
            let left = [
                (section(&["| added |", "| removed |"]), "identity change", "identity changes"),
                (section(&["| Deployment ns/g", "| Deployment ns/lost"]), "workload", "workloads"),
                (section(&["- **"]), "new finding", "new findings"),
            ];
            let said: Vec<String> =
                left.iter().filter(|(n, ..)| *n > 0).map(|&(n, one, many)| count(n, one, many)).collect();
            let line = format!("Left out to stay under GitHub's comment limit: {}.", said.join(", "));
            assert_eq!(cut.contains(&line), !said.is_empty(), "{limit}: want {line:?} in {cut}");
            assert_eq!(cut.contains("Left out"), !said.is_empty(), "{limit}");
            cuts += usize::from(!said.is_empty());
        }
        assert!(cuts > 20, "{cuts} cuts");
    }

    #[test]
    fn markdown_stays_under_the_limit_keeping_what_grants() {
        let many: Vec<Value> = (0..300).map(|i| binding(&format!("b{i:03}"), &["k8s:ns:ns"])).collect();
        let mut changed = binding("b000", &["k8s:ns:ns"]);
        changed["spiffeID"] = json!("spiffe://x/other");
        let before = report(json!([binding("z", &[]), changed]), json!([]));
        let diff = compare(&before, &report(json!(many), json!([])));
        let whole = markdown(&diff, usize::MAX);
        assert!(!whole.contains("Left out"), "everything fits");
        let limit = 4_000;
        let cut = markdown(&diff, limit);
        assert!(cut.chars().count() <= limit, "{}", cut.chars().count());
        assert!(
            cut.starts_with(
                "**Identity changes:** 299 identities added, 1 identity removed, 1 identity changed\n"
            ),
            "{cut}"
        );
        // What grants comes first: added and changed identities; the removal is left out.
        assert!(cut.contains("| added | `ns/b001` |"), "{cut}");
        assert!(!cut.contains("| removed |"), "{cut}");
        assert!(cut.contains("Left out to stay under GitHub's comment limit: "), "{cut}");
        assert!(cut.contains("1 identity change") || cut.contains("identity changes"), "{cut}");
        // Far more than a comment holds, at the real limit: under GitHub's 65,536 characters.
        let many: Vec<Value> =
            (0..2_000).map(|i| binding(&format!("binding-{i:05}"), &["k8s:ns:ns"])).collect();
        let diff = compare(&report(json!([]), json!([])), &report(json!(many), json!([])));
        let text = markdown(&diff, MARKDOWN_LIMIT);
        assert!(markdown(&diff, usize::MAX).chars().count() > 65_536);
        assert!(text.chars().count() <= 65_536 && text.contains("Left out"), "{}", text.chars().count());
    }
}
