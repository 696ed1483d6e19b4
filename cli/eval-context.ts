// Query context and capabilities for `regent eval`:
//  * `--package P` and `--import I` (repeatable): the query is resolved as OPA's query
//    compiler does with a package and imports (WithPackage/WithImports): names of rules
//    in package P and import aliases become absolute refs (`p` → `data.P.p`,
//    `import data.x.y` makes `y` mean `data.x.y`). The resolved body is planned; the
//    result rows keep the query's own expression texts, as OPA prints them.
//  * `--capabilities FILE|VERSION`: the builtins a capabilities document lists are the
//    only ones the policy and query may call; any other builtin call is OPA's
//    `rego_type_error: undefined function <name>` at the call.
//  * extraChecks: those and the -s/--schema input checks (cli/eval-schema.ts), for
//    eval, check, build and test.
//  * parserCapabilityErrors: what the parser needs (`rego_v1` for v1 modules, the
//    listed future keywords and `rego_v1_import` for v0 imports, `template_strings`
//    for string templates), for check, build and test only, as OPA's loader parses
//    with the capabilities and its eval does not.
import { existsSync, readFileSync } from 'node:fs';
import type { Body, Module, Term } from '../compiler/ast/nodes.js';
import { formatBody } from '../compiler/ast/print.js';
import { refName } from '../compiler/ast/transform.js';
import { walkTerms } from '../compiler/ast/walk.js';
import { parseModule, parseQuery } from '../compiler/parser/index.js';
import { withDetails } from '../compiler/parser/error-detail.js';
import { packagePath } from '../compiler/passes/pass.js';
import { resolveRefs } from '../compiler/passes/resolve-refs.js';
import { RegoError, RegoErrors } from '../compiler/source/diagnostics.js';
import type { ResultRow } from '../compiler/api.js';
import { FUTURE_KEYWORDS, capabilities } from '../runtime/builtins/catalog.js';
import { checkSchemaSet, loadSchemaSet } from './eval-schema-set.js';
import { capabilitiesOf } from './capabilities.js';

/** The query text to plan for `query` in the context of `pkg` and `imports`. */
export function contextualQuery(query: string, pkg: string | undefined, imports: string[], modules: Module[], v0Compatible: boolean): string {
  if (pkg === undefined && imports.length === 0) return query;
  const header = `package ${pkg ?? '__regent_query__'}\n${imports.map((i) => `import ${i}\n`).join('')}`;
  const ctx = parseModule(header, '', { v0Compatible });
  const body = parseQuery(query, '', { v0Compatible });
  const here = packagePath(ctx).join('.');
  // The rules of the query's package, as the query compiler sees them (its exports).
  const stubRules = modules
    .filter((m) => packagePath(m).join('.') === here)
    .flatMap((m) => m.rules)
    .map((r) => ({ ...r, body: [] }));
  const loc = ctx.package.loc;
  const queryModule: Module = { ...ctx, rules: [{ kind: 'rule', default: false, head: { ref: [], assign: false, contains: false, loc }, body, loc }] };
  const stub: Module = { ...ctx, imports: [], rules: stubRules };
  const state = { opts: {}, errors: [], modules: [queryModule, stub] };
  resolveRefs.run(state);
  return formatBody(state.modules[0]!.rules[0]!.body);
}

/** The source text of each top-level expression of `query` (OPA's expression `text`). */
export function queryTexts(query: string, v0Compatible: boolean): string[] {
  const body = parseQuery(query, '', { v0Compatible });
  return body.map((e, i) => {
    const end = i + 1 < body.length ? body[i + 1]!.loc.offset : query.length;
    return query.slice(e.loc.offset, end).replace(/[\s;]+$/, '');
  });
}

/** Rows of a rewritten query, with the original query's expression texts and locations. */
export function restoreTexts(rows: ResultRow[], query: string, v0Compatible: boolean): ResultRow[] {
  const body = parseQuery(query, '', { v0Compatible });
  const texts = queryTexts(query, v0Compatible);
  return rows.map((r) => ({
    ...r,
    expressions: r.expressions.map((e, i) => ({ ...e, text: texts[i] ?? e.text, location: body[i] ? { row: body[i]!.loc.row, col: body[i]!.loc.col } : e.location })),
  }));
}

/** What a `--capabilities` argument allows: builtin names, and the features when the document lists any. */
export interface CapabilityLimits {
  builtins: Set<string>;
  features: Set<string>;
  futureKeywords: string[];
}

/** The capabilities document of a file or an OPA release (`v0.60.0`). Throws on unknown versions/bad files. */
export function capabilityLimits(arg: string): CapabilityLimits {
  let doc: { builtins?: { name: string }[]; features?: string[]; future_keywords?: string[] };
  if (existsSync(arg)) {
    try {
      doc = JSON.parse(readFileSync(arg, 'utf8'));
    } catch (e) {
      throw new Error(`capabilities: ${arg}: ${(e as Error).message}`);
    }
  } else {
    const v = arg.startsWith('v') ? arg : `v${arg}`;
    const found = capabilitiesOf(v);
    if (!found) throw new Error(`no capabilities version found ${v}`);
    doc = found as typeof doc;
  }
  return { builtins: new Set((doc.builtins ?? []).map((b) => b.name)), features: new Set(doc.features ?? []), futureKeywords: doc.future_keywords ?? [] };
}

/**
 * OPA's capabilitiesFlag.Set, which every command's `--capabilities` goes through:
 * undefined for a readable capabilities file or a known version, else the message
 * cobra prints for the bad flag value (a usage error).
 */
