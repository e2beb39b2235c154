// What staff may do through the queue dashboard's API (paths relative to /admin/queues). Support
// staff only read. Operators may retry, promote and clean jobs and pause or resume queues; the
// dashboard's other writes (add or edit jobs, empty or obliterate a queue, change limits) are refused
// to everyone: a queued request whose job vanished or changed would never get its stored result.
import type { StaffRoleName } from '../../shared/staff/staff.schemas';

const OPERATOR_ACTIONS = [
  /^\/api\/queues\/[^/]+\/retry\/(failed|completed)$/,
  /^\/api\/queues\/[^/]+\/[^/]+\/retry$/,
  /^\/api\/queues\/[^/]+\/promote$/,
  /^\/api\/queues\/[^/]+\/[^/]+\/promote$/,
  /^\/api\/queues\/[^/]+\/clean\/(completed|failed)$/,
  /^\/api\/queues\/[^/]+\/[^/]+\/clean$/,
  /^\/api\/queues\/([^/]+\/)?(pause|resume)$/,
];

export type QueueAccess = 'read' | 'allowed' | 'role_forbidden' | 'action_forbidden';

export function queueAccess(role: StaffRoleName, method: string, path: string): QueueAccess {
  if (method === 'GET' || method === 'HEAD') return 'read';
  if (role !== 'operator') return 'role_forbidden';
  return method === 'PUT' && OPERATOR_ACTIONS.some((re) => re.test(path)) ? 'allowed' : 'action_forbidden';
}
