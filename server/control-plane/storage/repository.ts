// The one implementation of `Storage`, written against `SqlDb` so SQLite and
// PostgreSQL share every query. Definitions live in `definitions` (kind, name,
// owner, JSON body); `refs` rows record the sources and secrets each definition
// refers to, so deletes of referenced rows fail (checked explicitly for a clear
// message, and enforced by the FOREIGN KEY). Driver constraint errors arrive as
// ConstraintError and are turned into domain sentinels here.
import { requiredSources, bundleSecrets, sourceSecrets } from '../config/definitions.js';
import { Conflict, InUse, InvalidParameter, InvalidReference, NotFound } from '../errors.js';
import type {
  BundleDef,
  DefByKind,
  Kind,
  ListOptions,
  Page,
  SecretValue,
  SourceDef,
  StackDef,
} from '../types.js';
import { SqlFleetStore, type FleetStore } from './fleet.js';
import { migrate } from './migrate.js';
import { StatusAndData } from './status-data.js';
import { ConstraintError, expandSecret, type Guard, type SqlDb, type SqlExecutor, type Storage } from './storage.js';

interface DefRow {
  id: number;
  name: string;
  owner: string;
  body: string;
}

/** References a definition makes: `required` must exist, `optional` are linked when they exist. */
interface RefSet {
  sources: string[];
  secrets: string[];
  optionalSecrets: string[];
}

function refsOf(kind: Kind, def: unknown): RefSet {
  switch (kind) {
    case 'bundle':
      return { sources: requiredSources(def as BundleDef), secrets: bundleSecrets(def as BundleDef), optionalSecrets: [] };
    case 'source':
      return { sources: requiredSources(def as SourceDef), secrets: [], optionalSecrets: sourceSecrets(def as SourceDef) };
    case 'stack':
      return { sources: requiredSources(def as StackDef), secrets: [], optionalSecrets: [] };
    default:
      return { sources: [], secrets: [], optionalSecrets: [] };
  }
}

const now = (): string => new Date().toISOString();

export class SqlStorage extends StatusAndData implements Storage {
  readonly fleet: FleetStore;

  constructor(readonly db: SqlDb) {
    super(db);
    this.fleet = new SqlFleetStore(db);
  }

