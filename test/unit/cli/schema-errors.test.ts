// `-s/--schema` type checking for eval and check, parse errors with the source line
// and caret (check, eval, test), and every unsafe variable of a body: the texts
// `opa` prints (ast.Error.Error() with its detail lines), and the JSON `details`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { evalCommand } from '../../../cli/eval.js';
import { checkCommand } from '../../../cli/check.js';
import { testCommand } from '../../../cli/test.js';
import { parserErrorDetail, detailLines } from '../../../compiler/parser/error-detail.js';
import { capture, tempTree } from './helpers.js';

let dir: string;
let cleanup: () => void;

beforeAll(() => {
  ({ dir, cleanup } = tempTree({
    'schema.json': JSON.stringify({
      type: 'object',
      properties: {
        request: { type: 'object', properties: { kind: { $ref: '#/definitions/kind' } } },
        user: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
        tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
        open: { type: 'object' },
      },
      definitions: { kind: { type: 'object', properties: { kind: { type: 'string' }, version: { type: 'string' } } } },
    }),
    'pod/pod.rego': ['package kubernetes.admission', '', 'deny contains msg if {', '\tinput.request.kind.kinds == "Pod"', '\tmsg := "no"', '}', ''].join('\n'),
    'ok/ok.rego': ['package ok', '', 'allow if {', '\tinput.request.kind.kind == "Pod"', '\tinput.tags[_].k == "a"', '\tinput.open.anything.goes', '}', ''].join('\n'),
    'scalar/s.rego': ['package s', '', 'p if input.user.name.first == "x"', ''].join('\n'),
    'match/m.rego': ['package m', '', 'p if {', '\tinput.user.name = 1', '\tinput.request.kind.version = "v1"', '}', ''].join('\n'),
    'parse/bad.rego': ['package bad', '', 'p if {', '\tx := [1,', '}', ''].join('\n'),
    'unsafe/u.rego': ['package u', '', 'p if {', '\tx = y', '\tz > 1', '}', ''].join('\n'),
  }));
});
afterAll(() => cleanup());

describe('eval/check -s/--schema', () => {
  it('reports an undeclared key as OPA does (pretty)', async () => {
    const c = capture();
    const code = await evalCommand(['-s', join(dir, 'schema.json'), '-d', join(dir, 'pod'), '-f', 'pretty', 'data.kubernetes.admission'], c.io);
    // opa eval: errors exit 2, and every format but json prints them on stderr.
    expect(code).toBe(2);
    expect(c.err).toBe(
      `1 error occurred: ${join(dir, 'pod', 'pod.rego')}:4: rego_type_error: undefined ref: input.request.kind.kinds\n` +
        '\tinput.request.kind.kinds\n' +
        '\t                   ^\n' +
        '\t                   have: "kinds"\n' +
        '\t                   want (one of): ["kind" "version"]\n',
    );
  });
  it('JSON details: ref, pos, want, oneOf', async () => {
    const c = capture();
    await evalCommand(['-s', join(dir, 'schema.json'), '-d', join(dir, 'pod'), 'data.kubernetes.admission'], c.io);
    const err = JSON.parse(c.out).errors[0];
    expect(err).toMatchObject({ code: 'rego_type_error', message: 'undefined ref: input.request.kind.kinds', location: { row: 4, col: 2 } });
    expect(Object.keys(err.details)).toEqual(['ref', 'pos', 'want', 'oneOf']);
    expect(err.details.pos).toBe(3);
    expect(err.details.oneOf).toEqual([{ type: 'string', value: 'kind' }, { type: 'string', value: 'version' }]);
    // OPA's Want is a type: an object's keys are strings.
    expect(err.details.want).toEqual({ type: 'string' });
  });
  it('accepts declared keys, array items, open objects; checks the query too', async () => {
    const c = capture();
    expect(await evalCommand(['-s', join(dir, 'schema.json'), '-d', join(dir, 'ok'), 'data.ok'], c.io)).toBe(0);
    const q = capture();
    expect(await evalCommand(['-s', join(dir, 'schema.json'), '-f', 'pretty', 'input.user.nmae'], q.io)).toBe(2);
    expect(q.err).toContain('1:1: rego_type_error: undefined ref: input.user.nmae\n\tinput.user.nmae\n\t           ^\n\t           have: "nmae"\n\t           want (one of): ["name"]');
  });
  it('a key into a scalar names the scalar type', () => {
    const c = capture();
    expect(checkCommand(['-s', join(dir, 'schema.json'), join(dir, 'scalar')], c.io)).toBe(1);
    // OPA's RefErrUnsupportedDetail: carets under the scalar's part, and its type.
    expect(c.err).toContain('rego_type_error: undefined ref: input.user.name.first\n\tinput.user.name.first\n\t^^^^^^^^^^^^^^^\n\thave: string');
  });
  it('check -s reports to stderr with exit 1, and passes clean files', () => {
    const c = capture();
    expect(checkCommand(['--schema', join(dir, 'schema.json'), join(dir, 'pod')], c.io)).toBe(1);
    expect(c.err).toMatch(/^1 error occurred: .*pod\.rego:4: rego_type_error: undefined ref: input\.request\.kind\.kinds\n\t/);
    expect(checkCommand(['-s', join(dir, 'schema.json'), join(dir, 'ok')], capture().io)).toBe(0);
  });
});

