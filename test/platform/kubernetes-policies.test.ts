// What a platform team's admission rules and reviews look for in deploy/helm/data-import, rendered
// as `helm template` would (test/helpers/render-chart.ts): Pod Security "restricted" fields, a
// ServiceAccount without a token, NetworkPolicies that open only what is needed, the migration as a
// hook ordered before the rollout, secrets out of the default install, proxy trust limited to a CIDR,
// spreading and probe tolerance, worker autoscaling on the BullMQ wait lists, and alerts and a
// dashboard naming only metrics the service exports.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { QUEUED_REQUEST_JOBS } from '../../shared/catalog/jobs';
import { ConfigSchema } from '../../shared/platform/config';
import { createMetrics } from '../../shared/platform/metrics';
import { parseTrustProxy } from '../../shared/platform/trust-proxy';
import { CHART, chartValues, renderChart, type Obj } from '../helpers/render-chart';

const objects = renderChart().flatMap((f) => f.objects);
const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => {
  const found = ofKind(kind).find((o) => o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const configMap = named('ConfigMap', 'data-import-config');
const api = named('Deployment', 'data-import-api');
const worker = named('Deployment', 'data-import-worker');
const job = named('Job', 'data-import-migrate');
const podTemplates: [string, Obj][] = [
  ['api', api.spec.template],
  ['worker', worker.spec.template],
  ['migrate', job.spec.template],
];
const policies = ofKind('NetworkPolicy');
const labelsOf = (template: Obj) => template.metadata.labels as Record<string, string>;

/** Whether a NetworkPolicy's podSelector selects pods with these labels. */
function selects(policy: Obj, labels: Record<string, string>): boolean {
  const { matchLabels = {}, matchExpressions = [] } = policy.spec.podSelector as Obj;
  return (
    Object.entries(matchLabels).every(([k, v]) => labels[k] === v) &&
    (matchExpressions as Obj[]).every((e) => e.operator === 'In' && (e.values as string[]).includes(labels[e.key]!))
  );
}
/** The ingress rules that let traffic reach a named container port of pods with these labels. */
const ingressTo = (labels: Record<string, string>, port: string) =>
  policies
    .filter((p) => selects(p, labels))
    .flatMap((p) => (p.spec.ingress ?? []) as Obj[])
    .filter((rule) => (rule.ports as Obj[]).some((p) => p.port === port));
const egressOf = (labels: Record<string, string>) =>
  policies.filter((p) => selects(p, labels)).flatMap((p) => (p.spec.egress ?? []) as Obj[]);
const namespacesOf = (rules: Obj[]) =>
  rules.flatMap((r) => (r.from as Obj[]).map((f) => f.namespaceSelector.matchLabels['kubernetes.io/metadata.name']));

describe('Pod Security "restricted" and the service account', () => {
  it.each(podTemplates)('%s pods run as non-root, seccomp RuntimeDefault, no escalation, no capabilities', (_n, t) => {
    const pod = t.spec.securityContext;
    expect(pod).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.runAsUser).toBeGreaterThan(0);
    for (const c of t.spec.containers as Obj[]) {
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.securityContext.capabilities.add).toBeUndefined();
      expect(c.securityContext.privileged).toBeUndefined();
    }
    expect(t.spec.hostNetwork ?? false).toBe(false);
    expect(t.spec.automountServiceAccountToken).toBe(false);
  });

  it('runs the Deployments under a ServiceAccount that mounts no token', () => {
    expect(named('ServiceAccount', 'data-import').automountServiceAccountToken).toBe(false);
    for (const d of [api, worker]) expect(d.spec.template.spec.serviceAccountName).toBe('data-import');
  });
});

