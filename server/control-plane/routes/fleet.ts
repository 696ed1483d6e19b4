// Fleet routes (Regent extensions to the control plane API; fleet/ holds the
// logic, storage/fleet.ts the tables):
//
//   POST /status, /status/, /status/{partition}   an engine's status report, in
//        (also under /v1)                          OPA's status plugin format
//   GET  /v1/fleet                                 every engine, sorted by id
//   GET  /v1/fleet/bundles                         rollout of each bundle's latest build
//   GET  /v1/fleet/{id}                            one engine with its last raw report
//
// OPA's status plugin posts to `<service url>/status/<partition_name>`, which is
// `/status/` without a partition; Regent's engine posts to `/status`. Both are
// accepted, so are the same paths under `/v1` for a service URL ending in /v1.
// Reports need the `status.report` permission (administrator, engine) and get
// 200 `{}`; reading the fleet needs `fleet.view` (administrator, viewer).
import type { FastifyInstance } from 'fastify';
import { principalOf, requireFleet } from '../auth.js';
import { NotFound } from '../errors.js';
import { parseStatusReport, servedRevisions, summarize } from '../fleet/report.js';
import { bundleRollouts, engineOf, listFleet } from '../fleet/view.js';
import type { FleetConfig } from '../types.js';
import { nameParam, OK, requireBody, sendJSON, type RouteContext } from './common.js';

/** The report paths below `base` ('' or '/v1'). */
export function statusReportPaths(base: '' | '/v1'): string[] {
  return [`${base}/status`, `${base}/status/`, `${base}/status/:partition`];
}

/** Whether a route pattern (prefix removed) is a status report route. */
export function isStatusReportRoute(url: string | undefined): boolean {
  return url !== undefined && statusReportPaths('/v1').includes(url);
}

/** The routes the `engine` role may call: status reports, and GET /v1/whoami. */
export function engineMayCall(url: string | undefined): boolean {
  return isStatusReportRoute(url) || url === '/v1/whoami';
}

export function registerStatusReportRoutes(app: FastifyInstance, ctx: RouteContext, fleet: FleetConfig, base: '' | '/v1'): void {
  for (const path of statusReportPaths(base)) {
    app.post(path, async (req, reply) => {
      requireFleet(principalOf(req), 'status.report');
      const report = parseStatusReport(requireBody(req));
      const now = Date.now();
      await ctx.store.fleet.recordReport({
        id: report.labels.id,
        labels: JSON.stringify(report.labels),
        summary: JSON.stringify(summarize(report)),
        report: JSON.stringify(report),
        served: servedRevisions(report),
        at: new Date(now).toISOString(),
        forgetBefore: new Date(now - fleet.forgetAfterMs).toISOString(),
      });
      return sendJSON(req, reply, OK);
    });
  }
}

export function registerFleetRoutes(app: FastifyInstance, ctx: RouteContext, fleet: FleetConfig): void {
  app.get('/v1/fleet', async (req, reply) => {
    requireFleet(principalOf(req), 'fleet.view');
    return sendJSON(req, reply, { result: await listFleet(ctx.store, fleet.staleAfterMs) });
  });

  app.get('/v1/fleet/bundles', async (req, reply) => {
    requireFleet(principalOf(req), 'fleet.view');
    return sendJSON(req, reply, { result: await bundleRollouts(ctx.store, fleet.staleAfterMs) });
  });

  app.get('/v1/fleet/:engine', async (req, reply) => {
    requireFleet(principalOf(req), 'fleet.view');
    const id = nameParam(req, 'engine');
    const row = await ctx.store.fleet.getEngine(id);
    if (!row) throw new NotFound(`engine "${id}" not found`);
    return sendJSON(req, reply, { result: engineOf(row, fleet.staleAfterMs, Date.now(), true) });
  });
}
