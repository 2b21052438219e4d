//! Synthetic inputs for benchmarks: N bindings spread over 500 namespaces, N pools, 2N
//! Deployments whose pods each binding's identity reaches; in the worst case every binding
//! shares one namespace, service account and variant (all conflict); in the first-run shape
//! the pods do not carry the variant label yet (every binding gets a NoMatchingWorkload) and
//! their containers take flow-list `args`, as real model servers do; in the shared-labels
//! shape every binding has a namespace of its own, all holding the same chart (the same pool
//! labels, names and service account), as a chart deployed to many namespaces is. As one
//! ResourceList, or as manifest files for `render`.

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

/// The shapes of input.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Bindings over 500 namespaces, each reaching its pods.
    Normal,
    /// Every binding in one namespace, service account and variant: all conflict.
    Worst,
    /// The pods carry no variant label yet; containers take flow-list `args`.
    FirstRun,
    /// A namespace per binding, each with the same pool labels, names and service account.
    SharedLabels,
}

/// Writes a ResourceList with `bindings` bindings as YAML text.
pub fn resource_list(bindings: usize, worst_case: bool) -> String {
    shaped(bindings, if worst_case { Shape::Worst } else { Shape::Normal })
}

/// Writes a ResourceList of `shape` with `bindings` bindings as YAML text.
pub fn shaped(bindings: usize, shape: Shape) -> String {
    let (worst_case, first_run, shared) =
        (shape == Shape::Worst, shape == Shape::FirstRun, shape == Shape::SharedLabels);
    let mut out = String::with_capacity(bindings * 2000);
    out.push_str(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: fn.kleym.sonda.red/v1alpha1\n  kind: RenderInferenceIdentity\n  metadata:\n    name: bench\n  spec:\n    trustDomain: example.org\n    transitionTime: \"2026-01-01T00:00:00Z\"\nitems:\n",
    );
    for i in 0..bindings {
        let ns = match shape {
            Shape::Worst => 0,
            Shape::SharedLabels => i,
            _ => i % NAMESPACES,
        };
        let (sa, variant) = if worst_case || shared {
            ("model".to_string(), if shared { "prefill" } else { "decode" })
        } else {
            (format!("model-{i}"), if i % 2 == 0 { "prefill" } else { "decode" })
        };
        // What is named per binding: the same in every namespace for the shared chart.
        let m = if shared { String::new() } else { format!("-{i}") };
        let file = format!("ns-{ns}/model-{i}.yaml");
        write!(
            out,
            "- apiVersion: inference.networking.k8s.io/v1
  kind: InferencePool
  metadata:
    name: pool{m}
    namespace: ns-{ns}
    annotations:
      internal.config.kubernetes.io/path: {file}
      internal.config.kubernetes.io/index: '0'
  spec:
    selector:
      matchLabels:
        app: model{m}
        inference.example.org/tier: gpu
    targetPorts:
    - number: 8000
- apiVersion: kleym.sonda.red/v1alpha1
  kind: InferenceIdentityBinding
  metadata:
    name: binding{m}
    namespace: ns-{ns}
    annotations:
      internal.config.kubernetes.io/path: {file}
      internal.config.kubernetes.io/index: '1'
  spec:
    poolRef:
      name: pool{m}
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
    name: model{m}-{d}
    namespace: ns-{ns}
    labels:
      app: model{m}
      feature.example.org/enabled: \"on\"
    annotations:
      internal.config.kubernetes.io/path: {file}
      internal.config.kubernetes.io/index: '{index}'
  spec:
    replicas: 2
    selector:
      matchLabels:
        app: model{m}
    template:
      metadata:
        labels:
          app: model{m}
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
