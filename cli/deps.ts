// `regent deps [-d PATH …] [-b BUNDLE …] [--ignore GLOB] [--format pretty|json] <query>`:
// the base and virtual documents a query depends on, as `opa deps` (OPA's
// v1/dependencies Base and Virtual) reports them. The policies are compiled (refs
// resolved: imports, rule names → data.pkg.rule), then from the query:
//   - every ref rooted at `data` or `input` is collected, refs through local
//     variables bound by `x := ref` / `x = ref` are expanded (`x.b` → `input.a.b`),
//     and each is cut at its first non-constant segment (data.a[x] → data.a);
//   - the list is minimised (a ref with a collected prefix is dropped);
//   - a data ref that names rules (rules at, above or below it) is a virtual
//     document: the rules' package plus ground head-ref prefix are listed and their
//     bodies followed; any other ref is a base document.
// Output, sorted as OPA sorts refs: pretty is one table with BASE DOCUMENTS and/or
// VIRTUAL DOCUMENTS columns (nothing when both are empty); json is
// {"base": [ref terms…], "virtual": [ref terms…]} with empty lists left out.
import type { Body, Module, RefTerm, Rule, Term } from '../compiler/ast/nodes.js';
import { walkTerms } from '../compiler/ast/walk.js';
import { formatTerm } from '../compiler/ast/print.js';
import { compile, parseQuery } from '../compiler/index.js';
import { resolveQuery } from '../compiler/policy.js';
import { rulePath } from '../compiler/passes/annotation-set.js';
import { packagePath } from '../compiler/passes/pass.js';
import { termToJSON } from '../compiler/ast/opa-json.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { findRegoFiles, loadAll } from './loader.js';
import { errorsText, table, toJSON, toOutputErrors, type IO } from './output.js';

export const DEPS_FLAGS: FlagSpec[] = [
  { name: 'data', short: 'd', type: 'string', repeatable: true, metavar: 'PATH', description: 'set policy or data file(s). This flag can be repeated.' },
  { name: 'bundle', short: 'b', type: 'string', repeatable: true, metavar: 'PATH', description: 'set bundle file(s) or directory path(s). This flag can be repeated.' },
  { name: 'ignore', type: 'string', repeatable: true, metavar: 'GLOB', description: 'set file and directory names to ignore during loading (e.g., \'.*\' excludes hidden files)' },
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json'], default: 'pretty', description: 'set output format' },
  { name: 'v0-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors prior to the OPA v1.0 release' },
  { name: 'v1-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors that are enabled by default in OPA v1.0' },
  { name: 'help', short: 'h', type: 'boolean', description: 'help for deps' },
];

const USAGE = 'regent deps <query> [flags]';
const DESCRIPTION = `Print dependencies of provided query.

Dependencies are categorized as either base documents, which is any data loaded
from the outside world, or virtual documents, i.e values that are computed from rules.

    $ regent deps --data policy.rego data.policy.allow`;

/** A constant ref: head name and ground path terms. */
type Ref = Term[];

const GROUND = new Set(['string', 'number', 'boolean', 'null']);

function refOf(t: RefTerm): Ref {
  return [t.head, ...t.path];
}

/** OPA's Ref.ConstantPrefix: up to the first non-constant segment. */
function constantPrefix(r: Ref): Ref {
  const out: Ref = [r[0]!];
  for (const t of r.slice(1)) {
    if (!GROUND.has(t.kind)) break;
    out.push(t);
  }
  return out;
}

const headName = (r: Ref): string => (r[0]!.kind === 'var' ? r[0]!.name : '');
const segText = (t: Term): string => (t.kind === 'string' ? t.value : t.kind === 'var' ? t.name : formatTerm(t));

function termRank(t: Term): number {
  return { null: 0, boolean: 1, number: 2, string: 3, var: 4, ref: 5 }[t.kind as string] ?? 6;
}

/** OPA's RefCompare on constant refs. */
export function compareRefs(a: Ref, b: Ref): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    const r = termRank(x) - termRank(y);
    if (r !== 0) return r;
    if (x.kind === 'number' && y.kind === 'number') {
      const d = Number(x.text) - Number(y.text);
      if (d !== 0) return d;
      continue;
    }
    const sx = segText(x);
    const sy = segText(y);
    if (sx !== sy) return sx < sy ? -1 : 1;
  }
  return a.length - b.length;
}

const key = (r: Ref): string => formatRef(r);
const hasPrefix = (r: Ref, p: Ref): boolean => p.length <= r.length && p.every((t, i) => compareRefs([t], [r[i]!]) === 0);

function dedup(refs: Ref[]): Ref[] {
  const sorted = [...refs].sort(compareRefs);
  return sorted.filter((r, i) => i === 0 || compareRefs(sorted[i - 1]!, r) !== 0);
}

/** Refs of a body or rule rooted at data/input, local variables bound to refs expanded. */
function allRefs(nodes: (Body | Rule)[]): Ref[] {
  const bound = new Map<string, Ref[]>();
  const raw: Ref[] = [];
  const visit = (n: Body | Rule) =>
    walkTerms(n as never, (t: Term) => {
      if (t.kind === 'call' && t.op.kind === 'var' && ['assign', 'eq', 'unify'].includes(t.op.name)) {
        const [l, r] = t.args;
        if (l?.kind === 'var' && r?.kind === 'ref') bound.set(l.name, [...(bound.get(l.name) ?? []), refOf(r)]);
        else if (r?.kind === 'var' && l?.kind === 'ref') bound.set(r.name, [...(bound.get(r.name) ?? []), refOf(l)]);
      }
      if (t.kind === 'ref') raw.push(refOf(t));
    });
  for (const n of nodes) visit(n);
  const expand = (r: Ref, depth = 0): Ref[] => {
    const h = headName(r);
    if (h === 'data' || h === 'input') return [r];
    if (depth > 20) return [];
    return (bound.get(h) ?? []).flatMap((b) => expand([...b, ...r.slice(1)], depth + 1));
  };
  return dedup(raw.flatMap((r) => expand(r)).map(constantPrefix));
}

