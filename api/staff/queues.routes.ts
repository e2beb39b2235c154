// The queue dashboard (bull-board) at /admin/queues, over every queue of the job catalog. Operators get
// a board that can act on jobs, support staff a read-only one; either way job data and return values
// pass through the redaction in shared/staff/job-redaction.ts, and the UI's assets come from the
// @bull-board/ui package (the page's Google-Fonts link is blocked by the CSP: no CDN is contacted).
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type Express, type RequestHandler } from 'express';
import { AppError } from '../../shared/platform/errors';
import { REQUEST_QUEUES } from '../../shared/catalog/jobs';
import { unconfiguredVendors, type Config } from '../../shared/platform/config';
import type { JobQueues } from '../../shared/platform/queues';
import { paymentInstructionJob } from '../../shared/payment-instructions/payment-instruction.job';
import type { Database } from '../../shared/platform/db';
import type { Logger } from '../../shared/platform/logger';
import { redactBoardAnswer, redactJobValue } from '../../shared/staff/job-redaction';
import { withRunLink } from '../../shared/run-progress/run-link';
import type { StaffRoleName } from '../../shared/staff/staff.schemas';
import { exposeCsrfCookie, requireCsrf } from './csrf';
import { BOARD_SCRIPT_NAME, boardScript, withBoardScript } from './board-page';
import { queueAccess } from './queue-actions';
import { queueJobActions } from './queue-job-actions';
import { requireStaff, staffOf } from './session';

export const BOARD_PATH = '/admin/queues';

/**
 * The board's note on a queue: the payment-instruction queue names a vendor this service has no key for,
 * so its refusals (400 vendor_not_configured) do not read as the vendor failing.
 */
function queueNotes(config: Pick<Config, 'STRIPE_SECRET_KEY'>): Record<string, string> {
  const vendors = unconfiguredVendors(config);
  if (vendors.length === 0) return {};
  return {
    [paymentInstructionJob.queue]: `Payment vendor ${vendors.join(', ')}: not configured (STRIPE_SECRET_KEY is not set). Its instructions are refused at once with vendor_not_configured; this is not an outage.`,
  };
}

function createBoard(queues: JobQueues, readOnlyMode: boolean, notes: Record<string, string>): Express {
  const adapter = new ExpressAdapter().setBasePath(BOARD_PATH);
  // One adapter per queue (several job kinds may share a queue).
  const boardQueues = REQUEST_QUEUES.map((name) => {
    // A completed job's request is answered: retrying it would run nothing (see board-page.ts). The
    // adapter takes allowCompletedRetries, which its declared options type leaves out.
    const options = { readOnlyMode, allowCompletedRetries: false, description: notes[name] ?? '' };
    const queue = new BullMQAdapter(queues.queue(name), options);
    // Redacted, then given the link to its run's progress (shared/run-progress/run-link.ts).
    queue.setFormatter('data', (data) => withRunLink(redactJobValue(data)));
    queue.setFormatter('returnValue', (value) => redactJobValue(value));
    return queue;
  });
  createBullBoard({
    queues: boardQueues,
    serverAdapter: adapter,
    options: {
      uiConfig: {
        boardTitle: readOnlyMode ? 'Queues (read-only)' : 'Queues',
        hideDocsLink: true,
        miscLinks: [
          { text: 'Support page', url: '/support/' },
          { text: 'Sign out', url: '/logout' },
        ],
      },
    },
  });
  const app = adapter.getRouter() as Express;
  app.disable('x-powered-by');
  return app;
}

function guardActions(logger: Logger): RequestHandler {
  return (req, _res, next) => {
    const staff = staffOf(req);
    const access = queueAccess(staff.role, req.method, req.path);
    if (access === 'role_forbidden') {
      throw new AppError(403, 'staff_role_forbidden', 'Support staff see the queues read-only; ask an operator.');
    }
    if (access === 'action_forbidden') {
      throw new AppError(
        403,
        'staff_action_forbidden',
        'This dashboard action is not allowed here: only retry, promote, clean, pause and resume.',
      );
    }
    if (access === 'allowed')
      logger.info({ staff: staff.username, action: `${req.method} ${req.path}` }, 'staff queue action');
    next();
  };
}

/** Support staff's board answers pass through redactBoardAnswer (the board's adapter answers with res.json). */
function redactForSupport(): RequestHandler {
  return (req, res, next) => {
    const json = res.json.bind(res);
    const path = req.path;
    res.json = (body: unknown) => json(redactBoardAnswer(path, body));
    next();
  };
}

export function queueRoutes(
  deps: {
    queues: JobQueues;
    logger: Logger;
    db: Database;
    config: Pick<Config, 'STRIPE_SECRET_KEY'>;
    now?: () => Date;
  },
  secure: boolean | 'auto',
): Router {
  const notes = queueNotes(deps.config);
  const boards: Record<StaffRoleName, Express> = {
    operator: createBoard(deps.queues, false, notes),
    support: createBoard(deps.queues, true, notes),
  };
  const router = Router();
  router.use(
    BOARD_PATH,
    requireStaff(),
    exposeCsrfCookie(secure),
    requireCsrf(),
    guardActions(deps.logger),
    queueJobActions(deps),
  );
  router.get(`${BOARD_PATH}/${BOARD_SCRIPT_NAME}`, boardScript);
  for (const role of Object.keys(boards) as StaffRoleName[]) {
    // Each board is mounted as a sub-app (so Express restores the request afterwards) behind a
    // router that steps aside for the other role.
    const forRole = Router();
    forRole.use((req, _res, next) => next(staffOf(req).role === role ? undefined : 'router'));
    if (role === 'support') forRole.use(redactForSupport());
    else forRole.use(withBoardScript(BOARD_PATH));
    forRole.use(boards[role]);
    router.use(BOARD_PATH, forRole);
  }
  return router;
}
