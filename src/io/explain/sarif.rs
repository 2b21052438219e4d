//! `-o sarif`: annotations as a SARIF 2.1.0 log of one run, written with `serde-sarif` (its
//! types follow the OASIS schema): a rule for every finding and failure reason, each result
//! at its file as a URI GitHub code scanning resolves.

use super::annotations::{Annotation, GRANTS};
use super::report::At;
use crate::reconcile::findings::Kind;
use crate::reconcile::findings::Severity;
use crate::reconcile::reason::Reason;
use serde_sarif::sarif;
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path, PathBuf};

/// Every rule: the findings, the failure reasons, then what `diff` shows as granting. (id,
/// name, description, default level); the id is `finding/NAME`, `binding/REASON` or
/// `grant/NAME`, as SARIF wants an id apart from the name a person reads.
fn rules() -> Vec<(String, &'static str, &'static str, Severity)> {
    let findings = Kind::ALL
        .iter()
        .map(|&k| (format!("finding/{}", k.as_str()), k.as_str(), Kind::description(k), Severity::Warning));
    let reasons = Reason::ALL
        .iter()
        .map(|&r| (format!("binding/{}", r.as_str()), r.as_str(), Reason::description(r), Severity::Error));
    let grants =
        GRANTS.iter().map(|&(name, about)| (format!("grant/{name}"), name, about, Severity::Warning));
    findings.chain(reasons).chain(grants).collect()
}

fn level(severity: Severity) -> sarif::ResultLevel {
    match severity {
        Severity::Error => sarif::ResultLevel::Error,
        Severity::Warning => sarif::ResultLevel::Warning,
        Severity::Info => sarif::ResultLevel::Note,
    }
}

/// The annotations as a SARIF 2.1.0 log of one run.
pub fn sarif(annotations: &[Annotation]) -> String {
    let rules = rules();
    let descriptors: Vec<sarif::ReportingDescriptor> = rules
        .iter()
        .map(|(id, name, description, severity)| {
            sarif::ReportingDescriptor::builder()
                .id(id)
                .name(*name)
                .short_description(sarif::MultiformatMessageString::builder().text(*description).build())
                .full_description(sarif::MultiformatMessageString::builder().text(*description).build())
                .default_configuration(
                    sarif::ReportingConfiguration::builder()
                        .level(serde_json::to_value(level(*severity)).expect("a level serializes"))
                        .build(),
                )
                .build()
        })
        .collect();
    let results: Vec<sarif::Result> = annotations
        .iter()
        .map(|a| {
            let index = rules.iter().position(|r| r.1 == a.rule).expect("every rule is listed");
            let mut result = sarif::Result::builder()
                .rule_id(&rules[index].0)
                .rule_index(index as i64)
                .level(level(a.severity))
                .message(sarif::Message::builder().text(&a.message).build())
                .partial_fingerprints(BTreeMap::from([("identity/v1".to_string(), a.fingerprint.clone())]))
                .build();
            if let Some(At { file: Some(file), line }) = &a.at {
                let region = sarif::Region::builder().start_line(*line as i64).build();
                let physical = sarif::PhysicalLocation::builder()
                    .artifact_location(sarif::ArtifactLocation::builder().uri(uri(file)).build())
                    .region(region)
                    .build();
                result.locations = Some(vec![sarif::Location::builder().physical_location(physical).build()]);
            }
            result
        })
        .collect();
    let driver = sarif::ToolComponent::builder()
        .name(env!("CARGO_PKG_NAME"))
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .rules(descriptors)
        .build();
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .results(results)
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .build();
    let log = sarif::Sarif::builder()
        .schema(sarif::SCHEMA_URL)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    let mut out = serde_json::to_string_pretty(&log).expect("a SARIF log serializes");
    out.push('\n');
    out
}

/// Where a file is, as SARIF names an artifact: under the working folder, a relative
/// reference (GitHub resolves it against the checkout); anywhere else, an absolute `file://`
/// URI, since a bare `/srv/...` is no URI of a file. `.` and `..` are resolved first.
fn uri(path: &Path) -> String {
    match std::env::current_dir() {
        Ok(cwd) => uri_from(path, &cwd),
        Err(_) => encode(&normal(path)),
    }
}

fn uri_from(path: &Path, cwd: &Path) -> String {
    let absolute = normal(&cwd.join(path));
    match absolute.strip_prefix(normal(cwd)) {
        Ok(under) => encode(under),
        Err(_) => format!("file://{}", encode(&absolute)),
    }
}

/// `path` with `.` left out and each `..` taking the component before it away, by the text
/// alone (as a URI's dot segments are resolved); `..` at the root stays there.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // Above the root is the root.
                Some(Component::RootDir) => {}
                _ => out.push(part),
            },
            part => out.push(part),
        }
    }
    out
}

/// A path's own bytes as URI text: bytes other than unreserved characters and `/`
/// percent-encoded, so a name that is not UTF-8 keeps its bytes.
fn encode(path: &Path) -> String {
    path.as_os_str()
        .as_bytes()
        .iter()
        .map(|&b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_encode_what_is_not_a_path_character() {
        let cwd = Path::new("/srv/repo");
        assert_eq!(uri_from(Path::new("apps/a b/x#1.yaml"), cwd), "apps/a%20b/x%231.yaml");
        assert_eq!(uri_from(Path::new("ü.yaml"), cwd), "%C3%BC.yaml");
        // A name that is not UTF-8 keeps its byte, never U+FFFD's.
        assert_eq!(uri_from(Path::new(std::ffi::OsStr::from_bytes(b"b\xff.yaml")), cwd), "b%FF.yaml");
    }

    #[test]
    fn uris_outside_the_working_folder_are_absolute_file_uris_and_dot_segments_go() {
        let cwd = Path::new("/srv/repo");
        assert_eq!(uri_from(Path::new("deploy/../deploy/./a.yaml"), cwd), "deploy/a.yaml");
        assert_eq!(uri_from(Path::new("/srv/repo/deploy/a.yaml"), cwd), "deploy/a.yaml");
        assert_eq!(uri_from(Path::new("/srv/x y.yaml"), cwd), "file:///srv/x%20y.yaml");
        assert_eq!(uri_from(Path::new("../base/a.yaml"), cwd), "file:///srv/base/a.yaml");
        assert_eq!(uri_from(Path::new("/a/../../b.yaml"), cwd), "file:///b.yaml");
    }
    #[test]
    fn every_kind_has_a_rule() {
        assert!(Kind::ALL.iter().all(|k| rules().iter().any(|r| r.1 == k.as_str())));
        assert_eq!(rules().len(), Kind::ALL.len() + Reason::ALL.len() + GRANTS.len());
    }
}