describe('schema match errors', () => {
  it('unifying a string-typed ref with a number is a match error', () => {
    const c = capture();
    expect(checkCommand(['-s', join(dir, 'schema.json'), join(dir, 'match')], c.io)).toBe(1);
    expect(c.err).toBe(`1 error occurred: ${join(dir, 'match', 'm.rego')}:4: rego_type_error: match error\n\tleft  : string\n\tright : number\n`);
    const j = capture();
    checkCommand(['-s', join(dir, 'schema.json'), '-f', 'json', join(dir, 'match')], j.io);
    expect(JSON.parse(j.err).errors[0].details).toEqual({ a: { type: 'string' }, b: { type: 'number' } });
  });
});

describe('parse errors with source line and caret', () => {
  it('check (pretty and json)', () => {
    const c = capture();
    expect(checkCommand([join(dir, 'parse')], c.io)).toBe(1);
    expect(c.err).toBe(`1 error occurred: ${join(dir, 'parse', 'bad.rego')}:5: rego_parse_error: unexpected } token\n\t}\n\t^\n`);
    const j = capture();
    checkCommand(['-f', 'json', join(dir, 'parse')], j.io);
    expect(JSON.parse(j.err).errors[0].details).toEqual({ line: '}', idx: 0 });
  });
  it('eval of a query: row:col prefix, whitespace stepped over', async () => {
    const c = capture();
    expect(await evalCommand(['-f', 'pretty', 'x := '], c.io)).toBe(2);
    expect(c.err).toBe('1 error occurred: 1:6: rego_parse_error: unexpected eof token\n\tx := \n\t   ^\n');
  });
  it('test', async () => {
    const c = capture();
    expect(await testCommand([join(dir, 'parse')], c.io)).toBe(1);
    expect(c.err).toContain('rego_parse_error: unexpected } token\n\t}\n\t^');
  });
  it('leading tabs are dropped and the caret moves with them; bytes count', () => {
    const d = parserErrorDetail('a\n\t\tfoo bar\n', 8);
    expect(d).toEqual({ line: '\t\tfoo bar', idx: 6 });
    expect(detailLines(d)).toEqual(['foo bar', '    ^']);
    expect(parserErrorDetail('"é" x', 4)).toEqual({ line: '"é" x', idx: 5 });
  });
});

describe('unsafe variables', () => {
  it('check reports every unsafe variable, by location then name', () => {
    const c = capture();
    expect(checkCommand([join(dir, 'unsafe')], c.io)).toBe(1);
    const f = join(dir, 'unsafe', 'u.rego');
    expect(c.err).toBe(
      `3 errors occurred:\n${f}:4: rego_unsafe_var_error: var x is unsafe\n${f}:4: rego_unsafe_var_error: var y is unsafe\n${f}:5: rego_unsafe_var_error: var z is unsafe\n`,
    );
  });
});
