//! The admission guard held to Kubernetes' own evaluation: `vap-oracle` (the folder
//! `RII_VAP_ORACLE` names, built with `go` into `target/vap-oracle`) runs the API server's
//! ValidatingAdmissionPolicy plugin offline, checks the guard's objects as the API server
//! checks them on create, and judges admission requests with them. Every cluster of
//! `testdata/conformance/guard.jsonl.gz` must get the verdict it expects for every request;
//! the guard of the benchmark shapes must stay within the API server's limits.

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// What a test that needs vap-oracle's source says when `RII_VAP_ORACLE` does not name it.
pub const MISSING: &str = "vap-oracle's source is missing: set RII_VAP_ORACLE to its folder (the one holding \
     main.go and go.mod; .ci/run sets it to ../shared/tools/vap-oracle)";

/// vap-oracle, built once per run from its source (seconds when Go's cache holds it, about
/// four minutes cold on two cores).
fn oracle() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let source = match std::env::var_os("RII_VAP_ORACLE").map(PathBuf::from) {
            Some(dir) if dir.join("main.go").is_file() && dir.join("go.mod").is_file() => dir,
            Some(dir) => panic!("{MISSING}; RII_VAP_ORACLE={} holds no main.go and go.mod", dir.display()),
            None => panic!("{MISSING}; RII_VAP_ORACLE is unset"),
        };
        let go = require_tool("go");
        let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/vap-oracle");
        std::fs::create_dir_all(&out_dir).expect("target/vap-oracle can be made");
        let binary = out_dir.join("vap-oracle");
        let out = Command::new(go)
            .current_dir(&source)
            .args(["build", "-o"])
            .arg(&binary)
            .arg(".")
            .output()
            .expect("go runs");
        assert!(out.status.success(), "building vap-oracle from {}:\n{}", source.display(), describe(&out));
        binary
    })
}

/// What vap-oracle said of one request.
struct Verdict {
    id: String,
    allowed: bool,
    as_expected: bool,
    message: String,
}

/// Runs vap-oracle on `policies` (files of the guard and namespaces) and `requests` (JSON
/// lines); panics, with what it said, when it refuses the policies as the API server would.
fn judge(policies: &[&Path], requests: &Path) -> Vec<Verdict> {
    let mut command = Command::new(oracle());
    for p in policies {
        command.arg("-policies").arg(p);
    }
    let out =
        command.arg("-requests").arg(requests).arg("-diagnose=false").output().expect("vap-oracle runs");
    assert_ne!(
        out.status.code(),
        Some(2),
        "vap-oracle refuses the guard as the API server would:\n{}",
        describe(&out)
    );
    stdout(&out)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a verdict is JSON");
            let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            Verdict {
                id: text("id"),
                allowed: v["allowed"] == true,
                as_expected: v["asExpected"] == true,
                message: if v["message"].is_string() { text("message") } else { text("error") },
            }
        })
        .collect()
}

/// The guard's objects of a rendered stream, as a stream of JSON documents.
fn guard_of(rendered: &str) -> (String, Vec<Value>) {
    let objects: Vec<Value> = documents(rendered)
        .into_iter()
        .filter(|d| d.pointer("/metadata/annotations/kleym.sonda.red~1admission-guard").is_some())
        .collect();
    let text = objects.iter().map(|o| o.to_string()).collect::<Vec<_>>().join("\n---\n");
    (text, objects)
}

