// `-s/--schema` with a directory, and `# METADATA` `schemas:` annotations, as OPA's
// type checker uses them (`opa eval/check -s DIR`):
//   - a schema file is the global input schema (every rule and the query);
//   - a directory gives no global input schema; each `.json` file in it (sub-folders
//     too) is named `schema.<path with dots>`: `schemas/kubernetes/pod.json` is
//     `schema.kubernetes.pod` (also written `schema["kubernetes"]["pod"]`);
//   - an annotation `schemas: [{input: schema.x}]` or `[{data.acl: schema.acl}]`, or an
//     inline definition `[{input: {"type": "object", …}}]`, types `input` or that `data`
//     document for the rules it covers: a rule's own (rule/document scope) annotations,
//     then its package's, then `subpackages` annotations of enclosing packages (the
//     closest wins);
//   - refs are then checked as cli/eval-schema.ts checks `input` refs (OPA's
//     `undefined ref` with have/want lines), a `data` ref from the position after the
//     annotated path, and a ref through a local bound to part of the input (`u :=
//     input.user; u.nmae`, `some c in input.containers; c.imagee`) against that part.
//     A schema name that is not in the directory is skipped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Annotation, Body, Expr, Module, RefTerm, Rule, Term } from '../compiler/ast/nodes.js';
import { walk, walkTerms } from '../compiler/ast/walk.js';
import { parseTerm } from '../compiler/parser/index.js';
import type { RegoError } from '../compiler/source/diagnostics.js';
import { checkInputRefs, checkRef, loadInputSchema, subSchema, type Schema } from './eval-schema.js';

export interface SchemaSet {
  /** The global input schema (`-s file`). */
  input?: Schema;
  /** Schemas of a `-s` directory by dotted name (`kubernetes.pod`). */
  named: Map<string, Schema>;
}

/** Load a `-s` path: a file is the input schema, a directory a set of named schemas. */
export function loadSchemaSet(path: string): SchemaSet {
  if (!statSync(path).isDirectory()) return { input: loadInputSchema(path), named: new Map() };
  const named = new Map<string, Schema>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.json')) {
        const key = relative(path, p).slice(0, -'.json'.length).split(sep).join('.');
        try {
          named.set(key, JSON.parse(readFileSync(p, 'utf8')) as Schema);
        } catch (e) {
          throw new Error(`unable to parse schema ${p}: ${(e as Error).message}`);
        }
      }
    }
  };
  walk(path);
  return { named };
}

/** `schema.a.b` / `schema["a"]["b"]` → `a.b`; undefined when it is not a schema ref. */
function schemaName(text: string): string | undefined {
  let t: Term;
  try {
    t = parseTerm(text);
  } catch {
    return undefined;
  }
  if (t.kind !== 'ref' || t.head.kind !== 'var' || t.head.name !== 'schema') return undefined;
  const parts: string[] = [];
  for (const p of t.path) {
    if (p.kind !== 'string') return undefined;
    parts.push(p.value);
  }
  return parts.join('.');
}

/** Target (`input`, `data.a.b`) → schema, from annotations in increasing precedence. */
function apply(set: SchemaSet, into: Map<string, Schema>, annotations: Annotation[]): void {
  for (const a of annotations) {
    for (const s of a.schemas ?? []) {
      const schema = s.definition !== undefined ? (s.definition as Schema) : typeof s.schema === 'string' ? set.named.get(schemaName(s.schema) ?? '') : undefined;
      if (schema && typeof schema === 'object') into.set(s.path.replace(/\s+/g, ''), schema);
    }
  }
}

function pkgOf(m: Module): string[] {
  return m.package.path.slice(1).map((t) => (t.kind === 'string' ? t.value : ''));
}

const isPrefix = (p: string[], of: string[]): boolean => p.length <= of.length && p.every((s, i) => s === of[i]);

