//! The release (.github/workflows/release.yml) as far as this machine can run it: actionlint
//! finds nothing in the workflow, and the steps it runs, each a command of `.ci/release`, run
//! here: the image tags of a tag, the archive of the host's target (the only one this
//! toolchain has), the Helm plugin's archive (tests/integration/helm.rs installs it), the
//! CycloneDX SBOM, and the checksums. What only a real release shows is in docs/release.md.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn release(args: &[&str]) -> Output {
    // cargo-cyclonedx runs as a cargo subcommand: cargo finds it on PATH.
    Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/release"))
        .args(args)
        .env("SOURCE_DATE_EPOCH", "0")
        .output()
        .expect("bash runs")
}

fn version() -> String {
    let manifest = repo_file("Cargo.toml");
    let line = manifest.lines().find(|l| l.starts_with("version = \"")).expect("Cargo.toml has a version");
    line.trim_start_matches("version = \"").trim_end_matches('"').to_string()
}

#[test]
fn actionlint_finds_nothing_in_the_release_workflow() {
    let out = Command::new(require_tool("actionlint"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg(".github/workflows/release.yml")
        .output()
        .expect("actionlint runs");
    assert_success(&out);
    // Every step of the workflow that runs the release script names one of its commands.
    let workflow = repo_file(".github/workflows/release.yml");
    for command in ["tags", "archive", "helm-plugin", "sbom", "checksums", "image"] {
        assert!(
            workflow.contains(&format!(".ci/release {command}")),
            "the workflow never runs .ci/release {command}"
        );
    }
}

#[test]
fn a_release_tag_gives_the_image_its_three_tags_and_no_latest() {
    let version = version();
    let out = release(&["tags", &format!("v{version}")]);
    assert_success(&out);
    let image = stdout(&release(&["image"])).trim().to_string();
    let parts: Vec<&str> = version.split('.').collect();
    assert_eq!(
        stdout(&out).lines().collect::<Vec<_>>(),
        [
            format!("{image}:v{version}"),
            format!("{image}:v{}.{}", parts[0], parts[1]),
            format!("{image}:v{}", parts[0])
        ]
    );
    assert!(!stdout(&out).contains("latest"));
    let out = release(&["tags", "v99.0.0"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        stderr(&out).contains(&format!("tag v99.0.0 is not v{version}, Cargo.toml's version")),
        "{}",
        describe(&out)
    );
}

#[test]
fn the_host_archive_the_sbom_and_the_checksums_are_made_as_the_release_makes_them() {
    let tmp = TempDir::new("release");
    let dist = tmp.join("dist");
    let version = version();
    let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);

    let out = release(&["archive", &target, dist.to_str().unwrap()]);
    assert_success(&out);
    let archive = PathBuf::from(stdout(&out).trim());
    let base = format!("render-inference-identity-v{version}-{target}");
    assert_eq!(archive, dist.join(format!("{base}.tar.gz")));
    // The layout cargo-binstall's bin-dir names: <name>-v<version>-<target>/<bin>.
    let listing = Command::new("tar").arg("-tzf").arg(&archive).output().expect("tar runs");
    assert_success(&listing);
    for file in ["render-inference-identity", "LICENSE", "README.md"] {
        assert!(
            stdout(&listing).lines().any(|l| l == format!("{base}/{file}")),
            "{file}: {}",
            describe(&listing)
        );
    }
    let unpacked = tmp.join("unpacked");
    std::fs::create_dir_all(&unpacked).unwrap();
    assert_success(&Command::new("tar").arg("-xzf").arg(&archive).arg("-C").arg(&unpacked).output().unwrap());
    let binary = unpacked.join(&base).join("render-inference-identity");
    let out = Command::new(&binary).arg("--version").output().expect("the archived binary runs");
    assert_success(&out);
    assert_eq!(stdout(&out).trim(), format!("render-inference-identity {version}"));
    let ldd = Command::new("ldd").arg(&binary).output().expect("ldd runs");
    let text = format!("{}{}", stdout(&ldd), stderr(&ldd));
    assert!(text.contains("not a dynamic executable") || text.contains("statically linked"), "{text}");

    require_tool("cargo-cyclonedx");
    let out = release(&["sbom", dist.to_str().unwrap()]);
    assert_success(&out);
    let sbom: serde_json::Value =
        serde_json::from_str(&read(Path::new(stdout(&out).trim()))).expect("the SBOM is JSON");
    assert_eq!(sbom["bomFormat"], "CycloneDX");
    let names: Vec<&str> = sbom["components"]
        .as_array()
        .expect("components")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    for dependency in ["serde-saphyr", "granit-parser", "render-inference-identity-core"] {
        assert!(names.contains(&dependency), "the SBOM lists no {dependency}: {names:?}");
    }
    assert!(
        std::fs::read_dir(env!("CARGO_MANIFEST_DIR")).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".cdx.json"))
    );

    let out = release(&["checksums", dist.to_str().unwrap()]);
    assert_success(&out);
    let sums = read(&dist.join("SHA256SUMS"));
    assert_eq!(sums.lines().count(), 2, "{sums}");
    let check = Command::new("sha256sum")
        .args(["-c", "SHA256SUMS"])
        .current_dir(&dist)
        .output()
        .expect("sha256sum runs");
    assert_success(&check);
    // The archive is reproducible: a second build of it has the same checksum.
    let again = tmp.join("again");
    assert_success(&release(&["archive", &target, again.to_str().unwrap()]));
    assert_eq!(
        std::fs::read(again.join(format!("{base}.tar.gz"))).unwrap(),
        std::fs::read(&archive).unwrap(),
        "two builds of the archive differ"
    );
}
