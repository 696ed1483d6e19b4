// Partial-evaluation soundness over the conformance suite. For every case with an
// input (`input` or `input_term`):
//   1. evaluate the query normally (the reference result: rows whose expressions
//      are all defined and not false, since partial evaluation, like OPA's, treats
//      a false expression as failure where `opa eval` captures its value);
//   2. partially evaluate the query with `input` unknown and the case's data;
//   3. compile the support modules with the normal compiler, evaluate every
//      residual query against them with the case's input and *no* data (a residual
//      that still needed data would be a bug), and collect the rows of the query's
//      own variables;
//   4. the two sets of rows must be equal.
// Cases this cannot check get a reason (skip.json lists them, see `npm run` line in
// the README); `classify` gives the automatic reasons.
import * as regent from '../../compiler/index.js';
import type { Body, Module, Term } from '../../compiler/ast/nodes.js';
import { formatBody, formatModule, formatTerm } from '../../compiler/ast/print.js';
import { mapBody, mapTerm } from '../../compiler/ast/transform.js';
import { fromJS, toJSONText, RObject, type Value } from '../../runtime/value/index.js';
import type { LoadedCase } from '../conformance/load.js';
import { withEnv, restoreEnv } from '../conformance/env.js';

export type Verdict = { status: 'pass' } | { status: 'fail'; reason: string } | { status: 'skip'; reason: string };

/** Generated vars (`$01`, `$t2`) are not Rego identifiers: rename them to re-parse the residual. */
function renameVar(name: string): string {
  return name.startsWith('$') ? '__pe' + name.slice(1).replace(/[^A-Za-z0-9_]/g, '_') : name;
}

function renameTerm(t: Term): Term | undefined {
  if (t.kind === 'var' && t.name.startsWith('$') && !t.wildcard) return { ...t, name: renameVar(t.name) };
  return undefined;
}

export function residualText(b: Body): string {
  return b.length === 0 ? 'true' : formatBody(mapBody(b, renameTerm));
}

export function supportText(m: Module): string {
  return formatModule({
    ...m,
    rules: m.rules.map(function rn(r): Module['rules'][number] {
      return {
        ...r,
        head: {
          ...r.head,
          ref: r.head.ref.map((t) => mapTerm(t, renameTerm)),
          args: r.head.args?.map((t) => mapTerm(t, renameTerm)),
          key: r.head.key && mapTerm(r.head.key, renameTerm),
          value: r.head.value && mapTerm(r.head.value, renameTerm),
        },
        body: mapBody(r.body, renameTerm),
        else: r.else && rn(r.else),
      };
    }),
  });
}

function rowsKey(rows: Record<string, Value>[]): string[] {
  const keys = rows.map((r) => toJSONText(fromJSRow(r)));
  return [...new Set(keys)].sort();
}

function fromJSRow(r: Record<string, Value>): Value {
  const o = new RObject();
  for (const [k, v] of Object.entries(r)) o.set(k, v);
  return o;
}

/** Run one case; `baseline` holds the ids that pass the normal conformance run. */
export type Mode = 'inline' | 'support' | 'field' | 'data';

