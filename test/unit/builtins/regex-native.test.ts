// Native RegExp for RE2 match tests (runtime/builtins/regex-native.ts): which patterns
// are accepted, and a seeded differential check that every accepted pattern decides
// match / no match exactly as re2js does, on inputs with newlines, dashes, dots,
// non-ASCII and astral characters, lone surrogates and over-long inputs.
import { describe, expect, it } from 'vitest';
import { nativeRegex } from '../../../runtime/builtins/regex-native.js';
import { compileRegex, regexTest } from '../../../runtime/builtins/regex-cache.js';
import { prng } from '../../fuzz/mutate.js';

const ALPHABET = ['a', 'b', 'z', 'A', '0', '9', '.', '-', '_', ' ', '\n', '\r', '\t', '\u2028', 'é', 'λ', '😀', ']', '\\', '$'];

function randomInput(rnd: () => number): string {
  let s = '';
  const n = Math.floor(rnd() * 7);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
  return s;
}

/** Random patterns from a grammar wider than the subset (so rejection is exercised too). */
function randomPattern(rnd: () => number, depth = 0): string {
  const atoms = ['a', 'b', '.', '0', 'é', '😀', '-', ' ', '\\.', '\\d', '\\w', '\\D', '\\W', '\\s', '\\n', '\\-', '[a-z]', '[^a-z]', '[0-9.]', '[-a]', '[a-]', '[\\d_]', '[^\\n]', '[é😀]', '^', '$', '\\b', '(?i)a', '[[:alpha:]]'];
  const quants = ['', '', '', '*', '+', '?', '{2}', '{1,2}', '{0,}', '*?', '+?', '??'];
  let out = '';
  const n = 1 + Math.floor(rnd() * 4);
  for (let i = 0; i < n; i++) {
    let atom: string;
    if (depth < 2 && rnd() < 0.2) {
      const alts = [randomPattern(rnd, depth + 1)];
      while (rnd() < 0.4) alts.push(randomPattern(rnd, depth + 1));
      atom = (rnd() < 0.5 ? '(' : '(?:') + alts.join('|') + ')';
    } else atom = atoms[Math.floor(rnd() * atoms.length)]!;
    out += atom + quants[Math.floor(rnd() * quants.length)]!;
  }
  return out;
}

const re2Compiles = (p: string): boolean => {
  try {
    compileRegex(p);
    return true;
  } catch {
    return false;
  }
};

describe('nativeRegex: the accepted subset', () => {
  it('accepts literal, class, anchor and simple quantifier patterns', () => {
    for (const p of ['^[0-9]+(\\.[0-9]+)?$', '^[a-z]+\\.team$', '^(prod|staging|dev)$', '', 'a.b', '[^a-z]x', '\\d\\w', '[a-]', '[-a]', '^.*\\.example\\.com$', '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$']) {
      expect(nativeRegex(p), p).toBeDefined();
    }
    expect(nativeRegex('.')!.re.source).toBe('[^\\n]');
    expect(nativeRegex('\\d\\W')!.re.source).toBe('[0-9][^0-9A-Za-z_]');
  });
  it('rejects what RE2 and ECMAScript read differently, and unbounded backtracking', () => {
    for (const p of ['(?i)a', '\\s', '\\b', '\\pL', '\\p{Greek}', '[[:alpha:]]', '(?P<x>a)', '[]a]', '[^]a]', 'a\\-b', 'a}', ']', '\\x41', '\\Qa\\E', '(a+)+$', '(a|b)*', '(ab)+', 'x*y*z*', 'a{,3}', '[a-z-0]', '[\\d-z]', '\ud800']) {
      expect(nativeRegex(p), p).toBeUndefined();
    }
  });
  it('bounds the input length by the number of repetitions', () => {
    expect(nativeRegex('^(a|b)$')!.maxLength).toBe(Infinity);
    expect(nativeRegex('^a+$')!.maxLength).toBe(1024);
    expect(nativeRegex('^(x|y)a+(b|c|d|e)?$')!.maxLength).toBe(256);
    expect(nativeRegex('^a+b*$')!.maxLength).toBe(101);
    expect(nativeRegex('^[0-9]+(\\.[0-9]+)?$')!.maxLength).toBe(80);
  });
  it('stays fast on the worst inputs it accepts', () => {
    for (const p of ['a*a*c', '(?:x|y|z|w)?a*c', 'a*c', '[ab]*[bc]*d']) {
      const n = nativeRegex(p)!;
      const s = 'ab'.repeat(n.maxLength).slice(0, n.maxLength).replace(/b/g, p.startsWith('[ab]') ? 'b' : 'a');
      const t0 = performance.now();
      expect(n.re.test(s)).toBe(false);
      expect(performance.now() - t0).toBeLessThan(1000);
    }
  });
});

