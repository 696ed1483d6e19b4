#!/usr/bin/env node
// Entry point of the `regent` command. Runs the compiled CLI when present and not
// older than any TypeScript source: its single-file build (dist/bundle/regent.js,
// cli/build-bundle.mjs), else dist/cli/main.js (both built by `npm run build`);
// otherwise — or if the build cannot be loaded (a partial or stale dist/) — runs the
// sources through tsx, so a fresh checkout works without a build step.
// Start-up (bench/cli-start.bench.ts): the source scan runs only in a git checkout,
// where sources get edited (an installed package trusts its dist/); V8's compile
// cache is on where Node has it (22.1+); cli/main.ts imports each command on use.
import { existsSync, readdirSync, statSync } from 'node:fs';
import module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundled = join(root, 'dist', 'bundle', 'regent.js');
const built = join(root, 'dist', 'cli', 'main.js');
const source = join(root, 'cli', 'main.ts');
const SOURCE_DIRS = ['cli', 'compiler', 'runtime', 'server'];

/** The newest modification time of the TypeScript sources (a few hundred files). */
function newestSource(dir, newest = 0) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(p, newest);
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The build to run: none when dist/ is missing or older than a source; else the
 * bundle when it was made from this dist/ (not older than it), else dist/ itself.
 */
function currentBuild() {
  if (!existsSync(built)) return undefined;
  const builtAt = statSync(built).mtimeMs;
  const build = existsSync(bundled) && statSync(bundled).mtimeMs >= builtAt ? bundled : built;
  if (!existsSync(source) || !existsSync(join(root, '.git'))) return build;
  return SOURCE_DIRS.every((d) => !existsSync(join(root, d)) || newestSource(join(root, d)) <= builtAt) ? build : undefined;
}

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(source).href);
}

async function load() {
  const build = currentBuild();
  if (!build) return fromSource();
  module.enableCompileCache?.();
  try {
    return await import(pathToFileURL(build).href);
  } catch (e) {
    if (!existsSync(source) || e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    return fromSource();
  }
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
