// `regent control-plane build -c config.yaml [-c …] [-b bundle …]`: build every
// bundle of a control plane configuration once and push it to its object
// storage, as `opactl build` does. Definitions are loaded with the control
// plane's config loader into an in-memory SQLite store (or the configured
// database), then each bundle runs the worker pipeline once. Progress goes to
// stderr, one line per bundle, then `N/M bundles built and pushed successfully`
// and a table of failures; `--non-interactive` prints JSON lines instead and
// nothing on success. Exit 0 when every bundle succeeded, 1 otherwise, 2 on
// usage errors.
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
  { name: 'non-interactive', type: 'boolean', description: 'print JSON log lines instead of progress and a summary' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for control-plane build' },
];

const USAGE = 'regent control-plane build [flags]';
const DESCRIPTION = 'Build every bundle of a control plane configuration once and push it to object storage.';

function describe(o: BuildOutcome): string {
  if (o.status !== 'SUCCESS') return `${o.status} (${o.phase}): ${o.error_message ?? ''}`;
  const where = o.phase === 'PUSH' ? (o.uploaded ? 'pushed' : 'unchanged, not pushed') : 'built (no object storage)';
  return `SUCCESS: ${where}, revision ${o.revision || '""'}, ${o.durationMs} ms`;
}

export async function controlPlaneBuildCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, CONTROL_PLANE_BUILD_FLAGS);
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`Error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, CONTROL_PLANE_BUILD_FLAGS)}`);
    return 2;
  }
  if (bool(args, 'help')) {
    io.out(formatHelp(USAGE, DESCRIPTION, CONTROL_PLANE_BUILD_FLAGS));
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
    io.err(`load config failed: ${(e as Error).message}\n`);
    await store?.close();
    return 1;
  }
  const wanted = list(args, 'bundle');
  const log = (level: string, msg: string, fields?: Record<string, unknown>): void => {
    if (!interactive && level !== 'debug' && level !== 'info') io.err(JSON.stringify({ level, msg, ...fields, time: new Date().toISOString() }) + '\n');
  };
  const scheduler = new Scheduler({
    store,
    dataDir,
    log,
  });
  let outcomes: BuildOutcome[];
  try {
    const names = (await store.listBundles()).map((b) => b.name).filter((n) => wanted.length === 0 || wanted.includes(n));
    if (interactive) io.err(`building ${names.length} bundle${names.length === 1 ? '' : 's'}\n`);
    outcomes = await Promise.all(
      names.map(async (n) => {
        const [o] = await scheduler.buildAll([n]);
        if (o && interactive) io.err(`  ${n}: ${describe(o)}\n`);
        return o!;
      }),
    );
  } finally {
    await store.close();
  }
  const failed = outcomes.filter((o) => o.status !== 'SUCCESS');
  if (interactive) {
    io.err(`${outcomes.length - failed.length}/${outcomes.length} bundles built and pushed successfully\n`);
    if (failed.length > 0) {
      const rows = [['Bundle', 'Status', 'Message'], ...failed.map((o) => [o.bundle_name, o.status, (o.error_message ?? '').replace(/\n/g, ' ')])];
      const w = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows) io.err(`${r[0]!.padEnd(w[0]!)}  ${r[1]!.padEnd(w[1]!)}  ${r[2]}\n`);
    }
  }
  return failed.length > 0 ? 1 : 0;
}