#[test]
fn every_request_of_the_conformance_clusters_gets_kubernetes_own_verdict() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/conformance/guard.jsonl.gz");
    let file = std::fs::File::open(&data).expect("the guard's conformance data is there");
    let lines = std::io::BufRead::lines(std::io::BufReader::new(flate2::read::GzDecoder::new(file)));
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut clusters = 0;
    for line in lines {
        let case: Value = serde_json::from_str(&line.expect("a line")).expect("a cluster is JSON");
        let name = case["case"].as_str().expect("a case name").to_string();
        let dir = TempDir::new(&format!("guard-{name}"));
        let package = dir.join("pkg");
        for (path, text) in case["package"].as_object().expect("a package") {
            write(&package.join(path), text.as_str().expect("a file's text"));
        }
        let out = Command::new(BIN)
            .args(["render", "--trust-domain", "example.org", "--admission-guard"])
            .arg(&package)
            .output()
            .expect("the function runs");
        assert_success(&out);
        let (guard, objects) = guard_of(&stdout(&out));
        assert!(objects.len() >= 3, "{name}: the guard has a policy, a binding and parameters");
        let guard_file = dir.write("guard.yaml", &guard);
        let mut classes = BTreeMap::new();
        let requests: Vec<String> = case["requests"]
            .as_array()
            .expect("requests")
            .iter()
            .map(|r| {
                let mut r = r.clone();
                let class = r.as_object_mut().unwrap().remove("class").expect("a class");
                classes.insert(r["id"].as_str().unwrap().to_string(), (class, r["note"].clone()));
                r.to_string()
            })
            .collect();
        let requests_file = dir.write("requests.jsonl", &(requests.join("\n") + "\n"));
        let verdicts = judge(&[&guard_file, &package.join("namespaces.yaml")], &requests_file);
        assert_eq!(verdicts.len(), requests.len(), "{name}: a verdict per request");
        for v in verdicts {
            let (class, note) = &classes[&v.id];
            let class = class.as_str().unwrap_or_default().to_string();
            let tally = counts.entry(class.clone()).or_default();
            if v.as_expected {
                tally.0 += 1;
            } else {
                tally.1 += 1;
                let got = if v.allowed { "allowed" } else { "denied" };
                failures.push(format!(
                    "{name} {} ({class}): {got}, expected otherwise: {note}; {}",
                    v.id, v.message
                ));
            }
        }
        clusters += 1;
    }
    println!("admission guard conformance: {clusters} clusters");
    for (class, (ok, failed)) in &counts {
        println!("  {class:<32} {ok:>5} as expected, {failed} not");
    }
    let total: usize = counts.values().map(|(ok, failed)| ok + failed).sum();
    assert_eq!((clusters, total), (50, 4771), "the conformance data holds 50 clusters and 4,771 requests");
    assert!(failures.is_empty(), "{} verdict(s) differ:\n{}", failures.len(), failures.join("\n"));
}

/// The API server's limit on an object, encoded (etcd's request limit).
const LARGEST_OBJECT: usize = 1536 * 1024;
/// The API server's limit on a ConfigMap's data (`MaxSecretSize`).
const LARGEST_CONFIG_MAP: usize = 1024 * 1024;

/// `list` (a ResourceList) with the guard on.
fn with_guard(list: &str) -> String {
    replace_once(
        list,
        "    trustDomain: example.org\n",
        "    trustDomain: example.org\n    admissionGuard: {}\n",
    )
}

/// `bindings` bindings in one namespace, each of its own pool, service account and
/// Deployment (one pool of them all would have each identity's object select every pod).
fn one_namespace(bindings: usize) -> String {
    let mut out = String::from(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: fn.kleym.sonda.red/v1alpha1\n  kind: RenderInferenceIdentity\n  metadata:\n    name: one-namespace\n  spec:\n    trustDomain: example.org\n    transitionTime: \"2026-01-01T00:00:00Z\"\nitems:\n",
    );
    for i in 0..bindings {
        let m = format!("model-{i:05}");
        out.push_str(&format!(
            "- apiVersion: inference.networking.k8s.io/v1\n  kind: InferencePool\n  metadata: {{name: {m}, namespace: serving}}\n  spec:\n    selector: {{matchLabels: {{app: {m}, inference.example.org/tier: gpu}}}}\n    targetPorts: [{{number: 8000}}]\n\
             - apiVersion: kleym.sonda.red/v1alpha1\n  kind: InferenceIdentityBinding\n  metadata: {{name: {m}, namespace: serving}}\n  spec: {{poolRef: {{name: {m}}}, serviceAccountName: {m}, identityBoundary: {{variant: main}}}}\n\
             - apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: {m}-server, namespace: serving}}\n  spec:\n    selector: {{matchLabels: {{app: {m}}}}}\n    template:\n      metadata: {{labels: {{app: {m}, inference.example.org/tier: gpu, identity.kleym.sonda.red/variant: main}}}}\n      spec: {{serviceAccountName: {m}, containers: [{{name: vllm, image: vllm/vllm-openai:v0.10.1}}]}}\n"
        ));
    }
    out
}

