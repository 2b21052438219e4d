//! The reference's table of the controllers that make pods (docs/reference.md, "Pods other
//! controllers make") lists every kind a declaration of `cluster/controllers/` names, with
//! its group, and no kind none names: the table is the declarations, read by people.

mod common;

use common::repo_file;
use render_inference_identity::reconcile::cluster::controllers::CONTROLLERS;

/// The rows of the table: each row's first cell, the item.
fn rows() -> Vec<String> {
    let reference = repo_file("docs/reference.md");
    let section = reference
        .split("### Pods other controllers make")
        .nth(1)
        .and_then(|rest| rest.split("\n### ").next())
        .expect("the section is in docs/reference.md");
    section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| item") && !l.starts_with("| ---"))
        .map(|l| l.split(" | ").next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_table_names_every_declared_kind_with_its_group() {
    let rows = rows();
    for controller in CONTROLLERS {
        let group = if controller.group.is_empty() {
            "(core)".to_string()
        } else {
            format!("`{}`", controller.group)
        };
        for kind in controller.kinds {
            let named = rows.iter().any(|row| row.contains(&format!("`{kind}`")) && row.contains(&group));
            assert!(named, "docs/reference.md's table lacks {kind} of {group}: {rows:#?}");
        }
    }
}

#[test]
fn the_table_names_no_kind_without_a_declaration() {
    for row in rows().iter().filter(|r| !r.contains("any other kind")) {
        let kinds: Vec<&str> = row.split('`').skip(1).step_by(2).collect();
        let declared = kinds.iter().any(|k| CONTROLLERS.iter().any(|c| c.kinds.contains(k)));
        assert!(declared, "docs/reference.md's row {row:?} names no declared kind");
        for kind in kinds.iter().filter(|k| k.chars().next().is_some_and(char::is_uppercase)) {
            assert!(
                CONTROLLERS.iter().any(|c| c.kinds.contains(kind)),
                "docs/reference.md's row {row:?} names {kind}, which no declaration names"
            );
        }
    }
}
