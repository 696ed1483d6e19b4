// sprintf: Go's fmt.Sprintf over Rego values converted the way OPA converts them
// (integers → int, integers beyond int64 → *big.Int, other numbers → float64,
// strings → string, everything else → its Rego text). Implements Go's verb
// parsing (flags, width, precision, `*`, `[n]` indexes), the `%!v(MISSING)`,
// `%!(EXTRA …)`, `%!(NOVERB)` and bad-verb forms, and Go's width limit (numbers
// above 10^6 are rejected, as in Go). Total output is capped to keep memory bounded.
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import type { Value } from '../value/value.js';
import { BigNum, formatNumber } from '../value/number.js';
import { formatTerm } from '../value/format.js';
import { asString, asArray } from './args.js';
import { Printer, SPRINTF_MAX_OUTPUT, TYPE_NAME, newFlags } from './sprintf-printer.js';

/** A Go value as OPA hands it to fmt.Sprintf. */
export type GoArg =
  | { k: 'int'; v: bigint }
  | { k: 'big'; v: bigint }
  | { k: 'float'; v: number }
  | { k: 'string'; v: string };

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
export { SPRINTF_MAX_OUTPUT } from './sprintf-printer.js';

export function toGoArg(v: Value): GoArg {
  if (typeof v === 'string') return { k: 'string', v };
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return { k: 'int', v: BigInt(v) };
    return { k: 'float', v };
  }
  if (v instanceof BigNum) {
    if (v.dec.isInteger()) {
      const b = BigInt(v.dec.toFixed(0));
      return b >= INT64_MIN && b <= INT64_MAX ? { k: 'int', v: b } : { k: 'big', v: b };
    }
    const f = v.dec.toNumber();
    return Number.isFinite(f) ? { k: 'float', v: f } : { k: 'string', v: formatNumber(v) };
  }
  return { k: 'string', v: formatTerm(v) };
}

const TOO_LARGE = 1e6;

/** Go's parsenum: digits from i; an absurdly long number yields "no number" and ends the format. */
function parsenum(s: string, i: number): [num: number, isnum: boolean, next: number] {
  let num = 0;
  let isnum = false;
  let j = i;
  for (; j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57; j++) {
    if (num > TOO_LARGE) return [0, false, s.length];
    num = num * 10 + (s.charCodeAt(j) - 48);
    isnum = true;
  }
  return [num, isnum, j];
}

