// Mutation operators for the parser/compiler fuzzer (fuzz.ts). A seeded PRNG makes
// every run reproducible (`--seed`). Each mutator takes a source text and returns a
// mutated one; `mutate` applies one to three of them and names what it did, so a
// crash report says how its input was made. The mutators target what stresses a
// recursive-descent parser and the passes behind it: byte flips, token deletion,
// duplication and swaps, splicing other seeds in, deep nesting (brackets, operator
// chains, long refs, nested comprehensions, rule chains), long shapes (else and
// `with` chains, long bodies, METADATA blocks, nested templates, deep rule heads),
// huge and odd numbers, unicode (surrogates, BOM, NUL, RTL marks), stray keywords.

/** mulberry32: small, fast, seedable. Returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Rng {
  (): number;
}

const int = (r: Rng, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[int(r, xs.length)]!;

/** Rough Rego tokens: whitespace, names/numbers, strings, two-char operators, single chars. */
const TOKEN = /\s+|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:\\.|[^"\\\n])*"|`[^`]*`|:=|==|!=|<=|>=|[^\s]/g;

export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

const KEYWORDS = [
  'not', 'some', 'every', 'with', 'as', 'else', 'default', 'import', 'package', 'if', 'contains', 'in',
  'true', 'false', 'null', 'data', 'input', 'future.keywords', 'rego.v1', ':=', '=', '==', '|', '{', '}', '[',
  ']', '(', ')', ',', ';', '.', '_', '$"{x}"', '`', '"', '#', '\n', '-', '&', '*', 'some x in', 'every x in xs {',
];

const ODD_CHARS = [
  '\u0000', '\uFEFF', '\u200B', '\u202E', '\uD800', '\uDC00', '\uD83D\uDE00', 'é', 'ß', '\u00A0', '\u2028',
  '\\', '\\u', '\\uD800', '\t', '\r', '\r\n', '"', '\'', '`', '$', '@', '^', '~', '?', '%', '\u0085', '\uFFFF',
];

const HUGE_NUMBERS = [
  '1e999999', '-1e-999999', '1e30001', '9'.repeat(400), '0.' + '0'.repeat(300) + '1', '1e308', '-0',
  '18446744073709551616', '1.7976931348623157e309', '0x10', '1_000', '00', '01.5', '1e', '.5', '5.', '1e+',
  '123456789012345678901234567890.123456789e-20', 'NaN', 'Infinity',
];

type Mutator = (text: string, r: Rng, seeds: readonly string[]) => string;

function atTokens(text: string, r: Rng, fn: (toks: string[], i: number) => void): string {
  const toks = tokens(text);
  if (toks.length === 0) return text;
  fn(toks, int(r, toks.length));
  return toks.join('');
}

/** Nest `core` `depth` times in one of several recursive shapes. */
function nested(r: Rng, depth: number): string {
  switch (int(r, 10)) {
    case 0: return '['.repeat(depth) + '1' + ']'.repeat(depth);
    case 1: return '('.repeat(depth) + 'x' + ')'.repeat(depth);
    case 2: return '{"a": '.repeat(depth) + '1' + '}'.repeat(depth);
    case 3: return Array.from({ length: depth }, () => '1').join(pick(r, [' == ', ' + ', ' * ', ' | ', ' & ', ' < ']));
    case 4: return 'input' + pick(r, ['.a', '[0]', '["k"]', '[_]', '[x]']).repeat(depth);
    case 5: return '[x | x := '.repeat(depth) + '1' + ']'.repeat(depth);
    case 6: return 'count('.repeat(depth) + '[]' + ')'.repeat(depth);
    case 7: return '{x | '.repeat(depth) + 'x = 1' + '}'.repeat(depth);
    case 8: return '-'.repeat(depth) + '1';
    default: return 'not '.repeat(depth) + 'x';
  }
}

