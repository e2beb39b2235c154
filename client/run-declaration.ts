// A run tells the service what it is sending when it starts (and again when resumed): its kind, its
// file and line count and the items in all (POST runs/<run_id>/declaration/), so the service can show
// the run's percent done, rate and ETA on GET runs/<run_id>/ and its support page. A convenience, not
// a condition: one attempt, and whatever goes wrong (an older service, a refusal) the run goes on; a
// wrong address or key is reported by the run's own first request.
import path from 'node:path';
import type { Fetcher } from './http/service-fetch';
import type { TokenSource } from './http/token-source';
import type { RunMeta } from './run-journal';
import { printable } from './terminal-text';

export interface DeclarationDeps {
  baseUrl: string;
  tokens: TokenSource;
  fetcher: Fetcher;
  requestTimeoutMs: number;
}

/** What the run sends: a CSV file's header is a line but not an item. */
function declarationOf(meta: RunMeta) {
  const name = printable(path.basename(meta.input)).slice(0, 256) || 'input';
  const items = Math.max(0, meta.format === 'csv' ? meta.lines - 1 : meta.lines);
  return { kind: meta.kind, items, files: [{ name, lines: meta.lines }] };
}

export async function declareRun(deps: DeclarationDeps, meta: RunMeta): Promise<boolean> {
  try {
    const token = await deps.tokens.token();
    const res = await deps.fetcher(
      `${deps.baseUrl}/v1/data-import/runs/${encodeURIComponent(meta.run_id)}/declaration/`,
      {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(declarationOf(meta)),
        signal: AbortSignal.timeout(deps.requestTimeoutMs),
      },
    );
    await res.body?.cancel().catch(() => undefined);
    return res.status === 200;
  } catch {
    return false;
  }
}
