// `report --pdf`: the pack's page printed to PDF by headless Chromium, the same page the browser shows,
// for a sign-off by e-mail. The browser runs with a throw-away profile and a time-out; a missing
// browser or a failed print ends `report` with one line saying which (the HTML and CSV are written).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FatalError } from '../client-errors';

const BROWSERS = ['chromium', 'chromium-browser', 'google-chrome'];
/** A pack of a hundred thousand accounts prints in well under this on a loaded machine. */
const PRINT_TIMEOUT_MS = 300_000;

function run(file: string, args: string[]): Promise<{ ok: boolean; message: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PRINT_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, _out, stderr) =>
      resolve({ ok: !err, message: err ? `${err.message} ${String(stderr).slice(0, 500)}` : '' }),
    );
  });
}

export async function printPdf(html: string, pdf: string, browser?: string): Promise<string> {
  const profile = mkdtempSync(path.join(tmpdir(), 'data-import-pdf-'));
  try {
    const flags = [
      '--headless',
      '--disable-gpu',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      '--no-pdf-header-footer',
      `--print-to-pdf=${pdf}`,
      // Chromium refuses to start as root with its sandbox; the page has no script and nothing remote.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      pathToFileURL(html).href,
    ];
    const tried: string[] = [];
    for (const candidate of browser ? [browser] : BROWSERS) {
      rmSync(pdf, { force: true });
      const result = await run(candidate, flags);
      if (result.ok && existsSync(pdf) && statSync(pdf).size > 0) return pdf;
      tried.push(`${candidate}: ${result.message.trim() || 'no PDF written'}`);
    }
    throw new FatalError(`could not print ${pdf} (give --browser PATH to a Chromium): ${tried.join('; ')}`);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
