// Black-box: bundle `options` — optimization levels and build targets (issue 13
// item 10), replaying the reference's build_optimization, build_target_wasm and
// build_target_ir. The optimized bundles are then served by `regent run --server
// -b` and must answer the entrypoint decisions exactly as the unoptimized bundle.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceCases } from './reference-cases.js';
import { freePort, startServer, tarList, tarRead, type Running } from './blackbox.js';

const { caseDir, build } = referenceCases('regent-reftargets-');

const RULES = `package pkg
import rego.v1

# METADATA
# entrypoint: true
allow if {
    is_admin
    has_permission(input.action)
}

# METADATA
# entrypoint: true
deny if {
    input.user == "guest"
    input.action == "delete"
}

# Helper rules that should be optimized
is_admin if input.user == "admin"
valid_actions := ["read", "write", "delete"]
has_permission(action) if action in valid_actions
`;

const bundleYAML = (name: string, options: string): string =>
  `  ${name}:\n    object_storage:\n      filesystem:\n        path: bundles/${name}/bundle.tar.gz\n${options}    requirements:\n    - source: source0\n`;

const SOURCES = 'sources:\n  source0:\n    directory: files/sources/test\n    paths:\n    - rules/rules.rego\n';

describe('optimization levels (build_optimization)', () => {
  it('levels 1 and 2 write /optimized modules, prune the original rules and add the partial root; an engine answers as with the plain bundle', async () => {
    const dir = await caseDir({
      'files/sources/test/rules/rules.rego': RULES,
      'config.d/bundle.yml': 'bundles:\n' +
        bundleYAML('opt-level-1', '    options:\n      optimization:\n        level: 1\n') +
        bundleYAML('opt-level-2', '    options:\n      optimization:\n        level: 2\n') +
        bundleYAML('plain', '') +
        SOURCES,
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const listing = '/data.json\n/optimized/pkg.1.rego\n/optimized/pkg.rego\n/source0/rules/rules.rego\n/.manifest\n';
    const files = ['.manifest', 'optimized/pkg.rego', 'optimized/pkg.1.rego', 'source0/rules/rules.rego'];
    const l1 = join(dir, 'bundles/opt-level-1/bundle.tar.gz');
    const l2 = join(dir, 'bundles/opt-level-2/bundle.tar.gz');
    expect(tarList(l1)).toBe(listing);
    expect(tarList(l2)).toBe(listing);
    const one = await tarRead(l1, join(dir, 'l1'), files);
    const two = await tarRead(l2, join(dir, 'l2'), files);
    expect(one['.manifest']).toBe('{"revision":"","roots":["pkg","partial"],"rego_version":0}\n');
    expect(two['.manifest']).toBe(one['.manifest']);
    // The reference's goldens, byte for byte where Regent's output is the same text
    expect(one['optimized/pkg.1.rego']).toBe('package pkg\n\nimport rego.v1\n\ndeny if {\n\tinput.user = "guest"\n\tinput.action = "delete"\n}\n');
    expect(one['source0/rules/rules.rego']).toBe('package pkg\n\nimport rego.v1\n\nvalid_actions := ["read", "write", "delete"]\n');
    expect(two['optimized/pkg.1.rego']).toBe('package pkg\n\ndeny = __result__ {\n\tinput.user = "guest"\n\tinput.action = "delete"\n\t__result__ = true\n}\n');
    expect(two['source0/rules/rules.rego']).toBe('package pkg\n\nimport rego.v1\n\nis_admin if input.user == "admin"\nvalid_actions := ["read", "write", "delete"]\nhas_permission(action) if action in valid_actions\n');
    // Level 1 keeps the helpers as support rules (the reference names its locals
    // `_term_1_01`, `__local1__1`); level 2 inlines them: the reference's golden byte for
    // byte, with the blank line where the inlined expressions came from source lines apart.
    expect(one['optimized/pkg.rego']).toBe(
      'package pkg\n\nimport rego.v1\n\nallow if {\n\tdata.pkg.is_admin\n\tdata.pkg.has_permission(input.action)\n}\n\nis_admin if {\n\tinput.user = "admin"\n}\n\nhas_permission(action3) if {\n\taction3 in ["read", "write", "delete"]\n}\n',
    );
    expect(two['optimized/pkg.rego']).toBe('package pkg\n\nimport future.keywords.in\n\nallow = __result__ {\n\tinput.user = "admin"\n\n\tinput.action in ["read", "write", "delete"]\n\t__result__ = true\n}\n');

    // Served by an engine, every bundle gives the same decisions.
    const servers: Running[] = [];
    try {
      for (const b of ['plain', 'opt-level-1', 'opt-level-2']) {
        const port = await freePort();
        servers.push(await startServer(['run', '--server', '--addr', `127.0.0.1:${port}`, '-b', join(dir, 'bundles', b, 'bundle.tar.gz')], dir, `http://127.0.0.1:${port}`));
      }
      let compared = 0;
      for (const user of ['admin', 'guest', 'alice']) {
        for (const action of ['read', 'delete', 'drop']) {
          for (const rule of ['allow', 'deny']) {
            const answers = await Promise.all(servers.map(async (s) => {
              const r = await fetch(`${s.url}/v1/data/pkg/${rule}`, { method: 'POST', body: JSON.stringify({ input: { user, action } }), headers: { 'content-type': 'application/json' } });
              return JSON.stringify(await r.json());
            }));
            expect(answers[1], `${rule} ${user} ${action}`).toBe(answers[0]);
            expect(answers[2], `${rule} ${user} ${action}`).toBe(answers[0]);
            compared++;
          }
        }
      }
      expect(compared).toBe(18);
      const admin = await fetch(`${servers[2]!.url}/v1/data/pkg/allow`, { method: 'POST', body: '{"input":{"user":"admin","action":"read"}}' }).then((r) => r.json());
      expect(admin).toEqual({ result: true });
    } finally {
      for (const s of servers) await s.stop();
    }
  }, 180_000);

  it('optimization without an entrypoint fails the build as the reference does', async () => {
    const dir = await caseDir({
      'files/sources/test/rules/rules.rego': 'package pkg\nimport rego.v1\nallow if input.x\n',
      'config.d/bundle.yml': 'bundles:\n' + bundleYAML('opt', '    options:\n      optimization:\n        level: 1\n') + SOURCES,
    });
    const r = await build(dir, '--non-interactive');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bundle optimizations require at least one entrypoint');
  }, 60_000);
});

describe('build targets (build_target_wasm, build_target_ir)', () => {
  it('target wasm adds /policy.wasm and the manifest wasm entries with the entrypoint annotations', async () => {
    const dir = await caseDir({
      'files/sources/test/rules/rules.rego': 'package pkg\nimport rego.v1\n# METADATA\n# entrypoint: true\nr := true\n',
      'config.d/bundle.yml': 'bundles:\n' + bundleYAML('ir-bundle', '    options:\n      target: "wasm"\n') + SOURCES,
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const tgz = join(dir, 'bundles/ir-bundle/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/source0/rules/rules.rego\n/policy.wasm\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["pkg"],"wasm":[{"entrypoint":"pkg/r","module":"/policy.wasm","annotations":[{"entrypoint":true,"scope":"document"}]}],"rego_version":0}\n');
    // An engine serving the bundle answers the entrypoint from /policy.wasm.
    const port = await freePort();
    const engine = await startServer(['run', '--server', '--addr', `127.0.0.1:${port}`, '-b', tgz], dir, `http://127.0.0.1:${port}`);
    try {
      const r = (await fetch(`${engine.url}/v1/data/pkg/r?metrics=true`, { method: 'POST', body: '{}' }).then((x) => x.json())) as { result: unknown; metrics: Record<string, number> };
      expect(r.result).toBe(true);
      expect(r.metrics.timer_regent_wasm_eval_ns).toBeGreaterThan(0);
    } finally {
      await engine.stop();
    }
  }, 120_000);

  it('target ir/plan is refused with a clear build error (Regent writes no plan.json)', async () => {
    const dir = await caseDir({
      'files/sources/test/rules/rules.rego': 'package pkg\nimport rego.v1\n# METADATA\n# entrypoint: true\nr := true\n',
      'config.d/bundle.yml': 'bundles:\n' + bundleYAML('ir-bundle', '    options:\n      target: "ir"\n') + SOURCES,
    });
    const r = await build(dir, '--non-interactive');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('target \\"ir\\" (OPA\'s plan.json) is not supported by Regent');
  }, 60_000);
});
