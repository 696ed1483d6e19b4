// Go fmt's per-verb formatting (the pp/fmt types of Go's fmt package) for the
// sprintf builtin: padding in runes, the 0/+/-/space/# flags, strings (%s %q %x),
// integers (%d %b %o %O %x %X %c %q %U), *big.Int's Format, floats (%e %f %g %x
// %b) and the `%!verb(type=value)` bad-verb form.
import { BuiltinError } from './errors.js';
import { formatFloat } from './sprintf-float.js';
import { goQuote, goQuoteRune, canBackquote, isPrintRune } from './strings-go.js';
import type { GoArg } from './sprintf.js';

/** Upper bound on the length of sprintf's output (UTF-16 units). */
export const SPRINTF_MAX_OUTPUT = 32 * 1024 * 1024;

export const TYPE_NAME: Record<GoArg['k'], string> = { int: 'int', big: '*big.Int', float: 'float64', string: 'string' };

export interface Flags {
  wid: number;
  widPresent: boolean;
  prec: number;
  precPresent: boolean;
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
}

export const newFlags = (): Flags => ({
  wid: 0, widPresent: false, prec: 0, precPresent: false, minus: false, plus: false,
  sharp: false, space: false, zero: false, plusV: false, sharpV: false,
});

const runeCount = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
};

export class Printer {
  out: string[] = [];
  len = 0;
  f: Flags = newFlags();

  write(s: string): void {
    this.len += s.length;
    if (this.len > SPRINTF_MAX_OUTPUT) throw new BuiltinError(`output exceeds ${SPRINTF_MAX_OUTPUT} bytes`);
    this.out.push(s);
  }

  padding(n: number, zero: boolean): string {
    if (n <= 0) return '';
    if (this.len + n > SPRINTF_MAX_OUTPUT) throw new BuiltinError(`output exceeds ${SPRINTF_MAX_OUTPUT} bytes`);
    return (zero ? '0' : ' ').repeat(n);
  }

  /** Go's fmt.pad: pad to the width in runes, on the left unless '-'. */
  pad(s: string, zero = this.f.zero): void {
    const f = this.f;
    if (!f.widPresent || f.wid === 0) return this.write(s);
    const p = this.padding(f.wid - runeCount(s), zero);
    this.write(f.minus ? s + p : p + s);
  }

  fmtString(s: string, verb: string): boolean {
    const f = this.f;
    switch (verb) {
      case 'v':
        if (f.sharpV) this.fmtQ(s);
        else this.fmtS(s);
        return true;
      case 's':
        this.fmtS(s);
        return true;
      case 'q':
        this.fmtQ(s);
        return true;
      case 'x':
      case 'X':
        this.fmtSx(s, verb === 'X');
        return true;
    }
    return false;
  }

  truncate(s: string): string {
    if (!this.f.precPresent) return s;
    let n = this.f.prec;
    let i = 0;
    for (const ch of s) {
      if (n-- <= 0) return s.slice(0, i);
      i += ch.length;
    }
    return s;
  }

  // Go ignores the '0' flag for strings.
  fmtS(s: string): void {
    this.pad(this.truncate(s), false);
  }

  fmtQ(s: string): void {
    s = this.truncate(s);
    if (this.f.sharp && canBackquote(s)) return this.pad('`' + s + '`', false);
    this.pad(goQuote(s, this.f.plus), false);
  }

  fmtSx(s: string, upper: boolean): void {
    const f = this.f;
    const digits = upper ? '0123456789ABCDEFX' : '0123456789abcdefx';
    let bytes = Buffer.from(s, 'utf8');
    if (f.precPresent && f.prec < bytes.length) bytes = bytes.subarray(0, f.prec);
    if (bytes.length === 0) {
      if (f.widPresent) this.write(this.padding(f.wid, false));
      return;
    }
    let body = f.sharp ? '0' + digits[16] : '';
    for (let i = 0; i < bytes.length; i++) {
      if (f.space && i > 0) body += f.sharp ? ' 0' + digits[16] : ' ';
      body += digits[bytes[i]! >> 4]! + digits[bytes[i]! & 15]!;
    }
    const pad = f.widPresent ? this.padding(f.wid - body.length, false) : '';
    this.write(f.minus ? body + pad : pad + body);
  }