export function capabilitiesFlagProblem(arg: string): string | undefined {
  try {
    capabilityLimits(arg);
    return undefined;
  } catch (e) {
    const why = existsSync(arg) ? (e instanceof Error ? e.message : String(e)) : `no such file or capabilities version found: ${arg}`;
    return `invalid argument ${JSON.stringify(arg)} for "--capabilities" flag: ${why}`;
  }
}

/** `undefined function` errors for builtin calls the capabilities do not list. */
export function checkCapabilities(allowed: Set<string>, modules: Module[], query?: Body): RegoError[] {
  const known = new Set((capabilities() as { builtins: { name: string }[] }).builtins.map((b) => b.name));
  const userFunctions = new Set<string>();
  for (const m of modules) for (const r of m.rules) if (r.head.args) userFunctions.add([...packagePath(m), ...r.head.ref.map((t) => refName(t) ?? '')].join('.'));
  const errors: RegoError[] = [];
  const visit = (node: Module | Body): void =>
    walkTerms(node as Module, (t: Term) => {
      if (t.kind !== 'call') return;
      const name = refName(t.op);
      if (name === undefined || !known.has(name) || allowed.has(name) || userFunctions.has(name)) return;
      errors.push(new RegoError('rego_type_error', `undefined function ${name}`, t.loc));
    });
  for (const m of modules) visit(m);
  if (query) visit(query);
  return errors;
}

/** Throw the errors (as one RegoErrors) when there are any. */
export function throwAll(errors: RegoError[]): void {
  if (errors.length > 0) throw new RegoErrors(errors);
}

/**
 * The parser's capabilities checks of the loader (`opa check`, `build` and `test` parse
 * files with the capabilities; `opa eval`'s rego package does not, OPA issue #6379),
 * as OPA's Parser: v1 modules need the `rego_v1` feature (so an older release's
 * capabilities refuse them unless read with --v0-compatible), and string templates the
 * `template_strings` feature (v1.12.2 on). Modules given only as `{regoVersion}` (before
 * parsing) get the first check alone.
 */
export function parserCapabilityErrors(capabilitiesArg: string | undefined, modules: readonly ({ regoVersion?: number } | Module)[]): RegoError[] {
  if (capabilitiesArg === undefined) return [];
  const limits = capabilityLimits(capabilitiesArg);
  const features = limits.features;
  if (!features.has('rego_v1') && modules.some((m) => m.regoVersion === 1)) {
    return [new RegoError('rego_parse_error', 'illegal capabilities: rego_v1 feature required for parsing v1 Rego')];
  }
  const errors: RegoError[] = [];
  for (const m of modules) {
    if (!('rules' in m)) continue;
    if (m.regoVersion === 0) errors.push(...v0ImportErrors(m, limits));
    if (features.has('template_strings')) continue;
    walkTerms(m, (t: Term) => {
      if (t.kind === 'template') errors.push(new RegoError('rego_parse_error', 'template strings are not supported by current capabilities', t.loc));
    });
  }
  return errors.map(withSourceLine);
}

/** A parse error with its source line and caret (OPA's ParserErrorDetail) when its file can be read. */
function withSourceLine(e: RegoError): RegoError {
  const file = e.location?.file;
  if (file === undefined || file === '' || !existsSync(file)) return e;
  try {
    return withDetails([e], readFileSync(file, 'utf8'))[0]!;
  } catch {
    return e;
  }
}

/**
 * OPA's Parser.futureImport and regoV1Import for a v0 module: `future.keywords.X` must
 * be a keyword the capabilities allow (their future_keywords, and every v0 one with the
 * rego_v1 feature), and `rego.v1` needs the rego_v1_import or rego_v1 feature.
 */
function v0ImportErrors(m: Module, { features, futureKeywords }: CapabilityLimits): RegoError[] {
  const errors: RegoError[] = [];
  const allowed = new Set(futureKeywords);
  if (features.has('rego_v1')) for (const k of FUTURE_KEYWORDS) allowed.add(k);
  for (const imp of m.imports) {
    const t = imp.path;
    if (t.kind !== 'ref' || t.head.kind !== 'var') continue;
    const parts = t.path.map((p) => (p.kind === 'string' ? p.value : undefined));
    if (t.head.name === 'rego' && parts[0] === 'v1' && !features.has('rego_v1_import') && !features.has('rego_v1')) {
      errors.push(new RegoError('rego_parse_error', 'invalid import, `rego.v1` is not supported by current capabilities', t.loc));
    } else if (t.head.name === 'future' && parts[0] === 'keywords' && parts.length === 2 && parts[1] !== undefined && !allowed.has(parts[1])) {
      errors.push(new RegoError('rego_parse_error', `unexpected keyword, must be one of [${[...allowed].sort().join(' ')}]`, t.loc));
    }
  }
  return errors;
}

/** Compile-time checks beyond the compiler's: capabilities and the input schema. */
export function extraChecks(req: { capabilities?: string; schema?: string }, modules: Module[], query?: string, v0 = false): RegoError[] {
  const errors: RegoError[] = [];
  const body = query !== undefined ? parseQuery(query, '', { v0Compatible: v0 }) : undefined;
  if (req.capabilities !== undefined) errors.push(...checkCapabilities(capabilityLimits(req.capabilities).builtins, modules, body));
  if (req.schema !== undefined) {
    errors.push(...checkSchemaSet(loadSchemaSet(req.schema), modules, body));
  }
  return errors;
}
