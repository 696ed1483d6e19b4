// The Rego lexer. Scans on demand (the parser pulls one token at a time), works on
// char codes with a numeric switch, and records positions as offsets only; rows and
// columns are computed from a line table when a Location is needed. Comments are
// collected on the side. Template strings are scanned in chunks: the parser parses
// each embedded expression itself and then calls `continueTemplate`.
import type { Location } from '../source/location.js';
import { C, isDigit, isHex, isIdentPart, isLetter } from './chars.js';
import { KEYWORDS, T } from './token-kinds.js';

/**
 * A syntax error raised inside the lexer/parser. Deliberately not an `Error`: it is
 * thrown for backtracking too, and capturing stack traces would dominate parse time.
 * The entry points convert it into a `RegoError`. `fatal` failures (limits) are
 * never backtracked over.
 */
export class ParseFailure {
  constructor(
    readonly message: string,
    readonly location: Location,
    readonly fatal = false,
    /** False for OPA's module-level errors, which carry no source line (parser/index.ts). */
    readonly withDetail = true,
  ) {}
}

export interface RawComment {
  /** Comment text without the leading `#`. */
  text: string;
  offset: number;
}

/** A snapshot of the lexer, for parser backtracking. */
export interface LexerState {
  pos: number;
  type: T;
  start: number;
  end: number;
  value: string;
  raw: boolean;
  nlBefore: boolean;
  wsBefore: boolean;
  lastEnd: number;
  comments: number;
}

export class Lexer {
  readonly src: string;
  readonly file: string;
  /** Offsets at which each line starts. */
  private readonly lines: number[];
  pos = 0;
  // ---- current token
  type: T = T.EOF;
  start = 0;
  end = 0;
  /** Identifier name, unescaped string value, number text or template chunk. */
  value = '';
  /** Back-quoted string or template. */
  raw = false;
  /** A newline was skipped before the current token. */
  nlBefore = false;
  /** Whitespace or a comment was skipped before the current token. */
  wsBefore = false;
  /** End offset of the previous token. */
  lastEnd = 0;
  readonly comments: RawComment[] = [];

  constructor(src: string, file: string) {
    this.src = src;
    this.file = file;
    const lines = [0];
    let i = src.indexOf('\n');
    while (i >= 0) {
      lines.push(i + 1);
      i = src.indexOf('\n', i + 1);
    }
    this.lines = lines;
  }

  // ------------------------------------------------------------ locations

  loc(offset: number): Location {
    const lines = this.lines;
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lines[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.file, row: lo + 1, col: offset - lines[lo]! + 1, offset };
  }

  error(message: string, offset: number): ParseFailure {
    return new ParseFailure(message, this.loc(offset));
  }

  save(): LexerState {
    return {
      pos: this.pos, type: this.type, start: this.start, end: this.end, value: this.value, raw: this.raw,
      nlBefore: this.nlBefore, wsBefore: this.wsBefore, lastEnd: this.lastEnd, comments: this.comments.length,
    };
  }

  restore(s: LexerState): void {
    this.pos = s.pos; this.type = s.type; this.start = s.start; this.end = s.end; this.value = s.value;
    this.raw = s.raw; this.nlBefore = s.nlBefore; this.wsBefore = s.wsBefore; this.lastEnd = s.lastEnd;
    this.comments.length = s.comments;
  }

  // ------------------------------------------------------------ scanning

  /** Advance to the next token. */
  next(): void {
    this.lastEnd = this.end;
    this.skipSpace();
    this.start = this.pos;
    this.raw = false;
    this.scanToken();
    this.end = this.pos;
  }

  private skipSpace(): void {
    const src = this.src;
    let nl = false;
    let ws = false;
    let pos = this.pos;
    for (;;) {
      const c = src.charCodeAt(pos);
      if (c === C.Space || c === C.Tab || c === C.CR) {
        pos++; ws = true;
      } else if (c === C.LF) {
        pos++; ws = true; nl = true;
      } else if (c === C.Hash) {
        let e = src.indexOf('\n', pos);
        if (e < 0) e = src.length;
        let textEnd = e;
        while (textEnd > pos + 1 && src.charCodeAt(textEnd - 1) === C.CR) textEnd--;
        this.comments.push({ text: src.slice(pos + 1, textEnd), offset: pos });
        pos = e; ws = true;
      } else break;
    }
    this.pos = pos;
    this.nlBefore = nl;
    this.wsBefore = ws;
  }

