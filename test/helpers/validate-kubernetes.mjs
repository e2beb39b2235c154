// Validates Kubernetes manifests against the API's JSON schemas with kubernetes-models (an ES module
// only, so the jest test runs this file in a Node process of its own): `node validate-kubernetes.mjs
// <file.yaml>…` prints one JSON line, an array of { file, kind, name, error } per document.
import { readFileSync } from 'node:fs';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

// The Kubernetes kinds the chart (deploy/helm/data-import) uses, by apiVersion and kind; any other is
// reported as unknown (the custom resources, KEDA's and prometheus-operator's, are checked by the test).
const MODELS = new Map(
  [
    ConfigMap,
    Secret,
    Service,
    ServiceAccount,
    Deployment,
    Job,
    PodDisruptionBudget,
    HorizontalPodAutoscaler,
    NetworkPolicy,
  ].map((m) => [`${m.apiVersion}/${m.kind}`, m]),
);

const results = [];
for (const file of process.argv.slice(2)) {
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const data = doc.toJS();
    const kind = data?.kind;
    const apiVersion = data?.apiVersion;
    let error = null;
    try {
      const Model = MODELS.get(`${apiVersion}/${kind}`);
      if (!Model) throw new Error(`no model for ${apiVersion} ${kind}`);
      new Model(data).validate();
    } catch (err) {
      error = String(err?.message ?? err).slice(0, 2000);
    }
    results.push({ file, kind, name: data?.metadata?.name, error });
  }
}
process.stdout.write(`${JSON.stringify(results)}\n`);
