// Parser core: token cursor over the on-demand Lexer, keyword activation (v0 future
// keywords), error helpers, backtracking (save/restore), the nesting-depth guard and
// the module/query/term entry points. Grammar productions live in terms.ts,
// expressions.ts, rules.ts, imports.ts and annotations.ts (see grammar.md).
import type { Body, Comment, Location, Module, Rule, Term, VarTerm } from '../ast/nodes.js';
import { Lexer, ParseFailure, type LexerState } from '../lexer/lexer.js';
import { C } from '../lexer/chars.js';
import { isKeywordKind, T, tokenName } from '../lexer/token-kinds.js';
import { parseError, type RegoError } from '../source/diagnostics.js';
import { MAX_NESTING_DEPTH } from '../source/limits.js';
import { attachAnnotations } from './annotations.js';
import { parseBody } from './expressions.js';
import { parseImport, parsePackage } from './imports.js';
import { checkRegoV1, parseStatement } from './rules.js';
import { parseTerm } from './terms.js';

export interface ParserOptions {
  v0Compatible?: boolean;
}

/** Parser state saved for backtracking. */
interface ParserState {
  lx: LexerState;
  wildcards: number;
  depth: number;
}

/** Per-rule facts the v1 syntax check needs but the AST does not carry. */
export interface RuleSyntax {
  hasIf: boolean;
  hasContains: boolean;
  /** Body was written (braces or `if`), not generated. */
  hasBody: boolean;
  /** Value was written (`=`/`:=`), or the rule is multi-value. */
  hasValue: boolean;
}

export { ParseFailure };

export class Parser {
  readonly lx: Lexer;
  readonly file: string;
  readonly v0: boolean;
  /** Future keywords active in v0 mode (all of them in v1). */
  readonly futureKw = new Set<string>();
  /** `not { body }` enabled by `import future.keywords.not` or `import rego.v2`. */
  notBodies = false;
  /** Counter for `_` wildcards → `$_N`. */
  wildcards = 0;
  depth = 0;
  /** Offsets at which a comprehension body was tried and failed (avoids exponential retries). */
  readonly failedBodies = new Set<number>();
  readonly syntax = new Map<Rule, RuleSyntax>();
  /** Errors collected without aborting (v1 checks). */
  readonly errors: RegoError[] = [];

  constructor(text: string, file: string, opts: ParserOptions = {}) {
    this.lx = new Lexer(text, file);
    this.file = file;
    this.v0 = !!opts.v0Compatible;
  }

  // ------------------------------------------------------------ cursor

  tok(): T {
    return this.lx.type;
  }

  /** Advance one token, demoting inactive future keywords (v0) to identifiers. */
  next(): void {
    this.lx.next();
    const t = this.lx.type;
    if (this.v0 && (t === T.If || t === T.Contains || t === T.In || t === T.Every) && !this.futureKw.has(this.lx.value)) {
      this.lx.type = T.Ident;
    }
  }

  /** The current token is a keyword used as the head of a ref (`input.x` style: `not.x`, `if[0]`). */
  keywordAsRef(): boolean {
    if (!isKeywordKind(this.tok())) return false;
    const c = this.lx.src.charCodeAt(this.lx.end);
    return c === C.Dot || c === C.LBrack;
  }

  /** Is the current token an identifier or any keyword (allowed after `.` in refs). */
  isNameToken(): boolean {
    return this.tok() === T.Ident || isKeywordKind(this.tok());
  }

  loc(offset: number = this.lx.start): Location {
    return this.lx.loc(offset);
  }

  save(): ParserState {
    return { lx: this.lx.save(), wildcards: this.wildcards, depth: this.depth };
  }

  restore(s: ParserState): void {
    this.lx.restore(s.lx);
    this.wildcards = s.wildcards;
    this.depth = s.depth;
  }

  /** Run `fn`; on a parse error restore the state and return undefined. */
  attempt<R>(fn: () => R): R | undefined {
    const s = this.save();
    try {
      return fn();
    } catch (e) {
      if (e instanceof ParseFailure && !e.fatal) {
        this.restore(s);
        return undefined;
      }
      throw e;
    }
  }

  enter(): void {
    if (++this.depth > MAX_NESTING_DEPTH) {
      throw new ParseFailure(`max nesting depth ${MAX_NESTING_DEPTH} exceeded`, this.loc(), true);
    }
  }

  leave(): void {
    this.depth--;
  }

  // ------------------------------------------------------------ errors

  errorAt(message: string, offset: number = this.lx.start): ParseFailure {
    return new ParseFailure(message, this.loc(offset));
  }

  /**
   * An error OPA raises while turning statements into a module (parser_ext.go
   * parseModule: `package expected`, `var cannot be used for rule name`, …), which
   * carries no source line and caret.
   */
  moduleErrorAt(message: string, offset: number): ParseFailure {
    return new ParseFailure(message, this.loc(offset), false, false);
  }

  /**
   * Record a non-fatal error (parsing continues). Every such error is one of OPA's
   * checks after parsing (CheckRegoV1, annotation attachment): no source line.
   */
  report(message: string, offset: number): void {
    this.errors.push(parseError(message, this.loc(offset)));
  }

  /** OPA-style `unexpected <tok> token[: note]` at the current token. */
  illegal(note = ''): ParseFailure {
    const kind = isKeywordKind(this.tok()) ? 'keyword' : 'token';
    const msg = `unexpected ${tokenName(this.tok())} ${kind}`;
    return this.errorAt(note ? `${msg}: ${note}` : msg);
  }

  expect(t: T, note?: string): void {
    if (this.tok() !== t) throw this.illegal(note ?? `expected ${tokenName(t)}`);
    this.next();
  }

  // ------------------------------------------------------------ helpers

  genWildcard(loc: Location): VarTerm {
    return { kind: 'var', name: `$_${this.wildcards++}`, wildcard: true, loc };
  }

  comments(): Comment[] {
    return this.lx.comments.map((c) => ({ text: c.text, loc: this.loc(c.offset) }));
  }

  // ------------------------------------------------------------ entry points

  parseModule(): Module {
    this.next();
    if (this.tok() === T.EOF) throw new ParseFailure('empty module', { file: this.file, row: 1, col: 1, offset: 0 }, false, false);
    if (this.tok() !== T.Package) throw this.moduleErrorAt('package expected', this.lx.start);
    const pkg = parsePackage(this);
    const mod: Module = {
      kind: 'module', file: this.file, package: pkg, imports: [], rules: [], annotations: [], comments: [],
      regoVersion: this.v0 ? 0 : 1,
    };
    let v1Checks = !this.v0;
    while (this.tok() !== T.EOF) {
      if (this.tok() === T.Import && !this.keywordAsRef()) {
        const imp = parseImport(this);
        mod.imports.push(imp);
        if (imp.path.kind === 'ref' && imp.path.head.kind === 'var' && imp.path.head.name === 'rego') v1Checks = true;
        continue;
      }
      if (this.tok() === T.Package && !this.keywordAsRef()) throw this.moduleErrorAt('unexpected package', this.lx.start);
      for (const r of parseStatement(this)) mod.rules.push(r);
    }
    if (v1Checks) for (const r of mod.rules) checkRegoV1(this, r);
    mod.comments = this.comments();
    attachAnnotations(this, mod);
    return mod;
  }

  parseQuery(): Body {
    this.next();
    if (this.tok() === T.EOF) throw this.errorAt('empty query');
    return parseBody(this, T.EOF);
  }

  parseTermOnly(): Term {
    this.next();
    const t = parseTerm(this);
    if (this.tok() !== T.EOF) throw this.illegal('expected end of term');
    return t;
  }
}
