// `regent control-plane build -c config.yaml [-c …] [-b bundle …]`: build every
// bundle of a control plane configuration once and push it to its object
// storage, as `opactl build` does. Definitions are loaded with the control
// plane's config loader into an in-memory SQLite store (or the configured
// database), then each bundle runs the worker pipeline once. Output is the
// reference's: interactive (default) prints `N/M bundles built and pushed
// successfully` and, when something failed, a table (Bundle | Status | Message,
// `│` borders as Go's tablewriter draws them) on stderr; `--non-interactive`
// prints JSON log lines (`{"time","level","msg"}`, warnings and errors only at
// the default level) and nothing on success. Builder warnings go to stderr raw
// in both modes. Exit 0 when every bundle succeeded, 1 otherwise (configuration
// errors included), 2 on usage errors.
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyConfig } from '../server/control-plane/config/apply.js';
import { loadConfigFiles } from '../server/control-plane/config/load.js';
import { openStorage } from '../server/control-plane/index.js';
import { openSqliteStorage } from '../server/control-plane/storage/sqlite.js';
import type { Storage } from '../server/control-plane/storage/storage.js';
import { Scheduler } from '../server/control-plane/scheduler.js';
import type { BuildOutcome } from '../server/control-plane/worker.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import type { IO } from './output.js';

export const CONTROL_PLANE_BUILD_FLAGS: FlagSpec[] = [
  { name: 'config', short: 'c', type: 'string', repeatable: true, metavar: 'PATH', description: 'configuration file or directory (repeatable; default config.d)' },
  { name: 'bundle', short: 'b', type: 'string', repeatable: true, metavar: 'NAME', description: 'build only these bundles (repeatable)' },
  { name: 'data-dir', short: 'd', type: 'string', default: 'data', metavar: 'DIR', description: 'working directory for git mirrors' },
  { name: 'non-interactive', type: 'boolean', description: 'print JSON log lines instead of a summary' },
  { name: 'log-level', type: 'string', default: 'info', choices: ['debug', 'info', 'warn', 'error'], metavar: 'LEVEL', description: 'log level of --non-interactive' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for control-plane build' },
];

const USAGE = 'regent control-plane build [flags]';
const DESCRIPTION = 'Build every bundle of a control plane configuration once and push it to object storage.';

const LEVELS = ['debug', 'info', 'warn', 'error'];

/** A Go tablewriter (v1) table: `┌─┬─┐` borders, centred upper-case header, cells split at newlines. */
export function boxTable(header: string[], rows: string[][]): string {
  const cells = rows.map((r) => r.map((c) => c.split('\n')));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => Math.max(...r[i]!.map((l) => [...l].length)))));
  const rule = (l: string, m: string, r: string): string => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r + '\n';
  const center = (s: string, w: number): string => {
    const left = Math.floor((w - s.length) / 2);
    return ' '.repeat(left) + s + ' '.repeat(w - s.length - left);
  };
  let out = rule('┌', '┬', '┐') + '│ ' + header.map((h, i) => center(h.toUpperCase(), widths[i]!)).join(' │ ') + ' │\n' + rule('├', '┼', '┤');
  for (const r of cells) {
    const height = Math.max(...r.map((c) => c.length));
    for (let k = 0; k < height; k++) out += '│ ' + r.map((c, i) => (c[k] ?? '') + ' '.repeat(widths[i]! - [...(c[k] ?? '')].length)).join(' │ ') + ' │\n';
  }
  return out + rule('└', '┴', '┘');
}

export async function controlPlaneBuildCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, CONTROL_PLANE_BUILD_FLAGS);
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`Error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, CONTROL_PLANE_BUILD_FLAGS)}\n`);
    return 2;
  }
  if (bool(args, 'help')) {
    io.out(formatHelp(USAGE, DESCRIPTION, CONTROL_PLANE_BUILD_FLAGS) + '\n');
    return 0;
  }
  const interactive = !bool(args, 'non-interactive');
  const paths = list(args, 'config');
  const dataDir = resolve(str(args, 'data-dir') ?? 'data');
  let store: Storage | undefined;
  try {
    const config = loadConfigFiles(paths.length > 0 ? paths : ['config.d']);
    await mkdir(dataDir, { recursive: true });
    store = config.database ? openStorage(config, dataDir) : openSqliteStorage(':memory:');
    await store.migrate();
    await applyConfig(store, config);
  } catch (e) {
    // apply.ts already says `load config failed: upsert …`; file and schema errors are configuration errors.
    const msg = (e as Error).message;
    io.err(`${/^(load config failed|configuration)/.test(msg) ? msg : `configuration error: ${msg}`}\n`);
    await store?.close();
    return 1;
  }
  const wanted = list(args, 'bundle');
  // As the reference: a successful build logs at debug; failures are warnings.
  const min = LEVELS.indexOf(str(args, 'log-level') ?? 'info');
  const log = (level: string, msg: string): void => {
    const lv = level === 'info' ? 'debug' : level;
    if (!interactive && LEVELS.indexOf(lv) >= min) io.err(JSON.stringify({ time: new Date().toISOString(), level: lv.toUpperCase(), msg }) + '\n');
  };
  const scheduler = new Scheduler({
    store,
    dataDir,
    log,
    stderr: (t) => io.err(t),
  });
  let outcomes: BuildOutcome[];
  try {
    const names = (await store.listBundles()).map((b) => b.name).filter((n) => wanted.length === 0 || wanted.includes(n));
    outcomes = (await scheduler.buildAll(names)).sort((a, b) => (a.bundle_name < b.bundle_name ? -1 : a.bundle_name > b.bundle_name ? 1 : 0));
  } finally {
    await store.close();
  }
  const failed = outcomes.filter((o) => o.status !== 'SUCCESS');
  if (interactive) {
    io.err(`${outcomes.length - failed.length}/${outcomes.length} bundles built and pushed successfully\n`);
    if (failed.length > 0) io.err(boxTable(['Bundle', 'Status', 'Message'], failed.map((o) => [o.bundle_name, o.status, o.error_message ?? ''])));
  }
  return failed.length > 0 ? 1 : 0;
}
