// Authentication and authorization of the control plane API
// (control-plane-api.md §5, control-plane-behaviors.md §4.2–4.3).
//
// Authentication: `Authorization: Bearer <key>` (scheme case-insensitive); the
// key is looked up among the configured tokens by its SHA-256 digest, so key
// material is never compared byte by byte nor kept in a map in clear.
//
// Authorization (the reference's role matrix):
//   administrator  every permission
//   viewer         view bundles/sources/stacks/secrets, read source data,
//                  read bundle statuses
//   owner          create bundles, sources, secrets
//   stack_owner    create stacks
//   engine         (Regent extension) send status reports only; every other
//                  route answers 403 (checked by the /v1 hook in index.ts)
// and every principal has every permission on the definitions it created
// (owner column), except bundle statuses, which need the role permission.
// Lists of owner/stack_owner callers show only their own definitions.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Forbidden, NotFound, Unauthorized } from './errors.js';
import type { Existing, Guard } from './storage/storage.js';
import type { Kind, Principal, TokenConfig } from './types.js';

export type Action = 'view' | 'create' | 'manage' | 'data.read' | 'data.write' | 'statuses.view';

const digest = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** Configured API keys → principals. */
export class TokenTable {
  private readonly byDigest = new Map<string, Principal>();

  constructor(tokens: TokenConfig[]) {
    for (const t of tokens) this.byDigest.set(digest(t.apiKey), { id: t.name, role: t.role });
  }

  /** The principal of an `Authorization` header value; throws Unauthorized. */
  authenticate(header: string | undefined): Principal {
    const m = /^\s*(\S+)\s+(\S+)\s*$/.exec(header ?? '');
    if (!m || m[1]!.toLowerCase() !== 'bearer') throw new Unauthorized();
    const p = this.byDigest.get(digest(m[2]!));
    if (!p) throw new Unauthorized();
    return p;
  }
}

/** Whether the role alone grants `action` on any definition of `kind`. */
export function roleAllows(p: Principal, kind: Kind, action: Action): boolean {
  switch (p.role) {
    case 'administrator':
      return true;
    case 'viewer':
      return action === 'view' || action === 'data.read' || (kind === 'bundle' && action === 'statuses.view');
    case 'owner':
      return action === 'create' && (kind === 'bundle' || kind === 'source' || kind === 'secret');
    case 'stack_owner':
      return action === 'create' && kind === 'stack';
    case 'engine':
      return false;
  }
}

/** Fleet permissions (Regent extension): reading the fleet, sending a status report. */
export type FleetAction = 'fleet.view' | 'status.report';

/** Whether `p` may read the fleet (administrator, viewer) or report status (administrator, engine). */
export function fleetAllows(p: Principal, action: FleetAction): boolean {
  if (action === 'fleet.view') return p.role === 'administrator' || p.role === 'viewer';
  return p.role === 'administrator' || p.role === 'engine';
}

/** Throw Forbidden unless `p` has the fleet permission. */
export function requireFleet(p: Principal, action: FleetAction): void {
  if (!fleetAllows(p, action)) throw new Forbidden();
}

/** Whether `p` may do `action` on a definition owned by `owner` (undefined: not stored). */
export function allowed(p: Principal, kind: Kind, action: Action, owner: string | undefined): boolean {
  if (roleAllows(p, kind, action)) return true;
  return owner !== undefined && owner === p.id && action !== 'statuses.view' && action !== 'create';
}

/** Owner filter for lists and reads: undefined when the caller may see everything. */
export function visibilityOf(p: Principal, kind: Kind): string | undefined {
  return roleAllows(p, kind, 'view') ? undefined : p.id;
}

/**
 * PUT guard: creating needs `create`, replacing needs `manage` on the stored
 * definition. Runs inside the write transaction.
 */
export function putGuard(p: Principal, kind: Kind): Guard {
  return (existing: Existing | undefined) => {
    const action: Action = existing ? 'manage' : 'create';
    if (!allowed(p, kind, action, existing?.owner)) throw new Forbidden();
  };
}

/**
 * DELETE guard: `manage` is checked before existence (as the reference does), so
 * callers without the permission learn nothing about which names exist.
 */
export function deleteGuard(p: Principal, kind: Kind, name: string): Guard {
  return (existing: Existing | undefined) => {
    if (!allowed(p, kind, 'manage', existing?.owner)) throw new Forbidden();
    if (!existing) throw new NotFound(`${kind} "${name}" not found`);
  };
}

/** Throw Forbidden unless `p` may do `action` on the definition owned by `owner`. */
export function requireAllowed(p: Principal, kind: Kind, action: Action, owner: string | undefined): void {
  if (!allowed(p, kind, action, owner)) throw new Forbidden();
}

const PRINCIPAL = Symbol('control-plane principal');

/** Attach the authenticated principal to a request. */
export function setPrincipal(req: FastifyRequest, p: Principal): void {
  (req as unknown as Record<symbol, Principal>)[PRINCIPAL] = p;
}

/** Whether the auth hook authenticated this request. */
export function hasPrincipal(req: FastifyRequest): boolean {
  return (req as unknown as Record<symbol, Principal | undefined>)[PRINCIPAL] !== undefined;
}

/** The principal authenticated for this request (the auth hook ran first). */
export function principalOf(req: FastifyRequest): Principal {
  const p = (req as unknown as Record<symbol, Principal | undefined>)[PRINCIPAL];
  if (!p) throw new Unauthorized();
  return p;
}
