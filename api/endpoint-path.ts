// Where a declared endpoint's handler is registered: its path under its router's mount, and its path
// parameters. Kept apart from api/endpoint-routes.ts (which reads the whole endpoint catalog) so that a
// routes file loads its own declaration only.
import type { Request } from 'express';
import { expressPath, type EndpointDeclaration } from '../shared/requests/endpoint-declaration';

export const MOUNTS = { v1: '/v1/data-import', v2: '/v2/data-import' } as const;
export type Mount = keyof typeof MOUNTS;

/** The declaration's path under its router's mount (`/v1/data-import`), in Express's form. */
export function routeOf(declaration: EndpointDeclaration): string {
  const mount = Object.values(MOUNTS).find((m) => declaration.path.startsWith(`${m}/`));
  if (mount === undefined) throw new Error(`${declaration.operationId}: ${declaration.path} is under no mount`);
  return expressPath(declaration.path.slice(mount.length));
}

/** A path parameter of a declared endpoint (the route matched, so it is there). */
export function paramOf(req: Request, name: string): string {
  const value = req.params[name];
  if (typeof value !== 'string') throw new Error(`the route has no path parameter ${name}`);
  return value;
}
