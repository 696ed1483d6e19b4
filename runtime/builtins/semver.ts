// semver.is_valid and semver.compare: strict SemVer 2.0.0 (no leading zeros in
// numeric identifiers, non-empty pre-release and build sections), with OPA's
// optional leading "v" and int64-sized major/minor/patch. Build metadata is
// ignored for precedence.
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { asString } from './args.js';
import { BuiltinError } from './errors.js';
import { goQuote } from './strings-go.js';

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
}

const INT64_MAX = (1n << 63n) - 1n;
const NUMERIC = /^(0|[1-9][0-9]*)$/;
const IDENT = /^[0-9A-Za-z-]+$/;

/** Parsed versions by text (a policy compares the same few versions on every decision); cleared when full. */
const parsed = new Map<string, SemVer | null>();
const PARSED_MAX = 512;

export function parseSemVer(text: string): SemVer | undefined {
  let v = parsed.get(text);
  if (v === undefined) {
    if (parsed.size >= PARSED_MAX) parsed.clear();
    v = parseUncached(text) ?? null;
    parsed.set(text, v);
  }
  return v ?? undefined;
}

function parseUncached(s: string): SemVer | undefined {
  if (s.startsWith('v')) s = s.slice(1);
  let build: string | undefined;
  const plus = s.indexOf('+');
  if (plus >= 0) {
    build = s.slice(plus + 1);
    s = s.slice(0, plus);
    if (!build.split('.').every((x) => IDENT.test(x))) return undefined;
  }
  let pre: string[] = [];
  const dash = s.indexOf('-');
  if (dash >= 0) {
    pre = s.slice(dash + 1).split('.');
    s = s.slice(0, dash);
    for (const id of pre) {
      if (!IDENT.test(id)) return undefined;
      if (/^[0-9]+$/.test(id) && !NUMERIC.test(id)) return undefined;
    }
  }
  const core = s.split('.');
  if (core.length !== 3 || !core.every((x) => NUMERIC.test(x))) return undefined;
  const [major, minor, patch] = core.map((x) => BigInt(x)) as [bigint, bigint, bigint];
  if (major > INT64_MAX || minor > INT64_MAX || patch > INT64_MAX) return undefined;
  return { major, minor, patch, pre };
}

const cmp = <X>(a: X, b: X): number => (a < b ? -1 : a > b ? 1 : 0);

export function compareSemVer(a: SemVer, b: SemVer): number {
  const c = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (c) return c;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    const xn = /^[0-9]+$/.test(x);
    const yn = /^[0-9]+$/.test(y);
    let r: number;
    if (xn && yn) r = cmp(BigInt(x), BigInt(y));
    else if (xn) r = -1;
    else if (yn) r = 1;
    else r = cmp(x, y);
    if (r) return r;
  }
  return cmp(a.pre.length, b.pre.length);
}

export const builtins: BuiltinDef[] = [
  {
    decl: { name: 'semver.is_valid', args: [T.any], result: T.boolean, categories: ['semver'], description: 'Validates that the input is a valid SemVer string.' },
    impl: ([v]) => typeof v === 'string' && parseSemVer(v) !== undefined,
  },
  {
    decl: { name: 'semver.compare', args: [T.string, T.string], result: T.number, categories: ['semver'], description: 'Compares valid SemVer formatted version strings.' },
    impl: ([a, b]) => {
      const sa = asString(a!, 1);
      const sb = asString(b!, 2);
      const va = parseSemVer(sa);
      if (!va) throw new BuiltinError(`operand 1: string ${goQuote(sa)} is not a valid SemVer`);
      const vb = parseSemVer(sb);
      if (!vb) throw new BuiltinError(`operand 2: string ${goQuote(sb)} is not a valid SemVer`);
      return compareSemVer(va, vb);
    },
  },
];
