// JSON quoting of a string (`JSON.stringify(s)`) with a fast path: a short string of
// printable ASCII without `"` or `\` quotes as itself between quotes, which is what
// JSON.stringify gives, without the builtin's per-call cost (about 150 ns on a short
// string, more than formatting or hashing the rest of a small value). Used by term
// printing (format.ts) and canonical keys (key.ts).

const FAST_MAX = 256;

export function jsonQuote(s: string): string {
  if (s.length > FAST_MAX) return JSON.stringify(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(s);
  }
  return '"' + s + '"';
}
