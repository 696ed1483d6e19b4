// units.parse and units.parse_bytes with OPA's parsing and messages. units.parse
// computes exactly (Go big.Rat): the milli factor is the exact binary value of
// the double 0.001, integers come out exact, fractions as OPA's FloatString(10).
// units.parse_bytes mirrors Go's big.Float at 64-bit precision: the amount is
// rounded to a 64-bit mantissa, multiplied, rounded again and truncated.
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { asString } from './args.js';
import { BuiltinError } from './errors.js';
import { D, decimal, normalizeNumber, parseNumber, type Dec, type RNumber } from '../value/number.js';

const MAX_EXPONENT_DIGITS = 6;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** OPA's extractNumAndUnit; undefined when the exponent has too many digits. */
export function extractNumAndUnit(s: string): [num: string, unit: string] | undefined {
  let first = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (!isDigit(c) && c !== '.' && c !== 'e' && c !== 'E' && c !== '+' && c !== '-') {
      first = i;
      break;
    }
    if (c === 'e' || c === 'E') {
      const n = s[i + 1];
      if (i === s.length - 1 || (!isDigit(n) && n !== '+' && n !== '-')) {
        first = i;
        break;
      }
      if (n === '+' || n === '-') i++;
      let end = i + 1;
      while (isDigit(s[end])) end++;
      if (end - (i + 1) > MAX_EXPONENT_DIGITS) return undefined;
    }
  }
  if (first === -1) return [s, ''];
  if (first === 0) return ['', s];
  return [s.slice(0, first), s.slice(first)];
}

const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The double nearest 0.001, exactly (made on first use). */
let milli: Dec | undefined;
const SI: Record<string, bigint> = { k: 1000n, m: 1000n ** 2n, g: 1000n ** 3n, t: 1000n ** 4n, p: 1000n ** 5n, e: 1000n ** 6n };
const BIN: Record<string, bigint> = { k: 1n << 10n, m: 1n << 20n, g: 1n << 30n, t: 1n << 40n, p: 1n << 50n, e: 1n << 60n };

function unitsFactor(unit: string): Dec | undefined {
  if (unit.length > 1) unit = unit[0] + unit.slice(1).toLowerCase();
  if (unit === '') return decimal(1);
  if (unit === 'm') return (milli ??= decimal('0.001000000000000000020816681711721685132943093776702880859375'));
  if (unit === 'M') return decimal(SI.m!.toString());
  const l = unit[0]!.toLowerCase();
  if (unit.length === 1 && SI[l] !== undefined && l !== 'm') return decimal(SI[l]!.toString());
  if (unit.length === 2 && unit[1] === 'i' && BIN[l] !== undefined) return decimal(BIN[l]!.toString());
  return undefined;
}

export function parseUnits(raw: string): RNumber {
  const s = raw.replaceAll('"', '');
  if (s.includes(' ')) throw new BuiltinError('spaces not allowed in resource strings');
  const parts = extractNumAndUnit(s);
  if (!parts) throw new BuiltinError('exponent too large');
  const [num, unit] = parts;
  if (num === '') throw new BuiltinError('no amount provided');
  const factor = unitsFactor(unit);
  if (!factor) throw new BuiltinError(`unit ${unit.length > 1 ? unit[0] + unit.slice(1).toLowerCase() : unit} not recognized`);
  if (!NUMBER_RE.test(num)) throw new BuiltinError('could not parse amount to a number');
  const v = decimal(num).mul(factor);
  if (v.isInteger()) return normalizeNumber(v);
  return parseNumber(v.toFixed(10, D().ROUND_HALF_UP));
}

// ---- parse_bytes: big.Float arithmetic at 64-bit precision ----

/** Round p/q (> 0) to a 64-bit mantissa: [mant, exp] with value mant × 2^exp. */
function roundRational(p: bigint, q: bigint): [bigint, number] {
  let e = p.toString(2).length - q.toString(2).length - 64;
  let num = e < 0 ? p << BigInt(-e) : p;
  let den = e > 0 ? q << BigInt(e) : q;
  let m = num / den;
  while (m >= 1n << 64n) {
    e++;
    den <<= 1n;
    m = num / den;
  }
  while (m < 1n << 63n) {
    e--;
    num <<= 1n;
    m = num / den;
  }
  const rem = num - m * den;
  if (rem * 2n > den || (rem * 2n === den && (m & 1n) === 1n)) m++;
  if (m === 1n << 64n) {
    m >>= 1n;
    e++;
  }
  return [m, e];
}

/** Parse a decimal literal into an exact fraction [p, q] (p may be negative). */
function decimalToFraction(s: string): [bigint, bigint] {
  const m = /^([+-]?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/.exec(s)!;
  let p = BigInt((m[2] || '0') + (m[3] || ''));
  let q = 10n ** BigInt((m[3] ?? '').length);
  const exp = Number(m[4] ?? 0);
  if (exp > 0) p *= 10n ** BigInt(exp);
  else if (exp < 0) q *= 10n ** BigInt(-exp);
  return [m[1] === '-' ? -p : p, q];
}

export function parseBytes(raw: string): RNumber {
  const s = raw.toLowerCase().replaceAll('"', '');
  if (s.includes(' ')) throw new BuiltinError('spaces not allowed in resource strings');
  const parts = extractNumAndUnit(s);
  if (!parts) throw new BuiltinError('exponent too large');
  const [num, unit] = parts;
  if (num === '') throw new BuiltinError('no byte amount provided');
  let factor: bigint;
  if (unit === '') factor = 1n;
  else {
    const base = unit.length <= 3 ? unit[0]! : '';
    const rest = unit.slice(1);
    if (SI[base] !== undefined && (rest === '' || rest === 'b')) factor = SI[base]!;
    else if (BIN[base] !== undefined && (rest === 'i' || rest === 'ib')) factor = BIN[base]!;
    else throw new BuiltinError(`byte unit ${unit} not recognized`);
  }
  if (!NUMBER_RE.test(num)) throw new BuiltinError('could not parse byte amount to a number');
  const expPart = /[eE]([+-]?\d+)$/.exec(num);
  if (expPart && Math.abs(Number(expPart[1])) > 1000) {
    // Astronomically large or small amounts: decimal arithmetic (exact to 200 digits).
    return normalizeNumber(decimal(num).mul(decimal(factor.toString())).trunc());
  }
  const [p, q] = decimalToFraction(num);
  if (p === 0n) return 0;
  const neg = p < 0n;
  const [m1, e1] = roundRational(neg ? -p : p, q);
  const [m2, e2] = roundRational(m1 * factor * (e1 > 0 ? 1n << BigInt(e1) : 1n), e1 < 0 ? 1n << BigInt(-e1) : 1n);
  let int: bigint;
  if (e2 >= 0) int = m2 << BigInt(e2);
  else int = -e2 >= 64 + 64 ? 0n : m2 >> BigInt(-e2);
  return parseNumber((neg ? -int : int).toString());
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'units.parse',
      args: [T.string],
      result: T.number,
      categories: ['units'],
      description: 'Converts strings like "10G", "5K", "4M", "1500m", and the like into a number.',
    },
    impl: ([x]) => parseUnits(asString(x!, 1)),
  },
  {
    decl: {
      name: 'units.parse_bytes',
      args: [T.string],
      result: T.number,
      categories: ['units'],
      description: 'Converts strings like "10GB", "5K", "4mb", or "1e6KB" into an integer number of bytes.',
    },
    impl: ([x]) => parseBytes(asString(x!, 1)),
  },
];
