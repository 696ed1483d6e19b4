// The definitions of an indexed rule group (RuleIndex, pass rule-index) to run for
// the value its index ref has: those indexed under that value plus those always run,
// in definition order, as OPA's index lookup returns them. The reference interpreter
// reads the index through this; the JS back end builds its own tables of compiled
// definitions from the same RuleIndex (codegen/js/rule-compiler.ts `candidates`).
import type { RuleDef, RuleGroup, RuleIndex } from './ir.js';
import type { Value } from '../../runtime/value/value.js';

/** Per index: canonical key → the definitions to run, and the list for any other value. */
interface Lookup {
  byKey: Map<string, RuleDef[]>;
  always: RuleDef[];
}

const lookups = new WeakMap<RuleIndex, Lookup>();

/** The definitions (ids, in definition order) to run for an entry's `defs`: those plus the ones always run. */
export function bucketIds(ix: RuleIndex, defs: readonly number[]): number[] {
  return [...new Set([...defs, ...ix.always])].sort((a, b) => a - b);
}

function lookupOf(g: RuleGroup, ix: RuleIndex, canonicalKey: (v: Value) => string): Lookup {
  let l = lookups.get(ix);
  if (l === undefined) {
    const pick = (ids: number[]): RuleDef[] => ids.map((i) => g.defs[i]!);
    const byKey = new Map<string, RuleDef[]>();
    for (const e of ix.entries) byKey.set(canonicalKey(e.key), pick(bucketIds(ix, e.defs)));
    l = { byKey, always: pick(bucketIds(ix, [])) };
    lookups.set(ix, l);
  }
  return l;
}

/**
 * The definitions of group `g` to run when its index ref has value `v` (undefined: the
 * ref is undefined, so only the definitions without an indexed test can succeed).
 * All definitions when the group has no index.
 */
export function indexedDefinitions(g: RuleGroup, v: Value | undefined, canonicalKey: (v: Value) => string): RuleDef[] {
  const ix = g.index;
  if (ix === undefined) return g.defs;
  const l = lookupOf(g, ix, canonicalKey);
  if (v === undefined) return l.always;
  return l.byKey.get(canonicalKey(v)) ?? l.always;
}