/** OPA's Minimal: drop refs whose prefix is already in the sorted list. */
function minimal(refs: Ref[]): Ref[] {
  const out: Ref[] = [];
  for (const r of refs) if (out.length === 0 || !hasPrefix(r, out[out.length - 1]!)) out.push(r);
  return out;
}

interface IndexedRule {
  rule: Rule;
  /** Package and ground head prefix, without `data`. */
  path: string[];
  /** `data.pkg.rule` as a ref. */
  ref: Ref;
}

function indexRules(modules: Module[]): IndexedRule[] {
  const out: IndexedRule[] = [];
  for (const m of modules) {
    const pkg = packagePath(m);
    for (const rule of m.rules) {
      const path = rulePath(pkg, rule);
      const loc = rule.loc;
      out.push({ rule, path, ref: [{ kind: 'var', name: 'data', loc }, ...path.map((value): Term => ({ kind: 'string', value, loc }))] });
    }
  }
  return out;
}

/** OPA's compiler.GetRules: rules at, above (a prefix of) or below the ref. */
function getRules(rules: IndexedRule[], r: Ref): IndexedRule[] {
  if (headName(r) !== 'data') return [];
  const segs = r.slice(1).map(segText);
  const prefix = (a: string[], b: string[]) => a.length <= b.length && a.every((s, i) => s === b[i]);
  return rules.filter((x) => prefix(x.path, segs) || prefix(segs, x.path));
}

export interface Dependencies {
  base: Ref[];
  virtual: Ref[];
}

/** Base and virtual documents of a parsed, resolved query against compiled modules. */
export function dependencies(modules: Module[], query: Body): Dependencies {
  const rules = indexRules(modules);
  const base = new Map<string, Ref>();
  const virtual = new Map<string, Ref>();
  const visited = new Set<Rule>();
  const follow = (nodes: (Body | Rule)[]): void => {
    for (const r of minimal(allRefs(nodes))) {
      const matched = getRules(rules, r);
      if (matched.length === 0) {
        base.set(key(r), r);
        continue;
      }
      for (const m of matched) {
        if (visited.has(m.rule)) continue;
        visited.add(m.rule);
        follow([m.rule]);
        virtual.set(key(m.ref), m.ref);
      }
    }
  };
  follow([query]);
  return { base: dedup([...base.values()]), virtual: dedup([...virtual.values()]) };
}

export function formatRef(r: Ref): string {
  return formatTerm({ kind: 'ref', head: r[0]!, path: r.slice(1), loc: r[0]!.loc });
}

/** OPA's DepAnalysisOutput.Pretty. */
export function depsPretty(d: Dependencies): string {
  const b = d.base.map(formatRef);
  const v = d.virtual.map(formatRef);
  if (b.length > 0 && v.length > 0) {
    const n = Math.max(b.length, v.length);
    return table(['BASE DOCUMENTS', 'VIRTUAL DOCUMENTS'], Array.from({ length: n }, (_, i) => [b[i] ?? '', v[i] ?? '']));
  }
  if (b.length > 0) return table(['BASE DOCUMENTS'], b.map((x) => [x]));
  if (v.length > 0) return table(['VIRTUAL DOCUMENTS'], v.map((x) => [x]));
  return '';
}

/** OPA's DepAnalysisOutput JSON (`base`/`virtual` omitted when empty). */
export function depsJSON(d: Dependencies): Record<string, unknown> {
  const refJSON = (r: Ref) => r.map((t) => termToJSON(t));
  return { ...(d.base.length ? { base: d.base.map(refJSON) } : {}), ...(d.virtual.length ? { virtual: d.virtual.map(refJSON) } : {}) };
}

/** The `deps` command. */
export async function depsCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, DEPS_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, DEPS_FLAGS) + '\n');
      return 0;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, DEPS_FLAGS));
  }
  if (args.positionals.length !== 1) {
    io.err(`Error: specify exactly one query argument\n`);
    return 1;
  }
  const v0 = bool(args, 'v0-compatible');
  try {
    const ignore = list(args, 'ignore');
    let data = list(args, 'data');
    if (ignore.length > 0) {
      // Directories are expanded to their .rego files so the globs apply (policies only matter here).
      data = findRegoFiles(data.filter((p) => !p.endsWith('.tar.gz')), ignore).concat(data.filter((p) => p.endsWith('.tar.gz')));
    }
    const loaded = await loadAll(data, list(args, 'bundle'), { v0Compatible: v0 });
    const policy = compile(loaded.modules, { v0Compatible: v0 || loaded.v0 });
    const query = resolveQuery(parseQuery(args.positionals[0]!, '', { v0Compatible: v0 }));
    const d = dependencies(policy.modules, query);
    io.out(str(args, 'format') === 'json' ? toJSON(depsJSON(d)) + '\n' : depsPretty(d));
    return 0;
  } catch (e) {
    io.err(errorsText(toOutputErrors(e)) + '\n');
    return 1;
  }
}
