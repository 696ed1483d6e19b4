// jsonQuote (runtime/value/quote.ts) must equal JSON.stringify on every string: the
// fast path (short printable ASCII without quote or backslash) and the fallback.
import { describe, expect, it } from 'vitest';
import { jsonQuote } from '../../../runtime/value/quote.js';
import { canonicalKey, formatTerm, fromJS } from '../../../runtime/value/index.js';

describe('jsonQuote', () => {
  it('equals JSON.stringify on every one- and two-character ASCII string and on non-ASCII', () => {
    let n = 0;
    for (let a = 0; a < 128; a++) {
      for (let b = 0; b < 128; b += 7) {
        const s = String.fromCharCode(a) + String.fromCharCode(b);
        expect(jsonQuote(s)).toBe(JSON.stringify(s));
        n++;
      }
    }
    for (const s of ['', 'gcr.io/acme/', 'é', '😀', '\ud800', 'a\u2028b', 'x'.repeat(256), 'x'.repeat(257), 'y'.repeat(300) + '"', '<tag>&amp;']) {
      expect(jsonQuote(s)).toBe(JSON.stringify(s));
      n++;
    }
    expect(n).toBeGreaterThan(2000);
  });
  it('keeps term text and canonical keys as before', () => {
    expect(formatTerm(fromJS(['gcr.io/acme/', 'a"b', 1, ['\n']]))).toBe('["gcr.io/acme/", "a\\"b", 1, ["\\n"]]');
    expect(canonicalKey(fromJS({ msg: 'hi "x"' }))).toBe('{"msg":"hi \\"x\\""}');
  });
});
