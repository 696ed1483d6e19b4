// Worker-thread bootstrap for isolate.ts: worker threads do not inherit tsx's
// loader, so register it here, then load the TypeScript runner and start it.
import { workerData } from 'node:worker_threads';

if (!workerData.entry.endsWith('.js')) {
  const { register } = await import('tsx/esm/api');
  register(); console.error('registered');
}
const { workerMain } = await import(workerData.entry);
console.error('booted'); workerMain();
