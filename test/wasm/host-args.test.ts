// Arguments and results of host-served builtins in Regent's Wasm host
// (runtime/wasm/host.ts, argValue and resultValue): strings, booleans and null are read
// and written in place in the module's memory, everything else as value text. Each argument goes through a builtin the
// module does not implement natively (json.marshal, json.unmarshal, regex.match, sprintf) and must give
// the JS back end's answer: non-ASCII text, a leading U+FEFF, empty strings, escapes,
// numbers with their exact text, composites and sets.
import { describe, expect, it } from 'vitest';
import { compile, compileWasm } from '../../compiler/index.js';
import { fromJS, toJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import { canonical } from './differential.js';
import { ensureRuntime } from './sdk-host.js';

const text = `package ha
import rego.v1
marshal := [json.marshal(x) | some x in input.values]
matches := [regex.match(p, s) | some [p, s] in input.pairs]
printed := sprintf("%v|%v|%v", [input.values[0], input.values[1], {1, "a"}])
unmarshal := [json.unmarshal(s) | some s in input.texts]
`;

const values = ['\uFEFFbom', 'héllo wörld', '日本語🙂', '', 'quote " and \\ and \n', true, false, null, 1.5, -0.25, 1e3, [1, 'a', null], { k: ['v'], 'ü': 1 }];
const texts = ['null', 'true', 'false', '"\uFEFFx"', '""', '"日本"', '[1, "a"]', '{"k": null}'];
const pairs = [['^h.llo', 'héllo'], ['^\uFEFF', '\uFEFFx'], ['^$', ''], ['🙂$', '日本🙂'], ['[', 'x']];

describe('host-served builtin arguments and results in Regent\'s Wasm host', () => {
  it('agree with the JS back end', async () => {
    ensureRuntime();
    const policy = compile([{ file: 'ha.rego', text }]);
    const host = await WasmPolicy.load(await compileWasm(policy, ['ha/marshal', 'ha/matches', 'ha/printed', 'ha/unmarshal']));
    expect(host.builtinNames).toEqual(expect.arrayContaining(['json.marshal', 'regex.match', 'sprintf']));
    host.setData({});
    const input = { values, pairs, texts };
    for (const rule of ['marshal', 'matches', 'printed', 'unmarshal']) {
      const v = policy.prepareDecision(['ha', rule])({ input: fromJS(input), data: fromJS({}) });
      const want = canonical(v === undefined ? [] : [{ result: toJS(v) }]);
      expect(canonical(host.evaluate(input, `ha/${rule}`)), rule).toBe(want);
    }
    expect(host.evaluate(input, 'ha/marshal')[0]!.result).toContain('"\uFEFFbom"');
    expect(host.evaluate(input, 'ha/unmarshal')[0]!.result).toEqual([null, true, false, '\uFEFFx', '', '日本', [1, 'a'], { k: null }]);
  });
});
