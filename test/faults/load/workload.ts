// The load a fault phase runs: transaction clients and payment-instruction clients, each sending its
// requests one after the other as the spec tells them to. Every request and its outcome goes into the
// ledger that the invariants are checked against.
import type { FaultStack, Tenant } from '../infra/fault-stack';
import { accountClient, type AccountRequestRecord } from './accounts';
import { sendAsSpecSays, type Outcome } from './spec-client';

export interface TransactionRequestRecord {
  accountId: number;
  ids: string[];
  checkPreviouslyAdded: boolean;
  /** Built to be refused (400): at the API (a negative payment) or by the worker (outside the period, no force). */
  refusal?: 'api' | 'worker';
  idempotencyKey?: string;
  outcome: Outcome;
}

export interface InstructionRequestRecord {
  accountId: number;
  reference: string;
  /** A reference Stripe does not know: the answer must be 400 once the vendor is reachable. */
  unknownAtVendor: boolean;
  outcome: Outcome;
}

export interface Ledger {
  transactions: TransactionRequestRecord[];
  instructions: InstructionRequestRecord[];
  accounts: AccountRequestRecord[];
}

export interface LoadShape {
  transactionClients: number;
  itemsPerRequest: number;
  instructionClients: number;
  /**
   * Each client sends at least `min` requests and goes on until the phase stops the load (after the
   * fault and its recovery), so a fault always meets traffic; never more than `max`.
   */
  requestsPerClient: { min: number; max: number };
  instructionsPerClient: { min: number; max: number };
  /** Clients creating accounts (load/accounts.ts), each as many as `accountsPerClient` allows. */
  accountClients: number;
  accountsPerClient: { min: number; max: number };
}

export interface RunningLoad {
  /** Resolves when every client has finished (acked, rejected, or gave up at the deadline). */
  done: Promise<void>;
  /** Requests answered so far (final answers, not attempts). */
  answered(): number;
  /** Whether every client has finished: no more answers will come. */
  finished(): boolean;
  /** Lets every client finish after its current request (once it has sent its minimum). */
  stop(): void;
  transactions: TransactionRequestRecord[];
  instructions: InstructionRequestRecord[];
  accounts: AccountRequestRecord[];
}

export const TRANSACTIONS_PATH = '/v1/data-import/transactions/create/';
export const INSTRUCTIONS_PATH = '/v1/data-import/payment-instruction/create/';

export function startLoad(
  stack: FaultStack,
  tenant: Tenant,
  opts: { phase: string; shape: LoadShape; deadline: number; hangMs: number },
): RunningLoad {
  const { shape, phase } = opts;
  const client = { baseUrl: stack.baseUrl, token: tenant.token, deadline: opts.deadline, hangMs: opts.hangMs };
  const transactions: TransactionRequestRecord[] = [];
  const instructions: InstructionRequestRecord[] = [];
  const accounts: AccountRequestRecord[] = [];
  let answered = 0;
  let finished = false;
  let stopped = false;
  const goOn = (r: number, limits: { min: number; max: number }) => r < limits.min || (!stopped && r < limits.max);
  // Transaction clients share half as many accounts, so imports queue on each other's account lock;
  // every instruction request gets an account of its own (an account holds one active instruction).
  const txAccounts = tenant.accounts.slice(0, Math.max(1, Math.ceil(shape.transactionClients / 2)));
  const instructionAccounts = tenant.accounts.slice(txAccounts.length);

  const transactionClient = async (c: number) => {
    const account = txAccounts[c % txAccounts.length]!;
    for (let r = 0; goOn(r, shape.requestsPerClient); r++) {
      const spec = transactionRequest(`${phase}-c${c}-r${r}`, r, shape.itemsPerRequest);
      const query = [
        spec.checkPreviouslyAdded ? undefined : 'check_previously_added=false',
        spec.refusal === 'worker' ? 'force_add_to_current_statement=false' : undefined,
      ].filter(Boolean);
      const outcome = await sendAsSpecSays(
        {
          path: TRANSACTIONS_PATH + (query.length ? `?${query.join('&')}` : ''),
          body: {
            import_supplier: tenant.supplier,
            external_account_number: account.external,
            transactions: spec.items,
          },
          idempotencyKey: spec.idempotencyKey,
          repostIsSafe: spec.idempotencyKey !== undefined || spec.checkPreviouslyAdded,
        },
        client,
      );
      answered += 1;
      transactions.push({
        accountId: account.id,
        ids: spec.items.map((t) => t.transaction_id),
        checkPreviouslyAdded: spec.checkPreviouslyAdded,
        refusal: spec.refusal,
        idempotencyKey: spec.idempotencyKey,
        outcome,
      });
    }
  };

  const instructionClient = async (c: number) => {
    for (let r = 0; goOn(r, shape.instructionsPerClient); r++) {
      const account = instructionAccounts[c * shape.instructionsPerClient.max + r];
      if (!account) throw new Error('the tenant has too few accounts for this load');
      const unknownAtVendor = r % 4 === 3;
      const reference = unknownAtVendor
        ? `pm_unknown${phase.replace(/[^A-Za-z0-9]/g, '')}c${c}r${r}`
        : stack.fake.addCard().id;
      const outcome = await sendAsSpecSays(
        {
          path: INSTRUCTIONS_PATH,
          body: {
            import_supplier: tenant.supplier,
            external_account_number: account.external,
            vendor: 'STRIPE',
            type: 'CARD',
            reference,
          },
          idempotencyKey: `${phase}-pi-${c}-${r}`,
          repostIsSafe: true,
        },
        client,
      );
      answered += 1;
      instructions.push({ accountId: account.id, reference, unknownAtVendor, outcome });
    }
  };

  const done = Promise.all([
    ...Array.from({ length: shape.transactionClients }, (_, c) => transactionClient(c)),
    ...Array.from({ length: shape.instructionClients }, (_, c) => instructionClient(c)),
    ...Array.from({ length: shape.accountClients }, (_, c) =>
      accountClient(tenant, client, {
        phase,
        c,
        goOn: (r) => goOn(r, shape.accountsPerClient),
        record: (record) => {
          answered += 1;
          accounts.push(record);
        },
      }),
    ),
  ]).then(() => {
    finished = true;
  });
  return {
    done,
    answered: () => answered,
    finished: () => finished,
    stop: () => {
      stopped = true;
    },
    transactions,
    instructions,
    accounts,
  };
}

