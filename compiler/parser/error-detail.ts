// OPA's ParserErrorDetail: a parse error carries the source line it happened on and
// the byte index of the offending character in it, so `opa check` can print
//   file:row: rego_parse_error: message
//   	source line
//   	   ^
// (ast.Error.Error() appends Lines(): the line with its leading tabs removed, then a
// caret under the offending byte). The JSON form is `"details": {"line": …, "idx": …}`.
// As newParserErrorDetail: the offset steps back over whitespace first, so an error
// at a newline or end of file points at the last character before it.
import { RegoError } from '../source/diagnostics.js';

/** The detail of one parse error: its JSON form is `{line, idx}`. */
export class ParserErrorDetail {
  constructor(
    readonly line: string,
    readonly idx: number,
  ) {}

  detailLines(): string[] {
    return detailLines(this);
  }
}

/** Go's unicode.IsSpace of one byte (Latin-1 range). */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0;
}

const isNewline = (c: number): boolean => c === 0x0a || c === 0x0d;

/** The detail of an error at `offset` (a string index) of `text`. */
export function parserErrorDetail(text: string, offset: number): ParserErrorDetail {
  const bs = Buffer.from(text, 'utf8');
  if (bs.length === 0) return new ParserErrorDetail('', 0);
  let off = Buffer.byteLength(text.slice(0, Math.max(0, offset)), 'utf8');
  if (off >= bs.length) off = bs.length - 1;
  while (off > 0 && isSpace(bs[off]!)) off--;
  let begin = off;
  while (begin > 0 && !isNewline(bs[begin]!)) begin--;
  if (isNewline(bs[begin]!)) begin++;
  let end = off;
  while (end < bs.length && !isNewline(bs[end]!)) end++;
  if (begin > end) begin = end;
  return new ParserErrorDetail(bs.subarray(begin, end).toString('utf8'), off - begin);
}

/** ParserErrorDetail.Lines(): the line without leading tabs, and the caret line. */
export function detailLines(d: { line: string; idx: number }): string[] {
  const line = d.line.replace(/^\t+/, '');
  const indent = Math.max(0, d.idx - (d.line.length - line.length));
  return [line, ' '.repeat(indent) + '^'];
}

/** The parse errors of `text`, each with its detail (errors that have one keep it). */
export function withDetails(errors: RegoError[], text: string): RegoError[] {
  return errors.map((e) => {
    if (e.code !== 'rego_parse_error' || e.details !== undefined || !e.location || typeof text !== 'string') return e;
    const copy = new RegoError(e.code, e.message, e.location, parserErrorDetail(text, e.location.offset));
    copy.stack = e.stack;
    return copy;
  });
}