/** fmt.Sprintf(format, args...). */
export function goSprintf(format: string, args: GoArg[]): string {
  const p = new Printer();
  const end = format.length;
  let argNum = 0;
  let reordered = false;
  let goodArgNum = true;
  let afterIndex = false;

  // Go's argNumber: an explicit `[n]` index at i.
  const argNumber = (i: number): [number, number, boolean] => {
    if (i >= end || format[i] !== '[') return [argNum, i, false];
    reordered = true;
    const close = format.indexOf(']', i + 1);
    if (end - i < 3 || close < 0) {
      goodArgNum = false;
      return [argNum, i + 1, false];
    }
    const [n, ok, next] = parsenum(format, i + 1);
    if (!ok || next !== close) {
      goodArgNum = false;
      return [argNum, close + 1, false];
    }
    if (n - 1 >= 0 && n - 1 < args.length) return [n - 1, close + 1, true];
    goodArgNum = false;
    return [argNum, close + 1, true];
  };
  const intFromArg = (): [number, boolean] => {
    if (argNum >= args.length) return [0, false];
    const a = args[argNum++]!;
    if (a.k !== 'int' || a.v > BigInt(TOO_LARGE) || a.v < -BigInt(TOO_LARGE)) return [0, false];
    return [Number(a.v), true];
  };

  let i = 0;
  while (i < end) {
    goodArgNum = true;
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      p.write(format.slice(i));
      break;
    }
    if (pct > i) p.write(format.slice(i, pct));
    i = pct + 1;
    const f = (p.f = newFlags());
    for (; i < end; i++) {
      const c = format[i];
      if (c === '#') f.sharp = true;
      else if (c === '0') f.zero = !f.minus;
      else if (c === '+') f.plus = true;
      else if (c === '-') {
        f.minus = true;
        f.zero = false;
      } else if (c === ' ') f.space = true;
      else break;
    }
    [argNum, i, afterIndex] = argNumber(i);
    if (i < end && format[i] === '*') {
      i++;
      [f.wid, f.widPresent] = intFromArg();
      if (!f.widPresent) p.write('%!(BADWIDTH)');
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      afterIndex = false;
    } else {
      [f.wid, f.widPresent, i] = parsenum(format, i);
      if (afterIndex && f.widPresent) goodArgNum = false;
    }
    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      [argNum, i, afterIndex] = argNumber(i);
      if (i < end && format[i] === '*') {
        i++;
        [f.prec, f.precPresent] = intFromArg();
        if (f.prec < 0) {
          f.prec = 0;
          f.precPresent = false;
        }
        if (!f.precPresent) p.write('%!(BADPREC)');
        afterIndex = false;
      } else {
        [f.prec, f.precPresent, i] = parsenum(format, i);
        if (!f.precPresent) {
          f.prec = 0;
          f.precPresent = true;
        }
      }
    }
    if (!afterIndex) [argNum, i, afterIndex] = argNumber(i);
    if (i >= end) {
      p.write('%!(NOVERB)');
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      p.write('%');
    } else if (!goodArgNum) {
      p.write(`%!${verb}(BADINDEX)`);
    } else if (argNum >= args.length) {
      p.write(`%!${verb}(MISSING)`);
    } else {
      if (verb === 'v') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plusV = f.plus;
        f.plus = false;
      }
      p.printArg(args[argNum]!, verb);
      argNum++;
    }
  }
  if (!reordered && argNum < args.length) {
    p.f = newFlags();
    p.write('%!(EXTRA ');
    args.slice(argNum).forEach((a, j) => {
      if (j > 0) p.write(', ');
      p.write(TYPE_NAME[a.k] + '=');
      p.printArg(a, 'v');
    });
    p.write(')');
  }
  return p.out.join('');
}

/**
 * The common case without the verb parser: only `%%`, `%v`, `%s` (a string or
 * composite argument, or `%v` of a boolean, null or safe integer) and `%d` of a safe
 * integer, one argument each, none left over. These print exactly as goSprintf
 * prints them (no flags, width or precision to apply); anything else returns
 * undefined and takes the full path.
 */
function simpleSprintf(format: string, args: readonly Value[]): string | undefined {
  let out = '';
  let last = 0;
  let next = 0;
  for (let i = format.indexOf('%'); i >= 0; i = format.indexOf('%', last)) {
    const verb = format.charCodeAt(i + 1);
    out += format.slice(last, i);
    last = i + 2;
    if (verb === 37) {
      out += '%';
      continue;
    }
    if (next >= args.length) return undefined;
    const a = args[next++]!;
    if (verb === 118 || verb === 115) {
      // %v, %s
      if (typeof a === 'string') out += a;
      else if (typeof a === 'object' && a !== null && !(a instanceof BigNum)) out += formatTerm(a);
      else if (verb === 118 && (typeof a === 'boolean' || a === null)) out += formatTerm(a);
      else if (verb === 118 && Number.isSafeInteger(a)) out += String(a);
      else return undefined;
    } else if (verb === 100 && Number.isSafeInteger(a)) out += String(a);
    else return undefined;
  }
  if (next !== args.length) return undefined;
  out += format.slice(last);
  return out.length > SPRINTF_MAX_OUTPUT ? undefined : out;
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'sprintf',
      args: [T.string, T.arrayOf(T.any)],
      result: T.string,
      categories: ['strings'],
      description: 'Returns the given string, formatted.',
    },
    impl: ([format, values]) => {
      const fmt = asString(format!, 1);
      const arr = asArray(values!, 2);
      return simpleSprintf(fmt, arr) ?? goSprintf(fmt, arr.map(toGoArg));
    },
  },
];
