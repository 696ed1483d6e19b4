// Facts about a policy's IR that Program (program.ts) chooses evaluation strategies
// by, computed once per policy: how many rule bodies scan each set rule as a generator
// (whether generateSet collects its members), and which functions are cheap enough to
// run again rather than memoize (callFunction), and which functions always produce
// one constant (decided by their first solution).
import type { PolicyIR } from '../../ir/ir.js';
import type { Value } from '../../../runtime/value/value.js';

/** Per rule group: the number of `scan` statements over it in every rule body (any depth). */
export function countScanSites(ir: PolicyIR): number[] {
  const counts = ir.groups.map(() => 0);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const x of node) walk(x);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as { k?: unknown; source?: { k?: unknown; group?: number } };
    if (n.k === 'const') return;
    if (n.k === 'scan' && n.source?.k === 'rule' && n.source.group !== undefined) counts[n.source.group]!++;
    for (const [key, v] of Object.entries(node)) if (key !== 'loc') walk(v);
  };
  for (const g of ir.groups) walk(g.defs);
  return counts;
}
/**
 * Per group: whether it is a function whose definitions have no iteration (no loop,
 * `every`, comprehension or builtin relation) and call only such functions (ACI's
 * `env_ok(pattern, "string", value) { pattern == value }`): a memo lookup and insert
 * (a Map keyed by the first argument, a list scan for the others) costs about as much
 * as running it, and such calls rarely repeat their arguments.
 */
export function leafFunctions(ir: PolicyIR): boolean[] {
  const state: (boolean | 'visiting' | undefined)[] = ir.groups.map(() => undefined);
  const calls = (node: unknown, out: number[]): boolean => {
    if (Array.isArray(node)) return node.every((x) => calls(x, out));
    if (node === null || typeof node !== 'object') return true;
    const n = node as { k?: unknown; group?: number; key?: { k?: unknown } };
    if (n.k === 'const') return true;
    if (n.k === 'every' || n.k === 'compr' || n.k === 'relation' || (n.k === 'scan' && n.key?.k !== 'value')) return false;
    if (n.k === 'callfn' && n.group !== undefined) out.push(n.group);
    for (const [key, v] of Object.entries(node)) if (key !== 'loc' && !calls(v, out)) return false;
    return true;
  };
  const leaf = (id: number): boolean => {
    const s = state[id];
    if (s !== undefined) return s === true;
    const g = ir.groups[id]!;
    if (g.kind !== 'function') return (state[id] = false);
    state[id] = 'visiting'; // a recursive call is not a leaf
    const callees: number[] = [];
    const ok = calls(g.defs, callees) && callees.every(leaf);
    return (state[id] = ok);
  };
  return ir.groups.map((_, id) => leaf(id));
}

/**
 * Per group: for a function whose definitions (no `else`) all produce one constant
 * (ACI's `env_ok(pattern, "string", value) { pattern == value }`: `true`), that
 * constant; else undefined. Such a call is decided by its first definition with a
 * solution, as OPA's index marks it for early exit: no two outputs can conflict.
 */
export function functionConstants(ir: PolicyIR, equal: (a: Value, b: Value) => boolean): (Value | undefined)[] {
  return ir.groups.map((g) => {
    if (g.kind !== 'function' || g.defs.length === 0) return undefined;
    let v: Value | undefined;
    for (const d of g.defs) {
      if (d.else !== undefined || d.value.k !== 'const') return undefined;
      if (v === undefined) v = d.value.value;
      else if (!equal(v, d.value.value)) return undefined;
    }
    return v;
  });
}
