// Group-by comprehension workload (warm, in process): OPA's comprehension indexing
// (topdown BenchmarkComprehensionIndexing's shape inside a set rule, so that every
// outer value evaluates the comprehension): for each item v, the positions of the
// items equal to v, over 100, 1,000 and 3,000 items (half as many distinct values).
// Without an index this is O(n²); compiler/passes/comprehension-index.ts makes it one
// pass that groups, then a lookup per item. Baseline: the same result built by hand in
// JS (a Map from value to positions). The result is checked against it first.
// Run alone: npx tsx bench/groupby.bench.ts
import { compile } from '../compiler/index.js';
import { fromJS, toJS, type Value } from '../runtime/index.js';
import { alternateRounds, canonical, type Row } from './timing.js';

const POLICY = `package groupby
import rego.v1

groups contains [v, ks] if {
	v := data.items[_]
	ks := [k | some k; v == data.items[k]]
}
`;

export const ITEM_COUNTS = [100, 1000, 3000];

/** The decision by hand: each distinct item with its positions, in order. */
function handGroups(items: string[]): [string, number[]][] {
  const byValue = new Map<string, number[]>();
  items.forEach((v, k) => {
    const ks = byValue.get(v);
    if (ks === undefined) byValue.set(v, [k]);
    else ks.push(k);
  });
  return [...byValue];
}

export async function runGroupByBench(opts: { rounds?: number; time?: number; log?: (s: string) => void } = {}): Promise<Row[]> {
  const log = opts.log ?? console.log;
  const policy = compile([{ file: 'groupby.rego', text: POLICY }]);
  const decide = policy.prepareDecision(['groupby', 'groups']);
  const rows: Row[] = [];
  for (const n of ITEM_COUNTS) {
    const items = Array.from({ length: n }, (_, i) => `v${i % (n / 2)}`);
    const data = fromJS({ items });
    const got = toJS(decide({ data }) as Value) as unknown[];
    const sorted = (xs: unknown[]) => xs.map(canonical).sort().join('\n');
    if (sorted(got) !== sorted(handGroups(items))) throw new Error(`groupby (${n} items): result differs from the hand-written grouping`);
    let sink = 0;
    const tasks = {
      regent: () => { if (decide({ data }) !== undefined) sink++; },
      hand: () => { if (handGroups(items).length > 0) sink++; },
    };
    const r = await alternateRounds(tasks, 'hand', { rounds: opts.rounds ?? 5, time: opts.time ?? 150, warmCalls: Math.max(10, 20000 / n) });
    if (sink < 0) log(String(sink));
    rows.push({ workload: `group-by comprehension, ${n} items`, baseline: 'hand-written JS', value: r.ns.regent! / 1000, unit: 'µs/decision', baselineValue: r.ns.hand! / 1000, ratio: r.ratio.regent!, target: '—' });
    log(`groupby: ${n} items checked and timed`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await runGroupByBench()) console.log(`${r.workload}: ${r.value.toFixed(1)} µs vs ${r.baselineValue.toFixed(1)} µs (${r.baseline}), ${r.ratio.toFixed(2)}x`);
}
