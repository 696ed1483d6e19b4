import { regexTest } from '../../runtime/builtins/regex-cache.js';
const N = 4000;
(globalThis as any).gc?.();
const before = process.memoryUsage().heapUsed;
const t = performance.now();
for (let i = 0; i < N; i++) regexTest(`^/api/v1/resourcetype-${i}/.*$`, `/api/v1/resourcetype-${i}/x`);
const ms = performance.now() - t;
(globalThis as any).gc?.();
console.log('per compile+test µs', (ms * 1000 / N).toFixed(1), 'heap per entry KB (only 256 kept)', ((process.memoryUsage().heapUsed - before) / 256 / 1024).toFixed(1));
