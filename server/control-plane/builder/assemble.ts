// Assembly: walk the requirement graph from the bundle's root source and lay out
// the bundle's files. Each queued item is (source, mount chain); a requirement
// with `path`/`prefix` prepends its mount to the parent's chain. Identical items
// are processed once, but one source reached through two different chains is
// included twice (directories `src`, `src1`, …). Per source part: bundle-level
// excluded_files apply, a `.manifest` may switch the part to Rego v1 and supply
// roots/revision, mounts rewrite Rego and move data, and roots are claimed with
// conflict detection (roots.ts).
import { BuildError, withDetails } from './errors.js';
import type { RequirementX } from './deps.js';
import { bytesText, escapeName, filterTree, type FileTree } from './files.js';
import { mountData, mountRego, mountRoot, toMount, type Mount } from './mounts.js';
import { RefSet, RootClaims, treeRoots } from './roots.js';
import { goList } from './gotext.js';

/** A source's synchronized content: one tree per part (builtin, data, datasources, git). */
export interface SourceContent {
  name: string;
  requirements: RequirementX[];
  parts: FileTree[];
}

export interface Assembled {
  /** Bundle files keyed `<source dir>/<relative path>` (no leading slash). */
  files: FileTree;
  roots: string[];
  regoVersion: 0 | 1;
  /** A revision given by a source `.manifest`, which overrides the computed one. */
  manifestRevision?: string;
  warnings: string[];
}

interface SourceManifest {
  roots?: string[];
  revision?: string;
  rego_version?: number;
}

interface Item {
  src: SourceContent;
  mounts: Mount[];
}

export function assemble(root: SourceContent, sources: Map<string, SourceContent>, excluded: string[] = []): Assembled {
  const queue: Item[] = [{ src: root, mounts: [] }];
  // The root is not recorded as processed: a source named like its bundle is
  // still queued (the reference's alreadyProcessed starts empty).
  const seen = new Set<string>();
  const claims = new RootClaims();
  const dirs = new Map<string, FileTree[]>();
  const manifests: SourceManifest[] = [];
  const empties: Item[] = [];
  let regoVersion: 0 | 1 = 0;

  while (queue.length > 0) {
    const { src, mounts } = queue.shift()!;
    const newRoots = new RefSet();
    for (const part of src.parts) {
      let tree = filterTree(part, undefined, excluded);
      const manifest = readManifest(tree);
      if (manifest) manifests.push(manifest);
      const v0 = manifest?.rego_version !== 1;
      if (!v0) regoVersion = 1;
      if (mounts.length > 0) {
        tree = new Map([...mountData(tree, mounts), ...wrap(src.name, 'rego', () => mountRego(tree, mounts, v0))]);
      }
      if (tree.size === 0) continue;
      const dir = escapeName(src.name);
      dirs.set(dir, [...(dirs.get(dir) ?? []), tree]);
      for (const r of wrap(src.name, 'find roots', () => treeRoots(tree, v0))) newRoots.add(r);
    }
    const hasSourceReqs = src.requirements.some((r) => r.source);
    if (newRoots.refs.length === 0 && mounts.length > 0 && !hasSourceReqs) empties.push({ src, mounts });
    claims.claim(src.name, newRoots.refs);

    for (const r of src.requirements) {
      if (!r.source) continue;
      const child = sources.get(r.source);
      if (!child) throw new BuildError(`missing source "${r.source}"`);
      const own = r.path || r.prefix ? [wrap(src.name, 'mount', () => toMount(r.path, r.prefix))] : [];
      const item = { src: child, mounts: [...own, ...mounts] };
      const key = itemKey(item);
      if (!seen.has(key)) {
        seen.add(key);
        queue.push(item);
      }
    }
  }
  for (const e of empties) {
    const r = mountRoot(e.mounts);
    if (r) claims.claim(e.src.name, [r]);
  }

  const warnings: string[] = [];
  let roots = claims.manifestRoots();
  const withRoots = manifests.find((m) => Array.isArray(m.roots));
  if (withRoots) {
    if ([...withRoots.roots!].sort().join('\n') !== [...roots].sort().join('\n')) {
      warnings.push(`builder: source manifest roots ${goList(withRoots.roots!)} differ from computed roots ${goList(roots)}; using manifest roots`);
    }
    roots = withRoots.roots!;
  }
  const manifestRevision = manifests.find((m) => typeof m.revision === 'string' && m.revision !== '')?.revision;
  if (manifestRevision !== undefined) {
    warnings.push(`builder: source manifest revision ${JSON.stringify(manifestRevision)} overrides WithRevisionFunc result; using manifest revision`);
  }
  return { files: layout(dirs), roots, regoVersion, manifestRevision, warnings };
}

/** `src` for the first tree of a source, `src1`, `src2`, … for later ones (`0` when the name is empty). */
function layout(dirs: Map<string, FileTree[]>): FileTree {
  const files: FileTree = new Map();
  for (const [dir, trees] of dirs) {
    trees.forEach((tree, j) => {
      const mnt = j > 0 || dir === '' ? `${dir}${j}` : dir;
      for (const [p, b] of tree) if (p !== '.manifest') files.set(`${mnt}/${p}`, b);
    });
  }
  return files;
}

function itemKey(i: Item): string {
  return JSON.stringify([i.src.name, i.mounts]);
}

function readManifest(tree: FileTree): SourceManifest | undefined {
  const b = tree.get('.manifest');
  if (!b) return undefined;
  try {
    const m = JSON.parse(bytesText(b)) as unknown;
    return m && typeof m === 'object' && !Array.isArray(m) ? (m as SourceManifest) : undefined;
  } catch {
    return undefined; // an unparseable source manifest is ignored, as OCP does
  }
}

/** Prefix BuildErrors raised while handling a source with `source <name> <what>: `. */
function wrap<T>(source: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof BuildError) {
      // Located errors keep their file (a path inside the source) and learn the source.
      throw withDetails(new BuildError(`source ${source} ${what}: ${e.message}`), e.details?.map((d) => ({ source, ...d })));
    }
    throw e;
  }
}
