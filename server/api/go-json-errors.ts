// Go's encoding/json error texts for request bodies that JSON.parse rejected.
//
// OPA reads JSON request bodies with Go's json.Decoder (util.NewJSONDecoder, UseNumber):
// one Decode call reads the first value and never looks at what follows it. The GET
// `input` parameter and the authorizer use util.UnmarshalJSON instead, which after
// the Decode calls decoder.Token() once to reject trailing data. Clients compare the
// 400 messages byte for byte, so on the error path we re-run the text through a port
// of Go's scanner (src/encoding/json/scanner.go) and of the parts of stream.go that
// decide which message wins (Decoder.readValue, Decoder.Token, Decoder.tokenError).
// Only failures come here, so the port favours fidelity over speed.
//
// Go scans bytes, so the text is UTF-8 encoded first, and a non-ASCII offending byte
// is quoted the way Go's quoteChar does: as the rune with that byte's value ('Ã' for
// the first byte of "é"). Invalid UTF-8 in the original body was already replaced by
// U+FFFD (EF BF BD) when the bytes became text, so such a body quotes 'ï' where Go
// would quote the original byte.

/** `decode`: one json.Decoder.Decode (request bodies). `unmarshal`: OPA's util.UnmarshalJSON. */
export type GoJSONMode = 'decode' | 'unmarshal';

/** Whether Go accepts the text; when it does, `end` is where its (first) value ends, in UTF-16 units. */
export type GoJSONOutcome = { ok: true; end: number } | { ok: false; message: string };

// Scanner opcodes (scanner.go); only the ones the decoder branches on matter here.
const SCAN_CONTINUE = 0;
const SCAN_BEGIN_LITERAL = 1;
const SCAN_BEGIN_OBJECT = 2;
const SCAN_OBJECT_KEY = 3;
const SCAN_OBJECT_VALUE = 4;
const SCAN_END_OBJECT = 5;
const SCAN_BEGIN_ARRAY = 6;
const SCAN_ARRAY_VALUE = 7;
const SCAN_END_ARRAY = 8;
const SCAN_SKIP_SPACE = 9;
const SCAN_END = 10;
const SCAN_ERROR = 11;

// Parse states kept on the scanner's stack.
const PARSE_OBJECT_KEY = 0;
const PARSE_OBJECT_VALUE = 1;
const PARSE_ARRAY_VALUE = 2;

/** scanner.go maxNestingDepth: deeper nesting is a syntax error. */
const MAX_NESTING_DEPTH = 10000;

const SPACE = 0x20;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

type State = (s: Scanner, c: number) => number;

/** Go's quoteChar: the byte as a single-quoted rune, escaped as strconv.Quote would. */
export function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  return `'${quoteRune(c)}'`;
}

/** strconv.Quote's body for one rune U+0000..U+00FF (the byte value as a rune). */
function quoteRune(c: number): string {
  const hex = c.toString(16).padStart(2, '0');
  switch (c) {
    case 0x07: return '\\a';
    case 0x08: return '\\b';
    case 0x0c: return '\\f';
    case 0x0a: return '\\n';
    case 0x0d: return '\\r';
    case 0x09: return '\\t';
    case 0x0b: return '\\v';
    case 0x5c: return '\\\\';
  }
  if (c < 0x20 || c === 0x7f) return `\\x${hex}`;
  // Not printable for strconv.IsPrint: C1 controls, NO-BREAK SPACE, SOFT HYPHEN.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u00${hex}`;
  return String.fromCharCode(c);
}

class Scanner {
  step: State = stateBeginValue;
  parseState: number[] = [];
  err: string | undefined;

  error(c: number, context: string): number {
    this.step = stateError;
    this.err = `invalid character ${quoteChar(c)} ${context}`;
    return SCAN_ERROR;
  }

  push(c: number, state: number, success: number): number {
    this.parseState.push(state);
    return this.parseState.length <= MAX_NESTING_DEPTH ? success : this.error(c, 'exceeded max depth');
  }

  pop(): void {
    this.parseState.pop();
    this.step = this.parseState.length === 0 ? stateEndTop : stateEndValue;
  }
}

function stateBeginValueOrEmpty(s: Scanner, c: number): number {
  if (isSpace(c)) return SCAN_SKIP_SPACE;
  if (c === 0x5d /* ] */) return stateEndValue(s, c);
  return stateBeginValue(s, c);
}

