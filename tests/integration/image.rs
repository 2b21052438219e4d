//! The container image built from the shipped Dockerfile with podman (runtime runc), its
//! `build` stage replaced by a statically linked binary these tests build: run by kpt as an
//! `image:` function and as Argo CD's plugin sidecar runs it.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The tag the tests build the image under: one per checkout, so that two checkouts testing
/// at once on one machine do not run each other's image.
fn tag() -> String {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_MANIFEST_DIR").hash(&mut hasher);
    format!("localhost/render-inference-identity:integration-{:016x}", hasher.finish())
}

/// The cargo target folder of this build.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target/tmp has a parent").to_path_buf()
}

/// A containers.conf for this sandbox's podman (runc, no default ulimits, which an
/// unprivileged container here cannot raise), given through CONTAINERS_CONF; /etc stays as is.
fn containers_conf() -> &'static Path {
    static CONF: OnceLock<PathBuf> = OnceLock::new();
    CONF.get_or_init(|| {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("podman/containers.conf");
        write(&path, "[engine]\nruntime = \"runc\"\n\n[containers]\ndefault_ulimits = []\n")
    })
}

fn podman(args: &[&str]) -> Output {
    // containers.conf names runc as the runtime: without it podman fails with no hint.
    require_tool("runc");
    Command::new(require_tool("podman"))
        .args(args)
        .env("CONTAINERS_CONF", containers_conf())
        .output()
        .expect("podman starts")
}

/// The function built as the Dockerfile's build stage builds it (glibc, linked statically),
/// in debug (what the tests need is the image, not its speed), under target/image/.
fn static_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let triple = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
        let target = target_dir().join("image");
        let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["build", "--locked", "--bin", "render-inference-identity", "--target", &triple])
            .arg("--manifest-path")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .env("RUSTFLAGS", "-C target-feature=+crt-static")
            .output()
            .expect("cargo starts");
        assert_success(&out);
        target.join(triple).join("debug/render-inference-identity")
    })
}

/// The image, built once per test run from the shipped Dockerfile and image/ files.
fn image() -> &'static str {
    static BUILT: OnceLock<String> = OnceLock::new();
    BUILT.get_or_init(|| {
        let tag = tag();
        let tmp = TempDir::new("image-build");
        for file in ["image/passwd", "image/group", "fn-config/argocd/plugin.yaml", "LICENSE"] {
            tmp.write(&format!("context/{file}"), &repo_file(file));
        }
        std::fs::create_dir_all(tmp.join("build")).unwrap();
        std::fs::copy(static_binary(), tmp.join("build/render-inference-identity")).expect("copy the binary");
        // The image the tag named before, removed once replaced so reruns leave none behind.
        let old = podman(&["image", "inspect", "--format", "{{.Id}}", &tag]);
        let build_context = format!("build={}", tmp.join("build").display());
        let out = podman(&[
            "build",
            "--build-context",
            &build_context,
            "-f",
            concat!(env!("CARGO_MANIFEST_DIR"), "/Dockerfile"),
            "-t",
            &tag,
            tmp.join("context").to_str().unwrap(),
        ]);
        assert_success(&out);
        let old_id = stdout(&old).trim().to_string();
        if old.status.success() && !stdout(&out).contains(&old_id) {
            let _ = podman(&["rmi", &old_id]);
        }
        tag
    })
}

#[test]
fn the_image_binary_is_statically_linked() {
    let out = Command::new("ldd").arg(static_binary()).output().expect("ldd starts");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("not a dynamic executable") || text.contains("statically linked"), "{text}");
}

#[test]
fn the_image_carries_oci_labels_from_cargo_toml() {
    let image = image();
    let out = podman(&["image", "inspect", "--format", "{{json .Labels}}", image]);
    assert_success(&out);
    let labels: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("labels are JSON");
    let label = |name: &str| {
        labels[format!("org.opencontainers.image.{name}")].as_str().unwrap_or_default().to_string()
    };
    assert_eq!(label("title"), package_field("name"));
    assert_eq!(label("version"), package_field("version"));
    assert_eq!(label("description"), package_field("description"));
    assert_eq!(label("licenses"), package_field("license"));
    assert_eq!(label("source"), package_field("repository"));
    assert!(label("documentation").starts_with(&package_field("repository")), "{labels}");
}

