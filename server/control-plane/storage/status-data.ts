// Source data documents and bundle status records, the part of the SQL storage
// that is not about definitions (repository.ts extends this class).
//
// Source data: a document pushed to /v1/sources/{s}/data/{path} is stored under
// the key `<path>/data.json` (`data.json` for the root); the builder reads them
// back with listSourceData as `{path, value}`.
//
// Status records: one row per (bundle, revision). Writing a revision that
// already has a row replaces that row (created_at kept) and moves it to the top,
// so "latest" is the most recently written record. A record with a non-empty
// revision removes the bundle's pre-revision row (revision ''). Only the newest
// STATUS_RETENTION rows per bundle are kept. Rows of a deleted bundle cascade.
// A failed build's located Rego errors (Regent extension, migration
// 003_status_errors) are kept in the row's `errors` column as JSON, never part
// of the spec'd record; latestStatusErrors reads them back.
import { NotFound } from '../errors.js';
import type { StatusError } from '../contract.js';
import type { StatusRecord, StatusRow } from '../types.js';
import { ConstraintError, STATUS_RETENTION, type SqlDb } from './storage.js';

/** Storage key of the document at a data path. */
export function dataKey(path: string): string {
  const clean = path.replace(/^\/+|\/+$/g, '');
  return clean === '' ? 'data.json' : `${clean}/data.json`;
}

/** Data path of a storage key (inverse of dataKey). */
export function dataPathOf(key: string): string {
  return key === 'data.json' ? '' : key.replace(/\/data\.json$/, '');
}

interface StatusDbRow {
  id: number;
  bundle_name: string;
  revision: string;
  phase: string;
  status: string;
  error_message: string;
  created_at: string;
  updated_at: string;
}

