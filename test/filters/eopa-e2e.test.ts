// EOPA's end-to-end scripts for data filters (../shared/filters-fixtures/eopa-e2e):
//   * run_compile_api*.txtar: their curl calls replayed against a real server with
//     the scripts' policies; the `?pretty` replies must match the expected files
//     byte for byte;
//   * test_rego_compile*.txtar: the same policies through the HTTP API instead of
//     EOPA's rego.compile builtin (Regent has no such builtin): inputs, data
//     overrides, mask rules and mappings of each test, expectations transcribed
//     from its `conditions.query ==` / `conditions.masks ==` lines.
// Needs compiler/partial (skipped before it is there).
import { describe, expect, it } from 'vitest';
import { filterRequest, partialEval, readTxtar, serverWith } from './helpers.js';

const ready = partialEval() !== undefined;
const PG = 'application/vnd.opa.sql.postgresql+json';

interface Curl {
  url: string;
  body?: string;
  accept: string;
  expectFile: string;
}

/** The curl calls of a script with the file their output is compared to. */
function curls(script: string): Curl[] {
  const out: Curl[] = [];
  const lines = script.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^exec curl -Ss --url (\S+)(?: -d '([^']*)')? -H 'Accept: ([^']+)'/.exec(lines[i]!);
    if (!m) continue;
    const cmp = lines.slice(i + 1).find((l) => l.startsWith('cmp stdout '));
    out.push({ url: new URL(m[1]!).pathname + new URL(m[1]!).search, ...(m[2] !== undefined ? { body: m[2] } : {}), accept: m[3]!, expectFile: cmp!.slice('cmp stdout '.length).trim() });
  }
  return out;
}

