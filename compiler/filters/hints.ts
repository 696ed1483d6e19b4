// Typo hints of the filters API (OPA's server/failtracer): when a rule compares a
// ref under `input` whose first segment is neither in the known input nor an
// unknown, but is close (Levenshtein distance below 3) to an unknown's table name,
// the reply carries
//   {"location": <expression>, "message": "input.fruit.cost undefined, did you mean input.fruits.cost?"}
// OPA collects the expressions that failed while partially evaluating; this looks
// at the same expressions statically: the comparisons in the rules the query
// reaches (the rules at its path, then every rule or function they refer to),
// which, with the input known, fail exactly when such a ref is undefined.
import type { Body, Expr, Module, RefTerm, Rule, Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { rulePath } from '../passes/annotation-set.js';
import { packagePath } from '../passes/pass.js';
import { RObject, type Value } from '../../runtime/value/value.js';
import { exprCall, refRootedAt, refSegments, refText } from './term-text.js';

export interface Hint {
  location?: Location;
  message: string;
}

const MAX_DISTANCE = 3;

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The candidates closest to `miss`, when below the maximum distance. */
function closest(miss: string, candidates: string[]): string[] {
  let best = MAX_DISTANCE;
  let out: string[] = [];
  for (const c of candidates) {
    const d = levenshtein(miss, c);
    if (d < best) {
      best = d;
      out = [c];
    } else if (d === best && d < MAX_DISTANCE && !out.includes(c)) out.push(c);
  }
  return out;
}

/** Rules reachable from the rules at `path` (by refs and calls into data). */
export function reachableRules(modules: readonly Module[], path: string[]): Rule[] {
  const byPath = new Map<string, Rule[]>();
  for (const m of modules) {
    const pkg = packagePath(m);
    for (const r of m.rules) {
      const k = rulePath(pkg, r).join('.');
      byPath.set(k, [...(byPath.get(k) ?? []), r]);
    }
  }
  const seen = new Set<string>();
  const out: Rule[] = [];
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const r of byPath.get(key) ?? []) {
      for (let x: Rule | undefined = r; x; x = x.else) {
        out.push(x);
        walkBody(x.body, (t) => {
          if (t.kind === 'ref' && refRootedAt(t, 'data')) {
            const segs = refSegments(t);
            if (!segs) return;
            for (let n = segs.length; n > 0; n--) if (byPath.has(segs.slice(0, n).join('.'))) visit(segs.slice(0, n).join('.'));
          }
        });
      }
    }
  };
  visit(path.join('.'));
  return out;
}

function walkBody(body: Body, fn: (t: Term) => void): void {
  for (const e of body) {
    const b = e.body;
    if (b.type === 'term') walkTerm(b.term, fn);
    else if (b.type === 'somein') walkTerm(b.collection, fn);
    else if (b.type === 'every') {
      walkTerm(b.domain, fn);
      walkBody(b.body, fn);
    }
  }
}

function walkTerm(t: Term, fn: (t: Term) => void): void {
  fn(t);
  switch (t.kind) {
    case 'ref': walkTerm(t.head, fn); t.path.forEach((p) => walkTerm(p, fn)); break;
    case 'call': walkTerm(t.op, fn); t.args.forEach((a) => walkTerm(a, fn)); break;
    case 'array': case 'set': t.items.forEach((x) => walkTerm(x, fn)); break;
    case 'object': t.entries.forEach(([k, v]) => { walkTerm(k, fn); walkTerm(v, fn); }); break;
    default: break;
  }
}

/** A comparison that reads `input.X…`: where a typo of an unknown shows. */
export interface HintSite {
  ref: RefTerm;
  location: Location;
}

/** The sites of the rules the query at `path` reaches (cache per policy). */
export function hintSites(modules: readonly Module[], path: string[]): HintSite[] {
  const out: HintSite[] = [];
  for (const rule of reachableRules(modules, path)) {
    for (const e of rule.body) {
      const ref = inputOperand(e);
      if (ref && ref.path[0]?.kind === 'string') out.push({ ref, location: e.loc });
    }
  }
  return out;
}

/** Hints for the known input and the unknowns (`input.fruits`). */
export function typoHints(sites: HintSite[], input: Value | undefined, unknowns: string[]): Hint[] {
  const candidates = unknowns.filter((u) => u.startsWith('input.')).map((u) => u.slice('input.'.length).split(/[.[]/)[0]!).filter((s) => s !== '');
  if (candidates.length === 0 || sites.length === 0) return [];
  const known = input instanceof RObject ? input : undefined;
  const hints: Hint[] = [];
  const seen = new Set<string>();
  for (const { ref, location } of sites) {
    const first = ref.path[0]!;
    const miss = (first as { value: string }).value;
    if (candidates.includes(miss) || known?.get(miss) !== undefined) continue;
    const text = refText(ref);
    if (seen.has(text)) continue;
    const proposals = closest(miss, candidates).map((c) => refText({ ...ref, path: [{ kind: 'string', value: c, loc: first.loc }, ...ref.path.slice(1)] }));
    if (proposals.length === 0) continue;
    const message = proposals.length === 1 ? `${text} undefined, did you mean ${proposals[0]}?` : `${text} undefined, did you mean any of [${proposals.join(' ')}]?`;
    hints.push({ location, message });
    seen.add(text);
  }
  return hints;
}

/** The last `input.X…` operand (two or more segments) of a call expression. */
function inputOperand(e: Expr): RefTerm | undefined {
  const call = exprCall(e);
  if (!call) return undefined;
  let found: RefTerm | undefined;
  for (const a of call.args) if (a.kind === 'ref' && refRootedAt(a, 'input') && a.path.length >= 2) found = a;
  return found;
}
