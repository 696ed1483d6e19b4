// Seed inputs for the fuzzer: every module, query and input term of OPA's
// compliance suite and our own cases (v1 syntax), and every .rego file of the
// real-world corpus (../shared/rego-corpus, v0 syntax). Duplicates are dropped.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from '../conformance/load.js';
import { sharedDir } from '../shared-dir.js';
import type { FuzzInput } from './target.js';

function regoFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) regoFiles(p, out);
    else if (name.endsWith('.rego')) out.push(p);
  }
  return out;
}

export interface Seeds {
  inputs: FuzzInput[];
  /** Counts by origin, for the report. */
  conformance: number;
  corpus: number;
}

export function loadSeeds(): Seeds {
  const seen = new Set<string>();
  const inputs: FuzzInput[] = [];
  const add = (input: FuzzInput): boolean => {
    const key = `${input.kind}:${input.v0 ? 0 : 1}:${input.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    inputs.push(input);
    return true;
  };
  let conformance = 0;
  for (const c of loadAll().cases) {
    for (const m of c.modules ?? []) if (add({ kind: 'module', text: m, v0: false })) conformance++;
    if (add({ kind: 'query', text: c.query, v0: false })) conformance++;
    if (c.input_term && add({ kind: 'term', text: c.input_term, v0: false })) conformance++;
  }
  let corpus = 0;
  for (const f of regoFiles(join(sharedDir(), 'rego-corpus'))) {
    if (add({ kind: 'module', text: readFileSync(f, 'utf8'), v0: true })) corpus++;
  }
  return { inputs, conformance, corpus };
}
