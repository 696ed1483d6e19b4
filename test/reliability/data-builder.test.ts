// The sliced JSON document builder (runtime/store/json-builder.ts) used for large
// data writes: it must give exactly the values parseJSON gives (big numbers, -0,
// escaped keys, duplicate keys, big containers split into runs), refuse what Go's
// decoder refuses (syntax, nesting beyond the limit), and yield while it works.
import { describe, expect, it } from 'vitest';
import { JSONBuildError, RObject, buildDocument, buildDocumentSync, goJSONError, parseJSON, toJSONText } from '../../runtime/index.js';
import { generateDocumentText } from '../../bench/memory-data.js';
import { documentError } from '../../server/engine/shared-docs.js';

const build = (text: string, maxDepth = 1000): string | undefined => {
  const v = buildDocumentSync(Buffer.from(text), { maxDepth });
  return v === undefined ? undefined : toJSONText(v);
};

/** A document whose containers exceed the 256 KB run size at several levels. */
function bigText(): string {
  const items = Array.from({ length: 9000 }, (_, i) => ({ id: i, name: `n\u00e9${i}`, tags: ['a', 'b\\"c'], n: i % 7 === 0 ? -0 : i * 1.5, nested: { deep: [[i]] } }));
  const obj: Record<string, unknown> = {};
  for (let i = 0; i < 6000; i++) obj[`k\\u00${(i % 50) + 20}-${i}`] = { v: i, s: 'x'.repeat(40) };
  return JSON.stringify({ items, obj, big: '12345678901234567890', tail: [1, 2, 3] }).replace('"12345678901234567890"', '12345678901234567890');
}

describe('buildDocumentSync', () => {
  it('gives the same values as parseJSON on small documents', () => {
    for (const text of ['{}', '[]', '"s"', '12', 'null', '{"a":[1,2,{"b":null}],"c":"x"}', '[1, -0, 1e400, 12345678901234567890, "a\\"b", {"k\\u0041":true}]', '{"a":1,"a":2}', '[-684004062482084.046880866, 1e30, {"x": 7.0000000000000001e-3}]', '-684004062482084.046880866', '1e30']) {
      expect(build(text), text).toBe(toJSONText(parseJSON(text)));
    }
  });

  it('gives the same values as parseJSON on documents bigger than a run', () => {
    const text = bigText();
    expect(text.length).toBeGreaterThan(1 << 20);
    expect(build(text)).toBe(toJSONText(parseJSON(text)));
  });

  it('reads only the first value, like Go’s json.Decoder', () => {
    expect(build('  {"a": 1} trailing')).toBe('{"a":1}');
    expect(build('   ')).toBeUndefined();
  });

  it('refuses invalid JSON and nesting beyond the limit', () => {
    for (const text of ['{"a":1,}', '[1 2]', '{"a"}', '[', '{"a":tru}']) {
      expect(() => build(text), text).toThrow(JSONBuildError);
    }
    expect(() => build('[[[[1]]]]', 3)).toThrow('exceeded max depth');
    const deep = '['.repeat(2000) + ']'.repeat(2000);
    expect(() => build(deep)).toThrow('exceeded max depth');
    const big = bigText();
    expect(() => build(big.slice(0, big.length - 5))).toThrow(JSONBuildError);
  });
});

describe('syntax errors of large documents', () => {
  const doc = generateDocumentText(3e6, 5);
  const at = (needle: string, from: number): number => {
    const k = doc.indexOf(needle, from);
    expect(k, needle).toBeGreaterThan(0);
    return k;
  };
  const mid = Math.floor(doc.length / 2);
  const groups = at('"groups":', 0);
  const cases: [string, string][] = [
    ['truncated', doc.slice(0, -10)],
    ['truncated in a run', doc.slice(0, mid)],
    ['truncated after a key', doc.slice(0, at('":', mid) + 1)],
    ['truncated after a comma', doc.slice(0, at(',"', mid) + 1)],
    ['truncated in a big array', doc.slice(0, at('","', groups) + 2)],
    ['bad literal', doc.slice(0, at('true', mid)) + 'tru3' + doc.slice(at('true', mid) + 4)],
    ['missing colon', doc.slice(0, at('":', mid) + 1) + ' ' + doc.slice(at('":', mid) + 2)],
    ['double comma between members', doc.slice(0, at('},"user-', mid) + 1) + ',' + doc.slice(at('},"user-', mid) + 1)],
    ['control character in a string', doc.slice(0, at('@example', mid)) + '\u0001' + doc.slice(at('@example', mid) + 1)],
    ['missing comma in a big array', doc.slice(0, at('","', groups) + 1) + ' ' + doc.slice(at('","', groups) + 2)],
    ['missing comma after a big container', doc.slice(0, groups - 1) + ' ' + doc.slice(groups)],
    ['trailing comma in a big object', doc.slice(0, groups - 2) + ',}' + doc.slice(groups - 1)],
    ['bad first member of a big object', doc.replace('{"users":{"', '{"users":{x"')],
    ['bad escape in a key', doc.slice(0, at('"user-', mid) + 1) + '\\q' + doc.slice(at('"user-', mid) + 1)],
  ];
  for (const [name, text] of cases) {
    it(`words "${name}" as Go does, from a window of the text`, () => {
      const bytes = Buffer.from(text);
      let error: unknown;
      try {
        buildDocumentSync(bytes, { maxDepth: 1000 });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(JSONBuildError);
      const want = goJSONError(text);
      expect(want).not.toBe('');
      const resume = (error as JSONBuildError).resume!;
      expect(resume).toBeDefined();
      expect(goJSONError(resume.prefix + text.slice(resume.from, resume.from + (1 << 20)))).toBe(want);
      expect(documentError(error, bytes).message).toBe(want);
    });
  }
});

describe('buildDocument', () => {
  it('builds a 5 MB document in slices, letting timers run', async () => {
    const text = generateDocumentText(5e6);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const value = await buildDocument(Buffer.from(text), { maxDepth: 1000, sliceMs: 2 });
    clearInterval(timer);
    expect(toJSONText(value!)).toBe(toJSONText(parseJSON(text)));
    expect(ticks).toBeGreaterThan(0);
  });
});

describe('RObject.lazy (the main thread’s placeholder of a large document)', () => {
  const make = (keys?: string[]): { o: RObject; loads: () => number } => {
    let n = 0;
    const o = RObject.lazy(() => {
      n++;
      return parseJSON('{"a":1,"b":{"c":2}}') as RObject;
    }, keys);
    return { o, loads: () => n };
  };

  it('answers absent keys without loading when its keys are known', () => {
    const { o, loads } = make(['a', 'b']);
    expect(RObject.isLazy(o)).toBe(true);
    expect(o.getStr('zzz')).toBeUndefined();
    expect(o.has('zzz')).toBe(false);
    expect(loads()).toBe(0);
    expect(o.size).toBe(2);
    expect(loads()).toBe(1);
    expect(RObject.isLazy(o)).toBe(false);
  });

  it('loads once on first use and then behaves as a plain object', () => {
    const { o, loads } = make();
    expect(toJSONText(o.getStr('b')!)).toBe('{"c":2}');
    expect(toJSONText(o)).toBe('{"a":1,"b":{"c":2}}');
    expect(o.clone().size).toBe(2);
    expect(loads()).toBe(1);
  });

  it('keeps its size right when written to before loading', () => {
    const { o } = make(['a', 'b']);
    o.set('new', 3);
    expect(o.size).toBe(3);
    expect(toJSONText(o)).toBe('{"a":1,"b":{"c":2},"new":3}');
  });
});