/** The schemas in force for each rule of each module. */
function ruleSchemas(set: SchemaSet, modules: Module[], m: Module, r: Rule): Map<string, Schema> {
  const out = new Map<string, Schema>();
  if (set.input) out.set('input', set.input);
  const pkg = pkgOf(m);
  // subpackages of enclosing packages, outermost first; then this package; then the rule
  const outer = modules
    .flatMap((x) => x.annotations.filter((a) => a.scope === 'subpackages').map((a) => ({ a, p: pkgOf(x) })))
    .filter((e) => isPrefix(e.p, pkg))
    .sort((x, y) => x.p.length - y.p.length);
  apply(set, out, outer.map((e) => e.a));
  apply(set, out, modules.filter((x) => pkgOf(x).join('.') === pkg.join('.')).flatMap((x) => x.annotations.filter((a) => a.scope === 'package')));
  apply(set, out, r.annotations ?? []);
  return out;
}

const isInput = (t: Term): t is RefTerm => t.kind === 'ref' && t.head.kind === 'var' && t.head.name === 'input';

/**
 * Local variables a rule binds to part of `input` (`x := input.user`, `x = input.user`,
 * `some x in input.items`), with the schema of that part, as OPA's checker types them.
 */
function inputVars(input: Schema, r: Rule): Map<string, Schema> {
  const out = new Map<string, Schema>();
  const bind = (v: Term, path: Term[] | undefined): void => {
    if (v.kind !== 'var' || v.name.startsWith('_') || !path) return;
    const s = subSchema(input, path);
    if (s) out.set(v.name, s);
  };
  for (let rule: Rule | undefined = r; rule; rule = rule.else) {
    walk(rule.body, (n) => {
      const b = (n as Expr).body;
      if (!b || typeof b !== 'object' || !('type' in b)) return;
      if (b.type === 'term' && b.term.kind === 'call' && b.term.op.kind === 'var' && (b.term.op.name === 'assign' || b.term.op.name === 'eq') && b.term.args.length === 2) {
        const [l, rt] = b.term.args as [Term, Term];
        if (isInput(rt)) bind(l, rt.path);
        else if (b.term.op.name === 'eq' && isInput(l)) bind(rt, l.path);
      } else if (b.type === 'somein' && isInput(b.collection)) {
        bind(b.value, [...b.collection.path, { kind: 'var', name: '_', loc: b.collection.loc }]);
      }
    });
  }
  return out;
}

/** Check the refs of one node against the schemas in force. */
function checkNode(schemas: Map<string, Schema>, node: Rule | Body, errors: RegoError[]): void {
  const input = schemas.get('input');
  if (input) checkInputRefs(input, node, errors);
  const vars = input && !Array.isArray(node) ? inputVars(input, node as Rule) : new Map<string, Schema>();
  if (vars.size > 0) {
    walkTerms(node, (t) => {
      if (t.kind !== 'ref' || t.head.kind !== 'var' || t.path.length === 0) return;
      const s = vars.get(t.head.name);
      const err = s ? checkRef(s, t) : undefined;
      if (err) errors.push(err);
    });
  }
  const data = [...schemas].filter(([k]) => k.startsWith('data.')).map(([k, s]) => ({ path: k.split('.').slice(1), s }));
  if (data.length === 0) return;
  walkTerms(node, (t) => {
    if (t.kind !== 'ref' || t.head.kind !== 'var' || t.head.name !== 'data') return;
    let best: { path: string[]; s: Schema } | undefined;
    for (const d of data) {
      const matches = d.path.length <= t.path.length && d.path.every((seg, i) => t.path[i]!.kind === 'string' && (t.path[i] as { value: string }).value === seg);
      if (matches && (!best || d.path.length > best.path.length)) best = d;
    }
    if (!best) return;
    const err = checkRef(best.s, t, best.path.length);
    if (err) errors.push(err);
  });
}

/** `-s` checks for modules and a query: the global input schema and the annotations' schemas. */
export function checkSchemaSet(set: SchemaSet, modules: Module[], query?: Body): RegoError[] {
  const errors: RegoError[] = [];
  for (const m of modules) {
    if (set.input) for (const i of m.imports) checkInputRefs(set.input, i.path, errors);
    for (const r of m.rules) checkNode(ruleSchemas(set, modules, m, r), r, errors);
  }
  if (query && set.input) checkInputRefs(set.input, query, errors);
  return errors;
}
