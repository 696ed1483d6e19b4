// Worker entry when running from TypeScript sources (tests, `tsx`): register the
// TypeScript loader in this thread, then load the real worker. The compiled build
// loads worker.js directly (see workerFile() in pool.ts).
const { register } = await import('tsx/esm/api');
register();
const worker = await import('./worker.ts');
export default worker.default;