const MUTATORS: Record<string, Mutator> = {
  flip: (t, r) => {
    if (t.length === 0) return t;
    const i = int(r, t.length);
    const c = r() < 0.5 ? String.fromCharCode(32 + int(r, 95)) : pick(r, ODD_CHARS);
    return t.slice(0, i) + c + t.slice(i + 1);
  },
  delete: (t, r) => atTokens(t, r, (toks, i) => toks.splice(i, 1 + (r() < 0.2 ? int(r, 8) : 0))),
  duplicate: (t, r) => atTokens(t, r, (toks, i) => {
    const n = 1 + int(r, 6);
    const times = r() < 0.1 ? 50 + int(r, 500) : 1 + int(r, 3);
    const span = toks.slice(i, i + n);
    toks.splice(i, 0, ...Array.from({ length: times }, () => span).flat());
  }),
  swap: (t, r) => atTokens(t, r, (toks, i) => {
    const j = int(r, toks.length);
    [toks[i], toks[j]] = [toks[j]!, toks[i]!];
  }),
  keyword: (t, r) => atTokens(t, r, (toks, i) => toks.splice(i, r() < 0.5 ? 1 : 0, ' ' + pick(r, KEYWORDS) + ' ')),
  splice: (t, r, seeds) => {
    const other = pick(r, seeds);
    const a = int(r, other.length + 1);
    const b = Math.min(other.length, a + int(r, 400));
    const at = int(r, t.length + 1);
    return t.slice(0, at) + other.slice(a, b) + t.slice(at);
  },
  crossover: (t, r, seeds) => {
    const other = pick(r, seeds);
    return t.slice(0, int(r, t.length + 1)) + other.slice(int(r, other.length + 1));
  },
  deep: (t, r) => {
    const depth = pick(r, [10, 100, 400, 499, 500, 501, 999, 1000, 1001, 3000, 10000]);
    const n = nested(r, depth);
    return atTokens(t, r, (toks, i) => toks.splice(i, r() < 0.5 ? 1 : 0, n));
  },
  ruleChain: (t, r) => {
    const n = pick(r, [100, 1000, 5000]);
    const rules = Array.from({ length: n }, (_, i) => `q${i} := q${i + 1}`).join('\n');
    return `${t}\n${rules}\nq${n} := 1\n`;
  },
  longShape: (t, r) => {
    const n = pick(r, [50, 500, 3000]);
    const list = (f: (i: number) => string, sep: string) => Array.from({ length: n }, (_, i) => f(i)).join(sep);
    const shapes = [
      () => `\nz := 0 if false\n${list((i) => `else := ${i} if false`, '\n')}\nelse := 1\n`,
      () => `\nz if { input.a ${list((i) => `with input.b${i} as ${i}`, ' ')} }\n`,
      () => `\nz if {\n${list((i) => `some x${i} in input`, '\n')}\n}\n`,
      () => `\nz if {\n${list((i) => `y${i} = y${i + 1}`, '\n')}\ny${n} = 1\n}\n`,
      () => `\n${list((i) => `# METADATA\n# title: t${i}`, '\n')}\nz := 1\n`,
      () => `\nz := ${'$"{'.repeat(Math.min(n, 300))}1${'}"'.repeat(Math.min(n, 300))}\n`,
      () => `\nz := [${list((i) => String(i), ',')}]\n`,
      () => `\n${'a.'.repeat(n)}z := 1\n`,
    ];
    return t + pick(r, shapes)();
  },
  number: (t, r) => atTokens(t, r, (toks, i) => {
    let j = toks.findIndex((x, k) => k >= i && /^\d/.test(x));
    if (j < 0) j = i;
    toks[j] = pick(r, HUGE_NUMBERS);
  }),
  unicode: (t, r) => {
    const i = int(r, t.length + 1);
    const n = 1 + int(r, 4);
    return t.slice(0, i) + Array.from({ length: n }, () => pick(r, ODD_CHARS)).join('') + t.slice(i);
  },
  truncate: (t, r) => t.slice(0, int(r, t.length + 1)),
  longString: (t, r) => atTokens(t, r, (toks, i) => toks.splice(i, 0, r() < 0.5 ? `"${'a'.repeat(100_000)}"` : `"${'\\u0041'.repeat(5000)}"`)),
};

export const MUTATOR_NAMES = Object.keys(MUTATORS);

/** Apply 1–3 random mutations; returns the text and the names of the mutators used. */
export function mutate(text: string, r: Rng, seeds: readonly string[]): { text: string; ops: string[] } {
  const ops: string[] = [];
  const n = 1 + int(r, 3);
  let out = text;
  for (let k = 0; k < n; k++) {
    // Deep nesting and rule chains are expensive and found quickly: keep them rare.
    let name = pick(r, MUTATOR_NAMES);
    if ((name === 'ruleChain' || name === 'longString' || name === 'longShape') && r() < 0.7) name = 'flip';
    out = MUTATORS[name]!(out, r, seeds);
    ops.push(name);
  }
  return { text: out, ops };
}
