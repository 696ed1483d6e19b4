// Worker entry when running from TypeScript sources (tests, `tsx`): register the
// TypeScript loader in this thread, then load the real worker (it listens on its
// port as it loads). The compiled build loads worker.js directly (see workerFile()
// in pool.ts).
const { register } = await import('tsx/esm/api');
register();
await import('./worker.ts');
