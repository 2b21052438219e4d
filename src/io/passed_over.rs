//! The entries kpt passes over (hidden, or named in a `.krmignore`) that `kubectl apply -R`
//! and Argo CD read all the same, judged: each one the walk lists ([`files::Passed`]) is a
//! record the build cannot judge (`FileUnjudged`, `may gain` when HEAD adds or changes it)
//! unless kubectl would apply nothing of it. docs/review.md ("The gate's rule") states why.
//!
//! kubectl decodes UTF-16 with a byte-order mark and replaces a stray byte (cli-runtime
//! `pkg/resource/visitor.go`, `FileVisitor.Visit`), cuts documents before parsing each, and
//! applies the documents before one it cannot read (kubectl `apply.go`, `GetObjects`); it
//! refuses a document with neither `apiVersion` nor `kind`. So a file is quiet only when it is
//! UTF-8 YAML that reads whole and whose every document holds neither: a CI workflow, a
//! linter's settings. Links are followed as kubectl and Argo CD follow them, to the target's
//! content whatever its name; one that leads to no regular file inside the folders given is a
//! record itself.

use crate::io::files::{self, Budget, Passed, quote};
use crate::io::read::{self, Options};
use crate::io::render::FileUnjudged;
use crate::io::wording::ItemOrigin;
use crate::yaml;
use std::path::PathBuf;

/// The records of the entries passed over, read within the input limit (a file over it
/// fails the run, as one read does). A file kubectl reads otherwise than this function fails
/// the run with the place. Each record's digest takes `reach`, a digest of everything else the
/// run reads: what the file holds may reach any of it.
pub(super) fn judge(
    passed: &[Passed],
    read: &[files::Found],
    roots: &[PathBuf],
    reach: &[u8],
    budget: &mut Budget,
) -> Result<Vec<FileUnjudged>, String> {
    let order = apply_order(passed, read, roots);
    // A Jsonnet file may import any file of the folders, whatever its name (go-jsonnet
    // `FileImporter`: `import`, `importstr`, `importbin`): its record follows them all.
    let jsonnet = passed.iter().any(|p| files::is_evaluated_name(&p.path));
    let tree = if jsonnet { every_file(roots, budget)? } else { Vec::new() };
    let mut out = Vec::new();
    for entry in passed {
        let mut digested =
            entry.link.as_ref().map(|l| l.as_os_str().as_encoded_bytes().to_vec()).unwrap_or_default();
        let found = match &entry.found {
            Ok(found) => found,
            // What it leads to may change while nothing in the folders does: the build reads
            // nothing outside them, so it cannot judge the link at all.
            Err(why) if why == files::OUTSIDE => {
                return Err(format!(
                    "{}: {why}, which kpt passes over and `kubectl apply -R` follows: the build reads \
                     nothing outside the folders given, so it cannot judge what the link applies; remove \
                     the link, or give the folder it points into",
                    quote(&entry.path)
                ));
            }
            Err(why) => {
                out.push(record(entry, roots, 1, unfollowable(entry, why), digested));
                continue;
            }
        };
        let bytes = files::read_bytes(found, budget)?;
        let judged = judge_content(entry, &bytes)?;
        if entry.link.is_some() {
            digested.push(0);
        }
        digested.extend_from_slice(&bytes);
        digested.extend_from_slice(&order);
        if files::is_evaluated_name(&entry.path) {
            digested.extend_from_slice(&tree);
        }
        if let Some((line, message)) = judged {
            out.push(record(entry, roots, line, message, digested));
        }
    }
    out.iter_mut().for_each(|record| record.digested.extend_from_slice(reach));
    Ok(out)
}

