// The CLI's single-file build (cli/build-bundle.mjs): built here into a directory
// of its own beside dist/bundle, then run as bin/regent.js runs it. Checks that
// every `import.meta.url` in the output was rewritten to a module's place in dist/,
// that commands reaching files through it work (package.json, the x509 decoder with
// exact big serial numbers, packages required on first use, the Wasm runtime) and
// print what dist/cli/main.js prints, and that the x509 decoder (loaded from dist/
// beside the bundle's copy of the runtime) imports nothing of the runtime.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distIsCurrent } from '../../../bench/dist-freshness.js';
import { Pki } from '../../server/certs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dist = join(root, 'dist');
const outdir = join(dist, `bundle-check-${process.pid}`);
const RUN = 'const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2));';

/** Run the CLI from `entry` (a module exporting main) as a process: [exit code, stdout]. */
function regent(entry: string, args: string[]): [number, string] {
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', RUN, pathToFileURL(entry).href, ...args], { cwd: root, encoding: 'utf8' });
  return [p.status ?? -1, p.stdout + p.stderr];
}

let pki: Pki;

beforeAll(async () => {
  // dist/ is built by `npm ci` (the prepare script); rebuild it when a source is newer
  if (!distIsCurrent('cli/main.js', ['cli', 'compiler', 'runtime', 'server'])) execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root });
  const { buildBundle } = (await import(pathToFileURL(join(root, 'cli', 'build-bundle.mjs')).href)) as { buildBundle(dir: string): Promise<void> };
  await buildBundle(outdir);
  pki = new Pki();
}, 300_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
  pki?.cleanup();
});

describe('the single-file CLI build', () => {
  it('rewrites every import.meta.url to a module that exists in dist/', () => {
    const files = readdirSync(outdir).filter((f) => f.endsWith('.js'));
    expect(files).toContain('regent.js');
    let uses = 0;
    for (const f of files) {
      const text = readFileSync(join(outdir, f), 'utf8');
      const all = text.split('import.meta.url').length - 1;
      const rewritten = [...text.matchAll(/new URL\("([^"]+)",\s*import\.meta\.url\)/g)];
      expect(rewritten.length, f).toBe(all);
      for (const [, rel] of rewritten) expect(existsSync(resolve(outdir, rel!)), `${f}: ${rel}`).toBe(true);
      uses += all;
    }
    expect(uses).toBeGreaterThanOrEqual(10); // workers, Wasm runtime, migrations, dashboard, x509, packages, version
  });

  it('prints the version from package.json', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(regent(join(outdir, 'regent.js'), ['version'])).toEqual([0, expect.stringContaining(`Version: ${pkg.version}`)]);
  });

  it('decodes certificates through the lazily loaded x509 decoder, big serials exact, as dist/ does', () => {
    const ca = pki.ca('/CN=Bundle CA');
    const leaf = pki.issue(ca, '/CN=leaf', { serial: '0x123456789ABCDEF0123456789' });
    const query = `[c.SerialNumber | some c in crypto.x509.parse_certificates(${JSON.stringify(leaf.certPem + ca.certPem)})]`;
    const [code, out] = regent(join(outdir, 'regent.js'), ['eval', '--format', 'raw', query]);
    expect([code, out.trim()]).toEqual([0, `[${BigInt('0x123456789ABCDEF0123456789')},${readSerial(ca.certPem)}]`]);
    expect(regent(join(dist, 'cli', 'main.js'), ['eval', query])).toEqual(regent(join(outdir, 'regent.js'), ['eval', query]));
  });

  it('requires packages on first use (regex, CIDR, JSON Schema, GraphQL) as dist/ does', () => {
    const query = [
      'regex.match(`^a+b$`, "aaab")',
      'net.cidr_contains("10.0.0.0/8", "10.1.2.3")',
      'json.match_schema({"n": 1}, {"type": "object", "properties": {"n": {"type": "string"}}})',
      'graphql.is_valid("{ a }", "type Query { a: Int }")',
    ].join(', ');
    const [code, out] = regent(join(outdir, 'regent.js'), ['eval', '--format', 'raw', `[${query}]`]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([true, true, [false, [expect.objectContaining({ field: 'n', type: 'invalid_type' })]], true]);
    expect(regent(join(dist, 'cli', 'main.js'), ['eval', `[${query}]`])).toEqual(regent(join(outdir, 'regent.js'), ['eval', `[${query}]`]));
  });

  it('evaluates on the Wasm target (the runtime module found beside the linker in dist/)', () => {
    const value = (target: string): unknown => {
      const args = ['eval', '-t', target, '-d', join(root, 'examples', 'rbac'), '-i', join(root, 'examples', 'rbac.input.json'), 'data.rbac'];
      const [code, out] = regent(join(outdir, 'regent.js'), args);
      expect(code, out).toBe(0);
      return JSON.parse(out).result[0].expressions[0].value;
    };
    const wasm = value('wasm');
    expect(wasm).toHaveProperty('allow', false);
    expect(wasm).toEqual(value('rego'));
  }, 60_000);
});

describe('runtime/x509/decode.ts', () => {
  it('imports nothing of the runtime outside runtime/x509', () => {
    const x509Dir = join(root, 'runtime', 'x509');
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
        if (spec!.startsWith('.')) {
          const target = resolve(dirname(file), spec!.replace(/\.js$/, '.ts'));
          expect(dirname(target), `${file} imports ${spec}`).toBe(x509Dir);
          visit(target);
        } else expect(spec, file).toMatch(/^(node:|@peculiar\/)/);
      }
    };
    visit(join(x509Dir, 'decode.ts'));
    expect(seen.size).toBeGreaterThanOrEqual(5);
  });
});

/** A certificate's serial number as openssl prints it. */
function readSerial(pem: string): string {
  const hex = execFileSync('openssl', ['x509', '-noout', '-serial'], { input: pem, encoding: 'utf8' }).trim().replace(/^serial=/, '');
  return BigInt('0x' + hex).toString();
}