describe('run_compile_api*.txtar over HTTP', () => {
  for (const name of ['run_compile_api.txtar', 'run_compile_api_cache.txtar', 'run_compile_with_v0_bundle.txtar']) {
    it.skipIf(!ready)(name, async () => {
      const { script, files } = readTxtar(name);
      const v0 = name.includes('v0');
      const policies = Object.fromEntries(Object.entries(files).filter(([k]) => k.endsWith('.rego')).map(([k, v]) => [k.replace(/^bundle\//, ''), v]));
      const server = await serverWith(policies, undefined, v0);
      try {
        expect(server.loadErrors).toEqual([]);
        const calls = curls(script);
        expect(calls.length).toBeGreaterThan(0);
        for (const c of calls) {
          // curl -d posts (form content type, JSON body); without -d it is a GET.
          const r = await filterRequest(server, c.body !== undefined ? 'POST' : 'GET', c.url, c.accept, c.body !== undefined ? JSON.parse(c.body) : null);
          expect(r.text, `${name}: ${c.url} ${c.body ?? ''}`).toBe(files[c.expectFile]);
        }
      } finally {
        await server.close();
      }
    });
  }
});

/** A policy of a txtar without its EOPA test rule (which calls rego.compile). */
function policyOf(files: Record<string, string>, path: string): Record<string, string> {
  return { [path]: files[path]!.replace(/\ntest_generated_where_clause if \{[\s\S]*$/, '\n') };
}

interface RegoCompileCase {
  name: string;
  txtar: string;
  policy: string;
  input?: Record<string, unknown>;
  data?: Record<string, unknown>;
  options?: Record<string, unknown>;
  accept?: string;
  status: number;
  body: unknown;
}

const JANE = { username: 'jane', extra_fruit: 'orange' };
const BOTH = "WHERE (users.name = E'jane' OR fruits.name IN (E'apple', E'banana', E'orange'))";
const NAME_MASK = { fruits: { name: { replace: { value: '<name>' } } } };

const CASES: RegoCompileCase[] = [
  { name: 'success', txtar: 'test_rego_compile.txtar', policy: 'success/filters.rego', input: JANE, status: 200, body: { result: { query: BOTH } } },
  {
    name: 'failure (not in the fragment)', txtar: 'test_rego_compile.txtar', policy: 'failure/filters.rego', input: JANE, status: 400,
    body: { code: 'evaluation_error', message: 'error(s) occurred while evaluating query', errors: [{ code: 'pe_fragment_error', location: { col: 32, file: 'failure/filters.rego', row: 7 }, message: 'eq: nested call operand: object.get(input, "username", "unknown")' }] },
  },
  { name: 'empty query (unconditional YES)', txtar: 'test_rego_compile.txtar', policy: 'empty_query/filters.rego', status: 200, body: { result: { query: '' } } },
  { name: 'no query (unconditional NO)', txtar: 'test_rego_compile.txtar', policy: 'no_query/filters.rego', status: 200, body: {} },
  { name: 'masks from annotation', txtar: 'test_rego_compile_masks.txtar', policy: 'success/filters.rego', input: JANE, status: 200, body: { result: { query: BOTH, masks: NAME_MASK } } },
  { name: 'masks from the request', txtar: 'test_rego_compile_masks.txtar', policy: 'success_no_md/filters.rego', input: JANE, options: { maskRule: 'data.filters.mask' }, status: 200, body: { result: { query: BOTH, masks: NAME_MASK } } },
  { name: 'data (with data.foo.b as "C")', txtar: 'test_rego_compile_data.txtar', policy: 'success/filters.rego', input: JANE, data: { foo: { a: 'A', b: 'C' } }, status: 200, body: { result: { query: "WHERE users.name = E'jane'", masks: NAME_MASK } } },
  { name: '$table mappings', txtar: 'test_rego_compile_mappings.txtar', policy: 'success/filters.rego', input: JANE, options: { targetSQLTableMappings: { postgresql: { user: { $table: 'users' }, users: { user: 'name' } } } }, status: 200, body: { result: { query: BOTH } } },
  {
    name: 'SQLite LIKE: string builtins refused for sqlite', txtar: 'test_rego_compile_sqlite_like.txtar', policy: 'filters.rego', input: { fruit_prefix: 'app', fruit_suffix: 'ana', fruit_infix: 'rr' }, accept: 'application/vnd.opa.sql.sqlite+json', status: 400,
    body: { code: 'evaluation_error', message: 'error(s) occurred while evaluating query', errors: ['startswith', 'endswith', 'contains'].map((b, i) => ({ code: 'pe_fragment_error', message: `invalid builtin \`${b}\`: unsupported for SQL (sqlite)`, location: { file: 'filters.rego', row: 7 + 2 * i, col: 12 } })) },
  },
  {
    name: 'SQLite LIKE: case-sensitive LIKE for postgresql', txtar: 'test_rego_compile_sqlite_like.txtar', policy: 'filters.rego', input: { fruit_prefix: 'APP', fruit_suffix: 'ANA', fruit_infix: 'RR' }, status: 200,
    body: { result: { query: "WHERE (fruits.name LIKE E'APP%' OR fruits.name LIKE E'%ANA' OR fruits.name LIKE E'%RR%')" } },
  },
];

describe('test_rego_compile*.txtar policies over HTTP', () => {
  for (const c of CASES) {
    it.skipIf(!ready)(`${c.txtar}: ${c.name}`, async () => {
      const { files } = readTxtar(c.txtar);
      const dataFile = Object.keys(files).find((k) => k.startsWith(c.policy.split('/')[0]!) && k.endsWith('data.json'));
      const data = c.data ?? (dataFile ? JSON.parse(files[dataFile]!) : undefined);
      const server = await serverWith(policyOf(files, c.policy), data);
      try {
        expect(server.loadErrors).toEqual([]);
        const body = { ...(c.input ? { input: c.input } : {}), ...(c.options ? { options: c.options } : {}) };
        const r = await filterRequest(server, 'POST', '/v1/compile/filters/include', c.accept ?? PG, body);
        expect({ status: r.status, body: r.json() }).toEqual({ status: c.status, body: c.body });
      } finally {
        await server.close();
      }
    });
  }
});
