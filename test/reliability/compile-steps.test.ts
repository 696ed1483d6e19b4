// Issue 10: compiling in steps (compiler/compile-steps.ts) gives what compile()
// gives: the same decisions, the same errors with the same locations, the same
// stage timers, and it stops after every module's parse and every pass, so an
// evaluation worker can answer decisions in between (server/engine/worker.ts).
// compileCandidateYielding (server/engine/policy-compile.ts) reports as
// compileCandidate does, and can be abandoned between steps.
import { describe, expect, it } from 'vitest';
import { compile, RegoErrors, type SourceFile } from '../../compiler/index.js';
import { compileSteps, compileYielding, runSteps, runStepsYielding } from '../../compiler/compile-steps.js';
import { PASSES } from '../../compiler/passes/index.js';
import { fromJS, toJSONText } from '../../runtime/index.js';
import { compileCandidate, compileCandidateYielding } from '../../server/engine/policy-compile.js';

const RBAC: SourceFile[] = [
  {
    file: 'rbac.rego',
    text: `package rbac
import rego.v1

default allow := false

allow if {
  some role in data.roles[input.user]
  some g in data.grants[role]
  g.action == input.action
}

names contains u if some u, _ in data.roles

f(x) := x * 2
`,
  },
  { file: 'util.rego', text: 'package util\n\ndouble := data.rbac.f(21)\n\ncount_names := count(data.rbac.names)\n' },
];
const DATA = { roles: { bob: ['admin'], eve: ['guest'] }, grants: { admin: [{ action: 'read' }], guest: [] } };

/** The error list a compile throws, as plain data (code, message, location). */
function errorsOf(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    if (!(e instanceof RegoErrors)) throw e;
    return e.errors.map((x) => ({ code: x.code, message: x.message, location: x.location }));
  }
  throw new Error('expected a compile error');
}

async function errorsOfAsync(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (e) {
    if (!(e instanceof RegoErrors)) throw e;
    return e.errors.map((x) => ({ code: x.code, message: x.message, location: x.location }));
  }
  throw new Error('expected a compile error');
}

const BROKEN: Record<string, SourceFile[]> = {
  'two parse errors': [
    { file: 'a.rego', text: 'package a\n\nx := \n' },
    { file: 'b.rego', text: 'package b\n\ny := [1,\n' },
  ],
  'unsafe variable': [{ file: 'a.rego', text: 'package a\n\nx := y\n' }],
  'conflicting rule kinds': [{ file: 'a.rego', text: 'package a\n\nx := 1\n\nx contains 2\n' }],
  recursion: [{ file: 'a.rego', text: 'package a\n\nx := y\n\ny := x\n' }],
  'builtin argument type': [{ file: 'a.rego', text: 'package a\n\nx := count(1)\n' }],
  'unknown function': [{ file: 'a.rego', text: 'package a\n\nx := nope(1)\n' }],
};

describe('compileSteps', () => {
  it('stops after each module and each pass, and compiles the same policy as compile()', async () => {
    const steps = compileSteps(RBAC);
    const seen: unknown[] = [];
    let r = steps.next();
    while (!r.done) {
      seen.push(r.value);
      r = steps.next();
    }
    expect(seen).toEqual([...RBAC.map((f) => ({ kind: 'parse', file: f.file })), ...PASSES.map((p) => ({ kind: 'pass', name: p.name }))]);
    const direct = compile(RBAC);
    let yields = 0;
    const yielding = await compileYielding(RBAC, {}, async () => {
      yields++;
      await new Promise((res) => setImmediate(res));
    });
    expect(yields).toBe(seen.length);
    const data = fromJS(DATA);
    for (const policy of [r.value, yielding]) {
      for (const user of ['bob', 'eve', 'nobody']) {
        for (const query of ['data.rbac.allow', 'data.util', 'x := data.rbac.names']) {
          const input = fromJS({ user, action: 'read' });
          const rows = (p: typeof direct) => p.prepare(query).eval({ input, data }).map((row) => row.expressions.map((e) => toJSONText(e.value)));
          expect(rows(policy), `${query} for ${user}`).toEqual(rows(direct));
        }
      }
    }
    const allow = (user: string) => direct.prepare('data.rbac.allow').eval({ input: fromJS({ user, action: 'read' }), data }).map((row) => toJSONText(row.expressions[0]!.value));
    expect([allow('bob'), allow('eve')]).toEqual([['true'], ['false']]);
    expect(r.value.ir.groups.length).toBe(direct.ir.groups.length);
  });

  it('records the same stage timers as compile()', () => {
    const a: Record<string, number> = {};
    const b: Record<string, number> = {};
    compile(RBAC, { stageTimers: a });
    runSteps(compileSteps(RBAC, { stageTimers: b }));
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    expect(Object.keys(b)).toContain('timer_compile_stage_codegen_ns');
  });

  for (const [name, files] of Object.entries(BROKEN)) {
    it(`throws the same errors as compile(): ${name}`, async () => {
      const expected = errorsOf(() => compile(files));
      expect(errorsOf(() => runSteps(compileSteps(files)))).toEqual(expected);
      expect(await errorsOfAsync(() => compileYielding(files, {}, () => Promise.resolve()))).toEqual(expected);
    });
  }

  it('is abandoned when yieldNow answers false', async () => {
    let calls = 0;
    const out = await runStepsYielding(compileSteps(RBAC), async () => ++calls < 2);
    expect(out).toBeUndefined();
    expect(calls).toBe(2);
  });
});

describe('compileCandidateYielding', () => {
  const cases: Record<string, { files: SourceFile[]; parseFirst?: string }> = {
    compiles: { files: RBAC, parseFirst: 'util.rego' },
    'parse error in the module put': { files: [RBAC[0]!, { file: 'bad.rego', text: 'package bad\n\nx := \n' }], parseFirst: 'bad.rego' },
    'compile error': { files: BROKEN['unsafe variable']! },
  };
  for (const [name, { files, parseFirst }] of Object.entries(cases)) {
    it(`reports as compileCandidate does: ${name}`, async () => {
      const sync = compileCandidate(files, false, parseFirst, true);
      const stepped = await compileCandidateYielding(files, false, parseFirst, true, () => new Promise((res) => setImmediate(() => res(true))));
      expect(stepped).toBeDefined();
      const { timers: syncTimers, ...syncReport } = sync.report;
      const { timers: steppedTimers, ...steppedReport } = stepped!.report;
      expect(steppedReport).toEqual(syncReport);
      expect(Object.keys(steppedTimers).sort()).toEqual(Object.keys(syncTimers).sort());
      expect(stepped!.policy === undefined).toBe(sync.policy === undefined);
    });
  }

  it('counts only the compile steps in timer_rego_module_compile_ns, not the time between them', async () => {
    const out = await compileCandidateYielding(RBAC, false, undefined, false, () => new Promise((res) => setTimeout(() => res(true), 20)));
    const ns = out!.report.timers.timer_rego_module_compile_ns!;
    expect(ns).toBeGreaterThan(0);
    // RBAC.length + PASSES.length pauses of 20 ms each lie between the steps.
    expect(ns).toBeLessThan((RBAC.length + PASSES.length) * 20e6);
  });
});
