// `npm run fake-vendor -- --references refs.txt [--port 12111] [--host 127.0.0.1] [--secret-key …]`:
// a local stand-in for the payment vendor (Stripe) for rehearsals without a vendor account. It serves
// the part of Stripe's wire format the service calls (GET /v1/payment_methods/<id>, Bearer auth,
// Stripe's error bodies) for the PaymentMethods the references file names (references-file.ts), prints
// the two settings that point the service at it, and runs until SIGINT/SIGTERM. The tests start the
// same fake in-process (test/helpers/fake-stripe.ts).
import { parseArgs } from 'node:util';
import { startFakeStripe } from './fake-vendor/fake-stripe';
import { readReferencesFile, ReferencesFileError } from './fake-vendor/references-file';

const OPTIONS = {
  references: { type: 'string' },
  port: { type: 'string', default: '12111' },
  host: { type: 'string', default: '127.0.0.1' },
  'secret-key': { type: 'string', default: 'sk_test_fake_vendor' },
  help: { type: 'boolean', short: 'h' },
} as const;

const HELP = `Usage: npm run fake-vendor -- --references <file> [--port 12111] [--host 127.0.0.1] [--secret-key sk_test_fake_vendor]

A local fake of the payment vendor (Stripe's wire format) for rehearsals. The references file names the
PaymentMethods it knows, one a line: a bare id (pm_…: an attached, unexpired visa card), or a JSON object
{"reference":"pm_…", "customer": null | "cus_…", "exp_year": 2020, "type": "sepa_debit", …} to rehearse
the vendor's refusals. Any other reference answers Stripe's 404. Start the service with the two settings
it prints. Stops on Ctrl-C. See docs/client.md#rehearsal-without-a-vendor-account.
`;

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (err) {
    process.stderr.write(`fake-vendor: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const port = Number(values.port);
  if (!values.references || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`fake-vendor: --references <file> is required and --port must be 0-65535\n\n${HELP}`);
    return 2;
  }
  const known = readReferencesFile(values.references);
  const secretKey = values['secret-key'];
  const fake = await startFakeStripe({ secretKey, slowMs: 0, port, host: values.host });
  for (const method of known) fake.addCard(method);
  // One line a script can wait for, then the settings for the service, in one write: whoever sees the
  // first line sees the second.
  process.stdout.write(
    `fake-vendor: serving ${known.length} references on ${fake.url}\n` +
      `STRIPE_API_BASE=${fake.url} STRIPE_SECRET_KEY=${secretKey}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await fake.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    const known = err instanceof ReferencesFileError || (err as NodeJS.ErrnoException).code !== undefined;
    process.stderr.write(`fake-vendor: ${known ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`);
    process.exitCode = 1;
  },
);