  private scanToken(): void {
    const src = this.src;
    const pos = this.pos;
    if (pos >= src.length) {
      this.type = T.EOF;
      this.value = '';
      return;
    }
    const c = src.charCodeAt(pos);
    const n = src.charCodeAt(pos + 1);
    switch (c) {
      case C.LBrack: this.punct(T.LBrack, 1); return;
      case C.RBrack: this.punct(T.RBrack, 1); return;
      case C.LBrace: this.punct(T.LBrace, 1); return;
      case C.RBrace: this.punct(T.RBrace, 1); return;
      case C.LParen: this.punct(T.LParen, 1); return;
      case C.RParen: this.punct(T.RParen, 1); return;
      case C.Comma: this.punct(T.Comma, 1); return;
      case C.Semicolon: this.punct(T.Semicolon, 1); return;
      case C.Dot: this.punct(T.Dot, 1); return;
      case C.Plus: this.punct(T.Add, 1); return;
      case C.Minus: this.punct(T.Sub, 1); return;
      case C.Star: this.punct(T.Mul, 1); return;
      case C.Slash: this.punct(T.Quo, 1); return;
      case C.Percent: this.punct(T.Rem, 1); return;
      case C.Amp: this.punct(T.And, 1); return;
      case C.Pipe: this.punct(T.Or, 1); return;
      case C.Colon:
        if (n === C.Eq) this.punct(T.Assign, 2);
        else this.punct(T.Colon, 1);
        return;
      case C.Eq:
        if (n === C.Eq) this.punct(T.Equal, 2);
        else this.punct(T.Unify, 1);
        return;
      case C.Bang:
        if (n === C.Eq) { this.punct(T.Neq, 2); return; }
        throw this.error('illegal ! character', pos);
      case C.Lt:
        if (n === C.Eq) this.punct(T.Lte, 2);
        else this.punct(T.Lt, 1);
        return;
      case C.Gt:
        if (n === C.Eq) this.punct(T.Gte, 2);
        else this.punct(T.Gt, 1);
        return;
      case C.DQuote:
        this.pos = pos + 1;
        this.scanString();
        return;
      case C.Backquote: {
        const e = src.indexOf('`', pos + 1);
        if (e < 0) throw this.error('non-terminated raw string', pos);
        this.type = T.RawString;
        this.raw = true;
        this.value = src.slice(pos + 1, e);
        this.pos = e + 1;
        return;
      }
      case C.Dollar:
        if (n === C.DQuote || n === C.Backquote) {
          this.pos = pos + 2;
          this.scanTemplateChunk(n === C.Backquote);
          return;
        }
        throw this.error('illegal $ character', pos);
      default:
        if (isLetter(c)) {
          let e = pos + 1;
          while (isIdentPart(src.charCodeAt(e))) e++;
          const name = src.slice(pos, e);
          this.pos = e;
          this.value = name;
          this.type = KEYWORDS.get(name) ?? T.Ident;
          return;
        }
        if (isDigit(c)) {
          this.scanNumber();
          return;
        }
        throw this.error(`illegal token`, pos);
    }
  }

  private punct(type: T, len: number): void {
    this.type = type;
    this.value = '';
    this.pos += len;
  }

  private scanNumber(): void {
    const src = this.src;
    const start = this.pos;
    let p = start;
    while (isDigit(src.charCodeAt(p))) p++;
    if (src.charCodeAt(p) === C.Dot && isDigit(src.charCodeAt(p + 1))) {
      p++;
      while (isDigit(src.charCodeAt(p))) p++;
    } else if (src.charCodeAt(p) === C.Dot && !isLetter(src.charCodeAt(p + 1))) {
      throw this.error('expected fraction', p);
    }
    const e = src.charCodeAt(p);
    if (e === C.LowerE || e === C.UpperE) {
      p++;
      const s = src.charCodeAt(p);
      if (s === C.Plus || s === C.Minus) p++;
      if (!isDigit(src.charCodeAt(p))) throw this.error('expected exponent', p);
      while (isDigit(src.charCodeAt(p))) p++;
    }
    if (isLetter(src.charCodeAt(p))) throw this.error('illegal number format', start);
    this.type = T.Number;
    this.value = src.slice(start, p);
    this.pos = p;
  }

  /** Scan a double-quoted string; `this.pos` is just after the opening quote. */
  private scanString(): void {
    const src = this.src;
    const open = this.pos - 1;
    let p = this.pos;
    let chunkStart = p;
    let out = '';
    for (;;) {
      const c = src.charCodeAt(p);
      if (c === C.DQuote) break;
      if (c === C.LF || p >= src.length) throw this.error('non-terminated string', open);
      if (c === C.Backslash) {
        out += src.slice(chunkStart, p);
        p = this.scanEscape(p, false, (s) => { out += s; });
        chunkStart = p;
        continue;
      }
      p++;
    }
    out += src.slice(chunkStart, p);
    this.type = T.String;
    this.value = out;
    this.pos = p + 1;
  }

