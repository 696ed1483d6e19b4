// One bundle's build pipeline (control-plane-behaviors.md §5.1):
//   SYNC       builtin files, API documents + embedded files + directory
//              snapshot, HTTP/S3 datasources, git checkout — per required source
//   TRANSFORM  datasource transform_query
//   BUILD      assemble (mounts, roots, conflicts), revision, compile, tar.gz
//   PUSH       object storage (skipped when the stored digest is unchanged)
// Every execute() ends in exactly one status record: SUCCESS/PUSH (or
// SUCCESS/BUILD without object storage), or the failing phase with
// SYNC_FAILED | USER_ERROR | TRANSFORM_FAILED | BUILD_FAILED | PUSH_FAILED |
// INTERNAL_ERROR and the error message. Failures before a revision is known are
// recorded with revision "".
import type { DefinitionStore, ObjectStorage, SourceDef, StatusRecord } from './contract.js';
import { assemble, type SourceContent } from './builder/assemble.js';
import { buildBundle } from './builder/bundle.js';
import { planBundle, type BundleDefX } from './builder/deps.js';
import { ConfigError, PipelineError, messageOf, type Phase } from './builder/errors.js';
import { hashTree, sha256Hex, type FileTree } from './builder/files.js';
import { checkGlobs, GlobSyntaxError } from './builder/glob.js';
import { resolveRevision, type SourceMeta } from './builder/revision.js';
import { readBuiltinSource } from './sources/builtin.js';
import { readDirectorySource } from './sources/directory.js';
import { syncGit, type GitSyncObserver } from './sources/git.js';
import { applyTransforms, fetchDatasources } from './sources/http.js';
import { readSourceData } from './sources/source-data.js';
import { createObjectStore, type ObjectStore } from './storage-objects/index.js';

export interface WorkerOptions {
  store: DefinitionStore;
  /** Working directory for git mirrors. */
  dataDir: string;
  /** Base for relative directory sources and filesystem storage paths. */
  cwd?: string;
  timeoutMs?: number;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** Git sync outcomes (metrics). */
  gitSync?: GitSyncObserver;
  /**
   * Builder warnings (source manifest roots/revision), written raw as the
   * reference's builder writes them to stderr. Default: process.stderr.
   */
  stderr?: (text: string) => void;
}

/** The reference's log message for a failed phase. */
function failureMessage(bundle: string, phase: Phase, error: string, source = ''): string {
  const b = JSON.stringify(bundle);
  switch (phase) {
    case 'SYNC':
      return `failed to synchronize bundle ${b}: ${error}`;
    case 'TRANSFORM':
      return `failed to evaluate source ${JSON.stringify(source)} for bundle ${b}: ${error}`;
    case 'PUSH':
      return `failed to upload bundle ${b}: ${error}`;
    default:
      return `failed to build a bundle ${b}: ${error}`;
  }
}

export interface BuildOutcome extends StatusRecord {
  /** Whether bytes were written to object storage (false: unchanged or none configured). */
  uploaded: boolean;
  bytes?: Buffer;
  durationMs: number;
  warnings: string[];
}

interface Synced {
  content: SourceContent;
  meta: SourceMeta;
  def: SourceDef;
  dsTree?: FileTree;
}

export class BundleWorker {
  private objectStore?: { key: string; store: ObjectStore | undefined };
  /** What the last successful build produced, so an unchanged rebuild logs at debug only. */
  private lastBuilt?: string;

  constructor(
    readonly name: string,
    private readonly opts: WorkerOptions,
  ) {}