describe('NetworkPolicies', () => {
  it('deny everything in and out of every pod of the release but what is listed', () => {
    const deny = named('NetworkPolicy', 'data-import-default-deny');
    expect(deny.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(deny.spec.ingress).toBeUndefined();
    expect(deny.spec.egress).toBeUndefined();
    for (const [, t] of podTemplates) expect(selects(deny, labelsOf(t))).toBe(true);
  });

  it('let the staff port in only from the staff namespace, and metrics only from monitoring', () => {
    const values = chartValues().networkPolicy;
    const apiLabels = labelsOf(api.spec.template);
    expect(namespacesOf(ingressTo(apiLabels, 'staff'))).toEqual([values.staffNamespace]);
    expect(namespacesOf(ingressTo(apiLabels, 'http')).sort()).toEqual(
      [values.ingressNamespace, values.monitoringNamespace].sort(),
    );
    expect(namespacesOf(ingressTo(labelsOf(worker.spec.template), 'metrics'))).toEqual([values.monitoringNamespace]);
    // Nothing reaches the migration Job, and every rule names where traffic may come from.
    expect(
      policies.filter((p) => selects(p, labelsOf(job.spec.template))).flatMap((p) => p.spec.ingress ?? []),
    ).toEqual([]);
    for (const rule of policies.flatMap((p) => (p.spec.ingress ?? []) as Obj[]))
      expect(rule.from.length).toBeGreaterThan(0);
  });

  it('let the pods out to DNS, PostgreSQL and Redis, and only the workers to the vendor over HTTPS', () => {
    const values = chartValues().networkPolicy;
    const ports = (labels: Record<string, string>) =>
      egressOf(labels).flatMap((r) => (r.ports as Obj[]).map((p) => `${p.protocol}/${p.port}`));
    const cidrs = (labels: Record<string, string>) =>
      egressOf(labels).flatMap((r) => (r.to as Obj[]).flatMap((t) => (t.ipBlock ? [t.ipBlock.cidr as string] : [])));
    expect(new Set(ports(labelsOf(api.spec.template)))).toEqual(
      new Set(['UDP/53', 'TCP/53', `TCP/${values.postgresPort}`, `TCP/${values.redisPort}`]),
    );
    expect(new Set(ports(labelsOf(worker.spec.template)))).toEqual(
      new Set(['UDP/53', 'TCP/53', `TCP/${values.postgresPort}`, `TCP/${values.redisPort}`, 'TCP/443']),
    );
    expect(new Set(ports(labelsOf(job.spec.template)))).toEqual(
      new Set(['UDP/53', 'TCP/53', `TCP/${values.postgresPort}`]),
    );
    expect(cidrs(labelsOf(api.spec.template)).sort()).toEqual([values.postgresCidr, values.redisCidr].sort());
    const vendor = named('NetworkPolicy', 'data-import-egress-vendor').spec.egress[0].to[0].ipBlock;
    expect(vendor.cidr).toBe('0.0.0.0/0');
    // Public addresses only: never the cluster's own networks or the cloud's metadata service.
    expect(vendor.except).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']),
    );
  });
});

describe('the migration hook', () => {
  it('is ordered before the rollout on install and upgrade, and re-created for every release', () => {
    expect(job.metadata.annotations).toEqual({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': '0',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    // Nothing it needs is installed after it: no ConfigMap or ServiceAccount, only the owner role's
    // Secret, which exists before the release (it is never the chart's by default).
    expect(JSON.stringify(job.spec.template.spec)).not.toMatch(/configMapRef|serviceAccountName/);
    expect(job.spec.template.spec.containers[0].env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'data-import-migration', key: 'DATABASE_URL' } },
    });
    // No other object is a hook, and the Deployments never migrate themselves.
    expect(objects.filter((o) => o !== job && o.metadata.annotations?.['helm.sh/hook'])).toEqual([]);
    expect(configMap.data.MIGRATE_ON_START).toBe('false');
  });

  it('leaves the Secrets out of the default install', () => {
    expect(ofKind('Secret')).toEqual([]);
    const trial = renderChart(chartValues({ secrets: { create: true } })).flatMap((f) => f.objects);
    expect(
      trial
        .filter((o) => o.kind === 'Secret')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['data-import-migration', 'data-import-secrets']);
  });
});

describe('proxy trust, spreading and probes', () => {
  it('trusts X-Forwarded-For from a configured CIDR only, never a whole address class', () => {
    const trust = configMap.data.TRUST_PROXY as string;
    expect(trust).toBe(chartValues().trustProxy);
    expect(trust).toMatch(/^[0-9a-f.:]+\/\d{1,3}$/);
    expect(['uniquelocal', 'loopback', 'linklocal', 'true'].some((w) => trust.includes(w))).toBe(false);
    expect(typeof parseTrustProxy(trust)).not.toBe('string');
  });

  it('spreads each Deployment over zones and nodes, selecting its own pods', () => {
    for (const d of [api, worker]) {
      const spread = d.spec.template.spec.topologySpreadConstraints as Obj[];
      expect(spread.map((s) => s.topologyKey).sort()).toEqual([
        'kubernetes.io/hostname',
        'topology.kubernetes.io/zone',
      ]);
      for (const s of spread) expect(s.labelSelector.matchLabels).toEqual(d.spec.selector.matchLabels);
    }
  });

  it('tolerates a slow readiness probe, and gives start-up longer than STARTUP_WAIT_MS', () => {
    const c = api.spec.template.spec.containers[0];
    expect(c.readinessProbe.failureThreshold).toBeGreaterThanOrEqual(3);
    const env = ConfigSchema.parse({ ...configMap.data, TOKEN_SECRET: 's'.repeat(32), SESSION_SECRET: 's'.repeat(32) });
    for (const d of [api, worker]) {
      const probe = d.spec.template.spec.containers[0].startupProbe;
      expect(probe.periodSeconds * probe.failureThreshold * 1000).toBeGreaterThan(env.STARTUP_WAIT_MS);
    }
  });
});

