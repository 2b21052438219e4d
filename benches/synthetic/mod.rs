//! Synthetic inputs for benchmarks: N bindings spread over 500 namespaces, N pools, 2N
//! Deployments whose pods each binding's identity reaches; in the worst case every binding
//! shares one namespace, service account and variant (all conflict); in the first-run shape
//! the pods do not carry the variant label yet (every binding gets a NoMatchingWorkload) and
//! their containers take flow-list `args`, as real model servers do. As one ResourceList, or
//! as manifest files for `render`.

use std::fmt::Write;

/// How many namespaces the normal mode spreads bindings over.
const NAMESPACES: usize = 500;

/// The items as manifest files: `files` multi-document files of equal shares, by name.
#[allow(dead_code)] // each bench uses its own part
pub fn files(bindings: usize, worst_case: bool, files: usize) -> Vec<(String, String)> {
    let list = resource_list(bindings, worst_case);
    let body = list.split_once("\nitems:\n").expect("the generator writes items").1;
    let mut documents: Vec<String> = Vec::new();
    for line in body.lines() {
        if let Some(first) = line.strip_prefix("- ") {
            documents.push(format!("{first}\n"));
        } else if let Some(document) = documents.last_mut() {
            document.push_str(line.strip_prefix("  ").unwrap_or(line));
            document.push('\n');
        }
    }
    let per_file = documents.len().div_ceil(files);
    documents
        .chunks(per_file)
        .enumerate()
        .map(|(i, chunk)| (format!("part-{i:03}.yaml"), chunk.join("---\n")))
        .collect()
}

/// Writes a ResourceList with `bindings` bindings as YAML text.
pub fn resource_list(bindings: usize, worst_case: bool) -> String {
    shaped(bindings, worst_case, false)
}

/// The first run on a real repository: the pods carry no variant label yet, and their
/// containers take their arguments as a flow list.
#[allow(dead_code)] // each bench uses its own part
pub fn first_run(bindings: usize) -> String {
    shaped(bindings, false, true)
}

fn shaped(bindings: usize, worst_case: bool, first_run: bool) -> String {
    let mut out = String::with_capacity(bindings * 2000);
    out.push_str(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: fn.kleym.sonda.red/v1alpha1\n  kind: RenderInferenceIdentity\n  metadata:\n    name: bench\n  spec:\n    trustDomain: example.org\n    transitionTime: \"2026-01-01T00:00:00Z\"\nitems:\n",
    );
    for i in 0..bindings {
        let ns = if worst_case { 0 } else { i % NAMESPACES };
        let (sa, variant) = if worst_case {
            ("model".to_string(), "decode")
        } else {
            (format!("model-{i}"), if i % 2 == 0 { "prefill" } else { "decode" })
        };
        let file = format!("ns-{ns}/model-{i}.yaml");
        write!(
            out,
            "- apiVersion: inference.networking.k8s.io/v1
  kind: InferencePool
  metadata:
    name: pool-{i}
    namespace: ns-{ns}
    annotations:
      internal.config.kubernetes.io/path: {file}
      internal.config.kubernetes.io/index: '0'
  spec:
    selector:
      matchLabels:
        app: model-{i}
        inference.example.org/tier: gpu
    targetPorts:
    - number: 8000
- apiVersion: kleym.sonda.red/v1alpha1
  kind: InferenceIdentityBinding
  metadata:
    name: binding-{i}
    namespace: ns-{ns}
    annotations:
      internal.config.kubernetes.io/path: {file}
      internal.config.kubernetes.io/index: '1'
  spec:
    poolRef:
      name: pool-{i}
    serviceAccountName: {sa}
    identityBoundary:
      variant: {variant}
"
        )
        .unwrap();
        for d in 0..2 {
            write!(
                out,
                "- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: model-{i}-{d}
    namespace: ns-{ns}
    labels:
      app: model-{i}
      feature.example.org/enabled: \"on\"
    annotations:
      internal.config.kubernetes.io/path: {file}
      internal.config.kubernetes.io/index: '{index}'
  spec:
    replicas: 2
    selector:
      matchLabels:
        app: model-{i}
    template:
      metadata:
        labels:
          app: model-{i}
          inference.example.org/tier: gpu
{variant_label}      spec:
        serviceAccountName: {sa}
        containers:
        - name: server
          image: registry.example.org/vllm:0.6.{d}
{args}",
                index = d + 2,
                variant_label = if first_run {
                    String::new()
                } else {
                    format!("          identity.kleym.sonda.red/variant: {variant}\n")
                },
                args = if first_run {
                    "          args: [\"--model\", \"meta-llama/Llama-3.1-8B-Instruct\", \"--port\", \"8000\"]\n"
                } else {
                    ""
                },
            )
            .unwrap();
        }
    }
    out
}
