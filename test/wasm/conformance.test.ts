// The conformance suite on the Wasm back end, the fifth evaluator: every case of the
// shape `data.<path> = x` is compiled to policy.wasm and evaluated
//   - by the conformance runner's Wasm evaluator (test/conformance/run-wasm.ts: the
//     Wasm back end from createBackend, Regent's host, every builtin), the same code as
//     `npm run conformance -- --backend wasm`, counted per folder with report.ts;
//   - by OPA's SDK (native and SDK-supplied builtins only), through test/wasm/differential.ts.
// The result must equal the JS back end's. Cases that cannot run on Wasm are counted as
// unsupported with their reasons, printed per folder; no case may disagree.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAll, type LoadedCase } from '../conformance/load.js';
import { runCases } from '../conformance/run-case.js';
import { formatFailure, formatTable, readSkip, summarize } from '../conformance/report.js';
import { runAll } from './differential.js';
import { ensureRuntime, sdkHost } from './sdk-host.js';

type Report = Awaited<ReturnType<typeof runAll>>;

function print(title: string, r: Report): { pass: number; unsupported: number; disagree: number; hostdiff: number } {
  const tot = { pass: 0, unsupported: 0, disagree: 0, hostdiff: 0 };
  const rows: string[] = [];
  for (const [folder, c] of [...r.folders].sort((a, b) => a[0].localeCompare(b[0]))) {
    tot.pass += c.pass;
    tot.unsupported += c.unsupported;
    tot.disagree += c.disagree;
    tot.hostdiff += c.hostdiff;
    rows.push(`  ${folder.padEnd(40)} pass ${String(c.pass).padStart(4)}  unsupported ${String(c.unsupported).padStart(4)}${c.hostdiff ? `  host-builtin differences ${c.hostdiff}` : ''}${c.disagree ? `  DISAGREE ${c.disagree}` : ''}`);
  }
  const reasons = [...r.reasons].sort((a, b) => b[1] - a[1]).map(([k, v]) => `  ${String(v).padStart(4)}  ${k}`);
  const hostdiffs = r.hostdiffs.map((d) => `  ${d.id} (${d.builtins.join(', ')}): want ${JSON.stringify(d.want)}, got ${JSON.stringify(d.got)}`);
  console.log(`${title}: pass ${tot.pass}, unsupported ${tot.unsupported}, disagree ${tot.disagree}, host-builtin differences ${tot.hostdiff}\n${rows.join('\n')}\nunsupported, by reason:\n${reasons.join('\n')}` +
    (hostdiffs.length ? `\ndifferences from the host's own JS builtins (not Regent's code):\n${hostdiffs.join('\n')}` : ''));
  return tot;
}

describe('conformance cases on the Wasm back end', () => {
  let cases: LoadedCase[];
  beforeAll(() => {
    ensureRuntime();
    cases = loadAll().cases;
  });

  it('the runner\'s wasm evaluator (Regent host): every supported case agrees with the JS back end', async () => {
    const results = await runCases(cases, { backend: 'wasm', skip: readSkip() });
    const s = summarize(results);
    const reasons = new Map<string, number>();
    for (const r of results) {
      if (r.status !== 'unsupported') continue;
      const k = (r.reason ?? '').replace(/rule [\w.]+: /, 'rule …: ').replace(/document [\w.]+ /, 'document … ');
      reasons.set(k, (reasons.get(k) ?? 0) + 1);
    }
    console.log(`wasm (Regent host, createBackend):\n${formatTable(s)}\nunsupported, by reason:\n${[...reasons].sort((a, b) => b[1] - a[1]).map(([k, v]) => `  ${String(v).padStart(4)}  ${k}`).join('\n')}`);
    const failed = results.filter((r) => r.status === 'fail');
    expect(failed.map(formatFailure)).toEqual([]);
    expect(results.length).toBe(cases.length);
    // 1,267 of 1,311 when last measured; the rest are other query shapes, expected
    // errors, and `with data` over rules
    expect(s.passed).toBeGreaterThan(cases.length * 0.9);
  }, 10 * 60_000);

  it('official SDK host: every supported case agrees with the JS back end', async () => {
    const r = await runAll(cases, sdkHost);
    const tot = print('wasm (@open-policy-agent/opa-wasm)', r);
    expect(r.disagreements).toEqual([]);
    // builtins OPA's SDK neither has natively nor supplies (jwt, crypto, time, regex, …)
    // make the rest unsupported; 1,089 of 1,311 pass with the native builtins
    expect(tot.pass).toBeGreaterThan(cases.length * 0.75);
  }, 10 * 60_000);
});