describe('worker autoscaling on queue depth', () => {
  it("scales the worker Deployment on every request queue's BullMQ wait list", () => {
    const scaled = named('ScaledObject', 'data-import-worker');
    expect(scaled.apiVersion).toBe('keda.sh/v1alpha1');
    expect(scaled.spec.scaleTargetRef).toEqual({ name: worker.metadata.name });
    const values = chartValues();
    expect([scaled.spec.minReplicaCount, scaled.spec.maxReplicaCount]).toEqual([
      values.worker.minReplicas,
      values.worker.maxReplicas,
    ]);
    // BullMQ keeps a queue's waiting jobs in the list <prefix>:<queue>:wait.
    const prefix = ConfigSchema.parse({}).QUEUE_PREFIX;
    expect(values.keda.queuePrefix).toBe(prefix);
    const queues = [...new Set(QUEUED_REQUEST_JOBS.map((j) => j.queue))];
    expect(scaled.spec.triggers.map((t: Obj) => [t.type, t.metadata.listName])).toEqual(
      queues.map((q) => ['redis', `${prefix}:${q}:wait`]),
    );
    for (const t of scaled.spec.triggers as Obj[]) expect(Number(t.metadata.listLength)).toBeGreaterThan(0);
  });
});

describe('monitoring', () => {
  const registry = createMetrics().registry;
  const exported = new Set(
    registry.getMetricsAsArray().flatMap((m) => {
      const type = String((m as { type?: unknown }).type);
      return type === 'histogram' ? [`${m.name}_bucket`, `${m.name}_count`, `${m.name}_sum`] : [m.name];
    }),
  );
  const PROMQL_WORDS = new Set(
    'sum rate increase max min avg count histogram_quantile by without and or unless on ignoring bool offset le'.split(
      ' ',
    ),
  );
  /** The metric names a PromQL expression reads (strings, label matchers, groupings and ranges left out). */
  function metricsOf(expr: string): string[] {
    const code = expr
      .replace(/"[^"]*"/g, '""')
      .replace(/\{[^}]*\}/g, '')
      .replace(/\[[^\]]*\]/g, '')
      .replace(/\b(by|without)\s*\([^)]*\)/g, '');
    return (code.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((w) => !PROMQL_WORDS.has(w));
  }
  /** Brackets, braces and quotes balanced: a cheap syntax check the parsers would also make. */
  function balanced(expr: string): boolean {
    const stack: string[] = [];
    const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
    for (const ch of expr.replace(/"[^"]*"/g, '')) {
      if ('([{'.includes(ch)) stack.push(ch);
      else if (ch in pairs && stack.pop() !== pairs[ch]) return false;
    }
    return stack.length === 0 && (expr.match(/"/g) ?? []).length % 2 === 0;
  }

  it('alerts on failed jobs, requests pending past their wait, an open breaker, database refusals and readiness flapping', () => {
    const rule = named('PrometheusRule', 'data-import');
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    const rules = (rule.spec.groups as Obj[]).flatMap((g) => g.rules as Obj[]);
    expect(rules.map((r) => r.alert)).toEqual([
      'DataImportFailedJobs',
      'DataImportRequestsPendingPastWait',
      'DataImportBreakerOpen',
      'DataImportDatabaseRefusals',
      'DataImportReadinessFlapping',
    ]);
    for (const r of rules) {
      expect({ alert: r.alert, balanced: balanced(r.expr) }).toEqual({ alert: r.alert, balanced: true });
      expect(metricsOf(r.expr).filter((m) => !exported.has(m))).toEqual([]);
      expect(metricsOf(r.expr).length).toBeGreaterThan(0);
      expect(r.labels.severity).toMatch(/^(warning|critical)$/);
    }
    // The database codes it counts are the ones the service answers.
    expect(rules[3]!.expr).toContain('database_unavailable');
  });

  it('ships a Grafana dashboard whose every panel reads metrics the service exports', () => {
    const dashboard = JSON.parse(readFileSync(path.join(CHART, 'dashboards/data-import.json'), 'utf8'));
    const inConfigMap = JSON.parse(named('ConfigMap', 'data-import-dashboard').data['data-import.json']);
    expect(inConfigMap).toEqual(dashboard);
    const exprs = (dashboard.panels as Obj[]).flatMap((p) => (p.targets as Obj[]).map((t) => t.expr as string));
    expect(exprs.length).toBeGreaterThanOrEqual(8);
    for (const expr of exprs) {
      expect({ expr, balanced: balanced(expr) }).toEqual({ expr, balanced: true });
      expect(metricsOf(expr).filter((m) => !exported.has(m))).toEqual([]);
    }
    // The metric-name check can fail: a name the service does not export is caught.
    expect(metricsOf('sum(rate(http_requests_totl[5m]))').filter((m) => !exported.has(m))).toEqual([
      'http_requests_totl',
    ]);
  });
});
