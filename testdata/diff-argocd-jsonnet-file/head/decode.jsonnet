// HEAD adds a Jsonnet file that evaluates to a Deployment carrying the decode identity's
// labels. An Argo CD directory application evaluates every *.jsonnet file of its folder and
// applies what it gives (argoproj/argo-cd reposerver/repository/repository.go: the
// manifestFile pattern and findManifests, makeJsonnetVM(...).EvaluateFile; on by default,
// util/app/discovery/discovery.go IsManifestGenerationEnabled). The build evaluates no
// Jsonnet, so the file is a record of its own: may gain, naming the file.
local pod = { app: 'llama', 'identity.kleym.sonda.red/variant': 'decode' };
{
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'decode', namespace: 'serving' },
  spec: {
    selector: { matchLabels: pod },
    template: { metadata: { labels: pod }, spec: { serviceAccountName: 'llama', containers: [{ name: 'vllm', image: 'vllm' }] } },
  },
}
