// Worker entry when running from TypeScript sources (tests, `tsx`): register the
// TypeScript loader in this thread, then load the real worker and hand piscina its
// `serve` task (see pool-threads.ts). The compiled build loads worker.js directly
// (see workerFile() in pool-threads.ts).
const { register } = await import('tsx/esm/api');
register();
export const { serve } = await import('./worker.ts');
