// Black-box: what `regent control-plane build` prints when things go wrong,
// compared whole with the reference's output (issue 13 items 7 and 9, and the
// CLI help): the summary and the `│` table of Go's tablewriter, the JSON log
// message `failed to build a bundle "<name>": …` of --non-interactive, OPA's
// `N error(s) occurred` text, one `load config failed:` prefix, the Rego v1
// hint, help texts that end with a newline and exit 0.
import { describe, expect, it } from 'vitest';
import { referenceCases } from './reference-cases.js';
import { COMMANDS, main } from '../../cli/main.js';
import { regent } from './blackbox.js';

const { caseDir, build, root } = referenceCases('regent-referr-');

const bundleWith = (rego: string) => ({
  'files/sources/invalid-rego/rules/rules.rego': rego,
  'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: invalid-rego
sources:
  invalid-rego:
    directory: files/sources/invalid-rego
    paths:
    - rules/rules.rego
`,
});

const MSG = 'source invalid-rego find roots: 1 error occurred: rules/rules.rego:3: rego_parse_error: var cannot be used for rule name';

describe('item 7: build output and exit codes (build_build_error)', () => {
  it('interactive: the summary, then the table with │ borders; exit 1', async () => {
    const dir = await caseDir(bundleWith('package rules\n\ninvalid\n'));
    const r = await build(dir);
    const w = MSG.length;
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '0/1 bundles built and pushed successfully\n' +
        `┌─────────────┬──────────────┬${'─'.repeat(w + 2)}┐\n` +
        `│   BUNDLE    │    STATUS    │ ${' '.repeat(Math.floor((w - 7) / 2))}MESSAGE${' '.repeat(w - 7 - Math.floor((w - 7) / 2))} │\n` +
        `├─────────────┼──────────────┼${'─'.repeat(w + 2)}┤\n` +
        `│ hello-world │ BUILD_FAILED │ ${MSG} │\n` +
        `└─────────────┴──────────────┴${'─'.repeat(w + 2)}┘\n`,
    });
  });

  it('--non-interactive: one JSON log line, no summary; exit 1', async () => {
    const dir = await caseDir(bundleWith('package rules\n\ninvalid\n'));
    const r = await build(dir, '--non-interactive');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const { time, ...rest } = JSON.parse(lines[0]!) as Record<string, string>;
    expect(Number.isNaN(Date.parse(time!))).toBe(false);
    expect(rest).toEqual({ level: 'WARN', msg: `failed to build a bundle "hello-world": ${MSG}` });
  });

  it('a configuration error says `load config failed:` once (build_configuration_error)', async () => {
    const dir = await caseDir({
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage: {filesystem: {path: b.tar.gz}}\n    requirements:\n    - source: missing\n',
    });
    for (const mode of [[], ['--non-interactive']]) {
      const r = await build(dir, ...mode);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: 'load config failed: upsert bundle "hello-world" failed: bundle "hello-world": source "missing" does not exist\n',
      });
    }
  });
});

describe('item 9: Rego v1 without a declaration', () => {
  it('stays Rego v0 as the reference does, and says how to declare v1', async () => {
    const dir = await caseDir(bundleWith('package rules\n\nallow if input.user == "alice"\n'));
    const r = await build(dir, '--non-interactive');
    expect(r.code).toBe(1);
    const { msg } = JSON.parse(r.stderr) as { msg: string };
    expect(msg).toBe(
      `failed to build a bundle "hello-world": ${MSG}\n` +
        'rules/rules.rego looks like Rego v1, and bundles are Rego v0 unless declared: add {"rego_version": 1} to the source\'s .manifest, or "import rego.v1" to the file',
    );
  });

  it('builds once the source .manifest declares rego_version 1', async () => {
    const dir = await caseDir({
      ...bundleWith('package rules\n\nallow if input.user == "alice"\n'),
      'files/sources/invalid-rego/.manifest': '{"rego_version": 1}\n',
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('a file that is not v1 either gets no hint', async () => {
    const dir = await caseDir(bundleWith('package rules\n\ninvalid\n'));
    const { msg } = JSON.parse((await build(dir, '--non-interactive')).stderr) as { msg: string };
    expect(msg).not.toContain('looks like Rego v1');
  });
});

describe('help and exit codes', () => {
  it('control-plane run --help and build --help print help ending with a newline; exit 0', async () => {
    for (const sub of ['run', 'build']) {
      const r = await regent(['control-plane', sub, '--help'], root());
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^Usage:/);
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stdout.endsWith('\n\n')).toBe(false);
    }
    const top = await regent(['control-plane', '--help'], root());
    expect(top.code).toBe(0);
    expect(top.stdout.endsWith('\n')).toBe(true);
  });

  it('every command\'s --help ends with exactly one newline and exits 0', async () => {
    for (const name of [...Object.keys(COMMANDS).filter((c) => c !== 'help'), 'control-plane run', 'control-plane build']) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main([...name.split(' '), '--help'], { out: (s) => void out.push(s), err: (s) => void err.push(s) });
      const text = out.join('');
      expect({ name, code, err: err.join(''), last: text.slice(-2).replace(/[^\n]/g, 'x') }).toEqual({ name, code: 0, err: '', last: 'x\n' });
    }
  });

  it('`regent run` accepts --disable-telemetry as a no-op', async () => {
    const r = await regent(['run', '--server', '--disable-telemetry', '--help'], root());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--disable-telemetry');
    const bad = await regent(['run', '--server', '--no-such-flag', '--help'], root());
    expect(bad.code).toBe(1); // an unknown flag is a usage error: exit 1, as cobra
  });
});
