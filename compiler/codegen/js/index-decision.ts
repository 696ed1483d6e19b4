// The decision function of an indexed complete rule with one constant value
// (`allow if input.x == "c1"`, `allow if input.x == "c2"`, …; passes/rule-index.ts),
// generated once per group: read the indexed ref (inline property reads for
// `input.a.b…`), look its key up, call that bucket's test (the bucket's definitions'
// bodies as one generated function, made on the bucket's first hit), and return the
// constant or the default. No candidate array, no frame, no per-definition calls:
// per decision it pays what the one-rule path (Program.decisionTest over groupTest)
// pays, plus the read and the Map lookup. Also the generated reader of `input.a.b…`
// refs the other index lookups use (RuleCompiler.candidates).
import type { Expr, RuleGroup, RuleIndex } from '../../ir/ir.js';
import type { Value } from '../../../runtime/value/value.js';
import type { RuntimeScope } from '../../../runtime/scope.js';
import type { EvalContext } from '../../../runtime/eval/context.js';
import { propKey } from './emit-exprs.js';
import { bucketIds } from '../../ir/index-lookup.js';
import { Code } from './code.js';
import type { E, Slots } from './types.js';

/** A test of some definitions of a group: true when one has a solution. */
export type BucketTest = (f: Slots, c: EvalContext) => boolean;

/**
 * The definitions (ids, in order) to test for one key. For a string key the indexed
 * `ref == key` test of the definitions indexed under it (RuleIndex.at) is known to hold
 * once the lookup found the key (the same string), so `strip` lets their test skip it;
 * `trivial` when the first definition has nothing else: the key decides alone.
 */
export interface Bucket {
  ids: number[];
  strip: boolean;
  trivial: boolean;
}

/** An indexed group's definitions as key → bucket. */
export interface IndexBuckets {
  /** The indexed ref (a generated or closure reader), used when it is not an `input.a.b…` path. */
  ref: E;
  byString: Map<string, Bucket>;
  /** Other scalar keys by canonical key. */
  byKey: Map<string, Bucket>;
  /** Definitions without the indexed condition: the bucket of keys not in the index. */
  always: Bucket;
}

/** A bucket's test when it is not generated: each definition's own test, in order. */
export function testInOrder(defs: { exists(f: Slots, c: EvalContext): boolean; frame(): Slots }[]): BucketTest {
  return (_f, c) => {
    for (let i = 0; i < defs.length; i++) {
      const d = defs[i]!;
      if (d.exists(d.frame(), c)) return true;
    }
    return false;
  };
}

/** The buckets of indexed group `g` (its index `ix`, read through `ref`). */
export function indexBuckets(g: RuleGroup, ix: RuleIndex, ref: E, rt: RuntimeScope): IndexBuckets {
  const keyed = new Set(ix.entries.flatMap((e) => e.defs));
  const bucket = (list: number[], strip: boolean): Bucket => {
    const ids = bucketIds(ix, list);
    const first = g.defs[ids[0]!];
    return { ids, strip, trivial: strip && first !== undefined && keyed.has(ids[0]!) && first.body.length === 1 };
  };
  const byString = new Map<string, Bucket>();
  const byKey = new Map<string, Bucket>();
  for (const e of ix.entries) {
    if (typeof e.key === 'string') byString.set(e.key, bucket(e.defs, true));
    else byKey.set(rt.canonicalKey(e.key), bucket(e.defs, false));
  }
  return { ref, byString, byKey, always: bucket([], false) };
}

/** The keys of an `input.a.b…` ref (constant string keys), else undefined. */
export function inputPath(ref: Expr): string[] | undefined {
  const keys: string[] = [];
  let e = ref;
  while (e.k === 'dot' && e.key.k === 'const' && typeof e.key.value === 'string') {
    keys.unshift(e.key.value);
    e = e.base;
  }
  return e.k === 'input' && keys.length > 0 ? keys : undefined;
}

/** Statements reading `input.<keys>` into `v` (undefined as soon as a step is missing). */
function readSource(keys: string[]): string {
  const steps = keys.map((k) => {
    const key = JSON.stringify(k);
    // The emitter's read (emit-exprs.ts): only an RObject has `props`.
    return `if (v !== undefined) v = v !== null && v.props !== undefined ? v.props${propKey(k, new Code(`[${key}]`)).text} : dot(v, ${key});`;
  });
  return `let v = c.input;\n${steps.join('\n')}`;
}

/**
 * A reader generated for `input.a.b…`: property reads with their own inline caches,
 * where the closure back end's `dot` shares one closure body (and its caches) with
 * every other `dot` in the process.
 */
export function inputReader(keys: string[], rt: RuntimeScope): E {
  const make = new Function('RObject', 'dot', `return function (f, c) {\n${readSource(keys)}\nreturn v;\n};`) as (r: unknown, d: unknown) => E;
  return make(rt.RObject, rt.dot);
}

/**
 * The decision function of an indexed constant group. `bucketTest(b)` makes a
 * bucket's test (called once per bucket, on its first hit); `slow` decides under
 * `with` data replacements (evalGroup); `frame` is the empty frame bucket tests take.
 */
export function indexedDecision(
  buckets: IndexBuckets,
  path: string[] | undefined,
  value: Value,
  dflt: Value | undefined,
  bucketTest: (b: Bucket) => BucketTest,
  slow: (c: EvalContext) => Value | undefined,
  rt: RuntimeScope,
  frame: Slots,
): (c: EvalContext) => Value | undefined {
  // Each key's test, first as a stub that makes the bucket's test and puts it in its
  // place; `true` for a bucket that needs none.
  const lazy = <K>(m: Map<K, Bucket>): Map<K, BucketTest | true> => {
    const out = new Map<K, BucketTest | true>();
    for (const [k, b] of m) {
      if (b.trivial) {
        out.set(k, true);
        continue;
      }
      out.set(k, (f, c) => {
        const t = bucketTest(b);
        out.set(k, t);
        return t(f, c);
      });
    }
    return out;
  };
  const always = buckets.always.ids.length === 0 ? undefined : bucketTest(buckets.always);
  const read = path === undefined ? 'const v = ref(f, c);' : readSource(path);
  const key = buckets.byKey.size === 0 ? '' : `\nelse if (v !== undefined) t = byKey.get(canonicalKey(v));`;
  // `with` replacements (data or functions, including `==`'s) decide through evalGroup.
  const text =
    `return function (c) {\nif (c.dataOverrides !== undefined || c.fnOverrides !== undefined) return slow(c);\n${read}\nlet t;\n` +
    `if (typeof v === 'string') t = byString.get(v);${key}\n` +
    `if (t === undefined) ${always === undefined ? 'return dflt' : 't = always'};\nif (t === true) return value;\nreturn t(f, c) ? value : dflt;\n};`;
  // Compiled per group, not shared through a cache: the call of `t` then sees only this
  // policy's bucket tests (one generated source each), not every policy's in the process.
  const factory = new Function('RObject', 'dot', 'canonicalKey', 'ref', 'f', 'byString', 'byKey', 'always', 'value', 'dflt', 'slow', text) as (...a: unknown[]) => (c: EvalContext) => Value | undefined;
  return factory(rt.RObject, rt.dot, rt.canonicalKey, buckets.ref, frame, lazy(buckets.byString), lazy(buckets.byKey), always, value, dflt, slow);
}
