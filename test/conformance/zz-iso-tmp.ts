import { loadAll } from '/work/main/test/conformance/load.ts';
import { runIsolated } from '/work/main/test/conformance/isolate.ts';
const cases = loadAll({ folders: ['sets', 'helloworld', 'aggregates'] }).cases;
const t = Date.now();
const r = await runIsolated(cases, { hardTimeoutMs: 1, workers: 2 });
console.log(r.length, cases.length, r.filter(x => x.reason?.startsWith('hard')).length, Date.now() - t, 'ms');
