// Coverage for `regent test --coverage`: OPA's cover.Report computed from trace
// events. The Exit of a rule covers its head line, the Eval of an expression its
// line; every rule and expression of the loaded modules that was not hit is
// reported as not covered. Line ranges merge consecutive rows, as OPA prints them.
import type { Module, Rule } from '../compiler/ast/nodes.js';
import type { TraceEvent } from '../compiler/index.js';

interface Range {
  start: { row: number };
  end: { row: number };
}

interface FileReport {
  covered?: Range[];
  not_covered?: Range[];
  covered_lines?: number;
  not_covered_lines?: number;
  coverage?: number;
}

export interface CoverageReport {
  files: Record<string, FileReport>;
  covered_lines: number;
  not_covered_lines: number;
  coverage: number;
}

/** OPA's cover.Report from trace events: rule heads hit by Exit, expressions by Eval. */
export function coverageReport(modules: Module[], events: TraceEvent[]): CoverageReport {
  const hits = new Map<string, Set<number>>();
  const hit = (file: string, row: number) => {
    if (!file) return;
    if (!hits.has(file)) hits.set(file, new Set());
    hits.get(file)!.add(row);
  };
  for (const e of events) {
    if (e.op === 'Exit' && e.node?.type === 'rule') hit(e.node.node.head.loc.file, e.node.node.head.loc.row);
    else if (e.op === 'Eval' && e.node?.type === 'expr') hit(e.node.node.loc.file, e.node.node.loc.row);
  }
  const files = new Map<string, FileReport>();
  for (const [file, rows] of hits) files.set(file, { covered: ranges([...rows]) });
  const isCovered = (file: string, row: number) => (files.get(file)?.covered ?? []).some((r) => row >= r.start.row && row <= r.end.row);
  for (const m of modules) {
    if (!m.file) continue;
    const notCovered: number[] = [];
    // Every rule (else branches too) and every expression, nested ones included.
    const visit = (x: unknown): void => {
      if (x === null || typeof x !== 'object') return;
      if (Array.isArray(x)) return x.forEach(visit);
      const n = x as { kind?: string } & Record<string, unknown>;
      if (n.kind === 'rule') {
        const r = n as unknown as Rule;
        if (!isCovered(r.loc.file, r.loc.row)) notCovered.push(r.head.loc.row);
      } else if (n.kind === 'expr') {
        const e = n as unknown as Module['rules'][number]['body'][number];
        if (e.body.type !== 'some' && !isCovered(e.loc.file, e.loc.row)) notCovered.push(e.loc.row);
      }
      for (const [k, v] of Object.entries(n)) if (k !== 'loc' && k !== 'annotations') visit(v);
    };
    visit(m.rules);
    const fr = files.get(m.file) ?? {};
    const nc = ranges(notCovered);
    if (nc.length) fr.not_covered = nc;
    files.set(m.file, fr);
  }
  let covered = 0;
  let notCovered = 0;
  const out: CoverageReport = { files: {}, covered_lines: 0, not_covered_lines: 0, coverage: 0 };
  for (const file of [...files.keys()].sort()) {
    const fr = files.get(file)!;
    const c = lines(fr.covered);
    const n = lines(fr.not_covered);
    if (c) fr.covered_lines = c;
    if (n) fr.not_covered_lines = n;
    if (c + n) fr.coverage = (100 * c) / (c + n);
    if (fr.coverage === 0) delete fr.coverage;
    covered += c;
    notCovered += n;
    out.files[file] = fr;
  }
  out.covered_lines = covered;
  out.not_covered_lines = notCovered;
  out.coverage = covered + notCovered ? (100 * covered) / (covered + notCovered) : 0;
  return out;
}

function ranges(rows: number[]): Range[] {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const out: Range[] = [];
  for (const row of sorted) {
    const last = out[out.length - 1];
    if (last && row === last.end.row + 1) last.end = { row };
    else out.push({ start: { row }, end: { row } });
  }
  return out;
}

function lines(rs: Range[] | undefined): number {
  return (rs ?? []).reduce((n, r) => n + r.end.row - r.start.row + 1, 0);
}