/** Accounts a tenant needs for this shape of load. */
export function accountsNeeded(shape: LoadShape): number {
  return (
    Math.max(1, Math.ceil(shape.transactionClients / 2)) + shape.instructionClients * shape.instructionsPerClient.max
  );
}

interface TransactionRequestSpec {
  items: { transaction_id: string; [key: string]: unknown }[];
  checkPreviouslyAdded: boolean;
  refusal?: 'api' | 'worker';
  idempotencyKey?: string;
}

/**
 * The r-th request of a client: mostly ordinary imports with an Idempotency-Key; some without a key
 * (retries then lean on check_previously_added), some with check_previously_added=false (the key
 * alone keeps their retries single), some with neither (every client's third request: the client
 * polls a 503's Location instead of posting again), some refused at the API or by the worker.
 */
function transactionRequest(prefix: string, r: number, size: number): TransactionRequestSpec {
  const refusal = r % 7 === 3 ? 'api' : r % 7 === 5 ? 'worker' : undefined;
  const checkPreviouslyAdded = refusal !== undefined || (r % 5 !== 1 && r % 8 !== 2);
  const withoutKey = refusal === undefined && r % 4 === 2;
  const items = Array.from({ length: size }, (_, i) => {
    const id = `${prefix}-i${i}`;
    // Refused by the worker: dated before the open period and sent with force=false.
    if (refusal === 'worker' && i === size - 1) return payment(id, '2023-06-01', '10.00');
    if (refusal === 'api' && i === 0) return payment(id, '2024-02-01', '-5.00');
    // Some dated before the open period: moved into it (force defaults to true), with a pinned note.
    const date = i % 10 === 9 && refusal === undefined ? '2023-12-15' : '2024-02-01';
    return i % 3 === 0
      ? {
          transaction_id: id,
          transaction_date: date,
          amount: `${(i % 50) + 1}.25`,
          type: 'CHARGE',
          reason: 'IMPORTED_CHARGE',
          note: `charge ${id}`,
        }
      : payment(id, date, `${(i % 90) + 1}.10`);
  });
  return { items, checkPreviouslyAdded, refusal, idempotencyKey: withoutKey ? undefined : `${prefix}-key` };
}

function payment(id: string, date: string, amount: string) {
  return {
    transaction_id: id,
    transaction_date: date,
    amount,
    type: 'PAYMENT',
    reason: 'GENERAL_CREDIT',
    reference: `ref ${id}`,
    payment_type: 'DEBIT_CARD',
  };
}
