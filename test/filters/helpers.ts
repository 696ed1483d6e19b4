// Shared helpers of the data-filter tests: the fixtures in ../shared/filters-fixtures
// (vectors.json, the EOPA txtar scripts, OPA's bench_filters.rego with `custom:`
// turned into `compile:`), a txtar reader, a test server loaded with policies and
// data, filter requests over HTTP, and the partial evaluator when the compiler has
// one (compiler/partial; tests that need it are skipped until it is there).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filters as f } from '../../compiler/index.js';
import { partialEvaluator } from '../../server/api/compile-filters.js';
import { sharedDir } from '../shared-dir.js';
import { call, putPolicy, startTestServer, type Reply, type TestServer } from '../server/helpers.js';

export const FIXTURES = join(sharedDir(), 'filters-fixtures');

export interface Vector {
  id: string;
  source?: string;
  note?: string;
  policy?: Record<string, string> | string;
  data?: Record<string, unknown>;
  request?: { method: string; path: string; accept: string; body: unknown };
  expect: any;
  [k: string]: unknown;
}

export function loadVectors(): Vector[] {
  return JSON.parse(readFileSync(join(FIXTURES, 'vectors.json'), 'utf8')) as Vector[];
}

/** OPA's bench_filters.rego with the OPA ≥ 1.9 annotation key. */
export function benchFiltersPolicy(): string {
  return readFileSync(join(FIXTURES, 'opa-server-testdata', 'bench_filters.rego'), 'utf8').replace(/^# custom:$/m, '# compile:');
}

export function benchRoles(): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, 'opa-server-testdata', 'roles.json'), 'utf8'));
}

/** The files of a txtar archive (`-- name --` sections) and its leading script. */
export function readTxtar(name: string): { script: string; files: Record<string, string> } {
  const text = readFileSync(join(FIXTURES, 'eopa-e2e', name), 'utf8');
  const parts = text.split(/^-- (.+?) --$/m);
  const files: Record<string, string> = {};
  for (let i = 1; i < parts.length; i += 2) files[parts[i]!] = parts[i + 1]!.replace(/^\n/, '');
  return { script: parts[0]!, files };
}

/** The compiler's partial evaluator, or undefined while compiler/partial has not landed. */
export function partialEval(): f.PartialEvalFn | undefined {
  return partialEvaluator();
}

export interface LoadedServer extends TestServer {
  /** Policy ids that failed to load, with the reply. */
  loadErrors: Reply[];
}

/** A listening server with the given policies (file name → text) and base data. */
export async function serverWith(policies: Record<string, string>, data?: Record<string, unknown>, v0Compatible = false, runtime?: Record<string, unknown>): Promise<LoadedServer> {
  const server = await startTestServer({ workers: 0, ...(v0Compatible ? { v0Compatible: true } : {}), ...(runtime ? { runtime } : {}) });
  const loadErrors: Reply[] = [];
  for (const [id, text] of Object.entries(policies)) {
    const r = await putPolicy(server, id, text);
    if (r.status !== 200) loadErrors.push(r);
  }
  for (const [k, v] of Object.entries(data ?? {})) {
    const r = await call(server, 'PUT', `/v1/data/${k}`, v, { 'content-type': 'application/json' });
    if (r.status !== 204) loadErrors.push(r);
  }
  return { ...server, loadErrors };
}

/** A filter request: method, path (with query string), Accept, JSON body (or none). */
export async function filterRequest(server: TestServer, method: string, path: string, accept: string | undefined, body: unknown): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (accept !== undefined) headers.accept = accept;
  if (body !== undefined && body !== null) headers['content-type'] = 'application/json';
  return call(server, method, path, body === null ? undefined : body, headers);
}

/** A reply body without the keys tests ignore (`metrics`; `hints` unless expected). */
export function comparable(body: any, keepHints: boolean): any {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const out = { ...body };
  delete out.metrics;
  if (!keepHints) delete out.hints;
  return out;
}

/** Generated var names in refs replaced by `$v` (OPA versions name them differently). */
export function normalizeVars(x: any): any {
  if (Array.isArray(x)) return x.map(normalizeVars);
  if (x && typeof x === 'object') {
    if (x.type === 'ref' && Array.isArray(x.value)) {
      return { ...x, value: x.value.map((t: any, i: number) => (i > 0 && t.type === 'var' ? { type: 'var', value: '$v' } : normalizeVars(t))) };
    }
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, normalizeVars(v)]));
  }
  return x;
}

/** Per-prefix outcome counts, printed by the suites. */
export class Tally {
  private readonly counts = new Map<string, { pass: number; fail: number; pending: number; gap: number }>();

  private of(id: string) {
    const prefix = id.split('/')[0]!;
    let c = this.counts.get(prefix);
    if (!c) this.counts.set(prefix, (c = { pass: 0, fail: 0, pending: 0, gap: 0 }));
    return c;
  }

  pass(id: string): void {
    this.of(id).pass++;
  }

  fail(id: string): void {
    this.of(id).fail++;
  }

  pending(id: string): void {
    this.of(id).pending++;
  }

  /** A listed known gap (expected to fail). */
  gap(id: string): void {
    this.of(id).gap++;
  }

  summary(title: string): string {
    const lines = [...this.counts.entries()].map(([p, c]) => `  ${p.padEnd(16)} ${c.pass} passed, ${c.fail} failed${c.gap ? `, ${c.gap} known gaps` : ''}${c.pending ? `, ${c.pending} pending (no partial evaluator)` : ''}`);
    return `${title}\n${lines.join('\n')}`;
  }
}
