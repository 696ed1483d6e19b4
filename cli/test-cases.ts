// Test cases of `regent test`, as OPA's tester has them (v1/tester/runner.go): a test
// rule whose head ref goes on past its name (`test_concat[note] if { some note, tc in
// cases; … }`) is a partial object of cases, and each case is a sub-result.
//  * injectTestCaseCalls (OPA's InjectTestCaseFunc stage): each such rule's body gets
//    a call `internal.test_case([note])` right after the first expression that mentions
//    the last of the case's variables, so a case that fails later is still recorded
//    (runtime/builtins/rego.ts hands the argument to EvalOptions.testCases). Rules that
//    call internal.test_case themselves are left alone.
//  * subResults (OPA's subResults and SubResultMap.Update): the cases of the rule's
//    value pass when their value is `true` (nested objects are nested cases); a
//    recorded case missing from the value failed. Each recorded case keeps the trace up
//    to the next recorded case, for its failure line.
//  * caseEntries (SubResultMap.Iter): depth first, names sorted, with their paths.
import type { Body, Expr, Module, Term } from '../compiler/ast/nodes.js';
import type { TraceEvent } from '../compiler/index.js';
import { walkTerms } from '../compiler/ast/walk.js';
import { refName } from '../compiler/ast/transform.js';
import { RObject, toJS, type Value } from '../runtime/index.js';
import { TEST_PREFIX, testRuleName } from './test-runner.js';

const TEST_CASE = 'internal.test_case';

/** One case of a test: its outcome, nested cases, and the trace recorded up to it. */
export interface SubResult {
  name: string;
  fail: boolean;
  subResults: Map<string, SubResult>;
  events: TraceEvent[];
}

/** Add the internal.test_case call to every test rule with cases (see the header). */
export function injectTestCaseCalls(modules: Module[]): void {
  for (const m of modules) {
    for (const rule of m.rules) {
      const t = testRuleName(rule);
      if (!t || !t.name.startsWith(TEST_PREFIX) || rule.head.ref.length <= t.ref.length || callsTestCase(rule.body)) continue;
      const tail = rule.head.ref.slice(t.ref.length);
      const at = Math.max(-1, ...tail.flatMap((term) => varNames(term).map((v) => firstUse(rule.body, v)))) + 1;
      const loc = (rule.body[at - 1] ?? rule).loc;
      const call: Expr = {
        kind: 'expr',
        negated: false,
        with: [],
        loc,
        body: {
          type: 'term',
          term: {
            kind: 'call',
            op: { kind: 'ref', head: { kind: 'var', name: 'internal', loc }, path: [{ kind: 'string', value: 'test_case', loc }], loc },
            args: [{ kind: 'array', items: tail.map((term) => structuredClone(term)), loc }],
            loc,
          },
        },
      };
      rule.body.splice(at, 0, call);
    }
  }
}

/** The names of the variables in a term (not wildcards). */
function varNames(term: Term): string[] {
  const out: string[] = [];
  walkTerms(term, (t) => {
    if (t.kind === 'var' && !t.wildcard) out.push(t.name);
  });
  return out;
}

/** The index of the first expression of `body` that mentions variable `name` (-1: none). */
function firstUse(body: Body, name: string): number {
  return body.findIndex((e) => {
    let found = false;
    walkTerms(e, (t) => {
      if (t.kind === 'var' && t.name === name) found = true;
    });
    return found;
  });
}

/** Whether a body already calls internal.test_case. */
function callsTestCase(body: Body): boolean {
  let found = false;
  walkTerms(body, (t) => {
    if (t.kind === 'call' && refName(t.op) === TEST_CASE) found = true;
  });
  return found;
}

/** OPA's termToString: a string as itself, anything else as its JSON text. */
function caseName(v: Value): string {
  return typeof v === 'string' ? v : JSON.stringify(toJS(v));
}

/**
 * The sub-results of a test with cases: from its value (an object of cases) and the
 * recorded internal.test_case calls; `fail` when any case failed.
 */
export function subResults(value: Value | undefined, recorded: { path: Value; at: number }[], events: TraceEvent[]): { fail: boolean; results: Map<string, SubResult> } {
  const { fail, results } = fromValue(value);
  let failed = fail;
  recorded.forEach((r, i) => {
    if (!Array.isArray(r.path)) return;
    const next = recorded[i + 1];
    const trace = next === undefined ? events : events.slice(0, next.at);
    if (update(results, r.path.map(caseName), 0, trace)) failed = true;
  });
  return { fail: failed, results };
}

function fromValue(value: Value | undefined): { fail: boolean; results: Map<string, SubResult> } {
  const results = new Map<string, SubResult>();
  let fail = false;
  if (!(value instanceof RObject)) return { fail: value === undefined, results };
  for (const [k, v] of value.entries()) {
    const name = caseName(k);
    const nested = v instanceof RObject ? fromValue(v) : undefined;
    const sr: SubResult = { name, fail: nested ? nested.fail : v !== true, subResults: nested ? nested.results : new Map(), events: [] };
    results.set(name, sr);
    if (sr.fail) fail = true;
  }
  return { fail, results };
}

/** SubResultMap.update: a case not in the map is added as failed; true when the case failed. */
function update(map: Map<string, SubResult>, path: string[], i: number, events: TraceEvent[]): boolean {
  if (i >= path.length) return true;
  const name = path[i]!;
  let entry = map.get(name);
  if (entry === undefined) {
    entry = { name, fail: true, subResults: new Map(), events: [] };
    map.set(name, entry);
  }
  if (i === path.length - 1) {
    entry.events = events;
    return entry.fail;
  }
  const fail = update(entry.subResults, path, i + 1, events);
  if (fail) entry.fail = true;
  return fail;
}

/** Every sub-result, depth first with names sorted, with the names from the top. */
export function caseEntries(map: Map<string, SubResult>, prefix: string[] = []): [string[], SubResult][] {
  const out: [string[], SubResult][] = [];
  for (const name of [...map.keys()].sort()) {
    const sr = map.get(name)!;
    const path = [...prefix, name];
    out.push([path, sr], ...caseEntries(sr.subResults, path));
  }
  return out;
}

/** The sub-results as OPA's JSON reporter writes them (`sub_results`, `name`, `fail`). */
export function subResultsJSON(map: Map<string, SubResult>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, sr] of map) {
    out[name] = { ...(sr.subResults.size > 0 ? { sub_results: subResultsJSON(sr.subResults) } : {}), name: sr.name, ...(sr.fail ? { fail: true } : {}) };
  }
  return out;
}
