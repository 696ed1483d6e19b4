// The Wasm runtime's native builtins (runtime/wasm/assembly/natives-*.ts, bigdec.ts)
// against the JS builtins, input by input: each builtin is compiled once into a module
// (`r := f(input.a, …)`) and evaluated through Regent's host on edge cases beyond the
// conformance suite (unicode, malformed text, big and decimal numbers). The module's
// answer must equal the JS back end's; where the JS builtin raises an error the module
// must answer undefined or abort. A native may abort ("not supported on wasm") only where
// its README says so; those inputs are counted and must stay a minority.
import { describe, expect, it } from 'vitest';
import { compile, compileWasm } from '../../compiler/index.js';
import { fromJS, parseJSON, toJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import { canonical } from './differential.js';
import { ensureRuntime } from './sdk-host.js';

type Case = [builtin: string, args: unknown[][]];

const S = ['', 'abc', 'héllo wörld', '日本語', 'a.b.c', 'aaa', '🙂x🙂'];
const CASES: Case[] = [
  ['strings.any_prefix_match', [['abc', 'ab'], [['x', 'abc'], ['a']], [['x'], 'y'], [[1], 'a'], ['日本語', ['日']]]],
  ['strings.count', [...S.map((s): unknown[] => [s, 'a']), ['aaaa', 'aa'], ['héllo', ''], ['x', 1]]],
  ['indexof_n', [['aaaa', 'aa'], ['日本日本', '本'], ['abc', ''], ['🙂x🙂', 'x']]],
  ['strings.replace_n', [[{ a: 'b', aa: 'c' }, 'aaaa'], [{ '': '-' }, 'héllo'], [{ '': 'x', l: 'L' }, 'hello'], [{ é: 'e' }, 'héé'], [{ a: 1 }, 'a']]],
  ['strings.split_n', [['a,b,c', ',', 2], ['a,b,c', ',', -2], ['a,b,c', ',', 0], ['日本語', '', 2], ['abc', '', -1], ['a', ',', 1.5]]],
  ['strings.reverse', S.map((s) => [s])],
  ['format_int', [[255, 16], [-255, 2], [3.9, 10], [-3.9, 8], [0, 2], [10, 3]]],
  ['to_number', [['1.0'], ['-0.5'], ['1e3'], ['.5'], ['5.'], ['+7'], ['1e400'], ['abc'], [''], ['12345678901234567890123'], ['0.1234567890123456789'], [null], [true], ['inf'], ['1_000']]],
  ['units.parse', [['10K'], ['1.5Mi'], ['250m'], ['1e3k'], ['0.1'], ['5 K'], ['"2G"'], ['12ki'], ['-3Ti'], ['1.23456789012345m'], ['K']]],
  ['units.parse_bytes', [['1.1KB'], ['0.3mb'], ['10EB'], ['1e-3kib'], ['2.5gib'], ['123456789012345678901234567890'], ['-1.5k'], ['1e2000kb'], ['kb'], ['1xb']]],
  ['glob.match', [['*.github.com', ['.'], 'api.github.com'], ['*.github.com', ['.'], 'a.b.github.com'], ['**.github.com', ['.'], 'a.b.github.com'],
    ['{a,b{c,d}}x', null, 'bdx'], ['[!a-c]?', [], 'd.'], ['[a-c]*', ['/'], 'b/x'], ['\\*x', null, '*x'], ['{a,', null, 'a'], ['[z-a]', null, 'b'],
    ['日?', null, '日本'], ['a*b', ['日'], 'a日b'], ['x', ['ab'], 'x']]],
  ['semver.compare', [['1.0.0', '1.0.1'], ['v1.2.3-alpha.1', '1.2.3-alpha.beta'], ['1.0.0-rc.1+build', '1.0.0'], ['1.0.0-1', '1.0.0-a'], ['01.0.0', '1.0.0'], ['1.0.0-alpha', '1.0.0-alpha.1'], ['9223372036854775808.0.0', '1.0.0']]],
  ['semver.is_valid', [['1.0.0'], ['1.0'], ['1.0.0-'], ['1.0.0+'], ['v1.0.0-0a.1'], ['1.0.0-00'], [1]]],
  ['net.cidr_contains', [['10.0.0.0/8', '10.1.2.3'], ['10.0.0.0/8', '11.0.0.1'], ['10.0.0.0/8', '10.1.0.0/16'], ['10.0.0.0/16', '10.0.0.0/8'], ['10.0.0.0/33', '10.0.0.1'], ['010.0.0.0/8', '10.0.0.1'], ['fd00::/8', 'fd00::1'], ['0.0.0.0/0', '1.2.3.4']]],
  ['net.cidr_intersects', [['10.0.0.0/8', '10.1.0.0/16'], ['10.0.0.0/8', '11.0.0.0/8'], ['192.168.1.0/24', '192.168.0.0/16'], ['1.2.3.4', '1.2.3.4/32']]],
  ['net.cidr_contains_matches', [[['1.0.0.0/8', '2.0.0.0/8'], '1.2.3.4'], [{ k: ['10.0.0.0/8', 'x'] }, ['10.0.0.1', '11.0.0.1']], [['1.0.0.0/8'], [1]]]],
  ['base64.decode', [['aGVsbG8='], ['aGVsbG8'], ['aGVs\nbG8='], ['/w=='], ['====']]],
  ['base64url.decode', [['aGVsbG8'], ['aGVsbG8='], ['a'], ['_-8']]],
  ['hex.decode', [['68656c6c6f'], ['6'], ['zz'], ['ff']]],
  ['urlquery.decode', [['a%20b+c'], ['%zz'], ['%e6%97%a5'], ['%ff'], ['plain']]],
  ['uuid.parse', [['00000000-0000-1000-8000-000000000000'], ['urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8'], ['{6BA7B810-9DAD-11D1-80B4-00C04FD430C8}'],
    ['6ba7b8109dad11d180b400c04fd430c8'], ['000003e8-0000-2100-8002-0a0000000001'], ['000003e8-0000-2100-8007-0a0000000001'], ['6ba7b810-9dad-41d1-c0b4-00c04fd430c8'],
    ['6ba7b810-9dad-11d1-80b4-00c04fd430c'], ['6ba7b810x9dad-11d1-80b4-00c04fd430c8'], ['ffffffff-ffff-1fff-bfff-ffffffffffff'], [1]]],
  ['urlquery.encode', [['a b&c=d/é'], ['~-_.']]],
  ['urlquery.encode_object', [[{ b: 'x y', a: ['1', '2'], c: [] }], [{ a: 1 }], [{ 'é': 'x' }], [{}]]],
  ['urlquery.decode_object', [['a=1&b=2&a=3'], ['a&&b='], ['a=%zz'], ['a=1;b=2'], ['x=%e6%97%a5+y'], ['']]],
  ['object.subset', [[{ a: { b: 1, c: 2 } }, { a: { b: 1 } }], [[1, 2, 3], [2, 3]], [[1, 2, 3], [3, 2]], [[1, 1], [1]], [{ a: [1, 2, 3] }, { a: [1, 3] }], [1, 1]]],
  ['json.remove', [[{ a: { b: 1, c: 2 }, d: [1, 2] }, ['a/b', 'd/0']], [{ a: 1 }, [['a']]], [{ 'a/b': 1 }, ['a~1b']], [{ a: 1 }, 'a']]],
  ['json.filter', [[{ a: { b: 1, c: 2 }, d: [1, 2] }, ['a/b', 'd/1']], [{ a: 1, b: 2 }, [['b']]], [{ a: { b: 1 } }, ['a', 'a/b']]]],
  ['graph.reachable_paths', [[{ a: ['b'], b: ['c', 'a'], c: [] }, ['a']], [{ a: ['x'] }, ['a', 'z']], [{ a: 'b' }, ['a']]]],
  ['plus', [['1.0000000000000001', '1'], ['0.12345678901234567', '0.1'], ['0.5', '0.25'], [9007199254740991, 2], ['0.1', '0.2'], ['123456789012345678901234567890', 1], ['1e400', '1e400'], ['0.1', '0.123456789012345678']]],
  ['mul', [[4294967296, 4294967296], ['1.5', '1.5'], ['-0.000001', '3'], ['1e-400', '1e400']]],
  ['div', [[10, 4], [1, 3], ['100000000000000000000000', '10'], [7, '0.5'], [1, 0], [2, 3], [10, 7], ['0.1', '3'], ['-1', '7'], ['1e70', '3'],
    [22, 7], ['100000000000000000000000000001', '3'], ['1', '1e-5'], ['123456789', '1000'], ['1', '1024'], ['5', '9007199254740993']]],
  ['mul', [['1.1', '1.1'], ['3.14159265358979', '2.71828182845904'], ['0.1', '0.1'], ['123456789.123', '1000.0001']]],
  ['minus', [['18446744073709551616', 1], ['0.3', '0.1']]],
  ['rem', [['18446744073709551617', '10'], ['-7', '2'], ['7', '-2'], ['1.5', '1'], ['100000000000000000000000000', '-7'], ['5', '0'], ['1000000000000000000000000000000', '7']]],
  ['bits.lsh', [['9223372036854775807', '1'], ['-5', '60'], ['3', '-1'], ['1.5', '2'], ['0', '100'], ['4503599627370496', '1'], ['7', '3']]],
  ['round', [['2.5'], ['-2.5'], ['123456789012345678901.5'], ['1e-400']]],
];

/** Arguments given as strings of digits in the number rows are numbers (big or decimal). */
const NUMERIC = new Set(['plus', 'mul', 'div', 'minus', 'rem', 'round', 'bits.lsh']);

describe('native builtins agree with the JS builtins', () => {
  it('on edge-case inputs', async () => {
    ensureRuntime();
    let compared = 0;
    const aborted: string[] = [];
    for (const [name, rows] of CASES) {
      const arity = rows[0]!.length;
      const params = Array.from({ length: arity }, (_, i) => `input.a${i}`).join(', ');
      const text = `package t\n\nr := x if x := ${name}(${params})\n`;
      const policy = compile([{ file: 't.rego', text }]);
      const host = await WasmPolicy.load(await compileWasm(policy, [['t', 'r']], { optimize: 0 }));
      for (const row of rows) {
        const inputText = '{' + row.map((a, i) => `"a${i}": ${NUMERIC.has(name) && typeof a === 'string' ? a : JSON.stringify(a)}`).join(', ') + '}';
        let want: unknown;
        let jsError = false;
        try {
          const v = policy.prepareDecision(['t', 'r'])({ input: parseJSON(inputText), data: fromJS({}) });
          want = v === undefined ? [] : [{ result: toJS(v) }];
        } catch {
          jsError = true;
        }
        let got: unknown;
        try {
          got = toJS(parseJSON(host.evaluateText(inputText)));
        } catch (e) {
          if (!/not supported on wasm/.test(String(e)) && !jsError) throw e;
          aborted.push(`${name}(${inputText})`);
          continue;
        }
        const where = `${name} ${inputText}`;
        if (jsError) expect(got, where).toEqual([]);
        else expect(canonical(got), where).toEqual(canonical(want));
        compared++;
      }
    }
    console.log(`natives: ${compared} inputs agree with the JS builtins; aborted (left unsupported): ${aborted.length}\n  ${aborted.join('\n  ')}`);
    expect(aborted.length).toBeLessThan(compared / 5);
  }, 120_000);

  it('on seeded random decimals and big integers through + - * / % and comparisons', async () => {
    ensureRuntime();
    const text = 'package t\n\nr := [input.a + input.b, input.a - input.b, input.a * input.b, x, y, input.a < input.b, input.a == input.b] if {\n  x := object.get({"q": input.a / input.b}, "q", "none")\n  y := object.get({"m": input.a % input.b}, "m", "none")\n}\n';
    const policy = compile([{ file: 't.rego', text }]);
    const host = await WasmPolicy.load(await compileWasm(policy, [['t', 'r']], { optimize: 0 }));
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    // at most 15 significant digits: the JS runtime's JSON reader keeps those exact
    // (it reads longer numbers as doubles); products and sums then go well beyond
    const num = (): string => {
      const n = 1 + rnd(13);
      const digits = Array.from({ length: n }, () => String(rnd(10))).join('').replace(/^0+(?=\d)/, '');
      const frac = rnd(3) === 0 ? '' : '.' + Array.from({ length: 1 + rnd(15 - n) }, () => String(rnd(10))).join('');
      return (rnd(4) === 0 ? '-' : '') + digits + frac;
    };
    let compared = 0;
    for (let i = 0; i < 300; i++) {
      const inputText = `{"a": ${num()}, "b": ${num()}}`;
      const v = policy.prepareDecision(['t', 'r'])({ input: parseJSON(inputText), data: fromJS({}) });
      const want = v === undefined ? [] : [{ result: toJS(v) }];
      let got: unknown;
      try {
        got = toJS(parseJSON(host.evaluateText(inputText)));
      } catch (e) {
        if (/not supported on wasm/.test(String(e))) continue;
        throw e;
      }
      expect(canonical(got), inputText).toEqual(canonical(want));
      compared++;
    }
    expect(compared).toBeGreaterThan(250);
  }, 120_000);
});