function stateBeginValue(s: Scanner, c: number): number {
  if (isSpace(c)) return SCAN_SKIP_SPACE;
  switch (c) {
    case 0x7b /* { */:
      s.step = stateBeginStringOrEmpty;
      return s.push(c, PARSE_OBJECT_KEY, SCAN_BEGIN_OBJECT);
    case 0x5b /* [ */:
      s.step = stateBeginValueOrEmpty;
      return s.push(c, PARSE_ARRAY_VALUE, SCAN_BEGIN_ARRAY);
    case 0x22 /* " */:
      s.step = stateInString;
      return SCAN_BEGIN_LITERAL;
    case 0x2d /* - */:
      s.step = stateNeg;
      return SCAN_BEGIN_LITERAL;
    case 0x30 /* 0 */:
      s.step = state0;
      return SCAN_BEGIN_LITERAL;
    case 0x74 /* t */:
      s.step = literal('true', 1);
      return SCAN_BEGIN_LITERAL;
    case 0x66 /* f */:
      s.step = literal('false', 1);
      return SCAN_BEGIN_LITERAL;
    case 0x6e /* n */:
      s.step = literal('null', 1);
      return SCAN_BEGIN_LITERAL;
  }
  if (c >= 0x31 && c <= 0x39) {
    s.step = state1;
    return SCAN_BEGIN_LITERAL;
  }
  return s.error(c, 'looking for beginning of value');
}

function stateBeginStringOrEmpty(s: Scanner, c: number): number {
  if (isSpace(c)) return SCAN_SKIP_SPACE;
  if (c === 0x7d /* } */) {
    s.parseState[s.parseState.length - 1] = PARSE_OBJECT_VALUE;
    return stateEndValue(s, c);
  }
  return stateBeginString(s, c);
}

function stateBeginString(s: Scanner, c: number): number {
  if (isSpace(c)) return SCAN_SKIP_SPACE;
  if (c === 0x22) {
    s.step = stateInString;
    return SCAN_BEGIN_LITERAL;
  }
  return s.error(c, 'looking for beginning of object key string');
}

function stateEndValue(s: Scanner, c: number): number {
  const n = s.parseState.length;
  if (n === 0) {
    s.step = stateEndTop;
    return stateEndTop(s, c);
  }
  if (isSpace(c)) {
    s.step = stateEndValue;
    return SCAN_SKIP_SPACE;
  }
  switch (s.parseState[n - 1]) {
    case PARSE_OBJECT_KEY:
      if (c === 0x3a /* : */) {
        s.parseState[n - 1] = PARSE_OBJECT_VALUE;
        s.step = stateBeginValue;
        return SCAN_OBJECT_KEY;
      }
      return s.error(c, 'after object key');
    case PARSE_OBJECT_VALUE:
      if (c === 0x2c /* , */) {
        s.parseState[n - 1] = PARSE_OBJECT_KEY;
        s.step = stateBeginString;
        return SCAN_OBJECT_VALUE;
      }
      if (c === 0x7d) {
        s.pop();
        return SCAN_END_OBJECT;
      }
      return s.error(c, 'after object key:value pair');
    default:
      if (c === 0x2c) {
        s.step = stateBeginValue;
        return SCAN_ARRAY_VALUE;
      }
      if (c === 0x5d) {
        s.pop();
        return SCAN_END_ARRAY;
      }
      return s.error(c, 'after array element');
  }
}

/** After the top-level value: Go records the complaint but still reports scanEnd. */
function stateEndTop(s: Scanner, c: number): number {
  if (!isSpace(c)) s.error(c, 'after top-level value');
  return SCAN_END;
}

function stateInString(s: Scanner, c: number): number {
  if (c === 0x22) {
    s.step = stateEndValue;
    return SCAN_CONTINUE;
  }
  if (c === 0x5c /* \ */) {
    s.step = stateInStringEsc;
    return SCAN_CONTINUE;
  }
  if (c < 0x20) return s.error(c, 'in string literal');
  return SCAN_CONTINUE;
}

function stateInStringEsc(s: Scanner, c: number): number {
  if ('bfnrt\\/"'.includes(String.fromCharCode(c))) {
    s.step = stateInString;
    return SCAN_CONTINUE;
  }
  if (c === 0x75 /* u */) {
    s.step = hexEscape(4);
    return SCAN_CONTINUE;
  }
  return s.error(c, 'in string escape code');
}

/** The states after `\u`: `left` hex digits to go (stateInStringEscU, …U1, …U12, …U123). */
function hexEscape(left: number): State {
  return (s, c) => {
    if (!isHex(c)) return s.error(c, 'in \\u hexadecimal character escape');
    s.step = left === 1 ? stateInString : hexEscape(left - 1);
    return SCAN_CONTINUE;
  };
}

