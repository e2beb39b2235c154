// The operator's dashboard page shows only the actions the server allows (queue-actions.ts). The board's
// UI has one switch (read-only, which hides every action), so a small script of ours, served from this
// origin (the board's CSP allows scripts from 'self'), hides the menu items and buttons of the actions
// the server refuses, as the UI draws them: queue menu items by label, job card icons by position. In
// the "latest" view (no status) a card's actions are all hidden: its status, and so its list, is unknown.
import type { RequestHandler } from 'express';

export const BOARD_SCRIPT_NAME = 'staff-board.js';

/** The board's own labels (its en-US messages) of the queue menu's actions queueAccess refuses. */
const REFUSED_ACTION_LABELS = ['Add job', 'Empty', 'Obliterate', 'Set concurrency', 'Set rate limit'];

/**
 * A job card's actions are icons without labels, listed per job status in a fixed order (@bull-board/ui
 * 9.10: failed retry, duplicate, update data, clean; delayed promote, reschedule, duplicate, update data,
 * clean; …). Of each list the allowed ones stay (retry, promote, clean), by position; a completed job
 * has no retry (allowCompletedRetries is off: its work is done).
 */
const ALLOWED_CARD_ACTIONS: Record<string, number[]> = {
  failed: [0, 3],
  delayed: [0, 4],
  completed: [1],
  waiting: [2],
  'waiting-children': [3],
  prioritized: [3],
  paused: [2],
};

const SCRIPT = `(() => {
  const refused = new Set(${JSON.stringify(REFUSED_ACTION_LABELS)});
  const allowed = ${JSON.stringify(ALLOWED_CARD_ACTIONS)};
  const hideEl = (el) => el.style.setProperty('display', 'none', 'important');
  const hide = () => {
    for (const el of document.querySelectorAll('button, [role="menuitem"]')) {
      if (refused.has((el.textContent || '').trim())) hideEl(el);
    }
    const keep = allowed[new URLSearchParams(location.search).get('status')];
    for (const list of document.querySelectorAll('ul[class*="jobActions-"]')) {
      [...list.children].forEach((item, i) => { if (!keep || !keep.includes(i)) hideEl(item); });
    }
  };
  new MutationObserver(hide).observe(document.documentElement, { childList: true, subtree: true });
  hide();
})();
`;

export const boardScript: RequestHandler = (_req, res) => {
  res.type('application/javascript').set('cache-control', 'no-store').send(SCRIPT);
};

/** Adds the script to the board's HTML page (the entry the board renders for every UI route). */
export function withBoardScript(boardPath: string): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' || req.path.startsWith('/api/') || req.path.startsWith('/static/')) return next();
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      if (typeof body === 'string' && body.includes('</head>')) {
        return send(body.replace('</head>', `<script src="${boardPath}/${BOARD_SCRIPT_NAME}" defer></script></head>`));
      }
      return send(body);
    };
    next();
  };
}