describe('regexTest agrees with re2js', () => {
  it('on a seeded sample of random patterns and inputs', () => {
    const rnd = prng(20261126);
    let accepted = 0;
    let compared = 0;
    for (let k = 0; k < 3000; k++) {
      const p = randomPattern(rnd);
      if (!re2Compiles(p)) continue;
      const native = nativeRegex(p);
      if (native === undefined) continue;
      accepted++;
      const re = compileRegex(p);
      for (let j = 0; j < 25; j++) {
        const s = randomInput(rnd);
        expect(native.re.test(s), `${JSON.stringify(p)} on ${JSON.stringify(s)}`).toBe(re.test(s));
        expect(regexTest(p, s)).toBe(re.test(s));
        compared++;
      }
    }
    expect(accepted).toBeGreaterThan(500);
    expect(compared).toBeGreaterThan(12_500);
  });
  it('on the gatekeeper patterns', () => {
    const cases: [string, string, boolean][] = [
      ['^[0-9]+(\\.[0-9]+)?$', '500', true],
      ['^[0-9]+(\\.[0-9]+)?$', '0.5', true],
      ['^[0-9]+(\\.[0-9]+)?$', '1.', false],
      ['^[0-9]+(\\.[0-9]+)?$', '1Gi', false],
      ['^[0-9]+(\\.[0-9]+)?$', '12\n', false],
      ['^[a-z]+\\.team$', 'web.team', true],
      ['^[a-z]+\\.team$', 'web.teams', false],
      ['^(prod|staging|dev)$', 'staging', true],
      ['^(prod|staging|dev)$', 'production', false],
    ];
    for (const [p, s, want] of cases) {
      expect(regexTest(p, s), `${p} on ${s}`).toBe(want);
      expect(compileRegex(p).test(s)).toBe(want);
    }
  });
  it('leaves lone surrogates and long inputs to re2js, with the same answers', () => {
    for (const [p, s] of [['^.$', '\ud800'], ['^[^a]$', 'x\udc00'], ['a.b', 'a\ud800b']] as const) {
      expect(regexTest(p, s)).toBe(compileRegex(p).test(s));
    }
    const long = 'a'.repeat(20_000);
    const t0 = Date.now();
    expect(regexTest('a+b', long)).toBe(false);
    expect(regexTest('^a*a*c$', long)).toBe(false);
    expect(regexTest('^a+$', long)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
  it('keeps Go parse errors, also for the last pattern seen', () => {
    expect(regexTest('a', 'a')).toBe(true);
    expect(() => regexTest('[', 'x')).toThrow('error parsing regexp: missing closing ]: `[`');
    expect(() => regexTest('[', 'x')).toThrow('missing closing ]');
    expect(regexTest('a', 'b')).toBe(false);
  });
  it('stays right past the cache size, with a hot pattern and a bad one among many', () => {
    for (let i = 0; i < 700; i++) {
      expect(regexTest(`^p${i}$`, `p${i}`)).toBe(true);
      expect(regexTest('^hot[0-9]+$', `hot${i}`)).toBe(true);
      if (i % 100 === 0) expect(() => regexTest('a{2,1}', 'aa')).toThrow('error parsing regexp: invalid repeat count');
    }
    expect(regexTest('^p1$', 'p2')).toBe(false);
  });
});
