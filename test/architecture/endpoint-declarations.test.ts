// Every data-import endpoint is declared once (shared/catalog/endpoints.ts) and its path written once:
// in its declaration. The app mounts every declaration with a handler (the routes files register them
// at routeOf(declaration)), and no routes file writes a path of its own.
import type { Express } from 'express';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { hasSteps } from '../../api/endpoint-routes';
import { DATA_IMPORT_ENDPOINTS } from '../../shared/catalog/endpoints';
import { expressPath } from '../../shared/requests/endpoint-declaration';
import { startTestApp, type TestApp } from '../helpers/app';
import { registeredRoutes } from '../openapi/routes';

const ROOT = path.join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('generated'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

/** The code of a file without its comment lines (prose may name a path; code may not repeat one). */
const codeOf = (file: string) =>
  readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join('\n');

describe('endpoint declarations', () => {
  it('write each data-import path in one source file, and routes files write none', () => {
    const files = ['api', 'worker', 'shared', 'scripts'].flatMap(sourceFiles);
    const filesByPath = new Map<string, Set<string>>();
    for (const file of files) {
      for (const line of codeOf(file).split('\n')) {
        for (const m of line.matchAll(/['`](\/v[12]\/data-import\/[^'`$]*)/g)) {
          // Prose inside a double-quoted string may quote a path in backticks; a mount prefix
          // completed by a job's endpoint (`/v1/data-import/${job.endpoint}/`) is no path of its own.
          const inProse = (line.slice(0, m.index).match(/"/g) ?? []).length % 2 === 1;
          if (inProse || m[1]!.endsWith('data-import/')) continue;
          filesByPath.set(m[1]!, (filesByPath.get(m[1]!) ?? new Set()).add(file));
        }
      }
    }
    const repeated = [...filesByPath]
      .filter(([, where]) => where.size > 1)
      .map(([p, where]) => `${p}: ${[...where].join(', ')}`);
    expect(repeated).toEqual([]);
    // The service's own paths (health, metrics, the document and its page) are no data-import endpoints.
    const own = ['api/routes/health.routes.ts', 'api/routes/docs.routes.ts'];
    const routeLiterals = sourceFiles('api/routes')
      .filter((f) => !own.includes(f))
      .filter((f) => /router\.(get|post)\(\s*['`]/.test(codeOf(f)));
    expect(routeLiterals).toEqual([]);
  });

  it('are unique by method and path and by operationId', () => {
    const keys = DATA_IMPORT_ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(DATA_IMPORT_ENDPOINTS.map((e) => e.operationId)).size).toBe(keys.length);
  });

  describe('mounted by the app', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp();
    });
    afterAll(() => app.close());

    it('each with its handler, after its steps when it has any', () => {
      const express = app.api.server.listeners('request')[0] as Express;
      const registered = registeredRoutes(express).map((r) => `${r.method} ${r.path}`);
      const missing = DATA_IMPORT_ENDPOINTS.filter((e) => {
        const times = registered.filter((r) => r === `${e.method} ${expressPath(e.path)}`).length;
        return times !== (hasSteps(e) ? 2 : 1);
      }).map((e) => e.operationId);
      expect(DATA_IMPORT_ENDPOINTS.length).toBeGreaterThan(15);
      expect(missing).toEqual([]);
    });
  });
});
