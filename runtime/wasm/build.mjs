// Compiles the AssemblyScript runtime (runtime/wasm/assembly/) into
// runtime/wasm/build/runtime.wasm, once, at build time (`npm run build:wasm`, and
// part of `prepare`). compiler/codegen/wasm/ links every policy against this binary.
// Skips the work when the binary is newer than every source file.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const srcDir = join(here, 'assembly');
const out = join(here, 'build', 'runtime.wasm');
const newest = Math.max(...readdirSync(srcDir).map((f) => statSync(join(srcDir, f)).mtimeMs), statSync(fileURLToPath(import.meta.url)).mtimeMs);
if (existsSync(out) && statSync(out).mtimeMs >= newest && !process.argv.includes('--force')) process.exit(0);
mkdirSync(dirname(out), { recursive: true });
console.error('regent: compiling the Wasm runtime (AssemblyScript) into runtime/wasm/build/runtime.wasm');
const asc = await import('assemblyscript/asc');
const { error, stderr } = await asc.main([
  join(srcDir, 'index.ts'),
  '--outFile', out,
  '--runtime', 'stub',
  '--importMemory',
  '--initialMemory', '2',
  '--use', 'abort=',
  '--optimizeLevel', '3',
  '--shrinkLevel', '0',
  '--noAssert',
  '--debug', // keep the name section: readable stack traces in policy code
]);
if (error) {
  console.error(stderr.toString());
  console.error(error.message);
  process.exit(1);
}
