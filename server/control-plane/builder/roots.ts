// Roots of a bundle: every package path of a Rego file plus, for each data file
// (`.json`/`.yaml`/`.yml`, any name), its directory. Within one source, roots
// are kept minimal (a root under another collapses into the shorter one). Across
// sources, a root that overlaps (is a prefix of, or is prefixed by) a root claimed
// by an earlier source is a PackageConflictError naming both sources.
import { PackageConflictError } from './errors.js';
import { parseForBundle } from './rego-version.js';
import { bytesText, dirOf, isDataFile, isRegoFile, type FileTree } from './files.js';
import { hasPrefix, packageSegments, refText } from './mounts.js';

/** A minimal set of refs: no member is a prefix of another. */
export class RefSet {
  readonly refs: string[][] = [];

  add(n: string[]): void {
    if (this.refs.some((r) => hasPrefix(n, r))) return;
    for (let i = this.refs.length - 1; i >= 0; i--) if (hasPrefix(this.refs[i]!, n)) this.refs.splice(i, 1);
    this.refs.push(n);
  }
}

/** Roots of one (filtered, mounted) source tree: Rego packages first, then data dirs. */
export function treeRoots(tree: FileTree, v0: boolean, label = ''): string[][] {
  const set = new RefSet();
  const files = [...tree.keys()].sort();
  for (const p of files) {
    if (!isRegoFile(p)) continue;
    set.add(packageSegments(parseForBundle(bytesText(tree.get(p)!), label + p, v0)));
  }
  for (const p of files) {
    if (!isDataFile(p)) continue;
    const dir = dirOf(p);
    set.add(dir === '' ? [] : dir.split('/'));
  }
  return set.refs;
}

/** Claimed roots across sources, with conflict detection. */
export class RootClaims {
  private readonly claims: { root: string[]; source: string }[] = [];

  /** Claim `roots` for `source`; throws PackageConflictError on overlap with another source. */
  claim(source: string, roots: string[][]): void {
    for (const root of roots) {
      const overlap = this.claims.filter((c) => hasPrefix(c.root, root) || hasPrefix(root, c.root));
      if (overlap.length > 0) {
        throw new PackageConflictError(
          source,
          refText(root),
          overlap.map((o) => ({ root: refText(o.root), source: o.source })),
        );
      }
    }
    for (const root of roots) this.claims.push({ root, source });
  }

  /** Manifest roots, slash-separated, in claim order; [""] when nothing was claimed. */
  manifestRoots(): string[] {
    if (this.claims.length === 0) return [''];
    return this.claims.map((c) => c.root.join('/'));
  }
}
