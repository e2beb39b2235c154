// A local HTTP server speaking the part of Stripe's wire format the service uses: GET
// /v1/payment_methods/:id with Bearer auth, Stripe's error bodies, and programmable faults. It counts
// every request so tests can assert what reached the vendor. The one fake of the vendor: the tests start
// it in-process (test/helpers/fake-stripe.ts), and `npm run fake-vendor` (scripts/fake-vendor.ts) serves
// it on a port for rehearsals, with the PaymentMethods of a references file (references-file.ts).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * healthy: normal answers · slow: answers after `slowMs` · error500: api_error · rateLimited: 429 ·
 * refused: 400 invalid_request_error whose message describes the card, as Stripe's messages may.
 */
type FakeStripeMode = 'healthy' | 'slow' | 'error500' | 'rateLimited' | 'refused';

/** The message of a `refused` answer: card details the service must never pass on to its caller. */
export const REFUSAL_WITH_CARD_DETAILS =
  'This PaymentMethod (visa ending 4242, expiring 04/2031, customer cus_Owner123) cannot be used.';

export interface FakePaymentMethod {
  id: string;
  object: 'payment_method';
  type: string;
  card?: {
    brand: string;
    last4: string;
    exp_month: number;
    exp_year: number;
    fingerprint: string;
    funding: string;
    country: string;
  };
  customer: string | null;
  created: number;
  livemode: false;
  [key: string]: unknown;
}

interface FakeStripeRequest {
  method: string;
  path: string;
  mode: FakeStripeMode;
  status: number;
  /** When the request arrived and when its answer was sent (Date.now(); 0 while unanswered): concurrency tests. */
  startedAt: number;
  answeredAt: number;
}

export interface FakeStripe {
  url: string;
  secretKey: string;
  /** Every request received, in order, with the mode it was served in and the status sent (0 if the client left first). */
  requests: FakeStripeRequest[];
  /** Mode for every request from now on. */
  setMode(mode: FakeStripeMode): void;
  /** Modes for the next requests, one each, before the standing mode applies again. */
  queueModes(...modes: FakeStripeMode[]): void;
  /** Registers a card PaymentMethod (attached to a customer unless overridden); returns it. */
  addCard(overrides?: Partial<FakePaymentMethod>): FakePaymentMethod;
  close(): Promise<void>;
}

export interface FakeStripeOptions {
  secretKey: string;
  slowMs: number;
  /** 0 (the default): a free port. */
  port?: number;
  host?: string;
}

const send = (res: ServerResponse, entry: FakeStripeRequest, status: number, body: unknown) => {
  entry.status = status;
  entry.answeredAt = Date.now();
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_${randomBytes(6).toString('hex')}`,
  });
  res.end(JSON.stringify(body));
};

const error = (type: string, message: string, extra: Record<string, string> = {}) => ({
  error: { type, message, ...extra },
});

/** The fault a mode stands for, as Stripe would send it; undefined: answer normally. */
function faultOf(mode: FakeStripeMode): [number, ReturnType<typeof error>] | undefined {
  if (mode === 'error500') return [500, error('api_error', 'Something went wrong on our end.')];
  if (mode === 'refused') return [400, error('invalid_request_error', REFUSAL_WITH_CARD_DETAILS)];
  if (mode === 'rateLimited') {
    return [429, error('invalid_request_error', 'Too many requests hit the API too quickly.', { code: 'rate_limit' })];
  }
  return undefined;
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  entry: FakeStripeRequest,
  state: { secretKey: string; methods: Map<string, FakePaymentMethod> },
): void {
  if (req.headers.authorization !== `Bearer ${state.secretKey}`) {
    return send(res, entry, 401, error('invalid_request_error', 'Invalid API Key provided.'));
  }
  const fault = faultOf(entry.mode);
  if (fault) return send(res, entry, ...fault);
  const match = /^\/v1\/payment_methods\/([^/?]+)$/.exec(entry.path);
  if (req.method !== 'GET' || !match) {
    const message = `Unrecognized request URL (${req.method}: ${entry.path}).`;
    return send(res, entry, 404, error('invalid_request_error', message));
  }
  const id = decodeURIComponent(match[1]!);
  const method = state.methods.get(id);
  if (!method) {
    const missing = { code: 'resource_missing', param: 'id' };
    return send(res, entry, 404, error('invalid_request_error', `No such PaymentMethod: '${id}'`, missing));
  }
  send(res, entry, 200, method);
}

/** An attached, unexpired visa card PaymentMethod, with `overrides` applied. */
function newCard(overrides: Partial<FakePaymentMethod>): FakePaymentMethod {
  return {
    id: `pm_${randomBytes(8).toString('hex')}`,
    object: 'payment_method',
    type: 'card',
    billing_details: { address: null, email: null, name: null, phone: null },
    card: {
      brand: 'visa',
      last4: '4242',
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      fingerprint: randomBytes(8).toString('hex'),
      funding: 'credit',
      country: 'GB',
    },
    customer: `cus_${randomBytes(6).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    metadata: {},
    ...overrides,
  };
}

async function listen(server: Server, opts: FakeStripeOptions): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

export async function startFakeStripe(opts: FakeStripeOptions): Promise<FakeStripe> {
  const state = { secretKey: opts.secretKey, methods: new Map<string, FakePaymentMethod>() };
  const requests: FakeStripeRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let standing: FakeStripeMode = 'healthy';
  const queued: FakeStripeMode[] = [];

  const server = createServer((req, res) => {
    const entry: FakeStripeRequest = {
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0]!,
      mode: queued.shift() ?? standing,
      status: 0,
      startedAt: Date.now(),
      answeredAt: 0,
    };
    requests.push(entry);
    req.resume();
    if (entry.mode !== 'slow') return answer(req, res, entry, state);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) answer(req, res, entry, state);
    }, opts.slowMs);
    timers.add(timer);
  });
  const url = await listen(server, opts);

  return {
    url,
    secretKey: opts.secretKey,
    requests,
    setMode: (mode) => {
      standing = mode;
      queued.length = 0;
    },
    queueModes: (...modes) => queued.push(...modes),
    addCard(overrides = {}) {
      const method = newCard(overrides);
      state.methods.set(method.id, method);
      return method;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      // The SDK keeps connections alive: cut them, or close() waits for them to idle out.
      server.closeAllConnections();
      await closed;
    },
  };
}
