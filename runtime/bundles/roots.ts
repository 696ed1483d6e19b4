// Bundle roots: the slash-separated prefixes of `data` a bundle owns. The rules
// are OPA's (bundle.go RootPathsOverlap/RootPathsContain, store.go
// hasRootsOverlap, server.go checkPathScope): roots compare segment-wise, the
// empty root "" owns everything, a bundle's own roots must not overlap, and no
// two active bundles may own overlapping roots.
import { BundleError, goList } from './errors.js';

/** `a/b` → ["a","b"]; "" → [""] (the root that contains everything). */
function segments(path: string): string[] {
  return path.split('/');
}

function rootContains(root: string[], other: string[]): boolean {
  if (root.length === 1 && root[0] === '') return true;
  if (root.length > other.length) return false;
  for (let i = 0; i < root.length; i++) if (root[i] !== other[i]) return false;
  return true;
}

/** True if either root contains the other. */
export function rootPathsOverlap(a: string, b: string): boolean {
  const sa = segments(a);
  const sb = segments(b);
  return rootContains(sa, sb) || rootContains(sb, sa);
}

/** True if some root contains `path` (slash-separated, no leading slash). */
export function rootPathsContain(roots: readonly string[], path: string): boolean {
  const p = segments(path);
  return roots.some((r) => rootContains(segments(r), p));
}

/** Roots with slashes at either end removed; `undefined` → [""]. */
export function normalizeRoots(roots: readonly string[] | undefined): string[] {
  if (roots === undefined) return [''];
  return roots.map((r) => r.replace(/^\/+|\/+$/g, ''));
}

/** Throws if two roots of one manifest overlap (OPA: "manifest has overlapped roots"). */
export function checkManifestRoots(roots: readonly string[]): void {
  for (let i = 0; i < roots.length - 1; i++) {
    for (let j = i + 1; j < roots.length; j++) {
      if (rootPathsOverlap(roots[i]!, roots[j]!)) {
        throw new BundleError('roots', `manifest has overlapped roots: '${roots[i]}' and '${roots[j]}'`);
      }
    }
  }
}

/**
 * Check that activating `incoming` (name → roots) next to the bundles already
 * active (name → roots) leaves no two bundles with overlapping roots. A bundle
 * present in both maps is being replaced: its new roots count. Throws with OPA's
 * message, listing the (sorted) names of the bundles collided with.
 */
export function checkRootsConflict(active: Readonly<Record<string, readonly string[]>>, incoming: Readonly<Record<string, readonly string[]>>): void {
  const all: Record<string, readonly string[]> = { ...active, ...incoming };
  const collisions = new Set<string>();
  for (const [name, roots] of Object.entries(incoming)) {
    for (const [other, otherRoots] of Object.entries(all)) {
      if (other === name) continue;
      if (roots.some((r) => otherRoots.some((o) => rootPathsOverlap(r, o)))) collisions.add(other);
    }
  }
  if (collisions.size > 0) {
    throw new BundleError('roots', `detected overlapping roots in bundle manifest with: ${goList([...collisions].sort())}`);
  }
}

/**
 * The owner check for REST writes (OPA's checkPathScope): returns the error
 * message for a write at `path` (slash-separated, either end's slashes ignored)
 * when an active bundle owns it, or undefined when the write is allowed.
 * The caller answers 400 invalid_parameter with this message.
 */
export function pathOwnedByBundle(path: string, bundles: Readonly<Record<string, readonly string[] | undefined>>): string | undefined {
  const names = Object.keys(bundles).sort();
  if (names.length === 0) return undefined;
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return "can't write to document root with bundle roots configured";
  const spath = trimmed.split('/');
  for (const name of names) {
    const roots = normalizeRoots(bundles[name]);
    for (const root of roots) {
      if (root === '') return `all paths owned by bundle "${name}"`;
      const sroot = root.split('/');
      const n = Math.min(sroot.length, spath.length);
      let shared = true;
      for (let i = 0; i < n; i++) if (sroot[i] !== spath[i]) shared = false;
      if (shared) return `path ${trimmed} is owned by bundle "${name}"`;
    }
  }
  return undefined;
}

/** The bundle (by name) that owns a data path, if any (used to erase on activation). */
export function ownerOf(path: string, bundles: Readonly<Record<string, readonly string[] | undefined>>): string | undefined {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  for (const name of Object.keys(bundles).sort()) {
    if (rootPathsContain(normalizeRoots(bundles[name]), trimmed)) return name;
  }
  return undefined;
}
