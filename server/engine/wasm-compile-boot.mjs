// Entry of the Wasm compile thread when running from TypeScript sources (tests, `tsx`):
// register the TypeScript loader in this thread, then load the real entry. The
// compiled build loads wasm-compile-worker.js directly (see wasm-compiler.ts).
const { register } = await import('tsx/esm/api');
register();
await import('./wasm-compile-worker.ts');
