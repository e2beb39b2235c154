// Validates Kubernetes manifests against the API's JSON schemas with kubernetes-models (an ES module
// only, so the jest test runs this file in a Node process of its own): `node validate-kubernetes.mjs
// <file.yaml>…` prints one JSON line, an array of { file, kind, name, error } per document.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const results = [];
for (const file of process.argv.slice(2)) {
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const data = doc.toJS();
    const kind = data?.kind;
    const apiVersion = data?.apiVersion;
    let error = null;
    try {
      // Core kinds live at kubernetes-models/v1/<Kind>, the others at kubernetes-models/<group>/<version>/<Kind>.
      const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
      new module[kind](data).validate();
    } catch (err) {
      error = String(err?.message ?? err).slice(0, 2000);
    }
    results.push({ file, kind, name: data?.metadata?.name, error });
  }
}
process.stdout.write(`${JSON.stringify(results)}\n`);
