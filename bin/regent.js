#!/usr/bin/env node
// Entry point of the `regent` command. Runs the compiled CLI (dist/cli/main.js, built
// by `npm run build`) when present and not older than the TypeScript sources;
// otherwise — or if the build cannot be loaded (a partial or stale dist/) — runs the
// sources through tsx, so a fresh checkout works without a build step.
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli', 'main.js');
const source = join(root, 'cli', 'main.ts');

function buildIsCurrent() {
  if (!existsSync(built)) return false;
  if (!existsSync(source)) return true;
  return statSync(built).mtimeMs >= statSync(source).mtimeMs;
}

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(source).href);
}

async function load() {
  if (!buildIsCurrent()) return fromSource();
  try {
    return await import(pathToFileURL(built).href);
  } catch (e) {
    if (!existsSync(source) || e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    return fromSource();
  }
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
