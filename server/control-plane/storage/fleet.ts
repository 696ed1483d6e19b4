// Storage of engine status reports (Regent extension; tables of migration
// 002_fleet): the latest report per engine id and, per (engine, bundle,
// revision), the first time that engine reported serving it. Written against
// `SqlDb`, so SQLite and PostgreSQL share every statement.
//
// A report is one transaction: upsert the engine row (first_seen kept), insert
// the served revisions that are new for the engine (existing rows keep their
// first time), keep the newest REVISIONS_KEPT revisions per (engine, bundle),
// and delete engines not seen since the forget cutoff (their revision rows
// cascade). Reads never parse the raw report except for one engine.
import type { SqlDb } from './storage.js';

/** Revisions remembered per (engine, bundle); older ones are pruned. */
export const REVISIONS_KEPT = 10;

/** What a report writes. `labels`, `summary` and `report` are JSON text. */
export interface EngineReportWrite {
  id: string;
  labels: string;
  summary: string;
  report: string;
  /** Served (bundle, revision) pairs. */
  served: { bundle: string; revision: string }[];
  /** Receive time (ISO 8601). */
  at: string;
  /** Engines last seen before this time (ISO 8601) are deleted. */
  forgetBefore?: string;
}

/** A stored engine; `report` only when asked for. */
export interface EngineRow {
  id: string;
  labels: string;
  summary: string;
  report?: string;
  first_seen: string;
  last_seen: string;
}

/** The fleet half of the storage (Storage.fleet). */
export interface FleetStore {
  recordReport(w: EngineReportWrite): Promise<void>;
  /** Every engine, sorted by id, without the raw report. */
  listEngines(): Promise<EngineRow[]>;
  /** One engine with its raw report. */
  getEngine(id: string): Promise<EngineRow | undefined>;
  /** The first time any engine reported serving `revision` of `bundle`. */
  firstServed(bundle: string, revision: string): Promise<string | undefined>;
  /** How many engines are stored, and how many of them were last seen before `staleBefore` (the /metrics gauges). */
  counts(staleBefore: string): Promise<{ engines: number; stale: number }>;
}

export class SqlFleetStore implements FleetStore {
  constructor(private readonly db: SqlDb) {}

  async recordReport(w: EngineReportWrite): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO fleet_engines (id, labels, summary, report, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET labels = excluded.labels, summary = excluded.summary,
           report = excluded.report, last_seen = excluded.last_seen`,
        [w.id, w.labels, w.summary, w.report, w.at, w.at],
      );
      for (const s of w.served) {
        const added = await tx.run(
          `INSERT INTO fleet_revisions (engine_id, bundle_name, revision, first_reported_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (engine_id, bundle_name, revision) DO NOTHING`,
          [w.id, s.bundle, s.revision, w.at],
        );
        if (added === 0) continue;
        await tx.run(
          `DELETE FROM fleet_revisions WHERE engine_id = ? AND bundle_name = ? AND revision NOT IN
             (SELECT revision FROM fleet_revisions WHERE engine_id = ? AND bundle_name = ?
              ORDER BY first_reported_at DESC, revision LIMIT ${REVISIONS_KEPT})`,
          [w.id, s.bundle, w.id, s.bundle],
        );
      }
      if (w.forgetBefore !== undefined) {
        await tx.run('DELETE FROM fleet_engines WHERE last_seen < ? AND id <> ?', [w.forgetBefore, w.id]);
      }
    });
  }

  listEngines(): Promise<EngineRow[]> {
    return this.db.all<EngineRow>(
      'SELECT id, labels, summary, first_seen, last_seen FROM fleet_engines ORDER BY id',
    );
  }

  async getEngine(id: string): Promise<EngineRow | undefined> {
    const rows = await this.db.all<EngineRow>(
      'SELECT id, labels, summary, report, first_seen, last_seen FROM fleet_engines WHERE id = ?',
      [id],
    );
    return rows[0];
  }

  async counts(staleBefore: string): Promise<{ engines: number; stale: number }> {
    const rows = await this.db.all<{ engines: number | string; stale: number | string | null }>(
      'SELECT COUNT(*) AS engines, SUM(CASE WHEN last_seen < ? THEN 1 ELSE 0 END) AS stale FROM fleet_engines',
      [staleBefore],
    );
    // PostgreSQL returns COUNT/SUM as bigint text.
    return { engines: Number(rows[0]?.engines ?? 0), stale: Number(rows[0]?.stale ?? 0) };
  }

  async firstServed(bundle: string, revision: string): Promise<string | undefined> {
    const rows = await this.db.all<{ t: string | null }>(
      'SELECT MIN(first_reported_at) AS t FROM fleet_revisions WHERE bundle_name = ? AND revision = ?',
      [bundle, revision],
    );
    return rows[0]?.t ?? undefined;
  }
}
