// OPA's REST API authorization benchmark (v1/test/authz: testing.go, authz_bench_test.go
// BenchmarkAuthzAllow{10,100,1000}Paths), warm, in process: tokens each with N authz
// profiles (path pattern `/api/v1/resourcetype-<i>/*`, methods POST and GET); `allow`
// looks the token up, then tries every profile's pattern with `regex.match` until one
// matches the request path and lists its method. Inputs as OPA's four modes: allow
// (the last token and the last path, so every pattern is tried), forbid path, forbid
// method, forbid identity. OPA uses 1,000 tokens; here 100 (the token count only sizes
// one lookup, and 1,000 × 1,000 profiles is about a million values). Baseline: the same
// decision written by hand in JS, with each pattern compiled once as a RegExp. Results
// are checked against it first. Before stop 30 the 1,000-path decision recompiled each
// pattern with re2js on every decision (the compiled-pattern cache holds 256): 57 ms.
// Run alone: npx tsx bench/restauthz.bench.ts
import { compile } from '../compiler/index.js';
import { fromJS, type Value } from '../runtime/index.js';
import { alternateRounds, type Row } from './timing.js';

const POLICY = `package policy.restauthz

import rego.v1
import data.restauthz.tokens

default allow = false

allow if {
	tokens[input.token_id] = token
	token.authz_profiles[_] = authz
	regex.match(authz.path, input.path)
	authz.methods[_] = input.method
}
`;

export const PATH_COUNTS = [10, 100, 1000];
const TOKENS = 100;

interface Profile { path: string; methods: string[] }
type Tokens = Record<string, { id: string; authz_profiles: Profile[] }>;
interface Input { token_id: string; path: string; method: string }

function dataset(paths: number): Tokens {
  const profiles = Array.from({ length: paths }, (_, i) => ({ path: `/api/v1/resourcetype-${i}/*`, methods: ['POST', 'GET'] }));
  const tokens: Tokens = {};
  for (let t = 0; t < TOKENS; t++) tokens[`token-${t}`] = { id: `token-${t}`, authz_profiles: profiles.map((p) => ({ path: p.path, methods: [...p.methods] })) };
  return tokens;
}

/** OPA's four input modes: allow, forbid path, forbid method, forbid identity. */
function inputs(paths: number): Input[] {
  const token = `token-${TOKENS - 1}`;
  const path = `/api/v1/resourcetype-${paths - 1}/somefakeresourceid000000111111`;
  return [
    { token_id: token, path, method: 'GET' },
    { token_id: token, path: '/api/v1/resourcetype-deadbeef/deadbeefresourceid', method: 'GET' },
    { token_id: token, path, method: 'DEADBEEF' },
    { token_id: 'deadbeef', path, method: 'GET' },
  ];
}

/** The decision written by hand (patterns compiled once; RE2 and JS agree on these). */
function handAllow(tokens: Tokens, compiled: Map<string, RegExp>, input: Input): boolean {
  const token = tokens[input.token_id];
  if (token === undefined) return false;
  for (const authz of token.authz_profiles) {
    let re = compiled.get(authz.path);
    if (re === undefined) compiled.set(authz.path, (re = new RegExp(authz.path, 'u')));
    if (re.test(input.path) && authz.methods.includes(input.method)) return true;
  }
  return false;
}

export async function runRestAuthzBench(opts: { rounds?: number; time?: number; log?: (s: string) => void } = {}): Promise<Row[]> {
  const log = opts.log ?? console.log;
  const policy = compile([{ file: 'restauthz.rego', text: POLICY }]);
  const decide = policy.prepareDecision(['policy', 'restauthz', 'allow']);
  const rows: Row[] = [];
  for (const paths of PATH_COUNTS) {
    const tokens = dataset(paths);
    const data = fromJS({ restauthz: { tokens } });
    const ins = inputs(paths);
    const values = ins.map((x) => fromJS(x));
    const compiled = new Map<string, RegExp>();
    ins.forEach((x, k) => {
      const got = decide({ input: values[k]!, data }) as Value | undefined;
      if ((got === true) !== handAllow(tokens, compiled, x)) throw new Error(`restauthz (${paths} paths): result differs from the hand-written decision for ${JSON.stringify(x)}`);
    });
    let sink = 0;
    // The allow and forbid-path modes try every pattern; each timed call decides all four.
    const tasks = {
      regent: () => { for (let k = 0; k < 4; k++) if (decide({ input: values[k]!, data }) === true) sink++; },
      hand: () => { for (let k = 0; k < 4; k++) if (handAllow(tokens, compiled, ins[k]!)) sink++; },
    };
    const r = await alternateRounds(tasks, 'hand', { rounds: opts.rounds ?? 5, time: opts.time ?? 150, warmCalls: Math.max(20, 20000 / paths) });
    if (sink < 0) log(String(sink));
    rows.push({ workload: `restauthz allow (OPA authz bench), ${paths} paths, 4 modes`, baseline: 'hand-written JS', value: r.ns.regent! / 4, unit: 'ns/decision', baselineValue: r.ns.hand! / 4, ratio: r.ratio.regent!, target: '—' });
    log(`restauthz: ${paths} paths checked and timed`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await runRestAuthzBench()) console.log(`${r.workload}: ${(r.value / 1000).toFixed(2)} µs vs ${(r.baselineValue / 1000).toFixed(2)} µs (${r.baseline}), ${r.ratio.toFixed(2)}x`);
}
