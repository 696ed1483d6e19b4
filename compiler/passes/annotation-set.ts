// The annotation set of a program (OPA's ast.AnnotationSet): every METADATA block
// the parser attached (parser/annotations.ts), indexed the way rego.metadata.chain()
// and rego.metadata.rule() read it:
//   rule scope        → by rule (the rule statement the block sits above)
//   document scope    → by the rule's path (shared by all definitions of that path)
//   package scope     → by package path (shared by all modules of the package)
//   subpackages scope → by package path, seen by that package and all below it
// As in OPA, document and subpackages annotations share one path-keyed index, and a
// second package, document or subpackages annotation for a path is an error
// (`<scope> annotation redeclared: <file:row>`). Values are built as OPA's
// Annotations.toObject renders them: `scope` always, empty fields left out, refs
// (schema paths) as arrays of strings. Paths drop the leading `data`.
import type { Annotation, Module, Rule, Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { RegoError } from '../source/diagnostics.js';
import { parseTerm } from '../parser/index.js';
import { packagePath } from './pass.js';

/** A JSON-like value (what the pass turns into constant terms). */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Entry {
  a: Annotation;
  /** Target path without `data`: the package, or the rule's ground prefix. */
  path: string[];
}

const key = (path: string[]): string => JSON.stringify(path);

export class AnnotationSet {
  private readonly byRule = new Map<Rule, Entry[]>();
  private readonly byPackage = new Map<string, Entry>();
  private readonly byPath = new Map<string, Entry>();

  /** Index the annotations of `modules`, pushing redeclaration errors. */
  constructor(modules: Module[], errors: RegoError[]) {
    for (const m of modules) {
      const pkg = packagePath(m);
      const found: { a: Annotation; rule?: Rule; path: string[] }[] = m.annotations.map((a) => ({ a, path: pkg }));
      for (const r of m.rules) for (const a of r.annotations ?? []) found.push({ a, rule: r, path: rulePath(pkg, r) });
      found.sort((x, y) => x.a.loc.offset - y.a.loc.offset); // source order, as OPA adds them
      for (const f of found) this.add(f.a, f.path, f.rule, errors);
    }
  }

  private add(a: Annotation, path: string[], rule: Rule | undefined, errors: RegoError[]): void {
    const entry: Entry = { a, path };
    const redeclared = (other: Annotation) =>
      errors.push(new RegoError('rego_type_error', `${a.scope} annotation redeclared: ${locationText(other.loc)}`, a.loc));
    switch (a.scope) {
      case 'rule':
        if (rule) {
          // Appended in place: many blocks on one rule must not cost quadratic time.
          const list = this.byRule.get(rule);
          if (list) list.push(entry);
          else this.byRule.set(rule, [entry]);
        }
        break;
      case 'package': {
        const other = this.byPackage.get(key(path));
        if (other) redeclared(other.a);
        else this.byPackage.set(key(path), entry);
        break;
      }
      case 'document':
      case 'subpackages': {
        const other = this.byPath.get(key(path));
        if (other) redeclared(other.a);
        else this.byPath.set(key(path), entry);
        break;
      }
    }
  }

  /**
   * OPA's AnnotationSet.Chain for `rule` (declared in a module of package `pkg`,
   * at `path`): the rule's own blocks, closest first (or one entry without
   * annotations), then the document, package and subpackages (innermost first).
   */
  chain(rule: Rule, pkg: string[], path: string[]): Json {
    const own = this.ruleScope(rule);
    const entries: Entry[] = own.length > 0 ? own : [];
    const out: Json[] = own.length > 0 ? [] : [{ path }];
    const doc = this.byPath.get(key(path));
    if (doc) entries.push(doc);
    const pkgEntry = this.byPackage.get(key(pkg));
    if (pkgEntry) entries.push(pkgEntry);
    for (let n = pkg.length; n > 0; n--) {
      const sub = this.byPath.get(key(pkg.slice(0, n)));
      if (sub) entries.push(sub);
    }
    for (const e of entries) out.push({ annotations: annotationValue(e.a), path: e.path });
    return out;
  }

  /**
   * The blocks of chain() as parsed (rule scope closest first, then document,
   * package, subpackages innermost first): the data-filter API reads their
   * `compile:` keys (compiler/filters/annotations.ts).
   */
  chainAnnotations(rule: Rule, pkg: string[], path: string[]): Annotation[] {
    const out = this.ruleScope(rule).map((e) => e.a);
    const doc = this.byPath.get(key(path));
    if (doc) out.push(doc.a);
    const pkgEntry = this.byPackage.get(key(pkg));
    if (pkgEntry) out.push(pkgEntry.a);
    for (let n = pkg.length; n > 0; n--) {
      const sub = this.byPath.get(key(pkg.slice(0, n)));
      if (sub) out.push(sub.a);
    }
    return out;
  }

  /** OPA's rego.metadata.rule(): the rule-scope block closest to the rule, or {}. */
  rule(rule: Rule): Json {
    const first = this.ruleScope(rule)[0];
    return first ? annotationValue(first.a) : {};
  }

  private ruleScope(rule: Rule): Entry[] {
    return [...(this.byRule.get(rule) ?? [])].sort((x, y) => y.a.loc.offset - x.a.loc.offset);
  }
}

/** A rule's path without `data`: the package plus the ground prefix of its head ref. */
export function rulePath(pkg: string[], rule: Rule): string[] {
  const out = [...pkg];
  for (const [i, t] of rule.head.ref.entries()) {
    const s = i === 0 && t.kind === 'var' ? t.name : scalarText(t);
    if (s === undefined) break;
    out.push(s);
  }
  return out;
}

function scalarText(t: Term): string | undefined {
  switch (t.kind) {
    case 'string':
      return t.value;
    case 'number':
      return t.text;
    case 'boolean':
      return String(t.value);
    case 'null':
      return 'null';
    default:
      return undefined;
  }
}

/** One annotation as OPA's Annotations.toObject builds it. */
export function annotationValue(a: Annotation): Json {
  const o: { [k: string]: Json } = {};
  if (a.scope) o.scope = a.scope;
  if (a.title) o.title = a.title;
  if (a.entrypoint) o.entrypoint = true;
  if (a.description) o.description = a.description;
  if (a.organizations?.length) o.organizations = [...a.organizations];
  if (a.related_resources?.length) {
    o.related_resources = a.related_resources.map((r) => ({ ref: r.ref, ...(r.description ? { description: r.description } : {}) }));
  }
  if (a.authors?.length) {
    o.authors = a.authors.map((x) => ({ ...(x.name ? { name: x.name } : {}), ...(x.email ? { email: x.email } : {}) }));
  }
  if (a.schemas?.length) {
    o.schemas = a.schemas.map((s) => {
      const e: { [k: string]: Json } = {};
      if (s.path) e.path = refStrings(s.path);
      if (typeof s.schema === 'string' && s.schema) e.schema = refStrings(s.schema);
      if (s.definition !== undefined) e.definition = jsonOf(s.definition);
      return e;
    });
  }
  if (a.custom && Object.keys(a.custom).length > 0) o.custom = jsonOf(a.custom);
  return o;
}

/** A ref written in an annotation (`input.x`, `schema["a-b"]`) as OPA's Ref.toArray: strings. */
function refStrings(text: string): Json {
  let t: Term;
  try {
    t = parseTerm(text);
  } catch {
    return text.split('.');
  }
  if (t.kind === 'var') return [t.name];
  if (t.kind !== 'ref' || t.head.kind !== 'var') return text.split('.');
  return [t.head.name, ...t.path.map((p) => (p.kind === 'string' ? p.value : p.kind === 'var' ? p.name : (scalarText(p) ?? '')))];
}

/** YAML-loaded data as JSON (keys are strings already; anything exotic becomes text). */
function jsonOf(v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(jsonOf);
  if (typeof v === 'object') {
    const o: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) o[k] = jsonOf(x);
    return o;
  }
  return String(v);
}

/** OPA's Location.String(): `file:row`, or `row:col` without a file. */
function locationText(l: Location): string {
  return l.file ? `${l.file}:${l.row}` : `${l.row}:${l.col}`;
}
