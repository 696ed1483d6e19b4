// Go string helpers shared by the strings, sprintf and template builtins:
// strconv.Quote / QuoteRune escaping, unicode.IsSpace, unicode.IsPrint and the
// per-rune simple case mapping of strings.ToLower / strings.ToUpper. All work on
// Unicode code points (a lone UTF-16 surrogate counts as U+FFFD, as Go would
// have decoded it).

const PRINT_RE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and U+0020. */
export function isPrintRune(r: number): boolean {
  if (r === 0x20) return true;
  if (r < 0x20 || r === 0x7f) return false;
  if (r >= 0xd800 && r <= 0xdfff) return false;
  return PRINT_RE.test(String.fromCodePoint(r));
}

/** Go's unicode.IsSpace. */
export function isSpaceRune(r: number): boolean {
  if (r <= 0xff) return r === 0x20 || (r >= 0x09 && r <= 0x0d) || r === 0x85 || r === 0xa0;
  return r === 0x1680 || (r >= 0x2000 && r <= 0x200a) || r === 0x2028 || r === 0x2029 || r === 0x202f || r === 0x205f || r === 0x3000;
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function escapeRune(r: number, quote: number, asciiOnly: boolean): string {
  if (r === quote || r === 0x5c) return '\\' + String.fromCharCode(r);
  if (asciiOnly ? r < 0x80 && isPrintRune(r) : isPrintRune(r)) return String.fromCodePoint(r);
  switch (r) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
  }
  if (r < 0x20 || r === 0x7f) return '\\x' + hex(r, 2);
  if (r < 0x10000) return '\\u' + hex(r, 4);
  return '\\U' + hex(r, 8);
}

function* runes(s: string): Generator<number> {
  for (const ch of s) {
    const r = ch.codePointAt(0)!;
    yield r >= 0xd800 && r <= 0xdfff ? 0xfffd : r;
  }
}

/** strconv.Quote (or QuoteToASCII when asciiOnly). */
export function goQuote(s: string, asciiOnly = false): string {
  let out = '"';
  for (const r of runes(s)) out += escapeRune(r, 0x22, asciiOnly);
  return out + '"';
}

/** strconv.QuoteRune (or QuoteRuneToASCII). Invalid code points print as U+FFFD. */
export function goQuoteRune(r: number, asciiOnly = false): string {
  if (r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) r = 0xfffd;
  return "'" + escapeRune(r, 0x27, asciiOnly) + "'";
}

/** strconv.CanBackquote. */
export function canBackquote(s: string): boolean {
  for (const r of runes(s)) {
    if (r === 0xfeff || r === 0xfffd) return false;
    if ((r < 0x20 && r !== 0x09) || r === 0x60 || r === 0x7f) return false;
  }
  return true;
}

const ASCII_RE = /^[\x00-\x7f]*$/;

export const isASCII = (s: string): boolean => ASCII_RE.test(s);

/** One rune through JS case mapping, kept only when it maps to a single rune (Go's simple mapping). */
function mapRune(ch: string, upper: boolean): string {
  const m = upper ? ch.toUpperCase() : ch.toLowerCase();
  if (m === ch || [...m].length === 1) return m;
  if (!upper && ch === '\u0130') return 'i';
  return ch;
}

/** strings.ToLower: per-rune simple lower-casing (no context-sensitive final sigma). */
export function goToLower(s: string): string {
  if (isASCII(s)) return s.toLowerCase();
  let out = '';
  for (const ch of s) out += mapRune(ch, false);
  return out;
}

/** strings.ToUpper: per-rune simple upper-casing (ß stays ß, as in Go). */
export function goToUpper(s: string): string {
  if (isASCII(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) out += mapRune(ch, true);
  return out;
}