  /**
   * Decode the escape at `p` (a backslash), pass the decoded text to `emit` and
   * return the offset after it. `braces` additionally allows `\{` and `\}`.
   */
  private scanEscape(p: number, braces: boolean, emit: (s: string) => void): number {
    const src = this.src;
    const c = src.charCodeAt(p + 1);
    switch (c) {
      case C.DQuote: emit('"'); return p + 2;
      case C.Backslash: emit('\\'); return p + 2;
      case C.Slash: emit('/'); return p + 2;
      case C.LowerB: emit('\b'); return p + 2;
      case C.LowerF: emit('\f'); return p + 2;
      case C.LowerN: emit('\n'); return p + 2;
      case C.LowerR: emit('\r'); return p + 2;
      case C.LowerT: emit('\t'); return p + 2;
      case C.LowerU: {
        const cu = this.hex4(p + 2);
        if (cu < 0) throw this.error('illegal escape sequence', p);
        if (cu >= 0xd800 && cu <= 0xdbff && src.charCodeAt(p + 6) === C.Backslash && src.charCodeAt(p + 7) === C.LowerU) {
          const lo = this.hex4(p + 8);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            emit(String.fromCharCode(cu, lo));
            return p + 12;
          }
        }
        // Lone surrogates decode to U+FFFD, as Go's encoding/json does.
        emit(cu >= 0xd800 && cu <= 0xdfff ? '\ufffd' : String.fromCharCode(cu));
        return p + 6;
      }
      case C.LBrace:
      case C.RBrace:
        if (braces) { emit(String.fromCharCode(c)); return p + 2; }
        throw this.error('illegal escape sequence', p);
      default:
        throw this.error('illegal escape sequence', p);
    }
  }

  private hex4(p: number): number {
    const src = this.src;
    for (let i = 0; i < 4; i++) if (!isHex(src.charCodeAt(p + i))) return -1;
    return parseInt(src.slice(p, p + 4), 16);
  }

  /**
   * Scan a template-string chunk starting at `this.pos` (just after `$"`, `` $` `` or
   * the `}` closing an embedded expression). Produces TemplatePart when the chunk
   * ends at an unescaped `{`, TemplateEnd when it ends at the closing quote.
   */
  private scanTemplateChunk(raw: boolean): void {
    const src = this.src;
    const quote = raw ? C.Backquote : C.DQuote;
    const open = this.start;
    let p = this.pos;
    // A raw template that opens with a line break drops it (`$\`` then newline),
    // so multi-line templates can start on their own line.
    if (raw && src.charCodeAt(p - 1) === C.Backquote) {
      if (src.charCodeAt(p) === C.CR && src.charCodeAt(p + 1) === C.LF) p += 2;
      else if (src.charCodeAt(p) === C.LF) p += 1;
    }
    let chunkStart = p;
    let out = '';
    for (;;) {
      if (p >= src.length) throw this.error('non-terminated template string', open);
      const c = src.charCodeAt(p);
      if (c === quote) {
        out += src.slice(chunkStart, p);
        this.type = T.TemplateEnd;
        break;
      }
      if (c === C.LBrace) {
        out += src.slice(chunkStart, p);
        this.type = T.TemplatePart;
        break;
      }
      if (!raw && c === C.LF) throw this.error('non-terminated template string', open);
      if (c === C.Backslash) {
        const d = src.charCodeAt(p + 1);
        if (raw) {
          if (d === C.LBrace || d === C.RBrace) {
            out += src.slice(chunkStart, p) + String.fromCharCode(d);
            p += 2;
            chunkStart = p;
          } else p++;
          continue;
        }
        out += src.slice(chunkStart, p);
        p = this.scanEscape(p, true, (s) => { out += s; });
        chunkStart = p;
        continue;
      }
      p++;
    }
    this.value = out;
    this.raw = raw;
    this.pos = p + 1;
  }

  /**
   * Called by the parser when the current token is the `}` that closes a template
   * expression: scan the next template chunk instead of a regular token.
   */
  continueTemplate(raw: boolean): void {
    this.lastEnd = this.end;
    this.start = this.pos - 1;
    this.nlBefore = false;
    this.wsBefore = false;
    this.scanTemplateChunk(raw);
    this.end = this.pos;
  }
}
