// The CLI's single-file build: bundles dist/cli/main.js and every Regent module it
// imports (the commands' lazily imported ones too, as split chunks) into
// dist/bundle/regent.js and a few chunk files beside it, with esbuild. Packages
// stay external: Node resolves them from node_modules as it does for dist/.
// Run by `npm run build` and `npm ci` (the `prepare` script) after tsc; bin/regent.js
// runs the bundle when it is current. Why: Node 20's ES-module loader costs about a
// millisecond per file (resolution, reads, compilation), and `regent eval` loaded
// about 150 of them; from the bundle it opens 18 (bench/README.md, "stop 23").
//
// A bundled module's `import.meta.url` would be its chunk's URL. Every use of it in
// Regent's sources locates something beside the module's own compiled file (worker
// scripts, the Wasm runtime, migrations, the dashboard's assets, package.json, the
// x509 decoder), so the plugin below rewrites it to the URL of that file in dist/,
// expressed relative to the bundle directory (the bundle moves with dist/ when the
// package is installed elsewhere). Those files are then loaded from dist/, outside
// the bundle; the one such module graph in the main thread, runtime/x509/decode.ts,
// holds no runtime state (see its header).
//
// Usage: node cli/build-bundle.mjs   (from the repository root or anywhere)
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
export const BUNDLE_DIR = join(dist, 'bundle');

/** esbuild plugin: `import.meta.url` in a dist/ module becomes that module's own URL. */
const originalLocation = (outdir) => ({
  name: 'regent-original-location',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromBundle = relative(outdir, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
});

/**
 * Build dist/bundle/ from dist/ (which `tsc -p tsconfig.build.json` writes). Another
 * `outdir` must also be a directory directly inside dist/ (the tests use one), so
 * that packages resolve from the same node_modules.
 */
export async function buildBundle(outdir = BUNDLE_DIR) {
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { regent: join(dist, 'cli', 'main.js') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    minifyWhitespace: true,
    logLevel: 'warning',
    plugins: [originalLocation(outdir)],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildBundle();
