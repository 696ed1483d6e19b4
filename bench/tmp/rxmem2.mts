import { createRequire } from 'node:module';
import { nativeRegex } from '../../runtime/builtins/regex-native.js';
const RE2 = (createRequire(import.meta.url)('re2js') as any).RE2JS;
const N = 2000;
const gc = (globalThis as any).gc;
const measure = (name: string, f: (i: number) => unknown) => {
  gc(); const before = process.memoryUsage().heapUsed; const keep: unknown[] = [];
  const t = performance.now();
  for (let i = 0; i < N; i++) keep.push(f(i));
  const ms = performance.now() - t;
  gc(); console.log(name, 'µs each', (ms * 1000 / N).toFixed(1), 'KB each', ((process.memoryUsage().heapUsed - before) / N / 1024).toFixed(2), keep.length);
};
measure('re2js compile', (i) => RE2.compile(`^/api/v1/resourcetype-${i}/.*$`));
measure('re2js compile+test', (i) => { const r = RE2.compile(`^/api/v1/resourcetype-${i}/.*$`); r.test(`/api/v1/resourcetype-${i}/x`); return r; });
measure('native', (i) => nativeRegex(`^/api/v1/resourcetype-${i}/.*$`));
measure('native+test', (i) => { const n = nativeRegex(`^/api/v1/resourcetype-${i}/.*$`)!; n.re.test(`/api/v1/resourcetype-${i}/x`); return n; });
