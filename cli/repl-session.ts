// The state of a `regent run` REPL session (OPA's repl.REPL, v1/repl/repl.go): the
// files loaded from the command line, the modules defined interactively (one per
// package, `package repl` until a `package` statement), and statement evaluation
// through the existing compiler API (compile → prepare → eval):
//  * a query is resolved in the current package and imports (cli/eval-context.ts),
//    with `input` taken from `data.repl.input` when defined, as OPA's REPL does;
//  * `x := 1`, `x = 1` (when `x` is not already a rule or import here) and `f(x) := …`
//    typed as a query define a rule; any other statement that parses as rules
//    (`p if { … }`, `p contains x if …`) defines them. `:=` replaces earlier rules of
//    that name ("re-defined"). The candidate module set must compile, or nothing changes;
//  * `package`/`import` switch the package / add an import to the current module.
// Rule texts are kept as typed; `show` prints the module as `regent fmt` formats it.
import { compile, type CompiledPolicy } from '../compiler/policy.js';
import { parseModule, parseQuery } from '../compiler/parser/index.js';
import { formatModuleSource } from '../compiler/ast/fmt-module.js';
import { formatTerm } from '../compiler/ast/print.js';
import { packagePath } from '../compiler/passes/pass.js';
import type { Module, Rule } from '../compiler/ast/nodes.js';
import type { ResultRow, SourceFile } from '../compiler/api.js';
import { RegoError, RegoErrors } from '../compiler/source/diagnostics.js';
import type { Value } from '../runtime/value/index.js';
import { loadAll, type Loaded } from './loader.js';
import { contextualQuery, restoreTexts } from './eval-context.js';

export interface ReplModule {
  /** Dotted package path (`repl`, `a.b`), the module's key. */
  pkg: string;
  /** The `package …` line as typed. */
  header: string;
  imports: string[];
  rules: { name: string; text: string }[];
}

export interface SessionOptions {
  paths: string[];
  bundles: boolean;
  v0: boolean;
}

export type ExplainSetting = 'off' | 'full' | 'notes' | 'fails' | 'debug';

/** A query ready to run: the policy, the resolved query text, evaluation options. */
export interface PreparedStatement {
  policy: CompiledPolicy;
  query: string;
  text: string;
  input?: Value;
  data: Value;
}

/** The outcome of one statement: rules defined (their messages), or a query to evaluate. */
export type StatementResult = { kind: 'defined'; messages: string[] } | { kind: 'query'; prepared: PreparedStatement } | { kind: 'none' };

export class ReplSession {
  readonly modules = new Map<string, ReplModule>();
  /** Key of the current module; '' until a rule, import or package creates one. */
  current = '';
  private loaded: Loaded | undefined;
  private cached: CompiledPolicy | undefined;

  constructor(readonly opts: SessionOptions) {}

  /** (Re)load the command-line paths; throws load and parse errors. */
  async load(): Promise<void> {
    const loaded = await loadAll(this.opts.bundles ? [] : this.opts.paths, this.opts.bundles ? this.opts.paths : [], { v0Compatible: this.opts.v0 });
    const policy = this.compileWith(loaded, this.modules);
    this.loaded = loaded;
    this.cached = policy;
  }

  get data(): Value {
    return this.loaded!.data;
  }

  currentModule(): ReplModule | undefined {
    return this.modules.get(this.current);
  }

  /** Parser mode of new statements: v1 unless --v0-compatible (and the module does not import rego.v1). */
  v0(): boolean {
    return this.opts.v0 && !(this.currentModule()?.imports.some((i) => /^import\s+rego\.v1\s*$/.test(i)) ?? false);
  }

  static moduleText(m: ReplModule, extra: string[] = []): string {
    return [m.header, m.imports.join('\n'), ...m.rules.map((r) => r.text), ...extra].filter((s) => s !== '').join('\n\n') + '\n';
  }

  private compileWith(loaded: Loaded, modules: Map<string, ReplModule>): CompiledPolicy {
    const files: SourceFile[] = [...loaded.modules];
    for (const m of modules.values()) if (m.rules.length > 0) files.push({ file: `repl:${m.pkg}`, text: ReplSession.moduleText(m), v0Compatible: this.opts.v0 });
    try {
      return compile(files, { v0Compatible: this.opts.v0 || loaded.v0 });
    } catch (e) {
      if (e instanceof RegoErrors) for (const err of e.errors) relocate(err, modules);
      throw e;
    }
  }

  /** The compiled policy of the loaded files and the REPL modules (cached until they change). */
  policy(): CompiledPolicy {
    return (this.cached ??= this.compileWith(this.loaded!, this.modules));
  }

