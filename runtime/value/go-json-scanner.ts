// A port of Go's encoding/json scanner (src/encoding/json/scanner.go): a state
// machine fed one UTF-8 byte at a time that reports Go's exact syntax-error texts
// ("invalid character 'x' looking for beginning of value", "… exceeded max depth"),
// and the two loops Go runs it in: checkValid (json.Valid) and Decoder.readValue
// (one json.Decoder.Decode); go-json.ts builds OPA's uses on these. States are
// module-level functions (the ones inside `\u` escapes and literals are built once),
// so scanning creates no closures.

// Scanner opcodes (scanner.go); only the ones the loops below branch on matter here.
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
export const MAX_NESTING_DEPTH = 10000;

const SPACE = 0x20;
export const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
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

/** One scan: feed bytes with `s.step(s, c)`; the returned opcode says what the byte did. */
class Scanner {
  step: State = stateBeginValue;
  parseState: number[] = [];
  /** Go's scanner.err: the first syntax error (recorded, not thrown). */
  err: string | undefined;
  /** The top-level value is complete. */
  endTop = false;

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
    if (this.parseState.length === 0) {
      this.step = stateEndTop;
      this.endTop = true;
    } else this.step = stateEndValue;
  }

  /** scanner.eof: the input ended; SCAN_END if it held one complete value, else SCAN_ERROR with `err` set. */
  eof(): number {
    if (this.err !== undefined) return SCAN_ERROR;
    if (this.endTop) return SCAN_END;
    this.step(this, SPACE);
    if (this.endTop) return SCAN_END;
    this.err ??= 'unexpected end of JSON input';
    return SCAN_ERROR;
  }
}

/** Go's checkValid: feed every byte, then eof(); the syntax error, or undefined for exactly one value. */
export function checkValid(b: Uint8Array): string | undefined {
  const s = new Scanner();
  for (let i = 0; i < b.length; i++) {
    if (s.step(s, b[i]!) === SCAN_ERROR) return s.err;
  }
  return s.eof() === SCAN_ERROR ? s.err : undefined;
}

export type ReadResult = { end: number } | { error: string } | { eof: true };

/** Decoder.readValue from byte `from`: where the value ends, its syntax error, or io.EOF (only spaces). */
export function readValue(b: Uint8Array, from: number): ReadResult {
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
      s.step = TRUE[1]!;
      return SCAN_BEGIN_LITERAL;
    case 0x66 /* f */:
      s.step = FALSE[1]!;
      return SCAN_BEGIN_LITERAL;
    case 0x6e /* n */:
      s.step = NULL[1]!;
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
    s.endTop = true;
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
    s.step = HEX[0]!;
    return SCAN_CONTINUE;
  }
  return s.error(c, 'in string escape code');
}

/** The states after `\u`: HEX[k] wants hex digit k+1 of 4 (stateInStringEscU, …U1, …U12, …U123). */
const HEX: State[] = [1, 2, 3, 4].map((k) => (s: Scanner, c: number): number => {
  if (!isHex(c)) return s.error(c, 'in \\u hexadecimal character escape');
  s.step = k === 4 ? stateInString : HEX[k]!;
  return SCAN_CONTINUE;
});

/** The states inside true/false/null: `word[k]` is the byte expected next (stateT, stateTr, …). */
function literalStates(word: string): State[] {
  const states: State[] = [];
  for (let k = 1; k < word.length; k++) {
    const expected = word.charCodeAt(k);
    states[k] = (s, c) => {
      if (c !== expected) return s.error(c, `in literal ${word} (expecting ${quoteChar(expected)})`);
      s.step = k === word.length - 1 ? stateEndValue : states[k + 1]!;
      return SCAN_CONTINUE;
    };
  }
  return states;
}

const TRUE = literalStates('true');
const FALSE = literalStates('false');
const NULL = literalStates('null');

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

