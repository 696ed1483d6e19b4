// `regent fmt`: a module printed as OPA's formatter prints it (v1/format/format.go),
// from the AST plus the source text it was parsed from. Package, then imports in
// groups (sorted within a group, a group per blank-line-separated block), then
// rules separated by one blank line, except adjacent one-line rules, which stay
// together. A body of one expression written on the head's row prints as
// `p if expr`; otherwise `if {` … `}` (v0: `{` … `}`, no `if`/`contains` unless
// imported). `= true` is dropped where implied, `allow := true` stays. `else`
// written on its own line gets a blank line before it. Comments keep their rows:
// above a statement, at the end of a line, or before a closing brace.
import type { Import, Module, RefTerm, Rule, Term } from './nodes.js';
import { formatString, formatTerm } from './print.js';
import { SourceInfo } from './fmt-source.js';
import { ExprWriter } from './fmt-exprs.js';
import type { WriterOptions } from './fmt-writer.js';

export type FormatMode = 'v1' | 'v0' | 'v0-v1';

export interface SourceFormatOptions {
  /** v1: print v1 (default); v0: print v0; v0-v1: print v1 with `import rego.v1`. */
  mode?: FormatMode;
  /** Drop `import rego.v1` and `future.keywords` imports (v1 output only). */
  dropV0Imports?: boolean;
}

const FUTURE = new Set(['contains', 'every', 'if', 'in']);

function importSegments(imp: Import): string[] {
  const p = imp.path;
  if (p.kind === 'var') return [p.name];
  return [p.head.kind === 'var' ? p.head.name : '', ...p.path.map((x) => (x.kind === 'string' ? x.value : formatTerm(x)))];
}

const isRego = (imp: Import, v: string) => { const s = importSegments(imp); return s.length === 2 && s[0] === 'rego' && s[1] === v; };
const isFuture = (imp: Import, kw?: string) => {
  const s = importSegments(imp);
  if (s[0] !== 'future' || s[1] !== 'keywords') return false;
  return kw === undefined ? s.length === 2 || (s.length === 3 && FUTURE.has(s[2]!)) : s.length === 2 || s[2] === kw;
};

