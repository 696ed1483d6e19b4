#!/usr/bin/env node
// Builds the control-plane dashboard (issue 15): bundles src/main.js (Preact + htm)
// with esbuild into dist/app.js and copies index.html and app.css beside it.
// `regent control-plane run` serves dist/ under /ui (routes/ui.ts).
//   node server/control-plane/ui/build.mjs           build when dist/ is missing or older than a source
//   node server/control-plane/ui/build.mjs --force   always build
// `ensureUiBuilt()` is the same check for tests and callers in-process.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const UI_DIR = dirname(fileURLToPath(import.meta.url));
export const DIST_DIR = join(UI_DIR, 'dist');
const STATIC_FILES = ['index.html', 'app.css'];
const OUTPUTS = ['app.js', ...STATIC_FILES];

/** Newest modification time of the dashboard sources (src/, the static files, this script). */
function newestSource(dir = join(UI_DIR, 'src'), newest = 0) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(p, newest);
    else newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function sourcesMtime() {
  let newest = newestSource();
  for (const f of [...STATIC_FILES, 'build.mjs']) newest = Math.max(newest, statSync(join(UI_DIR, f)).mtimeMs);
  return newest;
}

/** Whether every output exists and is newer than every source. */
export function uiIsCurrent() {
  const sources = sourcesMtime();
  return OUTPUTS.every((f) => {
    const p = join(DIST_DIR, f);
    return existsSync(p) && statSync(p).mtimeMs >= sources;
  });
}

/** Bundle the dashboard into dist/ (always). */
export async function buildUi() {
  const esbuild = await import('esbuild');
  mkdirSync(DIST_DIR, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [join(UI_DIR, 'src', 'main.js')],
    outfile: join(DIST_DIR, 'app.js'),
    bundle: true,
    format: 'esm',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  for (const w of result.warnings) console.error(`dashboard build warning: ${w.text}`);
  for (const f of STATIC_FILES) copyFileSync(join(UI_DIR, f), join(DIST_DIR, f));
}

/** Build when dist/ is missing or stale; resolves with whether a build ran. */
export async function ensureUiBuilt() {
  if (uiIsCurrent()) return false;
  await buildUi();
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const force = process.argv.includes('--force');
  const built = force ? (await buildUi(), true) : await ensureUiBuilt();
  console.error(built ? `dashboard built into ${DIST_DIR}` : 'dashboard is up to date');
}