/// Every file under `roots`, whatever its name, hidden or not: its path and bytes (a link's
/// target as written), by path.
fn every_file(roots: &[PathBuf], budget: &mut Budget) -> Result<Vec<u8>, String> {
    use sha2::{Digest, Sha256};
    let walked = files::walk(roots, &[], |_| true)?;
    let mut hash = Sha256::new();
    let mut entries: Vec<(&PathBuf, Option<&PathBuf>, Option<&files::Found>)> =
        walked.files.iter().map(|f| (&f.path, None, Some(f))).collect();
    entries.extend(walked.passed_over.iter().map(|p| (&p.path, p.link.as_ref(), p.found.as_ref().ok())));
    entries.sort_by(|a, b| a.0.cmp(b.0));
    for (path, link, found) in entries {
        hash.update(b"\0entry\0");
        hash.update(path.as_os_str().as_encoded_bytes());
        if let Some(link) = link {
            hash.update(b"\0link\0");
            hash.update(link.as_os_str().as_encoded_bytes());
        }
        if let Some(found) = found {
            hash.update(files::read_bytes(found, budget)?);
        }
    }
    Ok(hash.finalize().to_vec())
}

/// Every file of the folders in the order `kubectl apply -R` walks them (by path: cli-runtime
/// `ExpandPathsToFileVisitors`), read and passed over: where a copy of an object stands in it
/// decides which copy is applied last (Argo CD keeps the last too: `DeduplicateTargetObjects`),
/// so a record of a file passed over is new when any file moves, though its bytes do not.
fn apply_order(passed: &[Passed], read: &[files::Found], roots: &[PathBuf]) -> Vec<u8> {
    let relative = |path: &PathBuf| {
        let path = roots.iter().find_map(|root| path.strip_prefix(root).ok()).unwrap_or(path);
        path.as_os_str().as_encoded_bytes().to_vec()
    };
    let mut paths: Vec<Vec<u8>> =
        read.iter().map(|f| &f.path).chain(passed.iter().map(|p| &p.path)).map(relative).collect();
    paths.sort_unstable();
    let mut order = b"\0order".to_vec();
    for path in paths {
        order.push(0);
        order.extend_from_slice(&path);
    }
    order
}

/// What an entry's content makes of it: `None` when kubectl applies nothing of it, else the
/// line and message of its record. Jsonnet files and Argo CD's parameter files are records
/// whatever their bytes.
fn judge_content(entry: &Passed, bytes: &[u8]) -> Result<Option<(usize, String)>, String> {
    let path = &entry.path;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if files::is_evaluated_name(path) {
        return Ok(Some((1, jsonnet_message(name))));
    }
    if name.starts_with(".argocd-source") {
        return Ok(Some((1, ARGOCD_SOURCE.to_string())));
    }
    let Ok(text) = files::yaml_text(path, bytes.to_vec()) else {
        return Ok(Some((
            1,
            unreadable(entry, "not UTF-8 YAML text: UTF-16, a stray byte or a control character"),
        )));
    };
    let Some(Ok(stream)) = read::files(vec![text.clone()], Options::default()).into_iter().next() else {
        match read::divergence_of(&text) {
            // kpt reads nothing here, and kubectl reads what this function reads: only a YAML
            // 1.2 reader would type it otherwise, so it may be applied, as any text read in part.
            Some((message, line, true)) => {
                let name = quote(path);
                return Ok(Some((
                    line,
                    format!(
                        "{}, in {} kpt passes over (hidden, or named in a .krmignore) and `kubectl apply -R` \
                         reads: this reading cannot vouch for what it holds",
                        yaml::in_file(&message, &name),
                        what(entry)
                    ),
                )));
            }
            Some((message, _, false)) => {
                let name = quote(path);
                return Err(format!("{name}: {}", yaml::in_file(&message, &name)));
            }
            None => {}
        }
        return Ok(Some((1, unreadable(entry, "not YAML that reads whole"))));
    };
    let first =
        stream.parts.iter().enumerate().find(|(_, p)| p.head.api_version.is_some() || p.head.kind.is_some());
    // Another reader may find a kind where this one finds none: apimachinery's decoder takes a
    // document for JSON after leading spaces Go's `unicode.IsSpace` knows (a no-break space),
    // an escape or a tag may spell a key. Quiet only what names no kind in any spelling.
    if first.is_none() && might_name_a_kind(&text) {
        return Ok(Some((1, unreadable(entry, "text another reader may find a kind in"))));
    }
    Ok(first.map(|(index, part)| {
        let line = read::text::start_line(&stream.text, part.text.chunk.clone());
        let kind = part.head.kind.as_deref().map_or_else(
            || "an object without a kind".to_string(),
            |k| format!("{} {k}", crate::reconcile::unjudged::article(k)),
        );
        let message = format!(
            "{kind} in {}, {} kpt passes over (hidden, or named in a .krmignore) and `kubectl apply -R` reads: \
             move it into the folder, or out of the folders given",
            ItemOrigin::document(&quote(path), index),
            what(entry)
        );
        (line, message)
    }))
}

