// Loading the paths of `regent test`, as OPA's tester loads them (v1/tester/runner.go):
//  * by default every .rego, .json and .yaml file under the paths (and `.tar.gz`
//    bundles named directly), through cli/loader.ts (loadAll, --ignore globs
//    included); parse errors are loading errors
//    (`1 error occurred during loading: …`);
//  * with -b/--bundle each path is a bundle (LoadBundlesWithParserOptions): a
//    directory read with bundle conventions (runtime/bundles readBundleDir: .manifest,
//    rego_version and file_rego_versions, only data.json/data.yaml as data, at their
//    directory's path) or a bundle archive (readBundle); signatures are not verified.
//    A directory bundle's modules are named by the directory joined with their bundle
//    path (`dir/x/policy.rego`, OPA's WithBaseDir), an archive's by their bundle path
//    (`/x/policy.rego`). --ignore drops bundle files whose name matches. Failures read
//    `unable to load bundle <path>: …` as OPA's: `error reading "<path>": stat <path>:
//    no such file or directory`, or `bundle <path>: <reader or parse error>`.
// The result keeps the source texts, by file name, for the failure lines of reports.
// -w/--watch (watchTests): after the first run, print a line of 80 `*` and `Watching
// for changes ...` on stdout, and on every change under the paths (cli/run-watch.ts
// watchPaths: debounced, one reload at a time) run the tests again (the caller's
// `rerun`: reload, recompile, --count rounds) and print the banner again, as
// `opa test --watch`; the watch ends (exit 0) when `stop` settles (SIGINT or SIGTERM).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceFile } from '../compiler/api.js';
import type { Module } from '../compiler/ast/nodes.js';
import { RObject } from '../runtime/value/index.js';
import { BundleError } from '../runtime/bundles/errors.js';
import { globToRegExp, loadAll, mergeAt, splitPrefix } from './loader.js';
import { errorsText, toOutputErrors, type IO } from './output.js';
import { parseTestModules } from './test-runner.js';
import { loadingErrorsText } from './test-report.js';

export interface TestSuite {
  modules: Module[];
  data: RObject;
  /** Compile as Rego v0 (--v0-compatible, or a bundle manifest asking for it). */
  v0: boolean;
  /** Source text by module file name. */
  sources: Map<string, string>;
}

/** A failure to load, with the text OPA prints for it on stderr. */
export class TestLoadError extends Error {
  constructor(readonly text: string) {
    super(text);
    this.name = 'TestLoadError';
  }
}

export interface LoadOptions {
  paths: string[];
  bundle: boolean;
  ignore: string[];
  v0: boolean;
}

/** Load the test paths; throws TestLoadError. */
export async function loadTestSuite(opts: LoadOptions): Promise<TestSuite> {
  return opts.bundle ? loadBundles(opts) : loadFiles(opts);
}

async function loadFiles(opts: LoadOptions): Promise<TestSuite> {
  try {
    const loaded = await loadAll(opts.paths, [], { v0Compatible: opts.v0, ignore: opts.ignore });
    const v0 = opts.v0 || loaded.v0;
    return { modules: parseTestModules(loaded.modules, v0), data: loaded.data, v0, sources: sourcesOf(loaded.modules) };
  } catch (e) {
    throw new TestLoadError(loadingErrorsText(toOutputErrors(e)));
  }
}

function sourcesOf(files: SourceFile[]): Map<string, string> {
  return new Map(files.map((f) => [f.file, f.text]));
}

async function loadBundles(opts: LoadOptions): Promise<TestSuite> {
  const suite: TestSuite = { modules: [], data: new RObject(), v0: opts.v0, sources: new Map() };
  const patterns = opts.ignore.map(globToRegExp);
  // OPA's bundle directory loader applies --ignore to file names only.
  const filter = (rel: string, isDir: boolean): boolean => !isDir && patterns.some((re) => re.test(rel.slice(rel.lastIndexOf('/') + 1)));
  for (const path of opts.paths) {
    const fail = (why: string): TestLoadError => new TestLoadError(`unable to load bundle ${path}: ${why}`);
    if (!existsSync(path)) throw fail(`error reading ${JSON.stringify(path)}: stat ${path}: no such file or directory`);
    const dir = statSync(path).isDirectory();
    let bundle;
    try {
      const { readBundle, readBundleDir } = await import('../runtime/bundles/index.js');
      const readOpts = { skipVerify: true, defaultRegoVersion: opts.v0 ? (0 as const) : (1 as const) };
      bundle = dir ? await readBundleDir(path, { ...readOpts, filter }) : await readBundle(readFileSync(path), readOpts);
    } catch (e) {
      if (e instanceof BundleError) throw fail(`bundle ${path}: ${e.message}`);
      throw e;
    }
    const files: SourceFile[] = bundle.modules.map((m) => ({
      file: dir ? join(path, m.path) : m.path,
      text: m.text,
      ...(m.regoVersion !== undefined ? { v0Compatible: m.regoVersion === 0 } : {}),
    }));
    try {
      suite.modules.push(...parseTestModules(files, opts.v0));
    } catch (e) {
      throw fail(`bundle ${path}: ${errorsText(toOutputErrors(e))}`);
    }
    for (const [k, v] of sourcesOf(files)) suite.sources.set(k, v);
    if (bundle.manifest.rego_version === 0) suite.v0 = true;
    try {
      if (bundle.data instanceof RObject && bundle.data.size > 0) mergeAt(suite.data, [], bundle.data, path);
    } catch (e) {
      throw fail(e instanceof Error ? e.message : String(e));
    }
  }
  return suite;
}

export const WATCH_BANNER = '*'.repeat(80) + '\nWatching for changes ...\n';

/** Resolves on SIGINT or SIGTERM (listeners removed after), keeping the process alive meanwhile. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const done = (): void => {
      clearInterval(keepAlive);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/** Watch `paths`, calling `rerun` on each change; returns when `stop` settles. */
export async function watchTests(paths: string[], io: IO, rerun: () => Promise<unknown>, stop: Promise<unknown>): Promise<void> {
  const { watchPaths } = await import('./run-watch.js'); // the server's watcher, loaded only for -w
  const watcher = watchPaths(
    paths.map((p) => splitPrefix(p).path),
    async () => {
      await rerun();
      io.out(WATCH_BANNER);
    },
  );
  io.out(WATCH_BANNER);
  try {
    await stop;
  } finally {
    watcher.close();
  }
}
