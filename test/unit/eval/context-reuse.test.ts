// A prepared decision keeps its evaluation context between decisions
// (EvalContext.release / restart, used by compiler/policy.ts prepareDecision):
// a released and restarted context must be a fresh one field by field, and nothing
// of one decision (rule memos, print, strictness, deadline, input) may reach the
// next, including a decision made from inside another one's print().
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { EvalContext } from '../../../runtime/eval/context.js';
import { fromJS, toJS, type Value } from '../../../runtime/index.js';

const decide = (text: string, path: string[]) => compile([{ file: 'p.rego', text }]).prepareDecision(path);
const js = (v: Value | undefined): unknown => (v === undefined ? undefined : toJS(v));

describe('EvalContext release and restart', () => {
  it('gives every field the value forQuery gives it', () => {
    const used = EvalContext.forQuery(fromJS({ a: 1 }), fromJS({ d: 1 }), true, () => {}, Date.now() + 1000);
    // Every own field (those made on first use too) holds something a query could leave.
    const fields = Object.keys(used).filter((k) => k !== 'builtins');
    expect(fields.length).toBeGreaterThan(10);
    const left = { left: 'by the last query' };
    for (const k of fields) (used as unknown as Record<string, unknown>)[k] = left;
    used.release();
    const input = fromJS({ user: 'bob' });
    const data = fromJS({ roles: [] });
    used.restart(input, data, false, undefined, undefined);
    const fresh = EvalContext.forQuery(input, data, false, undefined, undefined);
    expect(Object.keys(used).sort()).toEqual(Object.keys(fresh).sort());
    for (const k of fields) expect([k, (used as unknown as Record<string, unknown>)[k]]).toEqual([k, (fresh as unknown as Record<string, unknown>)[k]]);
    expect(used.builtins).toBe(used);
  });

  it('keeps no memoized rule value from one decision to the next', () => {
    const allow = decide(
      'package t\nimport rego.v1\nroles contains r if some r in input.roles\nallow if "admin" in roles\nallow if count(roles) > 3\nn := count(roles)\nsize := n if allow\n',
      ['t', 'size'],
    );
    const inputs = [['admin'], ['a'], ['a', 'b', 'c', 'd'], [], ['admin', 'x']];
    for (let round = 0; round < 3; round++) {
      for (const roles of inputs) {
        const want = roles.includes('admin') || roles.length > 3 ? roles.length : undefined;
        expect([roles, js(allow({ input: fromJS({ roles }) }))]).toEqual([roles, want]);
      }
    }
  });

  it('takes print, strictness and the deadline from each decision alone', () => {
    const text = 'package t\nimport rego.v1\nallow if {\n\tprint("user", input.user)\n\tto_number(input.n) > 0\n}\n';
    const allow = decide(text, ['t', 'allow']);
    const printed: string[] = [];
    expect(allow({ input: fromJS({ user: 'a', n: '1' }), print: (m) => printed.push(m) })).toBe(true);
    expect(allow({ input: fromJS({ user: 'b', n: '2' }) })).toBe(true);
    expect(printed).toEqual(['user a']);
    // A builtin error: an error under strict builtin errors, undefined without.
    expect(() => allow({ input: fromJS({ user: 'c', n: 'x' }), strictBuiltinErrors: true })).toThrow(/to_number/);
    expect(allow({ input: fromJS({ user: 'd', n: 'x' }) })).toBeUndefined();
    const loop = decide('package t\nimport rego.v1\nallow if {\n\tsome i in numbers.range(1, input.n)\n\ti < 0\n}\nallow if input.n > 1000\n', ['t', 'allow']);
    expect(() => loop({ input: fromJS({ n: 200000 }), deadline: Date.now() - 1 })).toThrow(/deadline exceeded/);
    // 5,000 steps: the deadline is checked, and it is this decision's (none).
    expect(loop({ input: fromJS({ n: 5000 }) })).toBe(true);
  });

  it('gives a decision made during another decision its own context', () => {
    const allow = decide('package t\nimport rego.v1\nallow if {\n\tprint("checking", input.user)\n\tinput.user == "alice"\n}\n', ['t', 'allow']);
    // A first decision leaves its context for the next: the outer one below takes it.
    expect(allow({ input: fromJS({ user: 'zed' }) })).toBeUndefined();
    const seen: string[] = [];
    let inner: Value | undefined | 'not run' = 'not run';
    const outer = allow({
      input: fromJS({ user: 'alice' }),
      print: (m) => {
        seen.push(m);
        if (inner === 'not run') inner = allow({ input: fromJS({ user: 'bob' }), print: (x) => seen.push(`inner ${x}`) });
      },
    });
    expect(outer).toBe(true);
    expect(inner).toBeUndefined();
    expect(seen).toEqual(['checking alice', 'inner checking bob']);
    // Both contexts are usable afterwards.
    expect(allow({ input: fromJS({ user: 'alice' }) })).toBe(true);
    expect(allow({ input: fromJS({ user: 'carol' }) })).toBeUndefined();
  });
});
