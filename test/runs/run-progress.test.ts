// Progress the service knows: a run declares what it sends (POST runs/<run_id>/declaration/), and GET
// runs/<run_id>/ and the support page's run page show its percent done, rate and ETA from the ledger.
// Declarations are the organisation's own, checked and bounded.
import { createTenant, request, type Tenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { signedIn, type StaffClient, startStaffApp, type StaffTestApp } from '../staff/staff-app';
import { transactionImportJob } from '../../shared/transactions/transaction.job';

describe('a run declaration and the progress it gives', () => {
  let app: StaffTestApp;
  let support: StaffClient;
  let tenant: Tenant;
  const runId = `notes-${uniqueSuffix()}`;

  const declare = (body: unknown, id = runId, token = tenant.token) =>
    request(app.baseUrl, 'POST', `/v1/data-import/runs/${encodeURIComponent(id)}/declaration/`, { token, body });
  const getRun = (token = tenant.token) =>
    request(app.baseUrl, 'GET', `/v1/data-import/runs/${encodeURIComponent(runId)}/`, { token });

  beforeAll(async () => {
    app = await startStaffApp();
    support = (await signedIn(app, 'support')).client;
    tenant = await createTenant(app.asTestApp(), {
      accounts: [{ external_account_number: 'ACC-1', state: 'imported' }],
    });
  });
  afterAll(() => app.close());

  it('shows percent done, rate and ETA of a declared run in GET runs/<run_id>/ and on the support page', async () => {
    const declared = await declare({ kind: 'notes', items: 10, files: [{ name: 'notes.ndjson', lines: 10 }] });
    expect(declared.status).toBe(200);
    expect(declared.body).toMatchObject({ run_id: runId, kind: 'notes', items: 10 });
    const written = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
      token: tenant.token,
      headers: { 'data-import-run-id': runId },
      body: {
        import_supplier: tenant.supplier,
        external_account_number: 'ACC-1',
        notes: [{ body: 'one' }, { body: 'two' }],
      },
    });
    expect(written.status).toBe(201);
    await until('the notes recorded', async () =>
      (await app.db.prisma.runLedgerEntry.count({ where: { runId } })) > 0 ? true : undefined,
    );

    const run = await getRun();
    expect(run.status).toBe(200);
    expect(run.body.progress).toMatchObject({
      declared: { kind: 'notes', items: 10, files: [{ name: 'notes.ndjson', lines: 10 }] },
      items_done: 2,
      percent: 20,
    });
    const { rate_per_second: rate, eta_seconds: eta } = run.body.progress;
    // Known once time has passed between the declaration and the write; then consistent with each other.
    if (rate !== null) expect(eta).toBe(Math.ceil(8 / rate));

    const supplierPage = await support.get(`/support/suppliers/${tenant.supplier}/`);
    const href = new RegExp(`<a href="([^"]+)">${runId}</a>`).exec(supplierPage.text)![1]!;
    const page = await support.get(href);
    expect(page.text).toMatch(/<dt>Progress<\/dt><dd>2 of 10 notes items \(20%\)/);
  });

  it("links a queued job on the dashboard to its run's progress", async () => {
    const operator = (await signedIn(app, 'operator')).client;
    const { organisationId } = await app.db.prisma.runLedgerEntry.findFirstOrThrow({ where: { runId } });
    const queue = app.queues.queue(transactionImportJob.queue);
    const job = await queue.add(transactionImportJob.name, {
      resultId: `req-${uniqueSuffix()}`,
      runId,
      organisationId,
      accountId: 1,
      payload: {},
    });
    try {
      const shown = await operator.get(`/admin/queues/api/queues/${transactionImportJob.queue}/${job.id}`);
      const link = JSON.parse(shown.text).job.data.runProgress as string;
      expect(link).toBe(`/support/runs/${organisationId}/${runId}/`);
      const followed = await support.get(link);
      expect(followed.status).toBe(303);
      const page = await support.get(followed.headers.get('location')!);
      expect(page.text).toMatch(/<dt>Progress<\/dt><dd>2 of \d+ notes items/);
      expect((await support.get(`/support/runs/${organisationId}/unknown-run/`)).status).toBe(404);
    } finally {
      await job.remove();
    }
  });

  it('declares again on resume, keeping the start; refuses a bad declaration; shows nothing to another organisation', async () => {
    const first = await app.db.prisma.runDeclaration.findFirstOrThrow({ where: { runId } });
    const again = await declare({ kind: 'notes', items: 12, files: [{ name: 'notes.ndjson', lines: 12 }] });
    expect(again.status).toBe(200);
    const second = await app.db.prisma.runDeclaration.findFirstOrThrow({ where: { runId } });
    expect(second.items).toBe(12);
    expect(second.declaredAt).toEqual(first.declaredAt);

    const bad = await declare({ kind: 'invoices', items: -1, files: [] }, `bad-${uniqueSuffix()}`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_input');
    const files = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, lines: 1 }));
    expect((await declare({ kind: 'notes', items: 1, files }, `many-${uniqueSuffix()}`)).status).toBe(400);
    expect((await declare({ kind: 'notes', items: 1, files: [] }, 'x'.repeat(65))).status).toBe(400);

    const other = await createTenant(app.asTestApp());
    expect((await getRun(other.token)).status).toBe(404);
    // Another organisation's declaration under the same run id is its own row, not a change to ours.
    expect((await declare({ kind: 'accounts', items: 1, files: [] }, runId, other.token)).status).toBe(200);
    expect((await getRun()).body.progress.declared).toMatchObject({ kind: 'notes', items: 12 });
  });
});
