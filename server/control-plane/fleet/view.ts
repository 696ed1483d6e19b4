// The read side of the fleet (Regent extension): stored engine rows become the
// `Engine` objects of `GET /v1/fleet[/{id}]`, and the bundles' latest successful
// builds are set against what the engines serve for `GET /v1/fleet/bundles`.
//
// - `stale`: `last_seen` is older than `fleet.stale_after` at the time of the
//   request (computed on read; nothing is written when an engine goes quiet).
// - Engines are matched to control-plane bundles by bundle name: an engine's
//   `bundles.<name>` is the control plane's bundle `<name>`.
// - Rollout counts consider live (non-stale) engines that report the bundle:
//   `engines` counts them, `serving_latest` those whose active revision is the
//   latest build's, `behind` lists the others (including engines that never
//   activated it). Stale engines that report the bundle are listed apart, in
//   `stale`, and those of them not on the latest build also in `stale_behind`,
//   so a stale engine on an old revision is never hidden. Before the bundle's
//   first successful build (`latest_revision: null`) nothing is behind.
// - `built_at` is the `created_at` of the newest SUCCESS status record: the first
//   time that revision was built. `first_served_at` is the earliest time any
//   engine reported serving it (control-plane clock), and
//   `seconds_to_first_serve` their difference, never below 0 (an engine can
//   activate a pushed bundle just before the builder writes its status record).
//   Not given for revision "" (a bundle without a `revision` expression), whose
//   builds cannot be told apart.
import type { Storage } from '../storage/storage.js';
import type { EngineRow } from '../storage/fleet.js';
import type { ReportSummary } from './report.js';

export interface Engine {
  id: string;
  labels: Record<string, string>;
  first_seen: string;
  last_seen: string;
  stale: boolean;
  bundles: ReportSummary['bundles'];
  plugins: ReportSummary['plugins'];
  errors: string[];
  /** The last raw report (only for `GET /v1/fleet/{id}`). */
  report?: unknown;
}

export interface BundleRollout {
  bundle: string;
  /** null until the bundle has a successful build among its status records. */
  latest_revision: string | null;
  built_at: string | null;
  engines: number;
  serving_latest: number;
  behind: string[];
  /** Stale engines that report the bundle (not counted in `engines`). */
  stale: string[];
  /** The stale engines not on the latest build. */
  stale_behind: string[];
  first_served_at?: string;
  seconds_to_first_serve?: number;
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** An engine row as the API shows it; `now` decides staleness. */
export function engineOf(row: EngineRow, staleAfterMs: number, now: number, withReport = false): Engine {
  const summary = JSON.parse(row.summary) as ReportSummary;
  const engine: Engine = {
    id: row.id,
    labels: JSON.parse(row.labels) as Record<string, string>,
    first_seen: row.first_seen,
    last_seen: row.last_seen,
    stale: now - Date.parse(row.last_seen) > staleAfterMs,
    bundles: summary.bundles,
    plugins: summary.plugins,
    errors: summary.errors,
  };
  if (withReport && row.report !== undefined) engine.report = JSON.parse(row.report) as unknown;
  return engine;
}

/** Every engine, sorted by id (byte order on both databases). */
export async function listFleet(store: Storage, staleAfterMs: number, now = Date.now()): Promise<Engine[]> {
  const rows = await store.fleet.listEngines();
  return rows.map((r) => engineOf(r, staleAfterMs, now)).sort((a, b) => byString(a.id, b.id));
}

/** The latest successful build of a bundle, from its status records (newest first). */
async function latestSuccess(store: Storage, bundle: string): Promise<{ revision: string; created_at: string } | undefined> {
  const records = await store.listStatuses(bundle, undefined, 10);
  return records.find((r) => r.status === 'SUCCESS');
}

/** Per control-plane bundle: its latest successful build and how far the live engines have moved to it. */
export async function bundleRollouts(store: Storage, staleAfterMs: number, now = Date.now()): Promise<BundleRollout[]> {
  const [bundles, engines] = await Promise.all([store.listBundles(), listFleet(store, staleAfterMs, now)]);
  const names = bundles.map((b) => b.name).sort(byString);
  return Promise.all(
    names.map(async (name): Promise<BundleRollout> => {
      const latest = await latestSuccess(store, name);
      const reporting = engines.filter((e) => e.bundles[name] !== undefined);
      const serving = reporting.filter((e) => !e.stale);
      const stale = reporting.filter((e) => e.stale);
      const out: BundleRollout = {
        bundle: name,
        latest_revision: latest?.revision ?? null,
        built_at: latest?.created_at ?? null,
        engines: serving.length,
        serving_latest: 0,
        behind: [],
        stale: stale.map((e) => e.id),
        stale_behind: [],
      };
      if (!latest) return out; // never built: nothing to be behind
      const onLatest = (e: Engine): boolean => {
        const b = e.bundles[name]!;
        return b.last_successful_activation !== '' && b.active_revision === latest.revision;
      };
      for (const e of serving) {
        if (onLatest(e)) out.serving_latest++;
        else out.behind.push(e.id);
      }
      out.stale_behind = stale.filter((e) => !onLatest(e)).map((e) => e.id);
      // Revision "" is every build of a bundle without a `revision` expression: no first serve to time.
      if (latest.revision === '') return out;
      const first = await store.fleet.firstServed(name, latest.revision);
      if (first !== undefined) {
        out.first_served_at = first;
        out.seconds_to_first_serve = Math.max(0, (Date.parse(first) - Date.parse(latest.created_at)) / 1000);
      }
      return out;
    }),
  );
}