/// Requests for a few Deployments of the guard's parameters: a pod replicaset-controller
/// makes for one (allowed), and the same pod as a bare pod of someone outside review (denied).
fn requests_for(objects: &[Value], per_config_map: usize) -> Vec<Value> {
    let mut requests = Vec::new();
    let params: Vec<&Value> = objects.iter().filter(|o| o["kind"] == "ConfigMap").collect();
    let picked = [params.first(), params.get(params.len() / 2), params.last()];
    for cm in picked.into_iter().flatten() {
        let ns = cm["metadata"]["labels"]["kleym.sonda.red/binding-namespace"].as_str().unwrap();
        let data = cm["data"].as_object().unwrap();
        let deployments = data.iter().filter(|(k, _)| k.starts_with("Deployment.")).take(per_config_map);
        for (key, ids) in deployments {
            let id = ids.as_str().unwrap().lines().next().unwrap();
            let (identity, entry) = data
                .iter()
                .find(|(k, v)| {
                    k.starts_with("identity.") && v.as_str().unwrap().starts_with(&format!("{id}\n"))
                })
                .expect("the identity of a Deployment stands beside it");
            let (account, variant) = identity["identity.".len()..].split_once('_').unwrap();
            let mut labels = serde_json::Map::new();
            for line in entry.as_str().unwrap().lines().skip(1) {
                let (k, v) = line.split_once('=').unwrap();
                labels.insert(k.into(), v.into());
            }
            labels.insert("identity.kleym.sonda.red/variant".into(), variant.into());
            let deployment = &key["Deployment.".len()..];
            let owner = format!("{deployment}-7b9f5d4c8d");
            let pod = |owned: bool| {
                let mut metadata = serde_json::json!({"generateName": format!("{owner}-"), "namespace": ns, "labels": labels});
                if owned {
                    metadata["ownerReferences"] = serde_json::json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner, "uid": "u", "controller": true}]);
                }
                serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
                    "spec": {"serviceAccountName": account, "containers": [{"name": "c", "image": "i"}]}})
            };
            let user = |name: &str| serde_json::json!({"username": name, "groups": ["system:authenticated"]});
            requests.push(serde_json::json!({"id": format!("{ns}/{deployment} replicaset-controller"), "expect": "allow",
                "operation": "CREATE", "userInfo": user("system:serviceaccount:kube-system:replicaset-controller"), "object": pod(true)}));
            requests.push(serde_json::json!({"id": format!("{ns}/{deployment} bare pod"), "expect": "deny",
                "operation": "CREATE", "userInfo": user("mallory"), "object": pod(false)}));
        }
    }
    requests
}

