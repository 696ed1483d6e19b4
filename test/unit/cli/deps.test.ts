// regent deps: the example of `opa deps --help` (base input.user.roles, virtual
// data.policy.allow and data.policy.is_admin, same table), OPA's JSON shape
// (DepAnalysisOutput: refs as term arrays, empty lists left out), var expansion,
// truncation at dynamic segments, and the one-column tables.
import { describe, expect, it } from 'vitest';
import { depsCommand } from '../../../cli/deps.js';
import { capture, tempTree } from './helpers.js';

const POLICY = 'package policy\n\nallow if is_admin\n\nis_admin if "admin" in input.user.roles\n';

async function deps(files: Record<string, string>, argv: string[]) {
  const t = tempTree(files);
  try {
    const c = capture();
    const code = await depsCommand(argv.map((a) => a.replace('$DIR', t.dir)), c.io);
    return { code, out: c.out, err: c.err };
  } finally {
    t.cleanup();
  }
}

describe('regent deps', () => {
  it('prints the table of the opa deps help example', async () => {
    const r = await deps({ 'policy.rego': POLICY }, ['--data', '$DIR/policy.rego', 'data.policy.allow']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        '+------------------+----------------------+',
        '|  BASE DOCUMENTS  |  VIRTUAL DOCUMENTS   |',
        '+------------------+----------------------+',
        '| input.user.roles | data.policy.allow    |',
        '|                  | data.policy.is_admin |',
        '+------------------+----------------------+',
        '',
      ].join('\n'),
    );
  });

  it('prints JSON refs as term arrays', async () => {
    const r = await deps({ 'policy.rego': POLICY }, ['-d', '$DIR', '--format', 'json', 'data.policy.is_admin']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      base: [[{ type: 'var', value: 'input' }, { type: 'string', value: 'user' }, { type: 'string', value: 'roles' }]],
      virtual: [[{ type: 'var', value: 'data' }, { type: 'string', value: 'policy' }, { type: 'string', value: 'is_admin' }]],
    });
  });

  it('leaves out empty lists and prints one-column tables', async () => {
    const base = await deps({ 'policy.rego': POLICY }, ['-d', '$DIR', 'input.x[y]; data.users[input.name]']);
    expect(base.out).toBe('+----------------+\n| BASE DOCUMENTS |\n+----------------+\n| data.users     |\n| input.name     |\n| input.x        |\n+----------------+\n');
    const json = await deps({ 'policy.rego': POLICY }, ['-d', '$DIR', '-f', 'json', 'input.x']);
    expect(Object.keys(JSON.parse(json.out))).toEqual(['base']);
    const none = await deps({ 'policy.rego': POLICY }, ['-d', '$DIR', 'x := 1']);
    expect(none.out).toBe('');
  });

  it('follows variables, imports and functions, and minimises refs per body', async () => {
    const src = 'package p\n\nimport data.lib.helper as h\n\nq if {\n\tx := input.a\n\tx.b == f(h.k)\n}\n\nf(v) := v + data.base.n\n';
    const r = await deps({ 'p.rego': src }, ['-d', '$DIR', '-f', 'json', 'data.p.q; input.a.c']);
    const doc = JSON.parse(r.out) as { base: { value: string }[][]; virtual: { value: string }[][] };
    const text = (refs: { value: string }[][]) => refs.map((ref) => ref.map((t) => t.value).join('.'));
    // Minimised per body, deduplicated overall (OPA's Base): input.a from q, input.a.c from the query.
    expect(text(doc.base)).toEqual(['data.base.n', 'data.lib.helper.k', 'input.a', 'input.a.c']);
    expect(text(doc.virtual)).toEqual(['data.p.f', 'data.p.q']);
  });

  it('wants exactly one query; compile errors exit 1', async () => {
    expect((await deps({}, [])).code).toBe(1);
    expect((await deps({}, [])).err).toBe('Error: specify exactly one query argument\n');
    const bad = await deps({ 'p.rego': 'package p\n\nq if { x }\n' }, ['-d', '$DIR', 'data.p.q']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/rego_unsafe_var_error|var x is unsafe/);
  });

  it('skips ignored files (--ignore)', async () => {
    const r = await deps({ 'policy.rego': POLICY, 'skip/broken.rego': 'package broken\n\nthis is not rego\n' }, ['-d', '$DIR', '--ignore', 'skip', 'data.policy.allow']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('data.policy.is_admin');
  });
});
