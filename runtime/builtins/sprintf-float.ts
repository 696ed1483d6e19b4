// Go's strconv.FormatFloat for float64, used by sprintf: shortest digits (prec -1)
// come from JS's shortest round-trip text; fixed precisions use the exact decimal
// expansion of the double (BigInt) with Go's round-half-even, so %.2f, %e and %g
// round exactly as Go does. Formats: e E f g G b x X.

/** A decimal digit string d (no leading zeros, no trailing zeros) with value 0.d × 10^dp. */
interface Digits {
  d: string;
  dp: number;
}

function shortestDigits(x: number): Digits {
  const s = x.toExponential();
  const ePos = s.indexOf('e');
  const mant = s.slice(0, ePos).replace('.', '');
  const exp = Number(s.slice(ePos + 1));
  return { d: mant.replace(/0+$/, ''), dp: exp + 1 };
}

/** Mantissa and binary exponent: x = mant × 2^exp (x finite, > 0). */
function decompose(x: number): { mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (biased === 0) {
    exp = -1074;
  } else {
    mant |= 1n << 52n;
    exp = biased - 1075;
  }
  return { mant, exp };
}

function exactDigits(x: number): Digits {
  const { mant, exp } = decompose(x);
  let digits: string;
  let dp: number;
  if (exp >= 0) {
    digits = (mant << BigInt(exp)).toString();
    dp = digits.length;
  } else {
    digits = (mant * 5n ** BigInt(-exp)).toString();
    dp = digits.length + exp;
  }
  const trimmed = digits.replace(/0+$/, '');
  return { d: trimmed, dp };
}

/** Go's decimal.Round(nd): round half to even on the exact digits. */
function roundDigits(a: Digits, nd: number): Digits {
  if (nd < 0 || nd >= a.d.length) return a;
  const c = a.d.charCodeAt(nd);
  let up: boolean;
  if (c === 53 /* '5' */ && nd + 1 === a.d.length) up = nd > 0 && (a.d.charCodeAt(nd - 1) - 48) % 2 === 1;
  else up = c >= 53;
  if (!up) return { d: a.d.slice(0, nd).replace(/0+$/, ''), dp: a.dp };
  let i = nd - 1;
  while (i >= 0 && a.d[i] === '9') i--;
  if (i < 0) return { d: '1', dp: a.dp + 1 };
  return { d: a.d.slice(0, i) + String.fromCharCode(a.d.charCodeAt(i) + 1), dp: a.dp };
}

function fmtE(neg: boolean, d: Digits, prec: number, ch: string): string {
  let out = neg ? '-' : '';
  out += d.d.length ? d.d[0] : '0';
  if (prec > 0) {
    out += '.';
    const frac = d.d.slice(1, Math.min(d.d.length, prec + 1));
    out += frac + '0'.repeat(prec - frac.length);
  }
  let exp = d.d.length === 0 ? 0 : d.dp - 1;
  const sign = exp < 0 ? '-' : '+';
  exp = Math.abs(exp);
  return out + ch + sign + (exp < 10 ? '0' + exp : String(exp));
}

function fmtF(neg: boolean, d: Digits, prec: number): string {
  let out = neg ? '-' : '';
  if (d.dp > 0) {
    const m = Math.min(d.d.length, d.dp);
    out += d.d.slice(0, m) + '0'.repeat(d.dp - m);
  } else {
    out += '0';
  }
  if (prec > 0) {
    let frac = '';
    for (let i = 1; i <= prec; i++) {
      const j = d.dp + i - 1;
      frac += j >= 0 && j < d.d.length ? d.d[j] : '0';
    }
    out += '.' + frac;
  }
  return out;
}

function fmtB(neg: boolean, x: number): string {
  if (x === 0) return (neg ? '-' : '') + '0p-1074';
  const { mant, exp } = decompose(x);
  return (neg ? '-' : '') + mant.toString() + 'p' + (exp >= 0 ? '+' : '-') + Math.abs(exp);
}

function fmtX(neg: boolean, x: number, prec: number, verb: string): string {
  let mant = 0n;
  let exp = 0;
  if (x !== 0) {
    const dec = decompose(x);
    mant = dec.mant;
    exp = dec.exp + 52;
    mant <<= 8n; // leading 1 (bit 52) → bit 60
    while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
      mant <<= 1n;
      exp--;
    }
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const mask = (1n << 60n) - 1n;
    const extra = (mant << shift) & mask;
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = verb === 'X' ? '0123456789ABCDEF' : '0123456789abcdef';
  let out = (neg ? '-' : '') + '0' + verb + String((mant >> 60n) & 1n);
  mant = (mant << 4n) & ((1n << 64n) - 1n);
  const top = (m: bigint): string => hex[Number((m >> 60n) & 15n)]!;
  if (prec < 0 && mant !== 0n) {
    out += '.';
    while (mant !== 0n) {
      out += top(mant);
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  } else if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      out += top(mant);
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  }
  out += verb === 'X' ? 'P' : 'p';
  out += exp < 0 ? '-' : '+';
  const e = Math.abs(exp);
  return out + (e < 10 ? '0' + e : String(e));
}

/** strconv.FormatFloat(x, fmt, prec, 64). */
export function formatFloat(x: number, fmt: string, prec: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  if (fmt === 'b') return fmtB(neg, ax);
  if (fmt === 'x' || fmt === 'X') return fmtX(neg, ax, prec, fmt);
  const shortest = prec < 0;
  let d: Digits;
  if (ax === 0) {
    d = { d: '', dp: 0 };
  } else if (shortest) {
    d = shortestDigits(ax);
  } else {
    d = exactDigits(ax);
    if (fmt === 'e' || fmt === 'E') d = roundDigits(d, prec + 1);
    else if (fmt === 'f') d = roundDigits(d, d.dp + prec);
    else {
      if (prec === 0) prec = 1;
      d = roundDigits(d, prec);
    }
  }
  if (shortest) {
    if (fmt === 'e' || fmt === 'E') prec = Math.max(d.d.length - 1, 0);
    else if (fmt === 'f') prec = Math.max(d.d.length - d.dp, 0);
    else prec = d.d.length;
  }
  switch (fmt) {
    case 'e':
    case 'E':
      return fmtE(neg, d, prec, fmt);
    case 'f':
      return fmtF(neg, d, prec);
    default: {
      let eprec = prec;
      if (eprec > d.d.length && d.d.length >= d.dp) eprec = d.d.length;
      if (shortest) eprec = 6;
      const exp = d.dp - 1;
      if (exp < -4 || exp >= eprec) {
        if (prec > d.d.length) prec = d.d.length;
        return fmtE(neg, d, prec - 1, fmt === 'G' ? 'E' : 'e');
      }
      if (prec > d.dp) prec = d.d.length;
      return fmtF(neg, d, Math.max(prec - d.dp, 0));
    }
  }
}
