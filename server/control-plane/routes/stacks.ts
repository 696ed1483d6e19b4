// Stack routes (control-plane-api.md §4.6): CRUD only. A stack can attach
// sources to any bundle through its selectors, so every change rebuilds all.
import type { FastifyInstance } from 'fastify';
import { toStackDef } from '../config/definitions.js';
import type { RouteContext } from './common.js';
import { registerDefinitionRoutes } from './definitions.js';

export function registerStackRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerDefinitionRoutes(app, ctx, {
    kind: 'stack',
    plural: 'stacks',
    param: 'stack',
    toDef: toStackDef,
    affected: () => undefined,
  });
}
