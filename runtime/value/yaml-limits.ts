// Bounds on YAML documents after js-yaml has loaded them (request bodies in
// server/api/body.ts, the yaml.unmarshal and yaml.is_valid builtins). js-yaml resolves an
// alias to the very object its anchor produced, so loading a "billion laughs"
// document is cheap; expanding it (to JSON, to Rego values, to a worker) is not.
// go-yaml refuses such documents while decoding: every decoded node counts, nodes
// reached through an alias count as aliased, and once more than 100 aliased nodes
// and 1000 nodes were decoded, the aliased share must stay under a ratio that
// shrinks from 99% (up to 400,000 nodes) to 10% (from 4,000,000 nodes); beyond it
// decoding fails with `yaml: document contains excessive aliasing` (go-yaml's
// decode.go). checkYAMLDocument walks the loaded value the way go-yaml decodes it
// (an object met a second time is an alias) with the same counters, so a bomb is
// refused after a few thousand steps; it also applies the nesting limit, which the
// bracket count before parsing cannot see in block-style YAML.

const RATIO_RANGE_LOW = 400_000;
const RATIO_RANGE_HIGH = 4_000_000;

/** go-yaml's allowedAliasRatio. */
export function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - (0.89 * (decodeCount - RATIO_RANGE_LOW)) / (RATIO_RANGE_HIGH - RATIO_RANGE_LOW);
}

export const EXCESSIVE_ALIASING = 'yaml: document contains excessive aliasing';

export class YAMLLimitError extends Error {
  constructor(
    message: string,
    /** `depth`: nested deeper than the limit; `aliasing`: go-yaml's alias ratio. */
    readonly kind: 'depth' | 'aliasing',
  ) {
    super(message);
    this.name = 'YAMLLimitError';
  }
}

interface Frame {
  value: unknown;
  aliased: boolean;
  depth: number;
}

/**
 * Walk a loaded YAML value as go-yaml would decode it; throw YAMLLimitError for
 * excessive aliasing or nesting deeper than `maxDepth`.
 */
export function checkYAMLDocument(root: unknown, maxDepth: number): void {
  if (root === null || typeof root !== 'object') return;
  const seen = new Set<object>();
  const stack: Frame[] = [{ value: root, aliased: false, depth: 0 }];
  let decodes = 0;
  let aliases = 0;
  const count = (aliased: boolean): void => {
    decodes++;
    if (aliased) aliases++;
    if (aliases > 100 && decodes > 1000 && aliases / decodes > allowedAliasRatio(decodes)) {
      throw new YAMLLimitError(EXCESSIVE_ALIASING, 'aliasing');
    }
  };
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const value = frame.value;
    count(frame.aliased);
    if (value === null || typeof value !== 'object') continue;
    if (frame.depth >= maxDepth) throw new YAMLLimitError('exceeded max depth', 'depth');
    // An object met again is an alias: its whole subtree is decoded once more.
    const aliased = frame.aliased || seen.has(value);
    seen.add(value);
    const depth = frame.depth + 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], aliased, depth });
    } else {
      for (const key of Object.keys(value)) {
        count(aliased); // the key node
        stack.push({ value: (value as Record<string, unknown>)[key], aliased, depth });
      }
    }
  }
}