#[test]
fn the_guard_of_the_benchmark_shapes_stays_within_the_api_servers_limits() {
    for (shape, list, at_least) in [
        ("10,000 bindings over 500 namespaces", crate::synthetic::resource_list(10_000, false), 1001),
        (
            "one chart in 2,000 namespaces",
            crate::synthetic::shaped(2_000, crate::synthetic::Shape::SharedLabels),
            4001,
        ),
        // Its parameters pass a ConfigMap's limit: cut into several, each with its binding.
        ("10,000 bindings in one namespace", one_namespace(10_000), 1 + 2 * 5),
    ] {
        let out = krm(&with_guard(&list), &Default::default());
        assert_eq!(out.exit_code, 0, "{shape}: {}", out.stderr);
        let items: Value = documents(&out.stdout).remove(0);
        let objects: Vec<Value> = items["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d.pointer("/metadata/annotations/kleym.sonda.red~1admission-guard").is_some())
            .cloned()
            .collect();
        assert!(objects.len() >= at_least, "{shape}: {} guard objects", objects.len());
        for o in &objects {
            let size = o.to_string().len();
            assert!(
                size < LARGEST_OBJECT,
                "{shape}: {} {} is {size} bytes",
                o["kind"],
                o["metadata"]["name"]
            );
            if let Some(data) = o["data"].as_object() {
                let bytes: usize = data.iter().map(|(k, v)| k.len() + v.as_str().unwrap().len()).sum();
                assert!(
                    bytes <= LARGEST_CONFIG_MAP,
                    "{shape}: ConfigMap {} holds {bytes} bytes",
                    o["metadata"]["name"]
                );
            }
        }
        let dir = TempDir::new("guard-scale");
        let text = objects.iter().map(Value::to_string).collect::<Vec<_>>().join("\n---\n");
        let guard = dir.write("guard.yaml", &text);
        let requests = requests_for(&objects, 3);
        let lines: Vec<String> = requests.iter().map(Value::to_string).collect();
        let requests_file = dir.write("requests.jsonl", &(lines.join("\n") + "\n"));
        let verdicts = judge(&[&guard], &requests_file);
        assert_eq!(verdicts.len(), requests.len(), "{shape}");
        for v in &verdicts {
            // A verdict the CEL cost limit or an error gave would carry no message of the guard's.
            assert!(v.as_expected, "{shape}: {}: {}", v.id, v.message);
            assert!(
                v.allowed || v.message.contains("would give its pods"),
                "{shape}: {}: {}",
                v.id,
                v.message
            );
        }
        println!("{shape}: {} guard objects, {} requests as expected", objects.len(), verdicts.len());
    }
}

/// The classes of requests of the threat model, as `testdata/conformance/guard.jsonl.gz`
/// names them.
const CLASSES: [&str; 27] = [
    "legit/applier-create",
    "legit/applier-update",
    "legit/user-apply",
    "legit/deployment-controller",
    "legit/replicaset-controller",
    "legit/statefulset-controller",
    "legit/job-controller",
    "legit/cronjob-controller",
    "legit/daemonset-controller",
    "legit/kubelet-status",
    "legit/scheduler-binding",
    "legit/scale",
    "legit/pod-update",
    "legit/no-identity",
    "legit/other-namespace",
    "legit/delete",
    "attack/bare-pod",
    "attack/forged-owner",
    "attack/foreign-workload",
    "attack/foreign-owner",
    "attack/pod-label-gain",
    "attack/pod-variant-switch",
    "attack/pod-status-labels",
    "attack/git-workload-switch",
    "attack/git-workload-gain",
    "attack/ephemeral-container",
    "attack/pod-image-swap",
];

/// The golden case `testdata/guard-classes`: its rendered guard (`expected.yaml`, which the
/// golden tests hold to the render) gives each request of `requests.jsonl` its verdict, a
/// request of every class among them, and of the LeaderWorkerSet, Argo Rollouts and KServe
/// (LLMInferenceService and InferenceService) controllers too.
#[test]
fn the_golden_guard_gives_a_request_of_every_class_its_verdict() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/guard-classes");
    let (guard, _) = guard_of(&read(&case.join("expected.yaml")));
    let dir = TempDir::new("guard-classes");
    let guard_file = dir.write("guard.yaml", &guard);
    let mut classes = BTreeMap::new();
    let lines: Vec<String> = read(&case.join("requests.jsonl"))
        .lines()
        .map(|line| {
            let mut r: Value = serde_json::from_str(line).expect("a request is JSON");
            let class = r.as_object_mut().unwrap().remove("class").expect("a class");
            classes.insert(r["id"].as_str().unwrap().to_string(), (class, r["note"].clone()));
            r.to_string()
        })
        .collect();
    let requests = dir.write("requests.jsonl", &(lines.join("\n") + "\n"));
    let verdicts = judge(&[&guard_file], &requests);
    assert_eq!(verdicts.len(), lines.len());
    let failures: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.as_expected)
        .map(|v| format!("{} {:?}: {}", v.id, classes[&v.id], v.message))
        .collect();
    assert!(failures.is_empty(), "verdicts differ:\n{}", failures.join("\n"));
    for class in CLASSES {
        assert!(classes.values().any(|(c, _)| c == class), "no request of {class}");
    }
    for controller in ["leaderworkerset", "argo-rollouts", "llmisvc", "kserve"] {
        let class = format!("legit/{controller}-controller");
        assert!(classes.values().any(|(c, _)| *c == class), "no request of {class}");
    }
}
