// The byte-level walker of the large-document builder (json-builder.ts): finds the
// end of a JSON value (strings and scalars always, containers when they close within
// CHUNK bytes), notes whether it holds a number a double cannot keep exact, checks
// the nesting limit, and decodes keys and runs of members as text for JSON.parse.
import { parseJSONExact } from '../value/json-parse.js';

/** Containers closing within this many bytes are parsed natively in one piece. */
export const CHUNK = 256 * 1024;

export class JSONBuildError extends Error {
  /**
   * A syntax error's context, for wording it as Go does without scanning the whole
   * text again: Go's scanner reaches the same state on `prefix` followed by the bytes
   * from `from` as on the whole text up to `from` (see json-builder.ts).
   */
  resume: { prefix: string; from: number } | undefined;

  constructor(
    readonly kind: 'syntax' | 'depth' | 'memory',
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'JSONBuildError';
  }
}

type Bytes = Uint8Array;

export const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export class Walker {
  readonly buf: Buffer;
  /** Set by scan(): the scanned value holds a number a double cannot keep exact. */
  exact = false;

  constructor(
    readonly bytes: Bytes,
    readonly maxDepth: number,
  ) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(at: number): never {
    throw new JSONBuildError('syntax', 'invalid JSON', at);
  }

  ws(i: number): number {
    const b = this.bytes;
    while (i < b.length && isWs(b[i]!)) i++;
    return i;
  }

  /** End (exclusive) of the string starting at `i` (a quote). */
  stringEnd(i: number): number {
    const b = this.bytes;
    for (let j = i + 1; j < b.length; j++) {
      const c = b[j]!;
      if (c === 0x5c) j++;
      else if (c === 0x22) return j + 1;
    }
    return this.fail(i);
  }

  /**
   * End (exclusive) of the value at `i` when it closes within CHUNK bytes (strings
   * and scalars always), or -1 for a bigger container. `depth` is the nesting of
   * the value's parent, for the depth limit.
   */
  scan(i: number, depth: number): number {
    const b = this.bytes;
    const c = b[i];
    if (c === 0x22) return this.stringEnd(i);
    if (c !== 0x7b && c !== 0x5b) {
      let j = i;
      let digits = 0;
      while (j < b.length) {
        const d = b[j]!;
        if (d === 0x2c || d === 0x7d || d === 0x5d || isWs(d)) break;
        if (d >= 0x30 && d <= 0x39) {
          if (++digits >= 16) this.exact = true;
        } else if (d === 0x65 || d === 0x45) {
          if (largeExponent(b, j + 1)) this.exact = true;
        } else if (d !== 0x2e) digits = 0; // digits count across the decimal point
        j++;
      }
      if (j === i) this.fail(i);
      return j;
    }
    const limit = Math.min(b.length, i + CHUNK);
    let level = 0;
    let digits = 0;
    for (let j = i; j < limit; j++) {
      const d = b[j]!;
      if (d === 0x22) {
        j = this.stringEnd(j) - 1;
        digits = 0;
      } else if (d === 0x7b || d === 0x5b) {
        if (++level + depth > this.maxDepth) throw new JSONBuildError('depth', 'exceeded max depth', j);
      } else if (d === 0x7d || d === 0x5d) {
        if (--level === 0) return j + 1;
      } else if (d >= 0x30 && d <= 0x39) {
        if (++digits >= 16) this.exact = true;
      } else {
        if ((d === 0x65 || d === 0x45) && digits > 0) {
          if (largeExponent(b, j + 1)) this.exact = true;
        }
        if (d !== 0x2e) digits = 0; // digits count across the decimal point
      }
    }
    if (limit === b.length) this.fail(i);
    return -1;
  }

  text(start: number, end: number): string {
    return this.buf.toString('utf8', start, end);
  }

  private scratch = Buffer.alloc(0);

  /** The bytes [start, end) between `open` and `close` as one string (no concatenation to flatten). */
  wrapped(open: number, start: number, end: number, close: number): string {
    const n = end - start;
    if (this.scratch.length < n + 2) this.scratch = Buffer.allocUnsafe(Math.max(n + 2, 2 * CHUNK));
    this.scratch[0] = open;
    this.buf.copy(this.scratch, 1, start, end);
    this.scratch[n + 1] = close;
    return this.scratch.toString('utf8', 0, n + 2);
  }

  /** A key string (with its quotes) at [start, end). */
  key(start: number, end: number): string {
    if (this.bytes.subarray(start, end).includes(0x5c)) return this.parse(this.text(start, end), false, start) as string;
    return this.text(start + 1, end - 1);
  }

  /** Parse a small value or a run of members natively. */
  parse(text: string, exact: boolean, at: number): unknown {
    try {
      return exact ? parseJSONExact(text) : JSON.parse(text);
    } catch {
      return this.fail(at);
    }
  }
}

/**
 * Whether the exponent starting at `k` (after `e`/`E`) may leave a double inexact:
 * two or more digits (`e30`), three or more when negative (`e-300`). As
 * INEXACT_NUMBER in runtime/value/json.ts.
 */
function largeExponent(b: Uint8Array, k: number): boolean {
  const isDigit = (x: number | undefined) => x !== undefined && x >= 0x30 && x <= 0x39;
  const negative = b[k] === 0x2d;
  if (b[k] === 0x2b || negative) k++;
  return isDigit(b[k]) && isDigit(b[k + 1]) && (!negative || isDigit(b[k + 2]));
}
