// The conformance cases through the Backend interface (compiler/backend.ts): every
// case of the shape `data.<path> = x` is decided by the js, closures and interp back
// ends from createBackend, both with decide() and with the prepared decision the
// server caches per path (prepareDecision), which must all agree (same value, or all
// raise); one case in
// eight also by the wasm back end (a module per case, its entrypoint the case's path),
// whose decide() must give the same value — from the module, or from its JS fallback
// when the module aborts. Counts are printed.
import { beforeAll, describe, expect, it } from 'vitest';
import { compile, createBackend, createJSBackend, parseTerm, termToValue, type Backend, type CompiledPolicy, type WasmBackend } from '../../compiler/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';
import { loadAll, type LoadedCase } from '../conformance/load.js';
import { canonical } from './differential.js';
import { ensureRuntime } from './sdk-host.js';

const QUERY = /^\s*data((?:\.[A-Za-z_][\w]*)+)\s*(?:=\s*([A-Za-z_]\w*))?\s*$/;

interface Shaped {
  c: LoadedCase;
  policy: CompiledPolicy;
  path: string[];
  input: Value | undefined;
  data: Value;
}

/** The cases the interface can decide: one `data.<path>` reference, a policy that compiles. */
function shaped(cases: LoadedCase[]): Shaped[] {
  const out: Shaped[] = [];
  for (const c of cases) {
    const m = QUERY.exec(c.query);
    if (!m || c.env || c.want_error !== undefined || c.want_error_code !== undefined) continue;
    try {
      const policy = compile((c.modules ?? []).map((text, i) => ({ file: `mod${i}.rego`, text, v0Compatible: c.v0_compatible })));
      const input = c.input_term !== undefined ? termToValue(parseTerm(c.input_term)) : c.input === undefined ? undefined : fromJS(c.input);
      out.push({ c, policy, path: m[1]!.slice(1).split('.'), input, data: fromJS(c.data ?? {}) });
    } catch {
      // a compile error is the conformance runner's business, not the interface's
    }
  }
  return out;
}

/** The decision as comparable text, or `error`. */
function outcome(b: Backend, s: Shaped): string {
  try {
    const v = b.decide(s.path, s.input === undefined ? {} : { input: s.input });
    return v === undefined ? 'undefined' : canonical(toJS(v));
  } catch {
    return 'error';
  }
}

/** The same through the prepared decision. */
function preparedOutcome(b: Backend, s: Shaped): string {
  try {
    const v = b.prepareDecision(s.path).eval(s.input, undefined, false, undefined);
    return v === undefined ? 'undefined' : canonical(toJS(v));
  } catch {
    return 'error';
  }
}

describe('conformance cases through createBackend', () => {
  let cases: Shaped[];
  beforeAll(() => {
    ensureRuntime();
    cases = shaped(loadAll().cases);
  }, 120_000);

  it('js, closures and interp decide every case alike', () => {
    const disagree: string[] = [];
    for (const s of cases) {
      const names = ['js', 'closures', 'interp'] as const;
      const [js, ...others] = names.flatMap((name) => {
        const b = createJSBackend(name, s.policy);
        b.setData(s.data);
        return [outcome(b, s), preparedOutcome(b, s)];
      });
      others.forEach((o, i) => {
        if (o !== js) disagree.push(`${s.c.id} (${names[Math.floor((i + 1) / 2)]}${(i + 1) % 2 ? ' prepared' : ''}): ${o} vs js ${js}`);
      });
    }
    console.log(`createBackend js/closures/interp: ${cases.length} cases, ${disagree.length} disagreements`);
    expect(disagree).toEqual([]);
    expect(cases.length).toBeGreaterThan(800);
  }, 300_000);

  it('wasm decides a sample alike (module or JS fallback)', async () => {
    const sample = cases.filter((_, i) => i % 8 === 0);
    let inModule = 0;
    let fellBack = 0;
    let refused = 0;
    const disagree: string[] = [];
    for (const s of sample) {
      const b = await createBackend('wasm', s.policy, { entrypoints: [s.path], optimize: 0 });
      if (b.name !== 'wasm') {
        refused++; // the module refused the entrypoint: createBackend gave the JS back end
        continue;
      }
      b.setData(s.data);
      const js = createJSBackend('js', s.policy);
      js.setData(s.data);
      const want = outcome(js, s);
      const got = outcome(b, s);
      const stats = (b as WasmBackend).stats;
      if (stats.fallback > 0) fellBack++;
      else inModule++;
      if (got !== want) disagree.push(`${s.c.id}: wasm ${got} vs js ${want}`);
    }
    console.log(`createBackend wasm: ${sample.length} sampled cases, ${inModule} answered in the module, ${fellBack} by the JS fallback, ${refused} refused at compile time`);
    expect(disagree).toEqual([]);
    expect(inModule).toBeGreaterThan(sample.length / 2);
  }, 400_000);
});
