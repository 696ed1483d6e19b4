// Worker-process bootstrap for isolate.ts: register tsx (unless running compiled
// JavaScript), load the runner named by the parent, and start serving cases.
const { entry, opts } = JSON.parse(process.env.REGENT_CONFORMANCE_WORKER ?? '{}');
if (!entry) throw new Error('worker.mjs: REGENT_CONFORMANCE_WORKER is not set');
if (!entry.endsWith('.js')) {
  const { register } = await import('tsx/esm/api');
  register();
}
const { workerMain } = await import(entry);
workerMain(opts);
