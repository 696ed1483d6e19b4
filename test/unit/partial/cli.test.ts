// `regent eval --partial -u REF`: output shapes as `opa eval --partial` prints them.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { evalCommand } from '../../../cli/eval.js';
import { capture, tempTree } from '../cli/helpers.js';

const tree = tempTree({
  'ex.rego': 'package example\n\nallow if input.subject.clearance_level >= data.reports[_].clearance_level\n\ndefault dflt := false\n\ndflt if input.x > 1\n',
  'input.json': '{"subject": {"clearance_level": 4}}',
});
afterAll(() => tree.cleanup());
const d = join(tree.dir, 'ex.rego');

describe('regent eval --partial', () => {
  it('prints {"partial": {"queries", "modules"}} as json', async () => {
    const c = capture();
    expect(await evalCommand(['-d', d, '-i', join(tree.dir, 'input.json'), '--partial', '-u', 'data.reports', 'data.example.allow == true'], c.io)).toBe(0);
    const out = JSON.parse(c.out);
    expect(Object.keys(out)).toEqual(['partial']);
    expect(out.partial.queries).toHaveLength(1);
    expect(out.partial.queries[0][0].terms[0]).toEqual({ type: 'ref', value: [{ type: 'var', value: 'gte' }] });
    const s = capture();
    await evalCommand(['-d', d, '--partial', 'data.example.dflt'], s.io);
    expect(JSON.parse(s.out).partial.modules[0].package.path[1]).toEqual({ type: 'string', value: 'partial' });
    const never = capture();
    await evalCommand(['--partial', '1 < 0'], never.io);
    expect(never.out).toBe('{\n  "partial": {}\n}\n');
  });

  it('prints a table of queries and support modules as pretty', async () => {
    const c = capture();
    await evalCommand(['-d', d, '-p', '-f', 'pretty', '-u', 'input', 'data.example.dflt'], c.io);
    expect(c.out).toBe(
      [
        '+-----------+---------------------------+',
        '| Query 1   | data.partial.example.dflt |',
        '+-----------+---------------------------+',
        '| Support 1 | package partial.example   |',
        '|           |                           |',
        '|           | dflt if {                 |',
        '|           |   input.x > 1             |',
        '|           | }                         |',
        '|           |                           |',
        '|           | default dflt := false     |',
        '+-----------+---------------------------+',
        '',
      ].join('\n'),
    );
    const q = capture();
    await evalCommand(['-d', d, '-i', join(tree.dir, 'input.json'), '-p', '-f', 'pretty', '-u', 'data.reports', 'data.example.allow'], q.io);
    expect(q.out).toContain('| Query 1 | 4 >= data.reports[$01].clearance_level |');
  });
});
