// The routes an Express app really registers, read from its router stack (Express 5 / router 2).
import type { Express, Router } from 'express';

export interface RegisteredRoute {
  method: string;
  /** Express path with `:params`, mount paths included. */
  path: string;
}

interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function join(prefix: string, path: string): string {
  return (prefix + (path === '/' ? '' : path)).replace(/\/{2,}/g, '/') || '/';
}

function walk(stack: Layer[], prefix: string): RegisteredRoute[] {
  return stack.flatMap((layer) => {
    const paths = [layer.route?.path ?? layer.rawPath ?? '/'].flat();
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all' && layer.route!.methods[m]);
      return paths.flatMap((p) => methods.map((method) => ({ method, path: join(prefix, p) })));
    }
    if (layer.handle?.stack) return paths.flatMap((p) => walk(layer.handle!.stack!, join(prefix, p)));
    return [];
  });
}

export function registeredRoutes(app: Express | Router): RegisteredRoute[] {
  const stack =
    'router' in app && app.router
      ? (app.router as unknown as { stack: Layer[] }).stack
      : (app as unknown as { stack: Layer[] }).stack;
  return walk(stack, '');
}

/** `/a/:x/b/` and `/a/{x}/b/` both become `/a/{}/b/`: Express and OpenAPI name parameters differently. */
export function pathShape(path: string): string {
  return path.replace(/:[A-Za-z0-9_]+/g, '{}').replace(/\{[^}]*\}/g, '{}');
}
