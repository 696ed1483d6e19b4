// Issue 10: a builtin that builds a huge array or string in one native call must
// not abort the process. V8 kills the whole process ("Fatal JavaScript invalid size
// error") when one native operation makes an array of more than 2^27 elements, which
// String.prototype.split, a match-all or an index loop on a 140-million-character
// string (built within the collection cap: 900,000 pieces of 160 characters) would
// do, and so would json.unmarshal (JSON.parse) of an array that wide. Each case gets
// a clean `{code, message}` reply naming the limit; json.marshal, which used to
// collect all its pieces in one array, now answers. The process stays alive, and a
// normal decision sent every 0.5 s keeps answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody, probeDuring, reportProbe, send, startServer, type RunningServer } from './helpers.js';

/** A 144-million-character string, built from 900,000 members (under this server's cap of 1,000,000). */
const BIG = `concat("", [s | numbers.range(1, 900000)[_]; s := "${'a'.repeat(160)}"])`;

const CASES: Record<string, string> = {
  'split on ""': `x := count(split(${BIG}, ""))`,
  'split on "a"': `x := count(split(${BIG}, "a"))`,
  'strings.split_n on "a"': `x := count(strings.split_n(${BIG}, "a", 200000000))`,
  'replace of "a"': `x := count(replace(${BIG}, "a", ""))`,
  indexof_n: `x := count(indexof_n(${BIG}, "a"))`,
  'regex.split': `x := count(regex.split("a", ${BIG}))`,
  'regex.find_n': `x := count(regex.find_n("a", ${BIG}, -1))`,
  // 1,500,001 members in one JSON array (JSON.parse is one native call).
  'json.unmarshal': 'x := count(json.unmarshal(concat("", ["[", concat("", [s | numbers.range(1, 500000)[_]; s := "0,0,0,"]), "0]"])))',
};

// The collection cap, or (when the heap holds garbage of an earlier case) the
// up-front heap-room check on a large string argument: both name their flag.
const LIMIT = /caller cancelled query execution: .*(collection size limit exceeded \(more than 1000000 members; --max-collection-size\)|memory limit exceeded .*--worker-heap-mb)/;

function query(srv: RunningServer, q: string): ReturnType<typeof send> {
  return send(srv, { method: 'POST', path: '/v1/query', body: JSON.stringify({ query: q }), headers: { 'content-type': 'application/json' }, timeoutMs: 90_000 });
}

let srv: RunningServer;
beforeAll(async () => {
  // A large worker heap, so the up-front heap-room check (8 bytes per character)
  // lets the call through and only the element bound stands between it and V8;
  // two workers, so that decisions do not queue behind the seconds-long query; a
  // lower collection cap, so that the bounded builtins stop sooner.
  srv = await startServer({ args: ['--workers', '2', '--worker-heap-mb', '4096', '--max-collection-size', '1000000', '--eval-timeout', '60s'] });
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

describe('builtins that would build more than 2^27 elements at once', () => {
  for (const [name, q] of Object.entries(CASES)) {
    it(`${name}: 500 eval_cancel_error naming a limit, process alive`, async () => {
      const { result, probe } = await probeDuring(srv, () => query(srv, q));
      expect(result.status, result.text.slice(0, 300)).toBe(500);
      const body = errorBody(result);
      expect(body.code).toBe('internal_error');
      expect(body.errors).toEqual([expect.objectContaining({ code: 'eval_cancel_error', message: expect.stringMatching(LIMIT) })]);
      expect(srv.alive()).toBe(true);
      reportProbe(`native size: ${name}`, probe);
      expect(probe.failed).toBe(0);
      expect(probe.worstMs).toBeLessThan(2000);
    }, 120_000);
  }

  it('json.marshal of a million references to one 70-element array answers (141 million pieces, joined as it goes)', async () => {
    const q = 'a := [true | numbers.range(1, 70)[_]]; x := count(json.marshal([a | numbers.range(1, 1000000)[_]]))';
    const { result, probe } = await probeDuring(srv, () => query(srv, q));
    expect(result.status, result.text.slice(0, 300)).toBe(200);
    const inner = `[${Array.from({ length: 70 }, () => 'true').join(',')}]`;
    expect((result.json() as { result: { x: number }[] }).result[0]!.x).toBe(1_000_000 * inner.length + 999_999 + 2);
    expect(srv.alive()).toBe(true);
    reportProbe('native size: json.marshal', probe);
    expect(probe.worstMs).toBeLessThan(2000);
  }, 120_000);

  it('small inputs still work', async () => {
    const r = await query(srv, 'x := [split("a,b", ","), replace("aXa", "X", "$&"), indexof_n("aaa", "a"), regex.find_n("a", "aba", -1), strings.split_n("a,b,c", ",", 2), json.marshal([1, {"b": "c"}]), json.unmarshal("[1,{\\"a\\":\\"[,]\\"}]")]');
    expect(r.status, r.text).toBe(200);
    expect((r.json() as { result: { x: unknown }[] }).result[0]!.x).toEqual([['a', 'b'], 'a$&a', [0, 1, 2], ['a', 'a'], ['a', 'b,c'], '[1,{"b":"c"}]', [1, { a: '[,]' }]]);
  }, 60_000);
});