/** The states inside true/false/null: `word[k]` is the byte expected next (stateT, stateTr, …). */
function literal(word: string, k: number): State {
  return (s, c) => {
    if (c !== word.charCodeAt(k)) return s.error(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
    s.step = k === word.length - 1 ? stateEndValue : literal(word, k + 1);
    return SCAN_CONTINUE;
  };
}

function stateNeg(s: Scanner, c: number): number {
  if (c === 0x30) {
    s.step = state0;
    return SCAN_CONTINUE;
  }
  if (c >= 0x31 && c <= 0x39) {
    s.step = state1;
    return SCAN_CONTINUE;
  }
  return s.error(c, 'in numeric literal');
}

function state1(s: Scanner, c: number): number {
  if (isDigit(c)) return SCAN_CONTINUE;
  return state0(s, c);
}

function state0(s: Scanner, c: number): number {
  if (c === 0x2e /* . */) {
    s.step = stateDot;
    return SCAN_CONTINUE;
  }
  if (c === 0x65 || c === 0x45 /* e E */) {
    s.step = stateE;
    return SCAN_CONTINUE;
  }
  return stateEndValue(s, c);
}

function stateDot(s: Scanner, c: number): number {
  if (isDigit(c)) {
    s.step = stateDot0;
    return SCAN_CONTINUE;
  }
  return s.error(c, 'after decimal point in numeric literal');
}

function stateDot0(s: Scanner, c: number): number {
  if (isDigit(c)) return SCAN_CONTINUE;
  if (c === 0x65 || c === 0x45) {
    s.step = stateE;
    return SCAN_CONTINUE;
  }
  return stateEndValue(s, c);
}

function stateE(s: Scanner, c: number): number {
  if (c === 0x2b || c === 0x2d /* + - */) {
    s.step = stateESign;
    return SCAN_CONTINUE;
  }
  return stateESign(s, c);
}

function stateESign(s: Scanner, c: number): number {
  if (isDigit(c)) {
    s.step = stateE0;
    return SCAN_CONTINUE;
  }
  return s.error(c, 'in exponent of numeric literal');
}

function stateE0(s: Scanner, c: number): number {
  if (isDigit(c)) return SCAN_CONTINUE;
  return stateEndValue(s, c);
}

function stateError(): number {
  return SCAN_ERROR;
}

type ReadResult = { end: number } | { error: string } | { eof: true };

/** Decoder.readValue from byte `from`: where the value ends, its syntax error, or io.EOF (only spaces). */
function readValue(b: Uint8Array, from: number): ReadResult {
  const s = new Scanner();
  let nonSpace = false;
  for (let i = from; i < b.length; i++) {
    const c = b[i]!;
    if (!isSpace(c)) nonSpace = true;
    const op = s.step(s, c);
    if (op === SCAN_END) return { end: i };
    // An object or array may end the value: Go feeds an invented space to find out.
    if ((op === SCAN_END_OBJECT || op === SCAN_END_ARRAY) && stateEndValue(s, SPACE) === SCAN_END) return { end: i + 1 };
    if (op === SCAN_ERROR) return { error: s.err! };
  }
  // io.EOF: a space completes a pending number; anything else half-read is io.ErrUnexpectedEOF.
  if (s.step(s, SPACE) === SCAN_END) return { end: b.length };
  return nonSpace ? { error: 'unexpected EOF' } : { eof: true };
}

/** The `%s` text of the token decoder.Token() returns for a scalar (UseNumber), or undefined for null. */
function tokenText(literalText: string): string | undefined {
  if (literalText === 'null') return undefined;
  if (literalText === 'true' || literalText === 'false') return `%!s(bool=${literalText})`;
  if (literalText.startsWith('"')) {
    // Go decodes unpaired surrogate escapes to U+FFFD.
    return (JSON.parse(literalText) as string).replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  }
  return literalText; // a json.Number keeps its source text
}

/** What Go's decoder makes of `text`: the end of the value it accepts, or its error message. */
export function goJSONDecode(text: string, mode: GoJSONMode = 'decode'): GoJSONOutcome {
  const b = Buffer.from(text, 'utf8');
  const first = readValue(b, 0);
  if ('eof' in first) return { ok: false, message: 'EOF' };
  if ('error' in first) return { ok: false, message: first.error };
  const ok: GoJSONOutcome = { ok: true, end: b.subarray(0, first.end).toString('utf8').length };
  if (mode === 'decode') return ok;

  // util.UnmarshalJSON: `tok, err := decoder.Token()`; a token is reported with %s.
  let p = first.end;
  while (p < b.length && isSpace(b[p]!)) p++;
  if (p === b.length) return ok;
  const c = b[p]!;
  const trailing = (tok: string): GoJSONOutcome => ({ ok: false, message: `error: invalid character '${tok}' after top-level value` });
  if (c === 0x5b || c === 0x7b) return trailing(String.fromCharCode(c)); // a json.Delim
  if (c === 0x5d || c === 0x7d || c === 0x3a || c === 0x2c) {
    return { ok: false, message: `invalid character ${quoteChar(c)} looking for beginning of value` }; // Decoder.tokenError
  }
  const next = readValue(b, p);
  if ('error' in next) return { ok: false, message: next.error };
  if ('eof' in next) return ok; // unreachable: b[p] is not a space
  const tok = tokenText(b.subarray(p, next.end).toString('utf8'));
  return tok === undefined ? ok : trailing(tok);
}

/**
 * The message Go's decoder gives for `text` (see goJSONDecode for the modes): `EOF` for
 * an empty or all-space text, `unexpected EOF` for a truncated one, otherwise Go's
 * `invalid character …` syntax error. Returns '' when Go would accept the text.
 */
export function goJSONError(text: string, mode: GoJSONMode = 'decode'): string {
  const outcome = goJSONDecode(text, mode);
  return outcome.ok ? '' : outcome.message;
}
