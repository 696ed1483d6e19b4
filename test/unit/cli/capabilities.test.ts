// regent capabilities: OPA's cmd/capabilities.go behaviour — no flags (or --list)
// lists the known versions one per line (the OPA releases Regent emulates, then
// its own build); --version of Regent's own version prints the same JSON as
// --current; an unknown version fails with OPA's `no capabilities version found
// vX`; --file re-indents a capabilities file (as an OPA release's
// capabilities/vX.json). Older releases: capabilities-versions.test.ts.
import { describe, expect, it } from 'vitest';
import { capabilitiesCommand, knownVersions } from '../../../cli/capabilities.js';
import { version } from '../../../cli/main.js';
import { capture, tempTree } from './helpers.js';

function run(argv: string[]) {
  const c = capture();
  const code = capabilitiesCommand(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('regent capabilities', () => {
  it('lists the versions it can print, with or without --list', () => {
    const known = knownVersions();
    expect(known[0]).toBe('v0.17.0');
    expect(known).toContain('v0.50.0');
    expect(known.at(-1)).toBe(`v${version()}`);
    expect(run([]).out).toBe(known.join('\n') + '\n');
    expect(run(['--list'])).toEqual({ code: 0, out: known.join('\n') + '\n', err: '' });
  });

  it('--version of a listed version is the current capabilities', () => {
    const cur = run(['--current']);
    expect(cur.code).toBe(0);
    expect(run(['--version', `v${version()}`]).out).toBe(cur.out);
    expect(run(['--version', version()]).out).toBe(cur.out);
    const doc = JSON.parse(cur.out) as { builtins: unknown[]; features: string[] };
    expect(Object.keys(doc)).toEqual(['builtins', 'wasm_abi_versions', 'features']);
    expect(doc.features).toEqual(['keywords_in_refs', 'rego_v1', 'template_strings']);
    const v0 = JSON.parse(run(['--current', '--v0-compatible']).out) as Record<string, unknown>;
    expect(Object.keys(v0)).toEqual(['builtins', 'future_keywords', 'wasm_abi_versions', 'features']);
  });

  it('fails on versions it cannot emulate, with OPA wording', () => {
    expect(run(['--version', 'v0.16.2'])).toEqual({ code: 1, out: '', err: 'error: no capabilities version found v0.16.2\n' });
    expect(run(['--list', '--current']).code).toBe(1); // a usage error: exit 1, as cobra's
  });

  it('--file prints an OPA capabilities file', () => {
    const t = tempTree({ 'v1.0.0.json': '{"builtins": [{"name": "plus"}], "features": ["rego_v1"]}' });
    try {
      const r = run(['--file', `${t.dir}/v1.0.0.json`]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toEqual({ builtins: [{ name: 'plus' }], features: ['rego_v1'] });
    } finally {
      t.cleanup();
    }
  });
});
