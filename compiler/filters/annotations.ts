// `compile:` annotations for data filters (OPA ≥ 1.9; `custom:` is read as a
// fallback for policies written for EOPA before 1.44). They are looked up on the
// first rule whose path is exactly the query's path, along its annotation chain
// (rule, document, package, subpackages scopes: compiler/passes/annotation-set.ts):
//   * `compile.unknowns`: refs, the union over the chain; each must start with
//     `input` or `data`, else an `invalid_unknown` error located at the METADATA
//     block ("unknowns must be prefixed with `input` or `data`: <ref>");
//   * `compile.mask_rule`: a ref, the first one found; a name without `data.` is
//     relative to the package of the annotated rule's module.
// The request's `unknowns` and `options.maskRule` win over these (the HTTP layer
// decides); the results are cached with the prepared filter query.
import type { Annotation, Module, Rule, Term } from '../ast/nodes.js';
import { AnnotationSet, rulePath } from '../passes/annotation-set.js';
import { packagePath } from '../passes/pass.js';
import { parseTerm } from '../parser/index.js';
import { FilterASTError, FilterASTErrors } from './constraints.js';
import { refText, rootedAt } from './term-text.js';

export interface FilterAnnotations {
  /** Unknown refs as text (`input.fruits`), in chain order. */
  unknowns: string[];
  /** The mask rule's data path (`['filters', 'mask']`), if any. */
  maskRule?: string[];
}

const setCache = new WeakMap<readonly Module[], AnnotationSet>();

function annotationSet(modules: readonly Module[]): AnnotationSet {
  let set = setCache.get(modules);
  if (!set) {
    set = new AnnotationSet([...modules], []);
    setCache.set(modules, set);
  }
  return set;
}

/** The first rule (in module order) defined exactly at `path` (without `data`), with its package. */
export function ruleAt(modules: readonly Module[], path: string[]): { rule: Rule; pkg: string[] } | undefined {
  const want = path.join('\u0000');
  for (const m of modules) {
    const pkg = packagePath(m);
    if (pkg.length > path.length) continue;
    for (const r of m.rules) {
      if (r.head.ref.length + pkg.length !== path.length) continue;
      const p = rulePath(pkg, r);
      if (p.length === path.length && p.join('\u0000') === want) return { rule: r, pkg };
    }
  }
  return undefined;
}

function compileKey(a: Annotation, key: string): unknown {
  const fromCompile = a.compile?.[key];
  return fromCompile !== undefined ? fromCompile : a.custom?.[key];
}

/**
 * Unknowns and mask rule from the annotations of the rule at `path`. Throws
 * FilterASTErrors (invalid_unknown / invalid_mask_rule) for bad entries.
 */
export function filterAnnotations(modules: readonly Module[], path: string[]): FilterAnnotations {
  const found = ruleAt(modules, path);
  if (!found) return { unknowns: [] };
  const chain = annotationSet(modules).chainAnnotations(found.rule, found.pkg, rulePath(found.pkg, found.rule));
  const unknowns: string[] = [];
  const errors: FilterASTError[] = [];
  let maskRule: string[] | undefined;
  let maskSeen = false;
  for (const a of chain) {
    const list = compileKey(a, 'unknowns');
    if (Array.isArray(list)) {
      for (const u of list) {
        if (typeof u !== 'string') continue;
        const ref = parseRef(u);
        if (!ref) errors.push(new FilterASTError('invalid_unknown', `unknowns must be valid refs: ${u}`, a.loc));
        else if (rootedAt(ref, 'input') || rootedAt(ref, 'data')) unknowns.push(termRefText(ref));
        else errors.push(new FilterASTError('invalid_unknown', `unknowns must be prefixed with \`input\` or \`data\`: ${termRefText(ref)}`, a.loc));
      }
    }
    const mask = compileKey(a, 'mask_rule');
    if (mask !== undefined && !maskSeen) {
      maskSeen = true;
      if (typeof mask !== 'string') {
        errors.push(new FilterASTError('invalid_mask_rule', `mask_rule must be a valid ref string: ${String(mask)}`, a.loc));
        continue;
      }
      const full = mask.startsWith('data.') ? mask : `data.${found.pkg.map(segmentText).join('.')}.${mask}`;
      const path = dataPath(full);
      if (!path) errors.push(new FilterASTError('invalid_mask_rule', `mask_rule was not a valid ref: ${mask}`, a.loc));
      else maskRule = path;
    }
  }
  if (errors.length > 0) throw new FilterASTErrors(errors);
  return { unknowns, ...(maskRule ? { maskRule } : {}) };
}

function parseRef(text: string): Term | undefined {
  try {
    const t = parseTerm(text);
    return t.kind === 'ref' || t.kind === 'var' ? t : undefined;
  } catch {
    return undefined;
  }
}

function termRefText(t: Term): string {
  return t.kind === 'ref' ? refText(t) : t.kind === 'var' ? t.name : '';
}

function segmentText(s: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? s : `["${s.replace(/["\\]/g, (c) => `\\${c}`)}"]`;
}

/**
 * A `data.…` ref with constant segments as a path without `data`
 * (`data.filters.mask` → ['filters', 'mask']); undefined when it is not one.
 */
export function dataPath(text: string): string[] | undefined {
  const t = parseRef(text);
  if (!t) return undefined;
  if (t.kind === 'var') return t.name === 'data' ? [] : undefined;
  if (t.kind !== 'ref' || t.head.kind !== 'var' || t.head.name !== 'data') return undefined;
  const out: string[] = [];
  for (const p of t.path) {
    if (p.kind !== 'string') return undefined;
    out.push(p.value);
  }
  return out;
}

/** `['filters', 'include']` → `data.filters.include` (quoted segments where needed). */
export function dataRefText(path: string[]): string {
  return ['data', ...path.map(segmentText)].join('.').replace(/\.\[/g, '[');
}

/** Parse request unknowns; throws Error with OPA's wording for the first that does not parse. */
export function parseUnknowns(list: readonly string[]): string[] {
  return list.map((u) => {
    const t = parseRef(u);
    if (!t) throw new Error(`error(s) occurred while parsing unknowns: ${u}: not a ref`);
    return termRefText(t);
  });
}
