// Resolves `Authorization` to the calling organisation. Every data-import route sits behind this.
import type { RequestHandler } from 'express';
import { tokenFromHeader, type TokenSigner } from '../../shared/auth/access-token';
import type { RevocationCheck } from './revocation-check';

export interface Caller {
  organisationId: number;
}

declare module 'express-serve-static-core' {
  interface Request {
    caller?: Caller;
  }
}

export function authenticate(signer: TokenSigner, refuseRevoked: RevocationCheck): RequestHandler {
  return async (req, _res, next) => {
    const token = tokenFromHeader(req.get('authorization'));
    const claims = await signer.verify(token);
    await refuseRevoked(claims);
    req.caller = { organisationId: claims.org };
    next();
  };
}

export function callerOf(req: { caller?: Caller }): Caller {
  if (!req.caller) throw new Error('route is not behind authenticate()');
  return req.caller;
}
