// CLI start-up benchmark (workload 6): whole `regent` processes — `regent version`,
// `regent eval 'true'` and `regent eval -d examples/rbac …` — against `node -e 0`,
// measured in the same run. Each round starts every command once, in turn, so load
// on the machine hits all of them alike; the report is each command's median wall
// time and the median of its per-round ratios to `node -e 0` (target ≤ 3×).
// bin/regent.js runs the single-file build (dist/bundle/, cli/build-bundle.mjs) when
// it is current, else dist/, and the sources through tsx when dist/ is stale.
// The benchmark measures the bundle (what `npm ci` builds): it rebuilds dist/ and the
// bundle when a source is newer, before the run and between rounds (others may be
// editing the checkout), unless REGENT_BENCH_NO_BUILD=1, and says which one it measured.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsCurrent } from './dist-freshness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const regent = join(root, 'bin', 'regent.js');

export interface CliCommandResult {
  name: string;
  /** Median wall time of the whole process, ms. */
  ms: number;
  /** Median of the per-round ratios to `node -e 0`. */
  ratio: number;
}

export interface CliStartResult {
  /** What bin/regent.js ran: the single-file build, dist/, or the sources through tsx. */
  mode: 'bundle' | 'dist' | 'tsx';
  nodeMs: number;
  commands: CliCommandResult[];
  rounds: number;
}

const COMMANDS: { name: string; argv: string[] }[] = [
  { name: 'regent version', argv: [regent, 'version'] },
  { name: "regent eval 'true'", argv: [regent, 'eval', 'true'] },
  { name: 'regent eval -d examples/rbac', argv: [regent, 'eval', '-d', join(root, 'examples', 'rbac'), '-i', join(root, 'examples', 'rbac.input.json'), 'data.rbac.allow'] },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Wall time of one process, ms; throws if it fails. */
function timeProcess(argv: string[]): number {
  const t = process.hrtime.bigint();
  const p = spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (p.status !== 0) throw new Error(`${argv.join(' ')} exited ${p.status}: ${p.stderr}`);
  return ms;
}

/** What bin/regent.js will run (the same rule, computed here). */
function cliMode(): CliStartResult['mode'] {
  if (!distIsCurrent('cli/main.js', ['cli', 'compiler', 'runtime', 'server'])) return 'tsx';
  const bundle = join(root, 'dist', 'bundle', 'regent.js');
  return existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(join(root, 'dist', 'cli', 'main.js')).mtimeMs ? 'bundle' : 'dist';
}

/**
 * `tsc -p tsconfig.build.json` when a source is newer than dist/ (type errors do not
 * stop it emitting), then the bundle when it is older than dist/.
 */
function ensureBuilt(): void {
  if (process.env.REGENT_BENCH_NO_BUILD === '1' || cliMode() === 'bundle') return;
  const node = (script: string, ...args: string[]) => spawnSync(process.execPath, [join(root, script), ...args], { cwd: root, stdio: 'ignore' });
  if (cliMode() === 'tsx') node('node_modules/typescript/bin/tsc', '-p', join(root, 'tsconfig.build.json'));
  node('cli/build-bundle.mjs');
}

export function runCliStartBench(opts: { rounds?: number } = {}): CliStartResult {
  const rounds = opts.rounds ?? Number(process.env.REGENT_BENCH_CLI_ROUNDS ?? 15);
  ensureBuilt();
  for (const c of COMMANDS) timeProcess(c.argv); // warm the file cache; checks each command works
  const node: number[] = [];
  const per = COMMANDS.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    ensureBuilt();
    node.push(timeProcess(['-e', '0']));
    COMMANDS.forEach((c, k) => per[k]!.push(timeProcess(c.argv)));
  }
  return {
    mode: cliMode(),
    nodeMs: median(node),
    rounds,
    commands: COMMANDS.map((c, k) => ({ name: c.name, ms: median(per[k]!), ratio: median(per[k]!.map((x, r) => x / node[r]!)) })),
  };
}

export function formatCliStart(r: CliStartResult): string {
  const lines = [`CLI start (${r.rounds} rounds, bin/regent.js running ${r.mode}; node -e 0: ${r.nodeMs.toFixed(0)} ms)`];
  for (const c of r.commands) lines.push(`  ${c.name.padEnd(30)} ${c.ms.toFixed(0).padStart(5)} ms  ${c.ratio.toFixed(2)}x node -e 0 (target ≤ 3x)`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatCliStart(runCliStartBench()));
}