  /** Run the pipeline once; returns the status record written (undefined if the bundle is gone). */
  async execute(): Promise<BuildOutcome | undefined> {
    const started = Date.now();
    const { store } = this.opts;
    const def = (await store.getBundle(this.name)) as BundleDefX | undefined;
    if (!def) return undefined;
    let phase: Phase = 'SYNC';
    let revision = '';
    let transforming = '';
    const warnings: string[] = [];
    const finish = async (status: string, error: string, extra: Partial<BuildOutcome> = {}): Promise<BuildOutcome> => {
      const record: StatusRecord = { bundle_name: this.name, revision, phase, status, error_message: error, created_at: new Date().toISOString() };
      if (extra.errors?.length) record.errors = extra.errors; // located Rego errors (Regent extension)
      await store.addStatus(record);
      if (status === 'SUCCESS') {
        // A quiet timer: "bundle built" at info only when the bundle changed.
        const built = `${revision}\0${extra.bytes ? sha256Hex(extra.bytes) : ''}`;
        const changed = built !== this.lastBuilt;
        this.lastBuilt = built;
        this.opts.log?.(changed ? 'info' : 'debug', changed ? 'bundle built' : 'bundle built, not modified', { bundle: this.name, phase, status, revision });
      } else {
        this.opts.log?.('warn', failureMessage(this.name, phase, error, transforming), { bundle: this.name, phase, status, revision });
      }
      return { ...record, uploaded: false, durationMs: Date.now() - started, warnings, ...extra };
    };
    try {
      const [sources, stacks] = await Promise.all([store.listSources(), store.listStacks()]);
      const plan = (() => {
        phase = 'BUILD';
        try {
          checkGlobs(def.excluded_files);
        } catch (e) {
          if (e instanceof GlobSyntaxError) throw new ConfigError(`excluded_files: ${e.message}`);
          throw e;
        }
        return planBundle(def, sources, stacks);
      })();
      phase = 'SYNC';
      const synced = await Promise.all(plan.sources.map((s) => this.syncSource(s, plan.pins.get(s.name))));
      for (const s of synced) s.content.requirements = plan.order(s.content.requirements);
      phase = 'TRANSFORM';
      for (const s of synced) {
        transforming = s.def.name;
        if (s.dsTree) applyTransforms(s.def, s.content.parts, s.dsTree);
      }
      phase = 'BUILD';
      const root: SourceContent = { name: plan.root.name, requirements: plan.root.requirements, parts: [] };
      const assembled = assemble(root, new Map(synced.map((s) => [s.def.name, s.content])), def.excluded_files ?? []);
      warnings.push(...assembled.warnings);
      const stderr = this.opts.stderr ?? ((t: string) => void process.stderr.write(t));
      for (const w of assembled.warnings) stderr(w + '\n');
      const meta = Object.fromEntries(synced.map((s) => [s.def.name, s.meta]));
      revision = assembled.manifestRevision ?? resolveRevision(def.revision, { bundle: { hash: hashTree(assembled.files) }, sources: meta });
      const built = await buildBundle(assembled, revision, def.options);
      phase = 'PUSH';
      const objectStore = await this.store(def.object_storage);
      if (!objectStore) {
        phase = 'BUILD';
        return await finish('SUCCESS', '', { bytes: built.bytes });
      }
      const { uploaded } = await objectStore.upload(built.bytes, { revision, sha256: sha256Hex(built.bytes) });
      return await finish('SUCCESS', '', { bytes: built.bytes, uploaded });
    } catch (e) {
      if (e instanceof PipelineError) {
        phase = e.phase;
        if (e.phase === 'SYNC' || e.phase === 'TRANSFORM') revision = '';
        return finish(e.status, e.message, e.details ? { errors: e.details } : {});
      }
      return finish('INTERNAL_ERROR', messageOf(e));
    }
  }

  private async store(storage: ObjectStorage | undefined): Promise<ObjectStore | undefined> {
    const key = JSON.stringify(storage ?? null);
    if (this.objectStore?.key !== key) {
      const store = await createObjectStore(storage, (n) => this.opts.store.getSecretValue(n), this.opts.cwd);
      this.objectStore = { key, store };
    }
    return this.objectStore.store;
  }

  private async syncSource(def: SourceDef, pin: string | undefined): Promise<Synced> {
    const secrets = (n: string) => this.opts.store.getSecretValue(n);
    const parts: FileTree[] = [];
    const meta: SourceMeta = {};
    if (def.builtin) parts.push(await readBuiltinSource(def));
    const data = await readSourceData(this.opts.store, def);
    const dir = await readDirectorySource(def, this.opts.cwd);
    const database: FileTree = new Map([...dir, ...data.tree]);
    parts.push(database);
    meta.sql = { hash: dir.size > 0 ? hashTree(database) : data.hash };
    let dsTree: FileTree | undefined;
    if (def.datasources?.length) {
      const ds = await fetchDatasources(def, secrets, this.opts.timeoutMs);
      dsTree = ds.tree;
      parts.push(dsTree);
      meta.http = ds.hashes.http;
    }
    if (def.git?.repo) {
      const g = await syncGit(def, pin, secrets, { cacheDir: this.opts.dataDir, cwd: this.opts.cwd, timeoutMs: this.opts.timeoutMs, observer: this.opts.gitSync });
      parts.push(g.tree);
      meta.git = { commit: g.commit };
    }
    return { def, meta, dsTree, content: { name: def.name, requirements: def.requirements ?? [], parts } };
  }
}

