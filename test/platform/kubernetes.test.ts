// deploy/helm/data-import checked without a cluster: the chart rendered as `helm template` would
// (test/helpers/render-chart.ts), every object validated against the Kubernetes API's schemas
// (kubernetes-models), and the objects agreeing with each other and with the service (labels and
// selectors, settings, probe paths, ports, the shutdown budget). Pod security, NetworkPolicies, the
// migration hook, autoscaling and monitoring: test/platform/kubernetes-policies.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigSchema } from '../../shared/platform/config';
import { processMetrics } from '../../shared/platform/metrics';
import { startMetricsServer } from '../../worker/metrics-server';
import { request, startTestApp } from '../helpers/app';
import { chartValues, renderChart, type Obj } from '../helpers/render-chart';

const ROOT = path.join(__dirname, '../..');
const VALIDATOR = path.join(__dirname, '../helpers/validate-kubernetes.mjs');
// Rendered with the trial Secrets, so that every setting the pods get can be read.
const rendered = renderChart(chartValues({ secrets: { create: true } }));
const objects: Obj[] = rendered.flatMap((f) => f.objects);
/** Custom resources (KEDA, prometheus-operator): kubernetes-models has no schema for them. */
const CUSTOM = new Set(['ScaledObject', 'PrometheusRule']);
const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => {
  const found = ofKind(kind).find((o) => o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const configMap = named('ConfigMap', 'data-import-config');
const secret = named('Secret', 'data-import-secrets');
const api = named('Deployment', 'data-import-api');
const worker = named('Deployment', 'data-import-worker');
const container = (d: Obj) => d.spec.template.spec.containers[0] as Obj;
/** What the container's process sees: its env, then everything its envFrom sources hold. */
function environment(c: Obj): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const source = from.configMapRef
      ? named('ConfigMap', from.configMapRef.name)
      : named('Secret', from.secretRef.name);
    Object.assign(env, source.data ?? source.stringData);
  }
  for (const e of c.env ?? []) env[e.name] = e.value ?? `<${JSON.stringify(e.valueFrom)}>`;
  return env;
}
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

function validate(paths: string[]): { file: string; kind: string; name: string; error: string | null }[] {
  return JSON.parse(execFileSync(process.execPath, [VALIDATOR, ...paths], { cwd: ROOT, encoding: 'utf8' }));
}

