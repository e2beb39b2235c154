import { Writable } from 'node:stream';
import pino from 'pino';
import { createJobQueues, type JobQueues } from '../../shared/platform/queues';
import { randomUUID } from 'node:crypto';
import { createTenant, startTestApp, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';
import { envelope, importedAccount, payment } from '../transactions/transactions.fixture';
import { transactionImportJob } from '../../shared/transactions/transaction.job';
import { REQUEST_QUEUES } from '../../shared/catalog/jobs';

const CUSTOMER_TEXT = 'Mrs Example arrears';

describe('a failing job', () => {
  let app: TestApp;
  let queues: JobQueues;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    app = await startTestApp({}, { workers: true, logger: pino({ level: 'info' }, sink) });
    queues = createJobQueues(app.config, REQUEST_QUEUES);
  });
  afterAll(async () => {
    await queues.close();
    await app.close();
  });

  it('keeps no customer text in its failed reason, stack trace or log lines, only the error class and code', async () => {
    // PostgreSQL quotes a value it cannot store in its error message: here a customer's text where the
    // account id belongs, in an otherwise valid job with its pending result row.
    const tenant = await createTenant(app);
    const account = await importedAccount(app, tenant);
    const organisationId = tenant.report.organisations[0]!.id;
    const requestId = randomUUID();
    await app.db.prisma.requestResult.create({
      data: { id: requestId, organisationId, endpoint: 'transactions', bodyHash: 'test' },
    });
    const data = {
      requestId,
      organisationId,
      accountId: CUSTOMER_TEXT,
      payload: { options: {}, request: envelope(tenant, account, [payment('T-1')]) },
    };
    const job = await queues.queue(transactionImportJob.queue).add(transactionImportJob.name, data, { attempts: 1 });
    const failed = await until('the job to fail', async () => {
      // The job is read after its state says failed: a copy read before could lack the failed reason.
      const queue = queues.queue(transactionImportJob.queue);
      if ((await queue.getJobState(job.id!)) !== 'failed') return undefined;
      return queue.getJob(job.id!);
    });
    expect(failed.failedReason).toMatch(/^[A-Za-z]+ in the job( \([A-Za-z0-9_.-]+\))?$/);
    expect(JSON.stringify(failed.stacktrace)).not.toContain(CUSTOMER_TEXT);
    const attemptLine = await until('the failed attempt log line', () =>
      lines.find((l) => l.includes('job attempt failed')),
    );
    expect(attemptLine).toContain(failed.failedReason);
    expect(lines.join('\n')).not.toContain(CUSTOMER_TEXT);
  });
});