/// Whether a text may name a `kind` to some reader though this one reads none: beside its
/// comment lines, it holds the word in any case, a backslash (an escape) or a `!` (a tag
/// such as `!!binary`).
fn might_name_a_kind(text: &str) -> bool {
    // Only a space or a tab may stand before a comment's `#` (YAML's white space).
    text.lines()
        .filter(|line| !line.trim_start_matches([' ', '\t']).starts_with('#'))
        .any(|line| line.to_ascii_lowercase().contains("kind") || line.contains(['\\', '!']))
}

/// A record of the entry, its file relative to the path given it was found under.
fn record(
    entry: &Passed,
    roots: &[PathBuf],
    line: usize,
    message: String,
    digested: Vec<u8>,
) -> FileUnjudged {
    let path = &entry.path;
    let relative = roots.iter().find_map(|root| path.strip_prefix(root).ok()).unwrap_or(path);
    FileUnjudged {
        path: path.clone(),
        line,
        relative: relative.to_path_buf(),
        field: String::new(),
        message,
        digested,
    }
}

/// The entry as its records word it: a file, or a link and where it leads.
fn what(entry: &Passed) -> String {
    match &entry.link {
        None => "a file".to_string(),
        Some(target) => format!("a symbolic link (to {}) that", quote(target)),
    }
}

/// The message of an entry whose content the build cannot read, which kubectl may read in
/// part.
fn unreadable(entry: &Passed, why: &str) -> String {
    format!(
        "content the build cannot read in {} ({why}), {} kpt passes over (hidden, or named in a .krmignore) \
         and `kubectl apply -R` reads: kubectl decodes what it can and applies the documents before one it \
         cannot read, so it may apply part of it. Make it UTF-8 YAML, or move it out of the folders given",
        quote(&entry.path),
        what(entry)
    )
}

/// The message of a link passed over that leads to no regular file inside the folders given.
fn unfollowable(entry: &Passed, why: &str) -> String {
    format!(
        "{}: {why}, which kpt passes over (hidden, or named in a .krmignore) and `kubectl apply -R` follows, \
         so what it applies there is not known: remove the link, or point it at a file inside the folders \
         given",
        quote(&entry.path)
    )
}

/// Why Argo CD's parameter file (`.argocd-source.yaml`, `.argocd-source-<app>.yaml`) is a
/// record: its repo server reads it into the manifests it applies.
const ARGOCD_SOURCE: &str = "Argo CD's parameter file: its repo server lays these parameters (Helm values, \
                             kustomize images and patches, plugin settings) over the manifests it applies, \
                             which the build does not";

