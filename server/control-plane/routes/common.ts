// Helpers shared by the route files: response writing (JSON with a trailing
// newline, `pretty` indentation), the error responder (the only place that
// renders errors, using errors.ts's mapping), list parameters (`limit`,
// opaque `cursor`) and the context every route file receives.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { httpErrorOf, InvalidParameter } from '../errors.js';
import { decodeCursor, encodeCursor, type Storage } from '../storage/storage.js';
import type { BuildScheduler, ListOptions, Page } from '../types.js';

/** What route registration needs. */
export interface RouteContext {
  store: Storage;
  /** Tell the builder which bundles changed (all when omitted); never throws. */
  notify(bundles?: string[]): void;
  isReady(): boolean;
  log: FastifyBaseLogger;
}

/** Wrap a scheduler so that a failing notification is logged, not surfaced to the client. */
export function notifier(scheduler: BuildScheduler | undefined, log: FastifyBaseLogger): RouteContext['notify'] {
  return (bundles) => {
    if (!scheduler) return;
    try {
      scheduler.notifyChanged(bundles);
    } catch (e) {
      log.error({ err: e }, 'build scheduler notification failed');
    }
  };
}

/** `?pretty`, `?pretty=` or `?pretty=true` (any case) ask for indented output. */
export function wantsPretty(req: FastifyRequest): boolean {
  const q = req.query as Record<string, unknown> | undefined;
  if (!q || !Object.hasOwn(q, 'pretty')) return false;
  const v = q.pretty;
  const s = Array.isArray(v) ? String(v[v.length - 1] ?? '') : String(v ?? '');
  return s === '' || s.toLowerCase() === 'true';
}

/** Send a JSON body (status 200 unless given). */
export function sendJSON(req: FastifyRequest, reply: FastifyReply, body: unknown, status = 200): FastifyReply {
  const text = JSON.stringify(body, null, wantsPretty(req) ? 2 : undefined) + '\n';
  return reply.code(status).type('application/json').send(text);
}

/** The empty success body of PUT, POST and DELETE. */
export const OK = {};

/** Render any error: 401 as plain text `Unauthorized`, everything else as `{code, message}`. */
export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const h = httpErrorOf(err);
  if (h.status >= 500) req.log.error({ err }, 'request failed');
  else req.log.info({ status: h.status, code: h.code ?? 'unauthorized' }, 'request rejected');
  if (h.status === 401) {
    return reply
      .code(401)
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/plain; charset=utf-8')
      .send('Unauthorized');
  }
  return sendJSON(req, reply, { code: h.code, message: h.message }, h.status);
}

function queryString(req: FastifyRequest, key: string): string | undefined {
  const v = (req.query as Record<string, unknown> | undefined)?.[key];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? String(v[v.length - 1]) : String(v);
}

export const LIST_LIMIT_MAX = 100;

/**
 * `limit` and `cursor` of a list request. `limit` never fails: absent,
 * non-numeric, zero, negative or above 100 all mean 100. A cursor this server
 * did not produce is a 400 (restarting silently could loop a client forever).
 */
export function listOptions(req: FastifyRequest, owner: string | undefined): ListOptions {
  const raw = queryString(req, 'limit');
  let limit = raw !== undefined && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : LIST_LIMIT_MAX;
  if (!(limit > 0) || limit > LIST_LIMIT_MAX) limit = LIST_LIMIT_MAX;
  const opts: ListOptions = { limit };
  const cursor = queryString(req, 'cursor');
  if (cursor !== undefined && cursor !== '') {
    const after = decodeCursor(cursor);
    if (after === undefined) throw new InvalidParameter('invalid cursor');
    opts.after = after;
  }
  if (owner !== undefined) opts.owner = owner;
  return opts;
}

/**
 * The list envelope, as the reference's Go structs marshal it: `result` and
 * `next_cursor` are omitted when empty, so an empty bundle or source list is
 * `{}`; stacks and secrets have no omitempty on `result` (`emptyResult: null`),
 * so theirs is `{"result":null}`. `next_cursor` is present only when more rows exist.
 */
export function listBody<T, U>(page: Page<T>, map: (t: T) => U, emptyResult?: null): { result?: U[] | null; next_cursor?: string } {
  const body: { result?: U[] | null; next_cursor?: string } = {};
  if (page.items.length > 0) body.result = page.items.map(map);
  else if (emptyResult === null) body.result = null;
  if (page.nextAfter !== undefined) body.next_cursor = encodeCursor(page.nextAfter);
  return body;
}

export const STATUS_LIMIT_MAX = 10;

/** `limit` of the status list: must be an integer; ≤0 or absent → 10, above 10 → 10. */
export function statusLimit(req: FastifyRequest): number {
  const raw = queryString(req, 'limit');
  if (raw === undefined || raw === '') return STATUS_LIMIT_MAX;
  if (!/^-?\d+$/.test(raw)) throw new InvalidParameter(`limit must be an integer`);
  const n = Number(raw);
  return n <= 0 || n > STATUS_LIMIT_MAX ? STATUS_LIMIT_MAX : n;
}

/** An optional query parameter as a string. */
export function queryParam(req: FastifyRequest, key: string): string | undefined {
  return queryString(req, key);
}

/** A decoded path parameter; an empty name is invalid. */
export function nameParam(req: FastifyRequest, key: string): string {
  const v = (req.params as Record<string, string | undefined>)[key];
  if (v === undefined || v === '') throw new InvalidParameter(`missing ${key} name`);
  return v;
}

/** The request body, which must be present. */
export function requireBody(req: FastifyRequest): unknown {
  if (req.body === undefined) throw new InvalidParameter('request body is empty');
  return req.body;
}
