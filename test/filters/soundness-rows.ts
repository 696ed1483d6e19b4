// The rows and filters of the database soundness tests (soundness.test.ts for
// SQLite, PostgreSQL and UCAST; soundness-mysql.test.ts for MySQL/MariaDB):
// deterministic random rows for a policy's tables, the ids a full Regent decision
// includes (the oracle), the filters compiled for a list of targets, and the
// SELECT the WHERE clauses are appended to.
import { filters as f, type CompiledPolicy } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
import { partialEval } from './helpers.js';
import { prng } from '../fuzz/mutate.js';
import type { SoundnessPolicy, Table } from './soundness-policies.js';

export const ROWS = 300;
export type Row = Record<string, Record<string, unknown>>;

/** Deterministic PRNG (mulberry32, shared with the fuzzer). */
const rng = prng;

export function generate(tables: Table[], seed: number): Row[] {
  const next = rng(seed);
  const rows: Row[] = [];
  for (let id = 1; id <= ROWS; id++) {
    const row: Row = {};
    for (const t of tables) {
      row[t.name] = { id };
      for (const c of t.columns) row[t.name]![c.name] = c.pool[Math.floor(next() * c.pool.length)] ?? null;
    }
    rows.push(row);
  }
  return rows;
}

/** The rows Regent includes: a full decision per row. */
export function expected(p: SoundnessPolicy, policy: CompiledPolicy, rows: Row[]): number[] {
  const decide = policy.prepareDecision(p.path ?? ['filters', 'include']);
  const data = fromJS((p.data ?? {}) as never);
  const out: number[] = [];
  for (const row of rows) {
    const input: Record<string, unknown> = { ...p.input };
    for (const [t, cols] of Object.entries(row)) {
      input[t] = p.nullAsMissing ? Object.fromEntries(Object.entries(cols).filter(([, v]) => v !== null)) : cols;
    }
    if (decide({ input: fromJS(input as never), data }) === true) out.push(row[Object.keys(row)[0]!]!.id as number);
  }
  return out;
}

export function filtersFor(p: SoundnessPolicy, policy: CompiledPolicy, targets: f.TargetDialect[]): f.TargetFilter[] {
  const path = p.path ?? ['filters', 'include'];
  const ann = f.filterAnnotations(policy.modules, path);
  const prepared = f.prepareFilter(policy, { path, targets, unknowns: ann.unknowns, ...(p.mirror ? { mirrorComparisons: true } : {}) });
  return f.runFilter(policy, prepared, { input: fromJS(p.input as never), data: fromJS((p.data ?? {}) as never), partialEval: partialEval()! }).filters;
}

export function sqlOf(t: f.TargetFilter): string | undefined {
  return t.query && 'sql' in t.query ? t.query.sql : undefined;
}

export function selectFrom(tables: Table[]): string {
  const [first, ...rest] = tables;
  return `SELECT ${first!.name}.id FROM ${first!.name}${rest.map((t) => ` JOIN ${t.name} ON ${t.name}.id = ${first!.name}.id`).join('')}`;
}
