// Every module, query and input_term in OPA's v1 conformance suite must parse, and
// printing must be a fixed point: print(parse(print(parse(m)))) === print(parse(m)).
import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { formatModule } from '../../../compiler/ast/print.js';
import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';

const ROOT = '/work/shared/opa-conformance/v1';

interface Case { note: string; modules?: string[]; query?: string; input_term?: string }

function loadCases(): Case[] {
  if (!existsSync(ROOT)) return [];
  const out: Case[] = [];
  for (const dir of readdirSync(ROOT).sort()) {
    for (const f of readdirSync(`${ROOT}/${dir}`).sort()) {
      if (!f.endsWith('.yaml')) continue;
      const doc = load(readFileSync(`${ROOT}/${dir}/${f}`, 'utf8')) as { cases?: Case[] };
      out.push(...(doc.cases ?? []));
    }
  }
  return out;
}

const cases = loadCases();

describe.skipIf(cases.length === 0)('OPA conformance corpus', () => {
  it('parses every module and prints it idempotently', () => {
    const failures: string[] = [];
    let modules = 0;
    for (const c of cases) {
      (c.modules ?? []).forEach((src, i) => {
        modules++;
        try {
          const m = parseModule(src, `${c.note}#${i}`);
          const p1 = formatModule(m);
          const p2 = formatModule(parseModule(p1, 'printed.rego'));
          if (p1 !== p2) failures.push(`${c.note}#${i}: printer not idempotent`);
        } catch (e) {
          failures.push(`${c.note}#${i}: ${String((e as Error).message)}`);
        }
      });
    }
    expect(modules).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  });

  it('parses every query and input_term', () => {
    const failures: string[] = [];
    for (const c of cases) {
      try {
        if (c.query) parseQuery(c.query);
        if (c.input_term) parseTerm(c.input_term);
      } catch (e) {
        failures.push(`${c.note}: ${String((e as Error).message)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
