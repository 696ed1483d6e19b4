// Authorization (`--authorization=basic`): before routing, every request is
// checked by the policy at `default_authorization_decision` (default
// data.system.authz.allow) with OPA's input document: method, path segments,
// params, headers (Go canonical names), identity, client_certificates (TLS
// authentication only), and for POSTs to `/`, `/v0/data…` and `/v1/data…` the
// parsed body. `true` or `{"allowed": true}` lets the request through; anything
// else is 401 (with the policy's `reason` when given) or 500.
import type { FastifyRequest } from 'fastify';
import { RObject, fromJS, type Value } from '../../runtime/index.js';
import { requestDocument } from '../api/body.js';
import type { ServerContext } from '../api/context.js';
import { ApiError, MSG, toApiError } from '../api/errors.js';
import { QueryParams, configPathSegments, dataQuery, urlPath } from '../api/params.js';
import { tlsPeer, tokenIdentity, type AuthenticationMode } from './identity.js';

/** `content-type` → `Content-Type`, as Go's http.Header keys. */
export function canonicalHeaderName(name: string): string {
  return name
    .split('-')
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : w))
    .join('-');
}

function headerObject(req: FastifyRequest): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const raw = req.raw.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = canonicalHeaderName(raw[i]!);
    (out[key] ??= []).push(raw[i + 1]!);
  }
  return out;
}

/** Path segments after the leading slash, each unescaped (`/` → [""]). */
function pathArray(url: string): string[] {
  return urlPath(url)
    .slice(1)
    .split('/')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

function bodyAllowed(method: string, path: string[]): boolean {
  if (method !== 'POST') return false;
  if (path.length === 1 && path[0] === '') return true;
  return (path[0] === 'v0' || path[0] === 'v1') && path[1] === 'data';
}

/** The input document of the authorization policy. */
export function authzInput(ctx: ServerContext, req: FastifyRequest, authentication: AuthenticationMode): Value {
  const path = pathArray(req.url);
  const input = new RObject();
  input.set('method', req.method.toUpperCase());
  input.set('path', path);
  input.set('params', fromJS(QueryParams.fromUrl(req.url).toObject()));
  input.set('headers', fromJS(headerObject(req)));
  if (authentication === 'token') {
    const identity = tokenIdentity(req);
    if (identity !== undefined) input.set('identity', identity);
  } else if (authentication === 'tls') {
    const peer = tlsPeer(req);
    if (peer !== undefined) {
      input.set('identity', peer.identity);
      input.set('client_certificates', peer.certificates);
    }
  }
  if (bodyAllowed(input.get('method') as string, path) && Buffer.isBuffer(req.body) && req.body.length > 0) {
    // OPA's authorizer parses with util.UnmarshalJSON (trailing data is an error) and
    // reports the bare parser message; the handler then reuses this parse.
    const doc = requestDocument(req, ctx.limits, '', 'unmarshal');
    if (doc !== undefined) input.set('body', doc.exact ?? fromJS(doc.js));
  }
  return input;
}

/** Throw the ApiError that rejects the request, or return to let it through. */
export function authorize(ctx: ServerContext, req: FastifyRequest, authentication: AuthenticationMode): void {
  const input = authzInput(ctx, req, authentication);
  let decision: Value | undefined;
  try {
    const rows = ctx.engine.evalLocal(dataQuery(configPathSegments(ctx.config.defaultAuthorizationDecision)), input);
    decision = rows[0]?.expressions[0]?.value;
  } catch (e) {
    throw toApiError(e);
  }
  if (decision === undefined) throw new ApiError(500, 'internal_error', MSG.authzUndefined);
  if (decision === true) return;
  if (decision instanceof RObject) {
    const allowed = decision.get('allowed');
    if (allowed === true) return;
    if (allowed === undefined) throw new ApiError(500, 'internal_error', MSG.docMissingOrUndefined);
    const reason = decision.get('reason');
    if (typeof reason === 'string') throw new ApiError(401, 'unauthorized', reason);
  }
  throw new ApiError(401, 'unauthorized', MSG.authzRejected);
}
