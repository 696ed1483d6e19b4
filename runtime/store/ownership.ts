// Bundle-root ownership: a path owned by an activated bundle cannot be written
// through the REST API. Mirrors OPA's `checkPathScope` (server.go): a write to the
// root while any bundle is active, or to a path sharing a segment-wise prefix with
// a bundle root in either direction, is rejected with a message naming the bundle.
import { OwnershipError } from './errors.js';

/** Split a slash-separated root ("a/b", "/a/b/") into segments; "" → []. */
export function rootSegments(root: string): string[] {
  return root.split('/').filter((s) => s !== '');
}

/** True when one path is a segment-wise prefix of the other. */
export function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function checkPathScope(bundleRoots: ReadonlyMap<string, string[] | undefined>, path: readonly string[]): void {
  if (bundleRoots.size === 0) return;
  const spath = path.filter((s) => s !== '');
  if (spath.length === 0) throw new OwnershipError("can't write to document root with bundle roots configured");
  for (const [name, roots] of bundleRoots) {
    if (roots === undefined) throw new OwnershipError(`all paths owned by bundle "${name}"`);
    for (const root of roots) {
      const segs = rootSegments(root);
      if (segs.length === 0) throw new OwnershipError(`all paths owned by bundle "${name}"`);
      if (pathsOverlap(spath, segs)) throw new OwnershipError(`path ${spath.join('/')} is owned by bundle "${name}"`);
    }
  }
}