/// Why a Jsonnet file is a record: an Argo CD directory application evaluates each `.jsonnet`
/// file of its folder (hidden ones and those of a `.krmignore` too) and applies the objects
/// it gives (argo-cd `reposerver/repository/repository.go`, `findManifests`, on by default:
/// `util/app/discovery/discovery.go`, `IsManifestGenerationEnabled`), and a `.libsonnet`
/// library changes what those that import it give. The build evaluates no Jsonnet.
fn jsonnet_message(name: &str) -> String {
    if name.ends_with(".libsonnet") {
        "a Jsonnet library: the .jsonnet files an Argo CD directory application evaluates may import it, \
         and the objects they give are applied where the build does not see them: render the Jsonnet to \
         YAML and commit that, or keep the folder free of Jsonnet"
            .to_string()
    } else {
        "a Jsonnet file: an Argo CD directory application evaluates it and applies the objects it gives, \
         which the build does not read: render it to YAML and commit that, or move it out of the folders \
         given"
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn file(name: &str) -> Passed {
        Passed { path: Path::new("head").join(name), link: None, found: Err(String::new()) }
    }

    fn judged(name: &str, bytes: &[u8]) -> Option<(usize, String)> {
        judge_content(&file(name), bytes).unwrap()
    }

    #[test]
    fn only_yaml_whose_every_document_lacks_api_version_and_kind_is_quiet() {
        assert_eq!(judged(".gitlab-ci.yml", b"stages: [test]\ntest:\n  script: [make]\n---\n# none\n"), None);
        assert_eq!(judged(".vscode/settings.json", b"{\"editor.tabSize\": 2}\n"), None);
        // A no-break space before JSON: apimachinery's decoder reads a Deployment there.
        // A no-break space opening a line: kubectl's decoder skips it, and may read JSON or
        // more of the line than this function: refused with the place (read::diverge).
        let sniffed = "\u{a0}{\"kind\": \"Deployment\", \"apiVersion\": \"apps/v1\"}\n";
        let refused = judge_content(&file(".d.yaml"), sniffed.as_bytes()).unwrap_err();
        assert!(refused.contains("line 1 column 1") && refused.contains("U+00A0"), "{refused}");
        assert!(judged(".e.yaml", b"\"\\x6bind\": x\n").is_some(), "an escape may spell it");
        let hidden_comment = "a: 1\n\u{3000}# kind: Deployment\n";
        assert!(judge_content(&file(".f.yaml"), hidden_comment.as_bytes()).is_err(), "an ideographic space");
        // A word only YAML 1.2 types otherwise: kpt reads none of it and kubectl reads it as
        // this function does, so it is no refusal, but this reading cannot vouch for it.
        assert_eq!(judged(".github/workflows/ci.yml", b"on: push\njobs: {}\n"), None, "a key is no value");
        let (_, message) = judged(".lint.yml", b"rules:\n  strict: yes\n").unwrap();
        assert!(message.contains("line 2 column 11") && message.contains("quote it"), "{message}");
        // Any object kubectl may apply, whatever its kind: the first is named, with its line.
        let (line, message) =
            judged(".svc.yaml", b"a: 1\n---\n# a Service\napiVersion: v1\nkind: Service\n").unwrap();
        assert_eq!(line, 4);
        assert!(
            message.starts_with("a Service in head/.svc.yaml (document 2), a file kpt passes over"),
            "{message}"
        );
        let (_, message) = judged(".x.yaml", b"apiVersion: example.com/v1\n").unwrap();
        assert!(message.starts_with("an object without a kind in head/.x.yaml (document 1)"), "{message}");
    }

    #[test]
    fn content_the_build_cannot_read_may_be_applied_in_part() {
        let utf16: Vec<u8> = "\u{feff}kind: Deployment\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let latin1 = b"# caf\xe9\napiVersion: v1\n";
        let control = b"kind: Deployment\n---\nkind: \x01\n";
        let broken = b"kind: Deployment\n---\n: : [\n";
        for bytes in [&utf16[..], latin1, control, broken] {
            let (line, message) = judged(".w.yaml", bytes).unwrap();
            assert_eq!(line, 1);
            assert!(message.starts_with("content the build cannot read in head/.w.yaml ("), "{message}");
            assert!(message.contains("a file kpt passes over"), "{message}");
            assert!(message.contains("it may apply part of it"), "{message}");
        }
        // Argo CD's parameter file and Jsonnet are records whatever their bytes.
        assert!(judged(".argocd-source.yaml", &utf16).unwrap().1.starts_with("Argo CD's parameter file"));
        assert!(judged(".lib.jsonnet", latin1).unwrap().1.starts_with("a Jsonnet file"));
    }

    #[test]
    fn a_link_is_named_with_where_it_leads() {
        let link = Passed { link: Some(PathBuf::from("../notes.txt")), ..file(".x/w.yaml") };
        let (_, message) = judge_content(&link, b"apiVersion: apps/v1\nkind: Deployment\n").unwrap().unwrap();
        assert!(message.contains("a symbolic link (to ../notes.txt) that kpt passes over"), "{message}");
        let message = unfollowable(&link, "a symbolic link that points outside the folders given");
        assert!(message.starts_with("head/.x/w.yaml: a symbolic link that points outside"), "{message}");
    }
}