  /** Create the default module (`package repl`) when none is current. */
  private initModule(): ReplModule {
    if (this.current === '') this.setPackage('package repl');
    return this.currentModule()!;
  }

  setPackage(text: string): void {
    const header = text.trim();
    const pkg = packagePath(parseModule(header, '', { v0Compatible: this.v0() })).join('.');
    if (!this.modules.has(pkg)) this.modules.set(pkg, { pkg, header, imports: [], rules: [] });
    this.current = pkg;
  }

  addImport(text: string): void {
    const m = this.initModule();
    const imp = text.trim().replace(/\s+/g, ' ');
    if (!m.imports.includes(imp)) m.imports.push(imp);
  }

  /** Replace the module set if it compiles; throws the compile errors otherwise. */
  private commit(next: Map<string, ReplModule>): void {
    const policy = this.compileWith(this.loaded!, next);
    this.modules.clear();
    for (const [k, v] of next) this.modules.set(k, v);
    this.cached = policy;
  }

  private withModule(m: ReplModule): Map<string, ReplModule> {
    return new Map(this.modules).set(m.pkg, m);
  }

  /** `unset <name>`: false when no rule of the current module has that name. */
  unset(name: string): boolean {
    const m = this.currentModule();
    if (!m) return false;
    const rules = m.rules.filter((r) => r.name !== name);
    if (rules.length === m.rules.length) return false;
    this.commit(this.withModule({ ...m, rules }));
    return true;
  }

  /** `unset-package <pkg>`: false when there is no such REPL module. */
  unsetPackage(text: string): boolean {
    const pkg = packagePath(parseModule(`package ${text}`, '', { v0Compatible: this.v0() })).join('.');
    if (!this.modules.has(pkg)) return false;
    const next = new Map(this.modules);
    next.delete(pkg);
    this.commit(next);
    if (this.current === pkg) this.current = '';
    return true;
  }

  /** `show`: the current module, formatted; undefined when none is defined. */
  show(): string | undefined {
    const m = this.currentModule();
    if (!m) return undefined;
    const text = ReplSession.moduleText(m);
    try {
      return formatModuleSource(parseModule(text, '', { v0Compatible: this.opts.v0 }), text, this.opts.v0 ? { mode: 'v0' } : { mode: 'v1', dropV0Imports: true });
    } catch {
      return text;
    }
  }

  /** Define the rules in `text` (one statement); returns the messages OPA prints. */
  defineRules(text: string): string[] {
    const m = this.initModule();
    const prefix = ReplSession.moduleText({ ...m, rules: [] });
    const parsed = parseModule(prefix + text, '', { v0Compatible: this.v0() });
    const newImports = parsed.imports.filter((i) => i.loc.offset >= prefix.length);
    const rules = parsed.rules.filter((r) => r.loc.offset >= prefix.length);
    let next: ReplModule = { ...m, imports: [...m.imports], rules: [...m.rules] };
    for (const i of newImports) next.imports.push((prefix + text).slice(i.loc.offset).split('\n')[0]!.trim());
    const messages: string[] = [];
    rules.forEach((r, k) => {
      const end = k + 1 < rules.length ? rules[k + 1]!.loc.offset : prefix.length + text.length;
      const name = ruleName(r);
      let redefined = false;
      if (r.head.assign) {
        const kept = next.rules.filter((x) => x.name !== name);
        redefined = kept.length !== next.rules.length;
        next = { ...next, rules: kept };
      }
      next.rules.push({ name, text: (prefix + text).slice(r.loc.offset, end).trim() });
      messages.push(`Rule '${ruleRef(r)}' ${redefined ? 're-defined' : 'defined'} in ${m.header.replace(/\s+/g, ' ')}. Type 'show' to see rules.`);
    });
    this.commit(this.withModule(next));
    return messages;
  }

  /** True when `name` is an import alias or a rule of the current package (OPA's isGlobalInModule). */
  private isGlobal(name: string): boolean {
    const m = this.currentModule();
    const pkg = m?.pkg ?? 'repl';
    if (m?.imports.some((i) => importName(i) === name)) return true;
    return this.policy().modules.some((mod: Module) => packagePath(mod).join('.') === pkg && mod.rules.some((r) => r.head.ref[0]?.kind === 'var' && r.head.ref[0].name === name));
  }

