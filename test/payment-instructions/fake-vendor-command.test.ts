// `npm run fake-vendor`: the local stand-in for the payment vendor, started as a command with a file of
// known references, answers the service's own Stripe adapter as Stripe would: a known card's details,
// the refusals a references line asks for, Stripe's 404 for anything else, 401 for another key.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createStripeAdapter } from '../../shared/payment-instructions/vendors/stripe.adapter';
import { ValidationError } from '../../shared/platform/errors';
import { until } from '../helpers/until';

const ROOT = path.join(__dirname, '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'fake-vendor-'));

function startCommand(args: string[]): { child: ChildProcess; out: () => string; err: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fake-vendor.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return { child, out: () => out, err: () => err };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

async function refusalCode(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return (err as ValidationError).code;
}

describe('npm run fake-vendor', () => {
  it('serves the references file in Stripe wire format until SIGTERM', async () => {
    const refs = path.join(dir, 'refs.txt');
    writeFileSync(
      refs,
      [
        '# rehearsal references',
        'pm_rehearsal_1',
        '{"reference":"pm_expired","exp_year":2020}',
        '{"reference":"pm_detached","customer":null}',
        '{"reference":"pm_bank","type":"sepa_debit"}',
        '{"reference":"pm_owned","customer":"cus_Rehearsal1","last4":"1881"}',
        '',
      ].join('\n'),
    );
    const run = startCommand(['--references', refs, '--port', '0', '--secret-key', 'sk_test_rehearsal']);
    try {
      const url = await until('the serving line', () => /serving 5 references on (http:\S+)/.exec(run.out())?.[1]);
      // Written with the serving line, but a pipe may deliver the two in separate reads.
      await until('the settings line', () =>
        run.out().includes(`STRIPE_API_BASE=${url} STRIPE_SECRET_KEY=sk_test_rehearsal`) ? true : undefined,
      );
      const adapter = createStripeAdapter({
        STRIPE_API_BASE: url,
        STRIPE_SECRET_KEY: 'sk_test_rehearsal',
        VENDOR_TIMEOUT_MS: 5000,
      });
      expect(await adapter.fetchInstruction('pm_rehearsal_1', 'CARD', 5000)).toMatchObject({
        payment_method: 'pm_rehearsal_1',
        brand: 'visa',
        last4: '4242',
        customer: expect.stringMatching(/^cus_/),
      });
      expect(await adapter.fetchInstruction('pm_owned', 'CARD', 5000)).toMatchObject({
        customer: 'cus_Rehearsal1',
        last4: '1881',
      });
      expect(await refusalCode(adapter.fetchInstruction('pm_expired', 'CARD', 5000))).toBe(
        'payment_method_card_expired',
      );
      expect(await refusalCode(adapter.fetchInstruction('pm_detached', 'CARD', 5000))).toBe(
        'payment_method_not_attached',
      );
      expect(await refusalCode(adapter.fetchInstruction('pm_bank', 'CARD', 5000))).toBe('payment_method_not_a_card');
      expect(await refusalCode(adapter.fetchInstruction('pm_unknown', 'CARD', 5000))).toBe(
        'payment_instruction_not_found_at_vendor',
      );
      const wrongKey = createStripeAdapter({
        STRIPE_API_BASE: url,
        STRIPE_SECRET_KEY: 'sk_test_other',
        VENDOR_TIMEOUT_MS: 5000,
      });
      await expect(wrongKey.fetchInstruction('pm_rehearsal_1', 'CARD', 5000)).rejects.toMatchObject({
        code: 'vendor_unavailable',
      });
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await exited(run.child)).toBe(0);
  });

  it.each([
    ['a reference that is not a PaymentMethod id', 'pm_ok\ncard_1234\n', /refs-bad\.txt:2: .*not a PaymentMethod id/],
    ['a repeated reference', 'pm_ok\npm_ok\n', /refs-bad\.txt:2: pm_ok is named twice/],
    ['a line that is not JSON', '{"reference":\n', /refs-bad\.txt:1: not JSON/],
    ['a field of the wrong type', '{"reference":"pm_a","exp_year":"2020"}\n', /"exp_year" must be a number/],
  ])('refuses %s, naming the line, and does not start', async (_name, text, message) => {
    const refs = path.join(dir, 'refs-bad.txt');
    writeFileSync(refs, text);
    const run = startCommand(['--references', refs, '--port', '0']);
    expect(await exited(run.child)).toBe(1);
    expect(run.err()).toMatch(message);
    expect(run.out()).not.toContain('serving');
  });

  it('without --references prints its usage and exits 2', async () => {
    const run = startCommand([]);
    expect(await exited(run.child)).toBe(2);
    expect(run.err()).toMatch(/--references <file> is required/);
  });
});