  /** fmt.fmtInteger for int64 (signed) and big.Int-like magnitudes. */
  fmtInteger(v: bigint, base: number, verb: string): void {
    const f = this.f;
    const negative = v < 0n;
    let u = negative ? -v : v;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && u === 0n) {
        if (f.widPresent) this.write(this.padding(f.wid, false));
        return;
      }
    } else if (f.zero && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let digits = u.toString(base);
    if (verb === 'X') digits = digits.toUpperCase();
    if (prec > digits.length) digits = this.padding(prec - digits.length, true) + digits;
    if (f.sharp) {
      if (base === 2) digits = '0b' + digits;
      else if (base === 8 && digits[0] !== '0') digits = '0' + digits;
      else if (base === 16) digits = (verb === 'X' ? '0X' : '0x') + digits;
    }
    if (verb === 'O') digits = '0o' + digits;
    if (negative) digits = '-' + digits;
    else if (f.plus) digits = '+' + digits;
    else if (f.space) digits = ' ' + digits;
    u = 0n;
    this.pad(digits, false);
  }

  fmtUnicode(v: bigint): void {
    const f = this.f;
    let prec = 4;
    if (f.precPresent && f.prec > 4) prec = f.prec;
    const u = v < 0n ? (1n << 64n) + v : v;
    let s = u.toString(16).toUpperCase();
    if (s.length < prec) s = '0'.repeat(prec - s.length) + s;
    s = 'U+' + s;
    if (f.sharp && u <= 0x10ffffn && isPrintRune(Number(u))) s += " '" + String.fromCodePoint(Number(u)) + "'";
    this.pad(s, false);
  }

  fmtInt(v: bigint, verb: string): boolean {
    switch (verb) {
      case 'v':
      case 'd':
        this.fmtInteger(v, 10, verb);
        return true;
      case 'b':
        this.fmtInteger(v, 2, verb);
        return true;
      case 'o':
      case 'O':
        this.fmtInteger(v, 8, verb);
        return true;
      case 'x':
      case 'X':
        this.fmtInteger(v, 16, verb);
        return true;
      case 'c': {
        const r = v >= 0n && v <= 0x10ffffn && !(v >= 0xd800n && v <= 0xdfffn) ? Number(v) : 0xfffd;
        this.pad(String.fromCodePoint(r), false);
        return true;
      }
      case 'q':
        if (v < 0n || v > 0x10ffffn) return false;
        this.pad(goQuoteRune(Number(v), this.f.plus), false);
        return true;
      case 'U':
        this.fmtUnicode(v);
        return true;
    }
    return false;
  }

  /** *big.Int's Format method. */
  fmtBig(v: bigint, verb: string): void {
    const f = this.f;
    const base = ({ b: 2, o: 8, O: 8, d: 10, s: 10, v: 10, x: 16, X: 16 } as Record<string, number>)[verb];
    if (base === undefined) return this.write(`%!${verb}(big.Int=${v.toString()})`);
    const sign = v < 0n ? '-' : f.plus ? '+' : f.space ? ' ' : '';
    let prefix = '';
    if (f.sharp) prefix = ({ b: '0b', o: '0', x: '0x', X: '0X' } as Record<string, string>)[verb] ?? '';
    if (verb === 'O') prefix = '0o';
    let digits = (v < 0n ? -v : v).toString(base);
    if (verb === 'X') digits = digits.toUpperCase();
    let zeros = 0;
    if (f.precPresent) {
      if (digits.length < f.prec) zeros = f.prec - digits.length;
      else if (digits === '0' && f.prec === 0) return;
    }
    const length = sign.length + prefix.length + zeros + digits.length;
    let left = 0;
    let right = 0;
    if (f.widPresent && length < f.wid) {
      const d = f.wid - length;
      if (f.minus) right = d;
      else if (f.zero && !f.precPresent) zeros = d;
      else left = d;
    }
    this.write(this.padding(left, false) + sign + prefix + this.padding(zeros, true) + digits + this.padding(right, false));
  }

  fmtFloat(v: number, verb: string): boolean {
    const f = this.f;
    let fmt: string;
    let prec: number;
    if (verb === 'v') [fmt, prec] = ['g', -1];
    else if ('bgGxX'.includes(verb)) [fmt, prec] = f.sharpV ? ['g', -1] : [verb, -1];
    else if ('feEF'.includes(verb)) [fmt, prec] = f.sharpV ? ['g', -1] : [verb === 'F' ? 'f' : verb, 6];
    else return false;
    if (f.precPresent) prec = f.prec;
    let num = formatFloat(v, fmt, prec);
    if (num[0] !== '-' && num[0] !== '+') num = '+' + num;
    if (f.space && num[0] === '+' && !f.plus) num = ' ' + num.slice(1);
    if (num[1] === 'I' || num[1] === 'N') {
      if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
      this.pad(num, false);
      return true;
    }
    if (f.sharp && fmt !== 'b') num = sharpFloat(num, fmt, prec);
    if (f.plus || num[0] !== '+') {
      if (f.zero && f.widPresent && f.wid > num.length) {
        this.write(num[0]! + this.padding(f.wid - num.length, true) + num.slice(1));
        return true;
      }
      this.pad(num);
      return true;
    }
    this.pad(num.slice(1));
    return true;
  }

  printArg(a: GoArg, verb: string): void {
    if (verb === 'T') {
      this.fmtS(TYPE_NAME[a.k]);
      return;
    }
    if (a.k === 'big') {
      if (verb === 'p') this.badVerb(a, verb);
      else this.fmtBig(a.v, verb);
      return;
    }
    let ok: boolean;
    if (a.k === 'string') ok = this.fmtString(a.v, verb);
    else if (a.k === 'int') ok = this.fmtInt(a.v, verb);
    else ok = this.fmtFloat(a.v, verb);
    if (!ok) this.badVerb(a, verb);
  }

  badVerb(a: GoArg, verb: string): void {
    this.write('%!' + verb + '(' + TYPE_NAME[a.k] + '=');
    this.printArg(a, 'v');
    this.write(')');
  }
}

/** The `#` flag for floats: keep a decimal point and trailing zeros (Go's fmtFloat). */
function sharpFloat(num: string, verb: string, prec: number): string {
  let digits = 0;
  if (verb === 'v' || verb === 'g' || verb === 'G' || verb === 'x') digits = prec === -1 ? 6 : prec;
  let tail = '';
  let body = num;
  let hasPoint = false;
  let sawNonzero = false;
  for (let i = 1; i < body.length; i++) {
    const c = body[i]!;
    if (c === '.') hasPoint = true;
    else if (c === 'p' || c === 'P' || ((c === 'e' || c === 'E') && verb !== 'x' && verb !== 'X')) {
      tail = body.slice(i);
      body = body.slice(0, i);
      break;
    } else {
      if (c !== '0') sawNonzero = true;
      if (sawNonzero) digits--;
    }
  }
  if (!hasPoint) {
    if (body.length === 2 && body[1] === '0') digits--;
    body += '.';
  }
  if (digits > 0) body += '0'.repeat(digits);
  return body + tail;
}

