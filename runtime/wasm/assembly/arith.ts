// Regent's Wasm runtime: arithmetic on Rego numbers with the JS runtime's semantics
// (runtime/value/arith.ts): integers within ±2^53 on doubles, everything else on the
// exact decimals of bigdec.ts, with the JS runtime's rounding to the nearest double
// where it keeps a double (bdShortestDouble), and Go's big.Float 64-bit rounding for
// units.parse_bytes (bdRound64). Used by rt_arith (index.ts), the aggregates
// (builtins.ts) and natives-numbers.ts.
import { mkNum, numVal, fail, numInexact } from './values';
import {
  bdOf, bdAdd, bdMul, bdDiv, bdIsInt, bdIsZero, bdDigits, bdToNum, bdRemInt, bdPow2, bdRoundInt, bdCmp,
  nd, ex, dg, neg, make,
} from './bigdec';

const EXACT: f64 = 9007199254740992; // 2^53

/** plus, minus, mul, div, rem (op 0..4) of two numbers; see rt_arith in index.ts. */
export function arithNum(op: i32, a: usize, b: usize): usize {
  const x = numVal(a);
  const y = numVal(b);
  // doubles are exact only for integers within ±2^53 (1e26 is not 10^26)
  const ints = !numInexact(a) && !numInexact(b) && x == Math.floor(x) && y == Math.floor(y) && Math.abs(x) < EXACT && Math.abs(y) < EXACT;
  if (ints) {
    let r: f64 = 0;
    if (op == 0) r = x + y;
    else if (op == 1) r = x - y;
    else if (op == 2) r = x * y;
    else {
      if (y == 0) return 0;
      r = op == 3 ? x / y : x % y;
    }
    if (Math.abs(r) < EXACT && r == Math.floor(r)) return mkNum(r == 0 ? 0 : r);
  }
  const A = bdOf(a);
  const B = bdOf(b);
  if (A == 0 || B == 0) { fail('not supported on wasm: arithmetic on a computed fraction'); return 0; }
  if (op == 4) {
    // integers only ("modulo on floating-point number" is an error: undefined)
    if (!bdIsInt(A) || !bdIsInt(B) || bdIsZero(B)) return 0;
    return bdToNum(bdRemInt(A, B));
  }
  let R: usize = 0;
  if (op == 0 || op == 1) R = bdAdd(A, B, op == 1);
  else if (op == 2) R = bdMul(A, B);
  else {
    if (bdIsZero(B)) return 0;
    // an integer quotient stays exact; any other is the double nearest to it (big.Float)
    R = bdDiv(A, B, 60, true);
    if (bdIsInt(R) && bdIsZero(bdAdd(bdMul(R, B), A, true))) return bdToNum(R);
    return bdToNum(bdShortestDouble(R));
  }
  // as the JS runtime's finish(): integers exact, fractions of 18-19 digits kept as
  // decimals, shorter and longer ones become the nearest double (printed shortest)
  if (bdIsInt(R) || bdDigits(R) <= 15 || (bdDigits(R) >= 18 && bdDigits(R) <= 19)) return bdToNum(R);
  return bdToNum(bdShortestDouble(R));
}

/**
 * x (> 0) rounded to a 64-bit binary mantissa, half to even: what Go's big.Float
 * (default precision for these builtins) holds for it.
 */
export function bdRound64(x: usize): usize {
  let e = <i32>Math.floor(Math.log2(Math.max(textApprox(x), 1e-300)));
  while (bdCmp(x, bdPow2(e + 1)) >= 0) e++;
  while (bdCmp(x, bdPow2(e)) < 0) e--;
  const m = bdRoundInt(bdMul(x, bdPow2(63 - e)), 3);
  return bdMul(m, bdPow2(e - 63));
}

/** A double near x (for a starting guess only). */
function textApprox(x: usize): f64 {
  let m: f64 = 0;
  const n = nd(x) < 17 ? nd(x) : 17;
  for (let i = 0; i < n; i++) m = m * 10 + <f64>dg(x, i);
  return m * Math.pow(10, <f64>(ex(x) + nd(x) - n));
}

/** d rounded to p significant digits, half to even. */
function roundSig(d: usize, p: i32): usize {
  const shift = p - (nd(d) + ex(d)); // scale so that p digits are integral
  const scaled = make(neg(d), <usize>load<i32>(d, 12), nd(d), ex(d) + shift);
  const r = bdRoundInt(scaled, 3);
  return nd(r) == 0 ? r : make(neg(r), <usize>load<i32>(r, 12), nd(r), ex(r) - shift);
}

/**
 * The double nearest to d (half to even), as the shortest decimal that reads back to
 * it (JS's Number#toString digits: the fewest digits, then the closest). Aborts outside
 * the normal range of doubles.
 */
export function bdShortestDouble(d: usize): usize {
  if (nd(d) == 0) return d;
  const a = make(false, <usize>load<i32>(d, 12), nd(d), ex(d));
  const sci = nd(a) + ex(a) - 1;
  if (sci > 300 || sci < -300) { fail('not supported on wasm: a fraction beyond the range of doubles'); return 0; }
  let e = <i32>Math.floor(Math.log2(Math.max(textApprox(a), 1e-300)));
  while (bdCmp(a, bdPow2(e + 1)) >= 0) e++;
  while (bdCmp(a, bdPow2(e)) < 0) e--;
  let m = bdRoundInt(bdMul(a, bdPow2(52 - e)), 3);
  if (bdCmp(m, bdPow2(53)) >= 0) { m = bdPow2(52); e++; }
  // at a power of two the next double below is half as far away as the one above
  const lopsided = bdCmp(m, bdPow2(52)) == 0;
  const D = bdMul(m, bdPow2(e - 52));
  const half = bdPow2(e - 53);
  const halfBelow = lopsided ? bdPow2(e - 54) : half;
  const even = ex(m) > 0 || (dg(m, nd(m) - 1) & 1) == 0; // ties go to the even mantissa
  for (let p = 1; p <= 17; p++) {
    const c = roundSig(D, p);
    const diff = bdAdd(c, D, true);
    const dist = make(false, <usize>load<i32>(diff, 12), nd(diff), ex(diff));
    const k = bdCmp(dist, bdCmp(c, D) < 0 ? halfBelow : half);
    if (k < 0 || (k == 0 && even)) return neg(d) && nd(c) > 0 ? make(true, <usize>load<i32>(c, 12), nd(c), ex(c)) : c;
  }
  return neg(d) ? make(true, <usize>load<i32>(D, 12), nd(D), ex(D)) : D;
}
