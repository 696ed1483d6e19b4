// `npx tsx test/corpus/cli.ts [--update-baseline] [--no-strict]`: run the real-world
// corpus commands (see corpus.ts), print the per-folder report, and with
// --update-baseline (or UPDATE_CORPUS_BASELINE=1) rewrite test/corpus/baseline.json
// with the tests that pass now. Exits 1 when a baseline test no longer passes, a
// check is not clean, or the two reports of a folder disagree.
import { BASELINE_PATH, baselineOf, corpusDir, formatReport, isClean, readBaseline, regressions, runCorpus, writeBaseline } from './corpus.js';

const args = process.argv.slice(2);
const update = args.includes('--update-baseline') || process.env.UPDATE_CORPUS_BASELINE === '1';
const root = corpusDir();
if (!root) {
  process.stderr.write('rego-corpus not found under the shared folder (set REGENT_SHARED_DIR)\n');
  process.exit(2);
}
const started = Date.now();
const run = await runCorpus(root, { strict: !args.includes('--no-strict') });
const baseline = readBaseline();
process.stdout.write(formatReport(run, baseline));
process.stdout.write(`(${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
if (update) {
  writeBaseline(baselineOf(run));
  process.stdout.write(`wrote ${BASELINE_PATH}\n`);
}
const bad = (!update && regressions(run, baseline).length > 0) || run.checks.some((c) => !isClean(c)) || run.folders.some((f) => f.problems.length > 0);
process.exitCode = bad ? 1 : 0;