export function checkCase(c: LoadedCase, baseline: Set<string>, mode: Mode = 'inline'): Verdict {
  if (mode !== 'data' && c.input === undefined && c.input_term === undefined) return { status: 'skip', reason: 'no input' };
  if (c.want_error !== undefined || c.want_error_code !== undefined) return { status: 'skip', reason: 'the case expects an error, not a result' };
  if (!baseline.has(c.id)) return { status: 'skip', reason: 'the case does not pass the normal conformance run' };
  const saved = withEnv(c.env);
  try {
    const input = c.input_term !== undefined ? regent.termToValue(regent.parseTerm(c.input_term)) : c.input !== undefined ? fromJS(c.input) : undefined;
    const data = fromJS(c.data ?? {});
    const opts = c.v0_compatible ? { v0Compatible: true } : {};
    const files = (c.modules ?? []).map((text, i) => ({ file: `test-${i}.rego`, text }));
    const policy = regent.compile(files, opts);
    const prepared = policy.prepare(c.query);
    const strict = c.strict_error === true;
    const deadline = Date.now() + 10_000;
    const want = prepared
      .eval({ ...(input !== undefined ? { input } : {}), data, strictBuiltinErrors: strict, deadline })
      .filter((r) => r.expressions.every((x) => x.value !== undefined && x.value !== false))
      .map((r) => r.bindings);
    const vars = new Set(prepared.vars);

    let pe;
    try {
      // 'support' mode names every package in disableInlining, so rules become support modules.
      const disableInlining = mode === 'support' ? policy.modules.map((m) => formatTerm({ kind: 'ref', head: m.package.path[0]!, path: m.package.path.slice(1), loc: m.package.loc })) : [];
      // 'field' mode: only the input's first key is unknown, the rest is known input.
      let unknowns = ['input'];
      if (mode === 'field') {
        const first = input instanceof RObject ? input.keys().find((k) => typeof k === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) : undefined;
        if (first === undefined) return { status: 'skip', reason: 'the input has no field to make unknown' };
        unknowns = [`input.${first as string}`];
      }
      // 'data' mode: `input` and the data's first top-level document are unknown; the residual runs with the data.
      if (mode === 'data') {
        const first = data instanceof RObject ? data.keys().find((k) => typeof k === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) : undefined;
        if (first === undefined) return { status: 'skip', reason: 'the case has no data document to make unknown' };
        if (policy.modules.some((m) => m.package.path[1]?.kind === 'string' && m.package.path[1].value === first)) return { status: 'skip', reason: 'rules live under the data document' };
        unknowns = ['input', `data.${first as string}`];
      }
      pe = regent.partialEval(policy, c.query, { unknowns, ...(mode === 'field' ? { input } : {}), data, deadline, disableInlining });
    } catch (e) {
      if (e instanceof regent.PartialUnsupported) return { status: 'skip', reason: e.message };
      return { status: 'fail', reason: `partial evaluation failed: ${e instanceof Error ? e.message : String(e)}` };
    }
    const support = pe.support.map((m, i) => ({ file: `support-${i}.rego`, text: supportText(m) }));
    let residualPolicy;
    try {
      residualPolicy = regent.compile(support.length > 0 ? support : [{ file: 'empty.rego', text: 'package __empty' }]);
    } catch (e) {
      return { status: 'fail', reason: `support modules do not compile: ${e instanceof Error ? e.message : String(e)}\n${support.map((s) => s.text).join('\n')}` };
    }
    const got: Record<string, Value>[] = [];
    for (const q of pe.queries) {
      const text = residualText(q);
      let rows;
      try {
        rows = residualPolicy.prepare(text).eval({ ...(input !== undefined ? { input } : {}), data: mode === 'data' ? data : new RObject(), strictBuiltinErrors: strict, deadline });
      } catch (e) {
        return { status: 'fail', reason: `residual query ${text} failed: ${e instanceof Error ? e.message : String(e)}` };
      }
      for (const r of rows) {
        if (!r.expressions.every((x) => x.value !== undefined && x.value !== false)) continue;
        const row: Record<string, Value> = {};
        for (const [k, v] of Object.entries(r.bindings)) if (vars.has(k)) row[k] = v;
        got.push(row);
      }
    }
    const w = rowsKey(want);
    const g = rowsKey(got);
    if (w.join('\n') === g.join('\n')) return { status: 'pass' };
    return {
      status: 'fail',
      reason: `rows differ: want [${w.join(', ')}], got [${g.join(', ')}]\nresidual: ${pe.queries.map(residualText).join('\n  or ')}\n${support.map((s) => s.text).join('\n')}`,
    };
  } catch (e) {
    return { status: 'skip', reason: `the case does not run normally here: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    restoreEnv(saved);
  }
}