function compareImports(a: Import, b: Import): number {
  const x = importSegments(a);
  const y = importSegments(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  if (x.length !== y.length) return x.length - y.length;
  const [p, q] = [a.alias ?? '', b.alias ?? ''];
  return p === q ? 0 : p < q ? -1 : 1;
}

function isTrueBody(r: Rule): boolean {
  const e = r.body[0];
  return r.body.length === 1 && !e!.negated && e!.with.length === 0 && !e!.notBody &&
    e!.body.type === 'term' && e!.body.term.kind === 'boolean' && e!.body.term.value;
}

/** A lone set term body keeps its braces: `p if { {x} }`. */
const isSetTerm = (r: Rule) => {
  const e = r.body[0]!;
  return !e.negated && e.body.type === 'term' && e.body.term.kind === 'set';
};

const isSetRule = (r: Rule) => r.head.key !== undefined && r.head.value === undefined;

class ModuleWriter extends ExprWriter {
  writeModule(m: Module, imports: Import[]): void {
    this.insertComments(m.package.loc.row);
    this.startLine();
    const [, first, ...rest] = m.package.path;
    this.write('package ' + (first?.kind === 'string' ? first.value : formatTerm(first!)));
    for (const t of rest) this.write(t.kind === 'string' && this.dotted(t) ? '.' + t.value : `[${t.kind === 'string' ? formatString(t.value) : formatTerm(t)}]`);
    this.blankLine();
    const others: (Import | Rule)[] = [...imports, ...m.rules].sort((a, b) => a.loc.offset - b.loc.offset);
    let i = 0;
    while (i < others.length) {
      const imps: Import[] = [];
      while (i < others.length && others[i]!.kind === 'import') imps.push(others[i++] as Import);
      this.writeImports(imps);
      const rules: Rule[] = [];
      while (i < others.length && others[i]!.kind === 'rule') rules.push(others[i++] as Rule);
      this.writeRules(rules);
    }
    this.flushComments();
  }

  private writeImports(imports: Import[]): void {
    if (imports.length === 0) return;
    const trailing = this.takeCommentsOnRows(new Set(imports.map((i) => i.loc.row)));
    const groups: Import[][] = [[imports[0]!]];
    for (const imp of imports.slice(1)) {
      const g = groups[groups.length - 1]!;
      if (imp.loc.row - g[g.length - 1]!.loc.row > 1) groups.push([imp]);
      else g.push(imp);
    }
    for (const g of groups) {
      this.insertComments(g[0]!.loc.row);
      for (const imp of [...g].sort(compareImports)) {
        this.startLine();
        this.write(`import ${formatTerm(imp.path)}${imp.alias ? ' as ' + imp.alias : ''}`);
        const c = trailing.get(imp.loc.row);
        if (c) {
          this.write(' ' + c);
          trailing.delete(imp.loc.row);
        }
        this.endLine();
      }
      this.blankLine();
    }
  }

  private groupable(r: Rule): boolean {
    return r.body.length <= 1 && !r.default && !r.else && !(r.body.length === 1 && isSetTerm(r)) && (this.o.regoV1 || this.o.ifs) && (this.o.contains || !isSetRule(r));
  }

  private writeRules(rules: Rule[]): void {
    rules.forEach((r, i) => {
      this.insertComments(r.loc.row);
      this.writeRule(r, false);
      const next = rules[i + 1];
      if (next && this.groupable(r) && this.groupable(next) && next.loc.row === r.loc.row + 1) return;
      this.blankLine();
    });
  }

  private writeRule(r: Rule, isElse: boolean): void {
    if (!isElse) this.startLine();
    if (r.default) this.write('default ');
    let expanded = (r.body.length === 0 || isTrueBody(r)) && !r.else;
    // `p { true }` in v0 would print as a bare `p`: keep the body instead
    if (expanded && r.body.length > 0 && !isElse && !r.head.args && r.head.key === undefined && !this.printsValue(r, isElse, true)) {
      expanded = false;
    }
    this.writeHead(r, isElse, expanded);
    if (r.body.length === 0 || expanded) {
      if (r.body.length === 0 && r.else) return this.writeElse(r);
      this.endLine();
      return;
    }
    if ((this.o.regoV1 || this.o.ifs) && (this.o.contains || !isSetRule(r))) {
      this.write(' if');
      if (r.body.length === 1 && r.body[0]!.loc.row === this.headEndRow(r) && !isSetTerm(r)) {
        this.write(' ');
        this.writeExpr(r.body[0]!);
        this.endLine();
        if (r.else) this.writeElse(r);
        return;
      }
    }
    this.write(' {');
    this.endLine();
    if (this.o.regoV1 || this.o.ifs) this.markUnionLead(r.body[0]!);
    this.up();
    this.writeBody(r.body);
    this.insertComments(this.src.enclosingCloseRow(r.loc.offset, r.body[0]!.loc.offset));
    this.down();
    this.startLine();
    this.write('}');
    if (r.else) this.writeElse(r);
  }

  /** The row the head ends on (before `if` / `{`). */
  private headEndRow(r: Rule): number {
    const src = this.src.src;
    let p = this.src.endBefore(r.body[0]!.loc.offset);
    if (src[p - 1] === '{') p = this.src.endBefore(p - 1);
    if (src.slice(p - 2, p) === 'if') p = this.src.endBefore(p - 2);
    return this.src.row(Math.max(0, p - 1));
  }

  private writeElse(r: Rule): void {
    const e = r.else!;
    const wasInline = e.loc.row > r.loc.row && !this.src.startsLine(e.loc.offset);
    const commentAbove = this.nextCommentRow() < e.head.loc.row || this.hasBeforeEnd();
    if (!commentAbove && wasInline) this.write(' ');
    else {
      this.blankLine();
      this.startLine();
    }
    this.insertComments(e.head.loc.row);
    if (commentAbove && !wasInline) this.startLine();
    this.writeRule(e, true);
  }

  /** OPA's rule for printing a head value: implied `= true` is dropped. */
  private printsValue(r: Rule, isElse: boolean, expanded: boolean): boolean {
    const h = r.head;
    if (isSetRule(r)) return false;
    const generated = h.value === undefined;
    const isTrue = generated || (h.value!.kind === 'boolean' && h.value!.value);
    const hasKey = !isElse && h.ref.length === 2;
    if (!(hasKey || !isTrue || expanded || r.default)) return false;
    // OPA leaves `f(x)` bare here (a function returning true in either version)
    // (in v0, OPA prints `= true` for a longer ref head: its value has its own location)
    const v1RefConst = (this.o.regoV1 || h.ref.length > 2) && expanded && !hasKey;
    return !(generated && !isElse && !v1RefConst);
  }

  private writeHead(r: Rule, isElse: boolean, expanded: boolean): void {
    const h = r.head;
    if (isElse) {
      if (!this.inline) this.startLine();
      this.write('else');
    } else {
      const ref = h.ref;
      if (this.o.refHeads || ref.length === 1) {
        const t: Term = ref.length === 1 ? ref[0]! : { kind: 'ref', head: ref[0]!, path: ref.slice(1), loc: ref[0]!.loc } satisfies RefTerm;
        this.writeTerm(t);
      } else {
        this.write(`${formatTerm(ref[0]!)}[${formatTerm(ref[1]!)}]`);
      }
      if (h.args) {
        this.write('(');
        this.writeIterable(h.args.map((a) => ({
          row: a.loc.row,
          offset: a.loc.offset,
          write: () => this.writeTerm(a),
        })), h.loc.row, this.src.closeRowAfter(h.loc.offset, '('), this.src.src.slice(h.loc.offset, h.args[0]?.loc.offset ?? 0).includes('\n'));
        this.write(')');
      }
    }
    if (isSetRule(r)) {
      if (this.o.contains) {
        this.write(' contains ');
        this.writeTerm(h.key!);
      } else {
        this.write('[');
        this.writeTerm(h.key!);
        this.write(']');
      }
      return;
    }
    if (!this.printsValue(r, isElse, expanded)) return;
    this.write(h.assign || this.o.regoV1 ? ' := ' : ' = ');
    if (h.value === undefined) this.write('true');
    else this.writeTerm(h.value, isElse ? h.loc.row : h.value.loc.row);
  }
}

/** Print a parsed module the way `opa fmt` does. `src` is the text it was parsed from. */
export function formatModuleSource(m: Module, src: string, opts: SourceFormatOptions = {}): string {
  const mode = opts.mode ?? 'v1';
  const regoV1 = mode !== 'v0';
  let imports = m.imports;
  if (mode === 'v1' && opts.dropV0Imports) imports = imports.filter((i) => !isRego(i, 'v1'));
  if (mode === 'v0-v1' && !imports.some((i) => isRego(i, 'v1'))) {
    // placed after the last future.keywords import (OPA's nextImportLoc), else first
    const prev = imports.filter((i) => isFuture(i) || isRego(i, 'v2')).pop();
    const firstRule = m.rules[0]?.loc.row ?? Infinity;
    const loc = prev && prev.loc.row + 1 < firstRule
      ? { file: m.file, row: prev.loc.row + 1, col: 1, offset: prev.loc.offset + 1 }
      : { file: m.file, row: 1, col: 1, offset: -1 };
    imports = [{ kind: 'import', path: { kind: 'ref', head: { kind: 'var', name: 'rego', loc }, path: [{ kind: 'string', value: 'v1', loc }], loc }, loc }, ...imports];
  }
  const regoV1Imported = imports.some((i) => isRego(i, 'v1'));
  if ((regoV1 || regoV1Imported) && (opts.dropV0Imports || regoV1Imported)) imports = imports.filter((i) => !isFuture(i));
  const all = m.imports.some((i) => isRego(i, 'v1') || isRego(i, 'v2') || (isFuture(i) && importSegments(i).length === 2));
  const o: WriterOptions = {
    regoV1,
    ifs: regoV1 || all || m.imports.some((i) => isFuture(i, 'if')),
    contains: regoV1 || all || m.imports.some((i) => isFuture(i, 'contains')),
    futureKeywords: new Set(m.imports.flatMap((i) => {
      const seg = importSegments(i);
      if (isRego(i, 'v1') || isRego(i, 'v2') || (isFuture(i) && seg.length === 2)) return [...FUTURE];
      return isFuture(i) ? [seg[2]!] : [];
    })),
    refHeads: m.rules.some((r) => r.head.ref.length > 2 || (r.head.ref.length === 2 && isSetRule(r))),
  };
  const w = new ModuleWriter(new SourceInfo(src, m.comments), m.comments, o);
  w.writeModule(m, imports);
  return w.output();
}