function statusOf(r: StatusDbRow): StatusRow {
  return {
    bundle_name: r.bundle_name,
    revision: r.revision,
    phase: r.phase,
    status: r.status,
    error_message: r.error_message,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

const STATUS_COLUMNS = 'id, bundle_name, revision, phase, status, error_message, created_at, updated_at';

export class StatusAndData {
  constructor(protected readonly sql: SqlDb) {}

  // ------------------------------------------------------------ source data

  async getSourceData(source: string, path: string): Promise<unknown> {
    const rows = await this.sql.all<{ data: string }>('SELECT data FROM source_data WHERE source_name = ? AND path = ?', [
      source,
      dataKey(path),
    ]);
    return rows[0] ? JSON.parse(rows[0].data) : undefined;
  }

  async putSourceData(source: string, path: string, value: unknown): Promise<void> {
    try {
      await this.sql.transaction(async (tx) => {
        const found = await tx.all('SELECT 1 AS x FROM definitions WHERE kind = ? AND name = ?', ['source', source]);
        if (found.length === 0) throw new NotFound(`source "${source}" not found`);
        await tx.run(
          `INSERT INTO source_data (source_kind, source_name, path, data, updated_at) VALUES ('source', ?, ?, ?, ?)
           ON CONFLICT (source_name, path) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
          [source, dataKey(path), JSON.stringify(value), new Date().toISOString()],
        );
      });
    } catch (e) {
      if (e instanceof ConstraintError && e.constraint === 'foreign_key') throw new NotFound(`source "${source}" not found`);
      throw e;
    }
  }

  async deleteSourceData(source: string, path: string): Promise<void> {
    await this.sql.run('DELETE FROM source_data WHERE source_name = ? AND path = ?', [source, dataKey(path)]);
  }

  async listSourceData(source: string): Promise<{ path: string; value: unknown }[]> {
    const rows = await this.sql.all<{ path: string; data: string }>(
      'SELECT path, data FROM source_data WHERE source_name = ? ORDER BY path',
      [source],
    );
    return rows.map((r) => ({ path: dataPathOf(r.path), value: JSON.parse(r.data) as unknown }));
  }

  // ------------------------------------------------------------ status records

  async addStatus(record: StatusRecord): Promise<void> {
    const revision = record.revision ?? '';
    try {
      await this.sql.transaction(async (tx) => {
        const bundle = await tx.all('SELECT 1 AS x FROM definitions WHERE kind = ? AND name = ?', [
          'bundle',
          record.bundle_name,
        ]);
        if (bundle.length === 0) return; // bundle deleted meanwhile: nothing to record
        const old = await tx.all<{ id: number; created_at: string }>(
          'SELECT id, created_at FROM bundle_statuses WHERE bundle_name = ? AND revision = ?',
          [record.bundle_name, revision],
        );
        if (old[0]) await tx.run('DELETE FROM bundle_statuses WHERE id = ?', [old[0].id]);
        if (revision !== '') {
          await tx.run("DELETE FROM bundle_statuses WHERE bundle_name = ? AND revision = ''", [record.bundle_name]);
        }
        const t = new Date().toISOString();
        await tx.run(
          `INSERT INTO bundle_statuses (bundle_kind, bundle_name, revision, phase, status, error_message, created_at, updated_at, errors)
           VALUES ('bundle', ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            record.bundle_name,
            revision,
            record.phase,
            record.status,
            record.error_message ?? '',
            old[0]?.created_at ?? record.created_at ?? t,
            t,
            record.errors?.length ? JSON.stringify(record.errors) : null,
          ],
        );
        await tx.run(
          `DELETE FROM bundle_statuses WHERE bundle_name = ? AND id NOT IN
             (SELECT id FROM bundle_statuses WHERE bundle_name = ? ORDER BY id DESC LIMIT ${STATUS_RETENTION})`,
          [record.bundle_name, record.bundle_name],
        );
      });
    } catch (e) {
      // The bundle was deleted between the check and the insert (PostgreSQL): drop the record.
      if (e instanceof ConstraintError && e.constraint === 'foreign_key') return;
      throw e;
    }
  }

  async listStatuses(bundle: string, revision: string | undefined, limit: number): Promise<StatusRow[]> {
    const params: unknown[] = [bundle];
    let sql = `SELECT ${STATUS_COLUMNS} FROM bundle_statuses WHERE bundle_name = ?`;
    if (revision) {
      sql += ' AND revision = ?';
      params.push(revision);
    }
    sql += ' ORDER BY id DESC LIMIT ?';
    params.push(limit);
    return (await this.sql.all<StatusDbRow>(sql, params)).map(statusOf);
  }

  async latestStatus(bundle: string): Promise<StatusRow | undefined> {
    return (await this.listStatuses(bundle, undefined, 1))[0];
  }

  /** The newest record of each of `bundles` (one statement); bundles without a record are absent. */
  async latestStatuses(bundles: string[]): Promise<Map<string, StatusRow>> {
    const out = new Map<string, StatusRow>();
    // Chunks keep the statement under SQLite's and PostgreSQL's parameter limits.
    for (let i = 0; i < bundles.length; i += 500) {
      const chunk = bundles.slice(i, i + 500);
      const marks = chunk.map(() => '?').join(', ');
      const rows = await this.sql.all<StatusDbRow>(
        `SELECT ${STATUS_COLUMNS} FROM bundle_statuses WHERE id IN
           (SELECT MAX(id) FROM bundle_statuses WHERE bundle_name IN (${marks}) GROUP BY bundle_name)`,
        chunk,
      );
      for (const r of rows) out.set(r.bundle_name, statusOf(r));
    }
    return out;
  }

  /** The newest record of a bundle with its located errors (`[]` when none were stored). */
  async latestStatusErrors(bundle: string): Promise<{ status: StatusRow; errors: StatusError[] } | undefined> {
    const rows = await this.sql.all<StatusDbRow & { errors: string | null }>(
      `SELECT ${STATUS_COLUMNS}, errors FROM bundle_statuses WHERE bundle_name = ? ORDER BY id DESC LIMIT 1`,
      [bundle],
    );
    const r = rows[0];
    if (!r) return undefined;
    return { status: statusOf(r), errors: r.errors ? (JSON.parse(r.errors) as StatusError[]) : [] };
  }
}
