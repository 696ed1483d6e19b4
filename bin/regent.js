#!/usr/bin/env node
// Entry point of the `regent` command. Runs the compiled CLI (dist/cli/main.js, built
// by `npm run build`) when present; otherwise runs the TypeScript sources through
// tsx, so a fresh checkout works without a build step.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli', 'main.js');

async function load() {
  if (existsSync(built)) return import(pathToFileURL(built).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(root, 'cli', 'main.ts')).href);
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
