// `regent control-plane build`: builds every bundle of a configuration once,
// pushes it, prints progress and a summary, and exits non-zero on any failure.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlPlaneBuildCommand } from '../../cli/control-plane-build.js';
import { readBack, tempDir, writeFiles } from './helpers.js';
import { readFile } from 'node:fs/promises';

let dir: string;
let cleanup: () => Promise<void>;

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) }, out, err };
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('regent-cli-'));
  await writeFiles(dir, {
    'rules/rules.rego': 'package rules\nimport rego.v1\nallow if input.ok\n',
    'rules/common/data.json': '{"common": true}',
    'bad/bad.rego': 'package bad\nimport rego.v1\nallow if {\n',
    'ok.yaml': [
      'sources:',
      `  rules: {directory: ${join(dir, 'rules')}, paths: ["**/*.rego", "**/*.json"]}`,
      'bundles:',
      `  good: {requirements: [{source: rules}], object_storage: {filesystem: {path: ${join(dir, 'out/good.tar.gz')}}}}`,
    ].join('\n'),
    'bad.yaml': [
      'sources:',
      `  bad: {directory: ${join(dir, 'bad')}, paths: ["*.rego"]}`,
      'bundles:',
      `  broken: {requirements: [{source: bad}], object_storage: {filesystem: {path: ${join(dir, 'out/broken.tar.gz')}}}}`,
    ].join('\n'),
  });
});
afterAll(() => cleanup());

describe('regent control-plane build', () => {
  it('builds and pushes every bundle; exit 0', async () => {
    const t = io();
    expect(await controlPlaneBuildCommand(['-c', join(dir, 'ok.yaml'), '--data-dir', join(dir, 'data')], t.io)).toBe(0);
    expect(t.err.join('')).toBe('1/1 bundles built and pushed successfully\n');
    const rb = await readBack(await readFile(join(dir, 'out/good.tar.gz')));
    expect(rb.data).toEqual({ common: { common: true } });
    expect(rb.bundle.manifest.roots).toEqual(['rules', 'common']);
  });

  it('a failing bundle makes the exit code 1 and is listed in the summary', async () => {
    const t = io();
    const code = await controlPlaneBuildCommand(['-c', join(dir, 'ok.yaml'), '-c', join(dir, 'bad.yaml'), '-d', join(dir, 'data')], t.io);
    expect(code).toBe(1);
    const text = t.err.join('');
    expect(text).toMatch(/^1\/2 bundles built and pushed successfully\n┌/);
    expect(text).toMatch(/│ broken │ BUILD_FAILED │ source bad find roots: 1 error occurred: bad\.rego:4: rego_parse_error: /);
    expect(existsSync(join(dir, 'out/broken.tar.gz'))).toBe(false);
  });

  it('-b selects bundles; --non-interactive is silent on success', async () => {
    const t = io();
    expect(await controlPlaneBuildCommand(['-c', join(dir, 'ok.yaml'), '-c', join(dir, 'bad.yaml'), '-b', 'good', '--non-interactive', '-d', join(dir, 'data')], t.io)).toBe(0);
    expect(t.err.join('') + t.out.join('')).toBe('');
  });

  it('configuration errors exit 1', async () => {
    const t = io();
    expect(await controlPlaneBuildCommand(['-c', join(dir, 'missing.yaml'), '-d', join(dir, 'data')], t.io)).toBe(1);
    expect(t.err.join('')).toMatch(/^configuration file .*missing\.yaml: /);
    expect(await controlPlaneBuildCommand(['--bogus'], io().io)).toBe(2);
  });
});
