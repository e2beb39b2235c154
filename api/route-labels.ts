// The route label of the HTTP metrics: the template of the route a request's path belongs to, found
// the same way whether the route answered it or a middleware before it refused it (a 401, a 413, a
// 429), so an endpoint's successes and refusals share one label. The templates are read once from the
// app's own routers; a path that fits none is `unmatched`. Bounded: one label per registered route.
import type { Express } from 'express';

interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[] };
  handle?: { stack?: Layer[] };
}

interface Template {
  label: string;
  pattern: RegExp;
}

/** Paths longer than this are labelled without running a pattern over them. */
const MAX_PATH = 2048;

function join(prefix: string, path: string): string {
  return (prefix + (path === '/' ? '' : path)).replace(/\/{2,}/g, '/') || '/';
}

function templatesOf(stack: Layer[], prefix: string): string[] {
  return stack.flatMap((layer) => {
    const paths = [layer.route?.path ?? layer.rawPath ?? '/'].flat().filter((p) => typeof p === 'string');
    if (layer.route) return paths.map((p) => join(prefix, p));
    if (layer.handle?.stack) return paths.flatMap((p) => templatesOf(layer.handle!.stack!, join(prefix, p)));
    return [];
  });
}

function compile(label: string): Template {
  const source = label
    .replace(/\/$/, '')
    .split(/(:[A-Za-z0-9_]+|\*[A-Za-z0-9_]+)/)
    .map((part) =>
      part.startsWith(':') ? '[^/]+' : part.startsWith('*') ? '.+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return { label, pattern: new RegExp(`^${source}/?$`, 'i') };
}

/** A labeller over the app's routes, read on first use (the app is complete by its first request). */
export function routeLabeller(app: () => Express): (path: string) => string {
  let templates: Template[] | undefined;
  return (path) => {
    templates ??= [...new Set(templatesOf((app() as unknown as { router: { stack: Layer[] } }).router.stack, ''))].map(
      compile,
    );
    if (path.length > MAX_PATH) return 'unmatched';
    return templates.find((t) => t.pattern.test(path))?.label ?? 'unmatched';
  };
}
