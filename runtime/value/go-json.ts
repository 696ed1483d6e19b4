// Go's encoding/json as OPA uses it, with Go's exact error texts: json.Valid
// (json.is_valid, JSON-schema strings), json.Decoder.Decode (request bodies: the
// first value only, whatever follows) and OPA's util.UnmarshalJSON (json.unmarshal,
// the GET `input` parameter), which after the Decode calls decoder.Token() once to
// reject trailing data. Clients compare messages byte for byte, so these follow the
// parts of Go's stream.go that decide which message wins (Decoder.readValue,
// Decoder.Token, Decoder.tokenError) over the scanner port in go-json-scanner.ts.
//
// Go scans bytes, so the text is UTF-8 encoded first, and a non-ASCII offending byte
// is quoted the way Go's quoteChar does: as the rune with that byte's value ('Ã' for
// the first byte of "é"). Invalid UTF-8 in a request body was already replaced by
// U+FFFD (EF BF BD) when the bytes became text, so such a body quotes 'ï' where Go
// would quote the original byte.
import { MAX_NESTING_DEPTH, checkValid, isSpace, quoteChar, readValue } from './go-json-scanner.js';

/** Go's maximum JSON nesting depth (encoding/json scanner.go maxNestingDepth). */
export const GO_MAX_NESTING_DEPTH = MAX_NESTING_DEPTH;

/** `decode`: one json.Decoder.Decode (request bodies). `unmarshal`: OPA's util.UnmarshalJSON. */
export type GoJSONMode = 'decode' | 'unmarshal';

/** Whether Go accepts the text; when it does, `end` is where its (first) value ends, in UTF-16 units. */
export type GoJSONOutcome = { ok: true; end: number } | { ok: false; message: string };

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Go's checkValid (json.Valid, json.Unmarshal): the syntax error for `text`, or undefined when it is one JSON value. */
export function goJSONCheckValid(text: string): string | undefined {
  return checkValid(utf8.encode(text));
}

/** Go's json.Valid: exactly one JSON value, optionally surrounded by whitespace. */
export function goJSONValid(text: string): boolean {
  return goJSONCheckValid(text) === undefined;
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
  const b = utf8.encode(text);
  const first = readValue(b, 0);
  if ('eof' in first) return { ok: false, message: 'EOF' };
  if ('error' in first) return { ok: false, message: first.error };
  // Byte offsets are UTF-16 offsets while the text is ASCII.
  const end = b.length === text.length ? first.end : utf8Decoder.decode(b.subarray(0, first.end)).length;
  const ok: GoJSONOutcome = { ok: true, end };
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
  const tok = tokenText(utf8Decoder.decode(b.subarray(p, next.end)));
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

/** Deepest bracket nesting of a JSON (or flow-style YAML) text, ignoring strings. */
export function nestingDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max && (max = depth) > stopAt) return max;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return max;
}

const HTML = /[<>&\u2028\u2029]/g;
const HAS_HTML = /[<>&\u2028\u2029]/;
const HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * Go's json.Marshal HTML-safe escaping (<, >, &, U+2028, U+2029 as \u escapes),
 * applied to JSON text; safe on whole documents, as those characters only occur
 * inside strings there.
 */
export function goEscapeHTML(jsonText: string): string {
  return HAS_HTML.test(jsonText) ? jsonText.replace(HTML, (c) => HTML_ESCAPES[c]!) : jsonText;
}