  async migrate(): Promise<void> {
    await migrate(this.db);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  // ------------------------------------------------------------ reads

  async list<K extends Kind>(kind: K, opts: ListOptions): Promise<Page<DefByKind[K]>> {
    const params: unknown[] = [kind, opts.after ?? 0];
    let sql = 'SELECT id, name, owner, body FROM definitions WHERE kind = ? AND id > ?';
    if (opts.owner !== undefined) {
      sql += ' AND owner = ?';
      params.push(opts.owner);
    }
    sql += ' ORDER BY id LIMIT ?';
    params.push(opts.limit + 1);
    const rows = await this.db.all<DefRow>(sql, params);
    const page = rows.slice(0, opts.limit);
    const items = page.map((r) => JSON.parse(r.body) as DefByKind[K]);
    return rows.length > opts.limit ? { items, nextAfter: Number(page[page.length - 1]!.id) } : { items };
  }

  async get<K extends Kind>(kind: K, name: string, owner?: string): Promise<DefByKind[K] | undefined> {
    const rows = await this.db.all<DefRow>('SELECT id, name, owner, body FROM definitions WHERE kind = ? AND name = ?', [
      kind,
      name,
    ]);
    const row = rows[0];
    if (!row || (owner !== undefined && row.owner !== owner)) return undefined;
    return JSON.parse(row.body) as DefByKind[K];
  }

  async ownerOf(kind: Kind, name: string): Promise<string | undefined> {
    const rows = await this.db.all<{ owner: string }>('SELECT owner FROM definitions WHERE kind = ? AND name = ?', [
      kind,
      name,
    ]);
    return rows[0]?.owner;
  }

  private async all<T>(kind: Kind): Promise<T[]> {
    const rows = await this.db.all<DefRow>('SELECT body FROM definitions WHERE kind = ? ORDER BY id', [kind]);
    return rows.map((r) => JSON.parse(r.body) as T);
  }

  listBundles(): Promise<BundleDef[]> {
    return this.all<BundleDef>('bundle');
  }

  getBundle(name: string): Promise<BundleDef | undefined> {
    return this.get('bundle', name);
  }

  listSources(): Promise<SourceDef[]> {
    return this.all<SourceDef>('source');
  }

  getSource(name: string): Promise<SourceDef | undefined> {
    return this.get('source', name);
  }

  listStacks(): Promise<StackDef[]> {
    return this.all<StackDef>('stack');
  }

  async getSecretValue(name: string): Promise<SecretValue | undefined> {
    const rows = await this.db.all<{ secret_value: string | null }>(
      'SELECT secret_value FROM definitions WHERE kind = ? AND name = ?',
      ['secret', name],
    );
    const raw = rows[0]?.secret_value;
    return raw ? expandSecret(JSON.parse(raw) as SecretValue) : undefined;
  }

  // ------------------------------------------------------------ writes

  put<K extends Exclude<Kind, 'secret'>>(kind: K, def: DefByKind[K], principal: string, guard?: Guard): Promise<boolean> {
    return this.write(kind, def.name, JSON.stringify(def), null, principal, guard, async (tx) => {
      await this.linkRefs(tx, kind, def.name, refsOf(kind, def));
      if (kind === 'source') await this.checkCycle(tx, def.name);
    });
  }

  putSecret(name: string, value: SecretValue | null, principal: string, guard?: Guard): Promise<boolean> {
    const stored = value === null ? null : JSON.stringify(value);
    return this.write('secret', name, JSON.stringify({ name }), stored, principal, guard, (tx) =>
      this.linkSecretUsers(tx, name),
    );
  }

  /** Upsert a definition row and run `after` in the same transaction. */
  private async write(
    kind: Kind,
    name: string,
    body: string,
    secretValue: string | null,
    principal: string,
    guard: Guard | undefined,
    after: (tx: SqlExecutor) => Promise<void>,
  ): Promise<boolean> {
    try {
      return await this.db.transaction(async (tx) => {
        const existing = (
          await tx.all<{ owner: string }>('SELECT owner FROM definitions WHERE kind = ? AND name = ?', [kind, name])
        )[0];
        guard?.(existing);
        const t = now();
        if (existing) {
          await tx.run('UPDATE definitions SET body = ?, secret_value = ?, updated_at = ? WHERE kind = ? AND name = ?', [
            body,
            secretValue,
            t,
            kind,
            name,
          ]);
        } else {
          await tx.run(
            'INSERT INTO definitions (kind, name, owner, body, secret_value, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            [kind, name, principal, body, secretValue, t, t],
          );
        }
        await after(tx);
        return !existing;
      });
    } catch (e) {
      if (e instanceof ConstraintError && e.constraint === 'foreign_key') {
        throw new InvalidReference(`${kind} "${name}" refers to a source or secret that does not exist`);
      }
      if (e instanceof ConstraintError && e.constraint === 'unique') {
        throw new Conflict(`${kind} "${name}" was created concurrently; retry`);
      }
      throw e;
    }
  }

  /** Replace the refs of a definition; required targets must exist. */
  private async linkRefs(tx: SqlExecutor, kind: Kind, name: string, refs: RefSet): Promise<void> {
    await tx.run('DELETE FROM refs WHERE from_kind = ? AND from_name = ?', [kind, name]);
    const targets: [Kind, string, boolean][] = [
      ...refs.sources.map((s): [Kind, string, boolean] => ['source', s, true]),
      ...refs.secrets.map((s): [Kind, string, boolean] => ['secret', s, true]),
      ...refs.optionalSecrets.map((s): [Kind, string, boolean] => ['secret', s, false]),
    ];
    for (const [toKind, toName, required] of targets) {
      const exists = (await tx.all('SELECT 1 AS x FROM definitions WHERE kind = ? AND name = ?', [toKind, toName])).length > 0;
      if (!exists) {
        if (!required) continue;
        throw new InvalidReference(`${kind} "${name}": ${toKind} "${toName}" does not exist`);
      }
      await tx.run(
        'INSERT INTO refs (from_kind, from_name, to_kind, to_name) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [kind, name, toKind, toName],
      );
    }
  }

  /** A new secret: link the sources that already name it in their credentials. */
  private async linkSecretUsers(tx: SqlExecutor, secret: string): Promise<void> {
    const rows = await tx.all<DefRow>('SELECT name, body FROM definitions WHERE kind = ?', ['source']);
    for (const r of rows) {
      if (!sourceSecrets(JSON.parse(r.body) as SourceDef).includes(secret)) continue;
      await tx.run(
        'INSERT INTO refs (from_kind, from_name, to_kind, to_name) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        ['source', r.name, 'secret', secret],
      );
    }
  }

  /** Reject a source whose requirements lead back to itself. */
  private async checkCycle(tx: SqlExecutor, source: string): Promise<void> {
    const rows = await tx.all(
      `WITH RECURSIVE reach(name) AS (
         SELECT to_name FROM refs WHERE from_kind = 'source' AND from_name = ? AND to_kind = 'source'
         UNION
         SELECT r.to_name FROM refs r JOIN reach ON r.from_kind = 'source' AND r.from_name = reach.name AND r.to_kind = 'source'
       ) SELECT name FROM reach WHERE name = ?`,
      [source, source],
    );
    if (rows.length > 0) throw new InvalidParameter(`source "${source}": requirements form a cycle`);
  }

  async delete(kind: Kind, name: string, guard?: Guard): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        const existing = (
          await tx.all<{ owner: string }>('SELECT owner FROM definitions WHERE kind = ? AND name = ?', [kind, name])
        )[0];
        guard?.(existing);
        if (!existing) throw new NotFound(`${kind} "${name}" not found`);
        const users = await tx.all<{ from_kind: string; from_name: string }>(
          'SELECT from_kind, from_name FROM refs WHERE to_kind = ? AND to_name = ? ORDER BY from_kind, from_name',
          [kind, name],
        );
        if (users.length > 0) {
          const list = users.map((u) => `${u.from_kind} "${u.from_name}"`).join(', ');
          throw new InUse(`${kind} "${name}" is in use by ${list}`);
        }
        await tx.run('DELETE FROM definitions WHERE kind = ? AND name = ?', [kind, name]);
      });
    } catch (e) {
      if (e instanceof ConstraintError && e.constraint === 'foreign_key') {
        throw new InUse(`${kind} "${name}" is in use`);
      }
      throw e;
    }
  }
}