  /** Handle one parsed-as-query statement or rule text. Throws parse/compile errors. */
  statement(text: string): StatementResult {
    if (text.trim() === '') return { kind: 'none' };
    const v0 = this.v0();
    let queryError: unknown;
    try {
      const body = parseQuery(text, '', { v0Compatible: v0 });
      const e = body.length === 1 ? body[0]! : undefined;
      const t = e && !e.negated && e.with.length === 0 && e.body.type === 'term' ? e.body.term : undefined;
      if (t?.kind === 'call' && t.op.kind === 'var' && (t.op.name === 'assign' || t.op.name === 'eq') && t.args.length === 2) {
        const lhs = t.args[0]!;
        const ruleLike = lhs.kind === 'var' || (lhs.kind === 'call' && lhs.op.kind === 'var');
        const name = lhs.kind === 'var' ? lhs.name : lhs.kind === 'call' && lhs.op.kind === 'var' ? lhs.op.name : '';
        if (ruleLike && !(t.op.name === 'eq' && this.isGlobal(name))) return { kind: 'defined', messages: this.defineRules(text) };
      }
      return { kind: 'query', prepared: this.prepare(text) };
    } catch (e) {
      if (!isParseError(e)) throw e;
      queryError = e;
    }
    const first = text.trim().split(/\s+/)[0];
    if (first === 'package') {
      const lines = text.trim().split('\n');
      this.setPackage(lines[0]!);
      const rest = lines.slice(1).join('\n');
      return rest.trim() === '' ? { kind: 'none' } : { kind: 'defined', messages: this.defineRules(rest) };
    }
    if (first === 'import' && !text.trim().includes('\n')) {
      parseModule(`package repl\n${text}`, '', { v0Compatible: v0 });
      this.addImport(text);
      return { kind: 'none' };
    }
    try {
      return { kind: 'defined', messages: this.defineRules(text) };
    } catch (e) {
      // Report whichever reading got further into the text.
      if (isParseError(e) && errorOffset(e) - this.prefixLength() <= errorOffset(queryError)) throw queryError;
      throw e;
    }
  }

  private prefixLength(): number {
    const m = this.currentModule();
    return m ? ReplSession.moduleText({ ...m, rules: [] }).length : 'package repl\n'.length;
  }

  /** The query `text`, resolved in the current package, with the REPL's input. */
  prepare(text: string): PreparedStatement {
    const m = this.currentModule();
    const policy = this.policy();
    const imports = (m?.imports ?? []).map((i) => i.replace(/^import\s+/, ''));
    const query = contextualQuery(text, m?.pkg ?? 'repl', imports, policy.modules, this.v0());
    const data = this.loaded!.data;
    const inputRows = policy.prepare('data.repl.input').eval({ data });
    const input = inputRows.length === 1 ? inputRows[0]!.expressions[0]!.value : undefined;
    return { policy, query, text, data, ...(input !== undefined ? { input } : {}) };
  }

  /** Rows with the typed expression texts. */
  restore(rows: ResultRow[], text: string): ResultRow[] {
    return restoreTexts(rows, text, this.v0());
  }
}

/**
 * An error in a REPL module points into the statement that defined the rule, as
 * OPA's (the rule was parsed from that line, with no file name): `1:8: …`.
 */
function relocate(err: RegoError, modules: Map<string, ReplModule>): void {
  const loc = err.location;
  const m = loc?.file.startsWith('repl:') ? modules.get(loc.file.slice(5)) : undefined;
  if (!loc || !m) return;
  let row = [m.header, m.imports.join('\n')].filter((x) => x !== '').join('\n\n').split('\n').length + 2;
  for (const r of m.rules) {
    const rows = r.text.split('\n').length;
    if (loc.row >= row && loc.row < row + rows) {
      err.location = { ...loc, file: '', row: loc.row - row + 1 };
      return;
    }
    row += rows + 1;
  }
}

function ruleName(r: Rule): string {
  const head = r.head.ref[0];
  return head?.kind === 'var' ? head.name : head ? formatTerm(head) : '';
}

/** `p`, `a.b.c`, `p[x]` as OPA's Head.Ref().String(). */
function ruleRef(r: Rule): string {
  return r.head.ref
    .map((t, i) => (i === 0 ? formatTerm(t) : t.kind === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value) ? '.' + t.value : `[${formatTerm(t)}]`))
    .join('');
}

function importName(text: string): string {
  const m = /\bas\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(text);
  if (m) return m[1]!;
  const last = /([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(text);
  return last?.[1] ?? '';
}

function parseErrors(e: unknown): { code?: string; location?: { offset?: number } }[] {
  if (e && typeof e === 'object' && Array.isArray((e as { errors?: unknown }).errors)) return (e as { errors: { code?: string; location?: { offset?: number } }[] }).errors;
  return e && typeof e === 'object' ? [e as { code?: string }] : [];
}

function isParseError(e: unknown): boolean {
  const errs = parseErrors(e);
  return errs.length > 0 && errs.every((x) => x.code === 'rego_parse_error');
}

function errorOffset(e: unknown): number {
  return Math.max(-1, ...parseErrors(e).map((x) => x.location?.offset ?? -1));
}
