import { Worker, type Job } from 'bullmq';
import { blockingConnection } from '../../shared/platform/queues';
import { REDACTED } from '../../shared/staff/job-redaction';
import { signedIn, StaffClient, startStaffApp, type StaffTestApp } from './staff-app';
import { transactionImportJob } from '../../shared/transactions/transaction.job';

const QUEUE = transactionImportJob.queue;
const API = `/admin/queues/api/queues/${QUEUE}`;
const CUSTOMER_TEXT = 'Mrs Example called about her arrears';

describe('what support staff see of failed jobs and of Redis on the queue board', () => {
  let app: StaffTestApp;
  let operator: StaffClient;
  let support: StaffClient;
  let job: Job;

  beforeAll(async () => {
    app = await startStaffApp();
    operator = (await signedIn(app, 'operator')).client;
    support = (await signedIn(app, 'support')).client;
    const queue = app.queues.queue(transactionImportJob.queue);
    job = await queue.add(transactionImportJob.name, { resultId: 'req-9' }, { attempts: 1 });
    // A failure whose message quotes customer text: the worst case the board must still hide.
    const worker = new Worker(
      QUEUE,
      async (j) => {
        await j.log(`processing ${CUSTOMER_TEXT}`);
        throw new Error(`could not store "${CUSTOMER_TEXT}"`);
      },
      { connection: blockingConnection(app.config), prefix: app.config.QUEUE_PREFIX },
    );
    await new Promise<void>((resolve) => worker.on('failed', (j) => j?.id === job.id && resolve()));
    await worker.close();
  });
  afterAll(() => app.close());

  it('shows support staff that a job failed, but not its reason, stack trace or options', async () => {
    const shown = JSON.parse((await support.get(`${API}/${job.id}`)).text).job;
    expect(shown.isFailed).toBe(true);
    expect(shown.failedReason).toBe(REDACTED);
    expect(shown.stacktrace.length).toBeGreaterThan(0);
    expect(shown.stacktrace.every((line: string) => line === REDACTED)).toBe(true);
    expect(shown.opts).toEqual({});
    const list = await support.get(`/admin/queues/api/queues?activeQueue=${QUEUE}&status=failed&page=1&jobsPerPage=50`);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(CUSTOMER_TEXT);
    expect(list.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('hides job log lines and Redis INFO text from support staff', async () => {
    const logs = await support.get(`${API}/${job.id}/logs`);
    expect(logs.status).toBe(200);
    expect(logs.text).not.toContain(CUSTOMER_TEXT);
    const stats = await support.get('/admin/queues/api/redis/stats');
    expect(stats.status).toBe(200);
    const body = JSON.parse(stats.text);
    expect(body.version).toBe(REDACTED);
    expect(stats.text).not.toMatch(/"os":"Linux/);
  });

  it('leaves operators the whole failure to diagnose it', async () => {
    const shown = JSON.parse((await operator.get(`${API}/${job.id}`)).text).job;
    expect(shown.failedReason).toContain(CUSTOMER_TEXT);
    expect(shown.opts.attempts).toBe(1);
  });
});
