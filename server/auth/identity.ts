// Authentication (`--authentication=token`): the bearer token of the Authorization
// header becomes the request's identity. As in OPA, a missing or malformed header
// does not reject the request by itself: the identity is simply unset, and the
// authorization policy decides.
import type { FastifyRequest } from 'fastify';

export type AuthenticationMode = 'off' | 'token';
export type AuthorizationMode = 'off' | 'basic';

const MAX_HEADER_LENGTH = 8192;
const BEARER = /^Bearer\s+(\S+)$/;

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function tokenIdentity(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || header === '' || header.length > MAX_HEADER_LENGTH) return undefined;
  const m = BEARER.exec(header);
  return m ? m[1] : undefined;
}
