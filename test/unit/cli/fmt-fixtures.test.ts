// `regent fmt` against files in opa-fmt canonical form (test/fixtures/fmt/v1 and
// v0, written by hand after OPA's v1/format/format.go): `--list` prints nothing and
// formatting returns each file byte for byte. Messier inputs (fixtures/fmt/messy)
// format to the `.expected` file beside them, parse again, and a second pass changes
// nothing. Then the real-world corpus (../shared/rego-corpus, Rego v0): every file
// formats with --v0-compatible, a second pass is a no-op, and the formatted copies
// still pass the corpus checks (`check --v0-compatible`, also --strict) and every
// test of the baseline.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fmtCommand, formatSource, type FormatOptions } from '../../../cli/fmt.js';
import { parseModule } from '../../../compiler/index.js';
import { readBaseline, regressions, runCorpus, isClean } from '../../corpus/corpus.js';
import { repoRoot, sharedDir } from '../../shared-dir.js';

const FIXTURES = join(repoRoot, 'test', 'fixtures', 'fmt');
const OPTS: Record<'v1' | 'v0', FormatOptions> = { v1: {}, v0: { v0Compatible: true } };

function run(argv: string[]) {
  let out = '';
  let err = '';
  const code = fmtCommand(argv, { out: (s) => void (out += s), err: (s) => void (err += s), stdin: () => '' });
  return { code, out, err };
}

function regoFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...regoFiles(p));
    else if (e.name.endsWith('.rego')) out.push(p);
  }
  return out.sort();
}

describe.each(['v1', 'v0'] as const)('canonical %s fixtures', (version) => {
  const dir = join(FIXTURES, version);
  const flags = version === 'v0' ? ['--v0-compatible'] : [];
  const files = regoFiles(dir);

  it('has fixtures', () => expect(files.length).toBeGreaterThanOrEqual(4));

  it('regent fmt --list prints nothing, --fail passes', () => {
    expect(run([...flags, '--list', dir])).toEqual({ code: 0, out: '', err: '' });
    expect(run([...flags, '--fail', dir]).code).toBe(0);
  });

  it.each(files.map((f) => [relative(FIXTURES, f), f]))('%s formats to itself', (_name, file) => {
    const src = readFileSync(file, 'utf8');
    expect(formatSource(src, file, OPTS[version])).toBe(src);
  });
});

describe.each(['v1', 'v0'] as const)('messy %s inputs', (version) => {
  const files = regoFiles(join(FIXTURES, 'messy', version));

  it.each(files.map((f) => [relative(FIXTURES, f), f]))('%s formats to its .expected, idempotently', (_name, file) => {
    const once = formatSource(readFileSync(file, 'utf8'), file, OPTS[version]);
    expect(once).toBe(readFileSync(file + '.expected', 'utf8'));
    expect(formatSource(once, file, OPTS[version])).toBe(once);
    expect(() => parseModule(once, file, { v0Compatible: version === 'v0' })).not.toThrow();
  });

  it.each(files.filter(() => version === 'v0').map((f) => [relative(FIXTURES, f), f]))(
    '%s converts with --v0-v1 to v1 that formats to itself', (_name, file) => {
      const v1 = formatSource(readFileSync(file, 'utf8'), file, { v0v1: true });
      expect(v1).toContain('import rego.v1');
      expect(formatSource(v1, file)).toBe(v1);
    });
});

const corpus = join(sharedDir(), 'rego-corpus');

describe.skipIf(!existsSync(join(corpus, 'gatekeeper-library')))('the rego corpus formatted with --v0-compatible', () => {
  it('formats every file, idempotently, and the copies pass check and the tests', async () => {
    const out = mkdtempSync(join(tmpdir(), 'regent-fmt-corpus-'));
    const files = [
      ...regoFiles(join(corpus, 'gatekeeper-library', 'src')),
      ...regoFiles(join(corpus, 'regula', 'rego')),
    ];
    expect(files.length).toBeGreaterThan(800);
    const failures: string[] = [];
    for (const f of files) {
      try {
        const once = formatSource(readFileSync(f, 'utf8'), f, OPTS.v0);
        if (formatSource(once, f, OPTS.v0) !== once) failures.push(`${f}: not idempotent`);
        const copy = join(out, relative(corpus, f));
        mkdirSync(dirname(copy), { recursive: true });
        writeFileSync(copy, once);
      } catch (e) {
        failures.push(`${f}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    expect(run(['--v0-compatible', '--list', out])).toEqual({ code: 0, out: '', err: '' });
    const result = await runCorpus(out, { strict: true });
    for (const c of result.checks) expect(isClean(c), `${c.command}: ${c.out}${c.err}`).toBe(true);
    expect(regressions(result, readBaseline())).toEqual([]);
  }, 300_000);
});
