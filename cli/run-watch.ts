// `regent run -w/--watch`: watch the loaded paths and reload on change, as
// `opa run --watch` does.
//  * watchPaths: node:fs watch on each path (directories recursively; a file through
//    its directory, so editors that replace the file are seen), events debounced
//    (150 ms of quiet) and reloads run one at a time.
//  * reloadServerPaths (server mode): the paths' .rego files and data files are read
//    again and the engine gets the new module set and data in one step: modules
//    loaded from the paths are replaced (a deleted file's module is removed; modules
//    PUT through the API stay), the top-level data keys the files define are
//    replaced (keys that no file defines any more are removed), and bundle paths are
//    activated again. A file that does not parse or compile leaves the engine as it
//    was. Each reload logs OPA's `Processed file watch event.` line.
import { existsSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, extname, relative, sep } from 'node:path';
import { RObject, readBundle, readBundleDir } from '../runtime/index.js';
import type { Engine } from '../server/engine/engine.js';
import type { EngineHost } from '../server/engine/host.js';
import { checkPathConflicts, rulePaths, type PolicyRecord } from '../server/engine/policies.js';
import { isBundlePath, walk } from '../server/engine/loader.js';
import { mergeAt, parseDataFile } from './loader.js';
import { errorsText, toOutputErrors } from './output.js';

export interface Watcher {
  close(): void;
}

/** Call `onChange` (debounced, never concurrently) when anything under `paths` changes. */
export function watchPaths(paths: string[], onChange: () => unknown, debounceMs = 150): Watcher {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let pending = false;
  let closed = false;
  const run = async (): Promise<void> => {
    if (running) {
      pending = true;
      return;
    }
    running = true;
    try {
      await onChange();
    } finally {
      running = false;
      if (pending && !closed) {
        pending = false;
        void run();
      }
    }
  };
  const fire = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  };
  for (const path of paths) {
    if (!existsSync(path)) continue;
    let w: FSWatcher;
    if (statSync(path).isDirectory()) w = watch(path, { recursive: true }, fire);
    else {
      const name = basename(path);
      w = watch(dirname(path), (_event, file) => {
        if (file === null || file === name) fire();
      });
    }
    w.on('error', () => undefined);
    w.unref();
    watchers.push(w);
  }
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}

/** What the watched paths held at the last (re)load. */
export interface LoadedPaths {
  /** Module ids (file paths) loaded from plain files. */
  files: Set<string>;
  /** Top-level data keys the plain data files defined. */
  dataKeys: Set<string>;
}

interface Scan {
  rego: Map<string, string>;
  data: RObject;
  bundles: string[];
}

/** Read the paths as the server's loader does (module ids are the file paths). */
function scan(paths: string[], asBundles: boolean): Scan {
  const s: Scan = { rego: new Map(), data: new RObject(), bundles: [] };
  const add = (file: string, at: string[]): void => {
    const ext = extname(file).toLowerCase();
    if (ext === '.rego') s.rego.set(file, readFileSync(file, 'utf8'));
    else if (['.json', '.yaml', '.yml'].includes(ext)) mergeAt(s.data, at, parseDataFile(file, readFileSync(file, 'utf8')), file);
  };
  for (const path of paths) {
    if (!existsSync(path)) continue;
    if (isBundlePath(path, asBundles)) s.bundles.push(path);
    else if (statSync(path).isDirectory()) for (const f of walk(path)) add(f, relative(path, f).split(sep).slice(0, -1));
    else add(path, []);
  }
  return s;
}

/** The files and data keys the paths hold now (the state before the first reload). */
export function scanLoaded(paths: string[], asBundles: boolean): LoadedPaths {
  const s = scan(paths, asBundles);
  return { files: new Set(s.rego.keys()), dataKeys: new Set(s.data.keys().map(String)) };
}

/** Reload the paths into a running engine; returns the new state. Throws, changing nothing, on bad files. */
export async function reloadServerPaths(engine: Engine, host: EngineHost, paths: string[], asBundles: boolean, before: LoadedPaths): Promise<LoadedPaths> {
  const s = scan(paths, asBundles);
  const records = new Map<string, PolicyRecord>();
  for (const r of engine.policies()) if (!before.files.has(r.id)) records.set(r.id, r);
  for (const [id, text] of s.rego) records.set(id, engine.parse(id, text));
  const policy = engine.compile(records.values());
  checkPathConflicts(rulePaths(policy), s.data);
  const keys = s.data.keys().map(String);
  if (keys.length > 0 || before.dataKeys.size > 0) {
    await engine.writeData([[]], (txn) => {
      for (const k of before.dataKeys) if (!s.data.has(k) && txn.read([k]) !== undefined) txn.write('remove', [k]);
      for (const [k, v] of s.data.entries()) txn.write(txn.read([String(k)]) === undefined ? 'add' : 'replace', [String(k)], v);
    });
  }
  await engine.installPolicies(records, policy);
  for (const path of s.bundles) {
    const bundle = statSync(path).isDirectory() ? await readBundleDir(path) : await readBundle(readFileSync(path));
    await host.activateBundle(path, bundle);
  }
  return { files: new Set(s.rego.keys()), dataKeys: new Set(keys) };
}

/** Watch the server's paths; each reload is reported through `log` (OPA's onReloadLogger). */
export function watchServer(engine: Engine, host: EngineHost, paths: string[], asBundles: boolean, log: (line: string) => void): Watcher {
  let state = scanLoaded(paths, asBundles);
  return watchPaths(paths, async () => {
    const t0 = performance.now();
    let err: string | undefined;
    try {
      state = await reloadServerPaths(engine, host, paths, asBundles, state);
    } catch (e) {
      const errors = e && typeof e === 'object' && Array.isArray((e as { errors?: unknown }).errors);
      err = errors ? errorsText(toOutputErrors(e)) : e instanceof Error ? e.message : String(e);
    }
    const duration = Math.round((performance.now() - t0) * 1e6);
    log(JSON.stringify({ duration, ...(err !== undefined ? { err } : {}), level: 'info', msg: 'Processed file watch event.', time: new Date().toISOString() }) + '\n');
  });
}
