// Soundness of the `mysql` dialect's WHERE clauses against a real MySQL-compatible
// database (MariaDB, as .ci/run starts it: 127.0.0.1:3306, user root, no
// password). For each policy of soundness-policies.ts, the random rows of
// soundness-rows.ts go into tables of a scratch database, the generated WHERE
// clause runs there, and the selected ids must be exactly those a full Regent
// decision includes — as soundness.test.ts does for SQLite and PostgreSQL.
// Text columns use a binary collation (utf8mb4_bin), so comparisons and LIKE are
// case-sensitive as in Rego (MariaDB's default collation is not). An unreachable
// server fails the suite with a message saying how to start it; nothing is skipped.
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, filters as f } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
import { partialEval } from './helpers.js';
import { soundnessPolicies, type Table } from './soundness-policies.js';
import { expected, filtersFor, generate, selectFrom, sqlOf } from './soundness-rows.js';

const HOST = process.env.REGENT_MYSQL_HOST ?? '127.0.0.1';
const PORT = Number(process.env.REGENT_MYSQL_PORT ?? 3306);
const USER = process.env.REGENT_MYSQL_USER ?? 'root';
const START = 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd';

const TYPES = { int: 'INTEGER', real: 'DOUBLE', text: 'VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin', bool: 'BOOLEAN' };

function ddl(t: Table): string {
  return `CREATE TABLE ${t.name} (id INTEGER PRIMARY KEY, ${t.columns.map((c) => `${c.name} ${TYPES[c.type]}`).join(', ')})`;
}

const database = `regent_filters_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
let conn: mysql.Connection | undefined;
const counts = { policies: 0, rows: 0 };

beforeAll(async () => {
  try {
    conn = await mysql.createConnection({ host: HOST, port: PORT, user: USER, password: process.env.REGENT_MYSQL_PASSWORD ?? '', connectTimeout: 5000 });
  } catch (e) {
    throw new Error(`MySQL filter soundness needs MariaDB at ${HOST}:${PORT} (user ${USER}, empty password), which is unreachable: ${(e as Error).message}. Start it with \`${START}\` (.ci/run does).`);
  }
  // Statements as the renderer writes them: backslash escapes on, ANSI quotes off.
  await conn.query(`SET SESSION sql_mode = 'STRICT_TRANS_TABLES'`);
  await conn.query(`CREATE DATABASE ${database}`);
  await conn.query(`USE ${database}`);
});

afterAll(async () => {
  if (conn) {
    await conn.query(`DROP DATABASE IF EXISTS ${database}`);
    await conn.end();
  }
  console.log(`filters soundness (mysql): ${JSON.stringify(counts)}`);
});

async function load(tables: Table[], rows: ReturnType<typeof generate>): Promise<void> {
  for (const t of tables) {
    await conn!.query(`DROP TABLE IF EXISTS ${t.name}`);
    await conn!.query(ddl(t));
    const cols = ['id', ...t.columns.map((c) => c.name)];
    const values = rows.map((r) => cols.map((c) => (c === 'id' ? r[t.name]!.id : r[t.name]![c])));
    await conn!.query(`INSERT INTO ${t.name} (${cols.join(', ')}) VALUES ?`, [values]);
  }
}

describe('mysql data filters select exactly the rows Regent includes (MariaDB)', () => {
  soundnessPolicies().forEach((p, i) => {
    it(p.name, async () => {
      const policy = compile([{ file: 'filters.rego', text: p.rego }]);
      const rows = generate(p.tables, 1000 + i);
      const want = expected(p, policy, rows);
      expect(want.length, 'the random rows should exercise both outcomes').toBeGreaterThan(0);
      expect(want.length).toBeLessThan(rows.length);
      const [filter] = filtersFor(p, policy, [{ target: 'sql', dialect: 'mysql' }]);
      await load(p.tables, rows);
      let got: number[] = [];
      if (filter!.query) {
        const [result] = await conn!.query(`${selectFrom(p.tables)} ${sqlOf(filter!)} ORDER BY 1`);
        got = (result as { id: number }[]).map((r) => r.id);
      }
      expect(got, `mysql: ${sqlOf(filter!)}`).toEqual(want);
      counts.policies++;
      counts.rows += rows.length;
    });
  });

  it('renders string literals with backslash escapes that MariaDB reads back unchanged', async () => {
    // Every tricky text value of the pools, compared for equality through a filter.
    const policy = compile([{ file: 'filters.rego', text: 'package filters\n# METADATA\n# scope: document\n# compile:\n#   unknowns: [input.t]\ninclude if input.t.s == input.want\n' }]);
    await conn!.query('DROP TABLE IF EXISTS t');
    await conn!.query(`CREATE TABLE t (id INTEGER PRIMARY KEY, s ${TYPES.text})`);
    const values = ["o'neil", 'back\\slash', 'per%cent', 'under_score', 'quote"d', 'tab\tbed', 'new\nline', "x' OR 1=1 --", 'nul\u0000byte', 'ctrl\u001az', 'ünï©ødé'];
    await conn!.query('INSERT INTO t (id, s) VALUES ?', [values.map((s, k) => [k + 1, s])]);
    const prepared = f.prepareFilter(policy, { path: ['filters', 'include'], targets: [{ target: 'sql', dialect: 'mysql' }], unknowns: ['input.t'] });
    for (const [k, want] of values.entries()) {
      const run = f.runFilter(policy, prepared, { input: fromJS({ want } as never), partialEval: partialEval()! });
      const where = sqlOf(run.filters[0]!)!;
      const [result] = await conn!.query(`SELECT id FROM t ${where}`);
      expect((result as { id: number }[]).map((r) => r.id), `${JSON.stringify(want)}: ${where}`).toEqual([k + 1]);
    }
  });
});