/// The text of the file at `path` in the image, copied out of a container made of it.
fn file_in_image(path: &str) -> String {
    let tmp = TempDir::new("image-file");
    let name = format!("rii-file-{}-{}", std::process::id(), path.replace('/', "-"));
    assert_success(&podman(&["create", "--name", &name, image()]));
    let copied = podman(&["cp", &format!("{name}:{path}"), tmp.join("copied").to_str().unwrap()]);
    let _ = podman(&["rm", &name]);
    assert_success(&copied);
    read(&tmp.join("copied"))
}

#[test]
fn the_image_carries_the_license_text() {
    assert_eq!(file_in_image("/usr/share/doc/render-inference-identity/LICENSE"), repo_file("LICENSE"));
}

#[test]
fn the_image_carries_the_argo_cd_plugin_definition_where_the_sidecar_reads_it() {
    const PATH: &str = "/home/argocd/cmp-server/config/plugin.yaml";
    let image = image();
    assert_eq!(file_in_image(PATH), repo_file("fn-config/argocd/plugin.yaml"));
    // The sidecar runs as uid 999: the file must be readable to it (discover reads it and
    // finds no binding there; an unreadable file fails it).
    let entrypoint = format!(r#"["render-inference-identity","discover","{PATH}"]"#);
    let out =
        podman(&["run", "--rm", "--network", "none", "--user", "999", "--entrypoint", &entrypoint, image]);
    assert_success(&out);
    assert_eq!(stdout(&out), "", "{}", describe(&out));
}

#[test]
fn the_image_runs_the_function_as_a_non_root_user() {
    let image = image();
    let out = podman(&["image", "inspect", "--format", "{{.Config.User}} {{.Config.Entrypoint}}", image]);
    assert_success(&out);
    assert_eq!(stdout(&out).trim(), "65532:65532 [/usr/local/bin/render-inference-identity]");
    let out = podman(&["run", "--rm", "--network", "none", image, "--version"]);
    assert_success(&out);
    assert!(stdout(&out).starts_with("render-inference-identity "), "{}", describe(&out));
}

/// A Deployment in `serving` whose pods the binding `llama-prefill` reaches.
const PREFILL_DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-prefill
  namespace: serving
spec:
  selector:
    matchLabels:
      app: llama
  template:
    metadata:
      labels:
        app: llama
        identity.kleym.sonda.red/variant: prefill
    spec:
      serviceAccountName: llama
      containers:
      - name: server
        image: vllm/vllm-openai:v0.9.0
";

/// The shipped kpt package (fn-config/kpt/, whole) with its mutator line replaced by
/// `mutator`, and a pool, a Deployment, a binding that renders and one that fails.
fn kpt_package(tmp: &TempDir, name: &str, mutator: &str) -> PathBuf {
    for file in ["Kptfile", "identity-config.yaml", "schema.json", ".krmignore"] {
        let mut text = repo_file(&format!("fn-config/kpt/{file}"));
        if file == "Kptfile" {
            text = replace_once(&text, "- exec: render-inference-identity", mutator);
        }
        tmp.write(&format!("{name}/{file}"), &text);
    }
    tmp.write(
        &format!("{name}/inference.yaml"),
        &format!(
            "{}---\n{}---\n{PREFILL_DEPLOYMENT}---\n{ORPHAN}",
            pool("llama"),
            binding("llama-prefill", "llama", "prefill")
        ),
    );
    tmp.join(name)
}

fn kpt_render(package: &Path, extra: &[&str]) -> Output {
    let mut cmd = Command::new(require_tool("kpt"));
    cmd.args(["fn", "render"]).args(extra).arg(package);
    for var in AMBIENT_VARS {
        cmd.env_remove(var);
    }
    // kpt finds podman on PATH and passes its environment on.
    cmd.env("KPT_FN_RUNTIME", "podman").env("CONTAINERS_CONF", containers_conf());
    cmd.output().expect("kpt starts")
}

#[test]
fn kpt_renders_with_the_image_as_with_the_exec_binary() {
    let image = image();
    let tmp = TempDir::new("image-kpt");
    let with_image = kpt_package(&tmp, "image", &format!("- image: {image}"));
    let with_exec = kpt_package(&tmp, "exec", &format!("- exec: {BIN}"));

    let out = kpt_render(&with_image, &["--image-pull-policy", "never"]);
    assert_success(&out);
    let out = kpt_render(&with_exec, &["--allow-exec"]);
    assert_success(&out);

    let mut by_image = snapshot(&with_image);
    let mut by_exec = snapshot(&with_exec);
    by_image.remove(Path::new("Kptfile"));
    by_exec.remove(Path::new("Kptfile"));
    assert!(
        by_image.contains_key(Path::new(&format!("clusterspiffeids/{LLAMA_PREFILL_OUTPUT}.yaml"))),
        "{:?}",
        file_list(&with_image)
    );
    assert_eq!(by_image, by_exec, "image: and exec: wrote different files");

    let text = read(&with_image.join("inference.yaml"));
    let docs = documents(&text);
    let bindings = of_kind(&docs, "InferenceIdentityBinding");
    assert_eq!(condition_reason(bindings[0], "Ready"), Some("Reconciled"), "{text}");
    assert_eq!(condition_reason(bindings[1], "Ready"), Some("TargetPoolNotFound"), "{text}");
}

#[test]
fn the_image_runs_as_the_argo_cd_sidecar_runs_it() {
    let image = image();
    let tmp = TempDir::new("image-argocd");
    tmp.write("repo/apps/inference/pool.yaml", &pool("llama"));
    tmp.write("repo/apps/inference/deployment.yaml", PREFILL_DEPLOYMENT);
    tmp.write("repo/apps/inference/binding.yaml", &binding("llama-prefill", "llama", "prefill"));
    let before = snapshot(&tmp.join("repo"));

    // The sidecar: uid 999, the repository checked out read-only, the application's folder as
    // working folder, the generate command of the shipped plugin.yaml found on the image's
    // PATH, the trust domain from the application's plugin env.
    let plugin = render_inference_identity::yaml::parse(&repo_file("fn-config/argocd/plugin.yaml"))
        .expect("plugin.yaml is YAML");
    let generate = serde_json::to_string(&plugin["spec"]["generate"]["command"]).unwrap();
    assert_eq!(generate, r#"["render-inference-identity","render","."]"#);
    let mount = format!("{}:/repo:ro", tmp.join("repo").display());
    let out = podman(&[
        "run",
        "--rm",
        "--network",
        "none",
        "--user",
        "999",
        "--volume",
        &mount,
        "--workdir",
        "/repo/apps/inference",
        "--env",
        "ARGOCD_ENV_TRUST_DOMAIN=prod.example.org",
        "--entrypoint",
        &generate,
        image,
    ]);
    assert_success(&out);

    let local = Command::new(BIN)
        .args(["render", "."])
        .current_dir(tmp.join("repo/apps/inference"))
        .env("ARGOCD_ENV_TRUST_DOMAIN", "prod.example.org")
        .env_remove("KUBE_API_VERSIONS")
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("the binary runs");
    assert_success(&local);
    assert_eq!(stdout(&out), stdout(&local), "the image and the binary print different streams");

    let docs = documents(&stdout(&out));
    let ids = of_kind(&docs, "ClusterSPIFFEID");
    assert_eq!(ids.len(), 1, "{}", describe(&out));
    assert!(
        ids[0]["spec"]["spiffeIDTemplate"]
            .as_str()
            .unwrap_or_default()
            .starts_with("spiffe://prod.example.org/"),
        "{}",
        describe(&out)
    );
    assert_eq!(snapshot(&tmp.join("repo")), before, "the read-only checkout changed");
}