describe('deploy/helm/data-import', () => {
  it("renders every template with the chart's values, and refuses to render without them", () => {
    expect(rendered.map((f) => f.template)).toContain('migrate-job.yaml');
    expect(rendered.every((f) => !f.text.includes('{{ .Values'))).toBe(true);
    expect(() => renderChart({})).toThrow(/\.Values\.\S+ is not set/);
  });

  it("validates every object against the Kubernetes API's schemas, and the validator refuses a wrong one", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'k8s-'));
    const files = rendered.map((f) => {
      const file = path.join(dir, f.template);
      writeFileSync(file, f.text);
      return file;
    });
    const results = validate(files).filter((r) => !CUSTOM.has(r.kind));
    expect(results.length).toBe(objects.filter((o) => !CUSTOM.has(o.kind)).length);
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(new Set(results.map((r) => r.kind))).toEqual(
      new Set([
        'ConfigMap',
        'Secret',
        'ServiceAccount',
        'Job',
        'Deployment',
        'Service',
        'PodDisruptionBudget',
        'HorizontalPodAutoscaler',
        'NetworkPolicy',
      ]),
    );
    const broken = structuredClone(api);
    container(broken).ports[0].containerPort = 'eight thousand';
    const file = path.join(dir, 'broken.yaml');
    writeFileSync(file, JSON.stringify(broken));
    expect(validate([file])[0]!.error).toMatch(/containerPort must be integer/);
  });

  it('selects its own pods: Deployments, Services, disruption budgets and the autoscaler agree on labels', () => {
    for (const d of ofKind('Deployment'))
      expect(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    const deploymentOf = (selector: Record<string, string>) =>
      ofKind('Deployment').filter((d) => matches(selector, d.spec.template.metadata.labels));
    for (const s of [...ofKind('Service'), ...ofKind('PodDisruptionBudget')]) {
      const selector = s.spec.selector.matchLabels ?? s.spec.selector;
      expect({ name: s.metadata.name, selects: deploymentOf(selector).length }).toEqual({
        name: s.metadata.name,
        selects: 1,
      });
    }
    expect(deploymentOf(named('Service', 'data-import-api').spec.selector)).toEqual([api]);
    expect(
      ofKind('PodDisruptionBudget')
        .map((p) => deploymentOf(p.spec.selector.matchLabels)[0]?.metadata.name)
        .sort(),
    ).toEqual(['data-import-api', 'data-import-worker']);
    const hpa = named('HorizontalPodAutoscaler', 'data-import-api');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'data-import-api' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it('sets only settings config.ts knows, and the Deployments never migrate', () => {
    const known = new Set(Object.keys(ConfigSchema.shape));
    const given = [
      ...Object.keys(configMap.data),
      ...Object.keys(secret.stringData),
      ...ofKind('Deployment').flatMap((d) => (container(d).env ?? []).map((e: Obj) => e.name as string)),
      ...ofKind('Job').flatMap((j) => j.spec.template.spec.containers[0].env.map((e: Obj) => e.name as string)),
    ];
    expect(given.filter((name) => !known.has(name))).toEqual([]);
    for (const d of [api, worker]) expect(environment(container(d)).MIGRATE_ON_START).toBe('false');
    // The connection budget counts the most replicas the autoscalers may run, and a rolling update's surge.
    expect(Number(configMap.data.DEPLOYMENT_REPLICAS)).toBe(
      named('HorizontalPodAutoscaler', 'data-import-api').spec.maxReplicas,
    );
    expect(Number(configMap.data.WORKER_REPLICAS)).toBe(
      named('ScaledObject', 'data-import-worker').spec.maxReplicaCount,
    );
    for (const d of [api, worker])
      expect(d.spec.strategy.rollingUpdate.maxSurge).toBe(Number(configMap.data.DEPLOYMENT_SURGE));
    // (secret.yaml holds placeholders, shorter than the secrets a deployment puts there.)
    const secrets = { TOKEN_SECRET: 's'.repeat(32), SESSION_SECRET: 's'.repeat(32), METRICS_TOKEN: 'm'.repeat(16) };
    for (const d of [api, worker]) {
      expect(ConfigSchema.safeParse({ ...environment(container(d)), ...secrets }).error).toBeUndefined();
    }
    const job = named('Job', 'data-import-migrate');
    expect(job.spec.template.spec.containers[0].command).toEqual(['node', 'dist/prisma/migrate.js']);
    expect(readFileSync(path.join(ROOT, 'prisma/migrate.ts'), 'utf8')).toContain('if (require.main === module)');
    // The owner role's URL reaches the Job only.
    expect(job.spec.template.spec.containers[0].env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'data-import-migration', key: 'DATABASE_URL' } },
    });
    for (const d of [api, worker]) expect(JSON.stringify(container(d).envFrom)).not.toContain('data-import-migration');
  });

  it('agrees on ports: listeners, named container ports, Services and probes', () => {
    const apiEnv = environment(container(api));
    const workerEnv = environment(container(worker));
    const portOf = (c: Obj, name: string) => c.ports.find((p: Obj) => p.name === name)?.containerPort as number;
    expect(portOf(container(api), 'http')).toBe(Number(apiEnv.PORT));
    expect(portOf(container(api), 'staff')).toBe(Number(apiEnv.STAFF_PORT));
    expect(portOf(container(worker), 'metrics')).toBe(Number(workerEnv.WORKER_METRICS_PORT));
    for (const s of ofKind('Service')) {
      const [target] = ofKind('Deployment').filter((d) => matches(s.spec.selector, d.spec.template.metadata.labels));
      for (const p of s.spec.ports) expect(portOf(container(target!), p.targetPort)).toEqual(expect.any(Number));
    }
    for (const d of [api, worker]) {
      const c = container(d);
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'].flatMap((k) => (c[k] ? [c[k]] : [])))
        expect(portOf(c, probe.httpGet.port)).toEqual(expect.any(Number));
    }
  });

  it('fits the shutdown into the grace period, readiness noticing before the listener closes', () => {
    const env = environment(container(api));
    const delay = Number(env.SHUTDOWN_DELAY_MS);
    const drain = Number(env.SHUTDOWN_DRAIN_MS);
    const grace = (api.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    // 5 s are left for closing the pools and the process's exit.
    expect(delay + drain + 5_000).toBeLessThanOrEqual(grace);
    const readiness = container(api).readinessProbe;
    expect(readiness.periodSeconds * readiness.failureThreshold * 1000).toBeLessThanOrEqual(delay);
    for (const d of [api, worker]) {
      const { requests, limits } = container(d).resources;
      expect(Number.parseInt(limits.memory, 10)).toBeGreaterThan(Number.parseInt(requests.memory, 10));
    }
  });

  it('probes paths the processes answer 200 on', async () => {
    const app = await startTestApp({}, { workers: true });
    const metrics = await startMetricsServer(processMetrics(), 0, undefined, () => app.workers!.redisAnswers());
    try {
      const metricsBase = `http://127.0.0.1:${(metrics.address() as { port: number }).port}`;
      const probed = [
        ...['startupProbe', 'readinessProbe', 'livenessProbe'].map((k) => [app.baseUrl, container(api)[k]]),
        ...['startupProbe', 'livenessProbe'].map((k) => [metricsBase, container(worker)[k]]),
      ] as [string, Obj][];
      for (const [base, probe] of probed) {
        const res = await request(base, 'GET', probe.httpGet.path);
        expect({ path: probe.httpGet.path, status: res.status }).toEqual({ path: probe.httpGet.path, status: 200 });
      }
    } finally {
      await new Promise((resolve) => metrics.close(resolve));
      await app.close();
    }
  });
});
