// All 101 entries of ../shared/filters-fixtures/vectors.json: the HTTP cases
// (ppc/, handler/, e2e/, docs/) through a real listening server, the library-level
// ones (library/, rego.compile/) through compiler/filters with the compiler's
// partial evaluator, and the unit ones (translateField/, ucast-to-sql/) directly.
// Prints a per-prefix summary. Cases that need partial evaluation are skipped
// (counted as pending) while compiler/partial is not there.
import { afterAll, describe, expect, it } from 'vitest';
import { compile, filters as f } from '../../compiler/index.js';
import { fromJS, toJS } from '../../runtime/index.js';
import { Tally, benchFiltersPolicy, benchRoles, comparable, filterRequest, loadVectors, normalizeVars, partialEval, serverWith, type Vector } from './helpers.js';

const vectors = loadVectors();
const tally = new Tally();

/**
 * Entries whose expectation depends on OPA's partial evaluator or server setup in a
 * way Regent's does not reproduce; each is run and must still fail (so a fix shows).
 */
const KNOWN_GAPS: Record<string, string> = {};

/**
 * OPA's server test (TestPostPartialChecks) runs its server with the runtime
 * document {"foo": "bar", "fox": 100} (server.WithRuntime); these vectors get the
 * same through the server's `runtime` option.
 */
const TEST_SERVER_RUNTIME: Record<string, Record<string, unknown>> = {
  'ppc/non-deterministic builtin opa.runtime()': { foo: 'bar', fox: 100 },
};

afterAll(() => {
  console.log(tally.summary(`filters vectors.json (${vectors.length} entries):`));
});

function ucastTree(j: any): f.UcastNode {
  if (j.type === 'compound') return { type: 'compound', operator: j.operator, value: j.value.map(ucastTree) };
  return { type: 'field', field: j.field, operator: j.operator, value: j.value === null ? null : fromJS(j.value) };
}

function policyFiles(v: Vector): { files: Record<string, string>; data?: Record<string, unknown>; v0: boolean } {
  if (typeof v.policy === 'string') return { files: { 'bench_filters.rego': benchFiltersPolicy() }, data: { roles: benchRoles() }, v0: false };
  const files: Record<string, string> = {};
  let v0 = false;
  for (const [name, text] of Object.entries(v.policy ?? {})) {
    if (name.includes('rego v0')) v0 = true;
    files[name.split(' ')[0]!] = text;
  }
  return { files, ...(v.data ? { data: v.data } : {}), v0 };
}

async function runHttp(v: Vector): Promise<void> {
  const { files, data, v0 } = policyFiles(v);
  const server = await serverWith(files, data, v0, TEST_SERVER_RUNTIME[v.id]);
  try {
    expect(server.loadErrors.map((r) => r.text)).toEqual([]);
    const req = v.request!;
    const accept = req.path === '/v1/compile' ? 'application/json' : req.accept;
    const reply = await filterRequest(server, req.method, req.path, accept, req.body);
    const body = reply.text.trim() === '' ? undefined : reply.json();
    if (req.path === '/v1/compile') {
      expect({ status: reply.status, body: normalizeVars(comparable(body, false)) }).toEqual({ status: v.expect.status, body: normalizeVars(v.expect.body) });
      return;
    }
    expect({ status: reply.status, body: comparable(body, 'hints' in v.expect.body) }).toEqual({ status: v.expect.status, body: v.expect.body });
    if (reply.status === 200) expect(reply.headers.get('content-type')).toBe(v.expect.content_type ?? req.accept);
    else expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  } finally {
    await server.close();
  }
}

/** One library-level compilation: query path, target, unknowns, mask rule, mappings, input. */
function runLibrary(v: Vector, target: string): { query?: unknown; masks?: unknown } | undefined {
  const files = Object.entries(v.policy as Record<string, string>).map(([file, text]) => ({ file, text }));
  const policy = compile(files);
  const path = f.dataPath((v.query as string | undefined) ?? 'data.filters.include')!;
  const ann = f.filterAnnotations(policy.modules, path);
  const unknowns = (v.unknowns as string[] | undefined) ?? ann.unknowns;
  const maskRule = v.maskRule ? f.dataPath(v.maskRule as string) : ann.maskRule;
  const [t, d] = target.split('+') as [string, string];
  const prepared = f.prepareFilter(policy, {
    path,
    targets: [{ target: t, dialect: d }],
    unknowns,
    ...(maskRule ? { maskRule } : {}),
    ...(v.mappings ? { mappings: v.mappings as Record<string, unknown> } : {}),
  });
  const run = f.runFilter(policy, prepared, { ...(v.input !== undefined ? { input: fromJS(v.input as never) } : {}), partialEval: partialEval()! });
  const tf = run.filters[0]!;
  if (!tf.query) return undefined;
  const query = 'sql' in tf.query ? tf.query.sql : f.ucastToJS(tf.query.ucast);
  return { query, ...(tf.masks !== undefined ? { masks: toJS(tf.masks) } : {}) };
}

function runLibraryVector(v: Vector): void {
  const exp = v.expect;
  if (exp && typeof exp === 'object' && 'error' in exp) {
    expect(() => runLibrary(v, v.target as string)).toThrow(exp.error as string);
    return;
  }
  if (exp && typeof exp === 'object' && 'errors' in exp) {
    let caught: unknown;
    try {
      runLibrary(v, v.target as string);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(f.FilterASTErrors);
    expect((caught as f.FilterASTErrors).errors.map((e) => e.toJSON())).toEqual(exp.errors);
    return;
  }
  if (typeof exp === 'string') {
    expect(runLibrary(v, v.target as string)).toBeUndefined(); // "undefined (no query at all)"
    return;
  }
  if (v.target) {
    expect(runLibrary(v, v.target as string)).toEqual(exp);
    return;
  }
  for (const [target, want] of Object.entries(exp as Record<string, unknown>)) expect(runLibrary(v, target)).toEqual(want);
}

describe('vectors.json', () => {
  for (const v of vectors) {
    const prefix = v.id.split('/')[0]!;
    const unit = prefix === 'translateField' || prefix === 'ucast-to-sql';
    const gap = KNOWN_GAPS[v.id];
    (gap ? it.fails : it)(gap ? `${v.id} (known gap: ${gap})` : v.id, async (ctx) => {
      if (!unit && !partialEval()) {
        tally.pending(v.id);
        ctx.skip();
        return;
      }
      if (gap) {
        tally.gap(v.id);
        if (v.request) await runHttp(v);
        else runLibraryVector(v);
        return;
      }
      try {
        if (prefix === 'translateField') expect(f.translateField(v.field as string, v.translations as Record<string, unknown> | null)).toBe(v.expect);
        else if (prefix === 'ucast-to-sql') expect(f.ucastToSql(ucastTree(v.ucast), v.dialect as 'postgresql', { quoteNumbers: false })).toBe(v.expect);
        else if (v.request) await runHttp(v);
        else runLibraryVector(v);
        tally.pass(v.id);
      } catch (e) {
        tally.fail(v.id);
        throw e;
      }
    });
  }
});
