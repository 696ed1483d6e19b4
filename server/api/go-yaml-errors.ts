// go-yaml v2 error texts for YAML request bodies that js-yaml rejected.
//
// OPA parses YAML bodies with sigs.k8s.io/yaml (YAMLToJSON over go-yaml v2), whose
// errors read `yaml: line N: <problem>`. go-yaml's parser.fail() picks N oddly: a
// scanner error reports the 1-based line of the problem, a parser error its 0-based
// line, and the `line N: ` part is left out when that 0-based line is 0. js-yaml is a
// different parser, so this maps the common js-yaml failures (by reason and by the
// character at the reported position) onto the go-yaml problem and the line go-yaml
// would report. Anything else keeps the `yaml: line N: <js-yaml reason>` shape with
// js-yaml's 1-based line (see server/README.md, "Request bodies").

const CANNOT_START = 'found character that cannot start any token';

/** A scanner error at 0-based line `line` (go-yaml adds one). */
const scannerError = (line: number, problem: string): string => (line > 0 ? `yaml: line ${line + 1}: ${problem}` : `yaml: ${problem}`);

/** A parser error at 0-based line `line` (reported as is). */
const parserError = (line: number, problem: string): string => (line > 0 ? `yaml: line ${line}: ${problem}` : `yaml: ${problem}`);

const BREAK = /\r\n|[\r\n\u0085\u2028\u2029]/g;

/** 0-based line of the end of the text. */
const lastLine = (text: string): number => text.match(BREAK)?.length ?? 0;

/**
 * The 0-based line of go-yaml's STREAM-END token: the scanner moves it to a new line
 * when the text does not end with a line break.
 */
const streamEndLine = (text: string): number => lastLine(text) + (/[\r\n\u0085\u2028\u2029]$/.test(text) || text === '' ? 0 : 1);

/**
 * The open flow collections (`[` / `{`) before `upTo`, the last significant character
 * (a closed quoted scalar counts as its quote), and whether a quoted scalar is still
 * open at `upTo`. Comments are skipped; brackets count in flow context or where a
 * token may start.
 */
function flowState(text: string, upTo: number): { open: string[]; last?: string; inQuote: boolean } {
  const open: string[] = [];
  let last: string | undefined;
  let tokenStart = true;
  for (let i = 0; i < upTo; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      tokenStart = true;
      continue;
    }
    if (c === '#' && tokenStart) {
      while (i + 1 < upTo && text[i + 1] !== '\n' && text[i + 1] !== '\r') i++;
      continue;
    }
    if ((c === '"' || c === "'") && tokenStart) {
      let j = i + 1;
      for (; j < upTo; j++) {
        if (c === '"' && text[j] === '\\') j++;
        else if (text[j] === c) {
          if (c === "'" && text[j + 1] === "'") j++;
          else break;
        }
      }
      if (j >= upTo) return { open, last, inQuote: true };
      i = j;
      last = c;
      tokenStart = false;
      continue;
    }
    if ((c === '[' || c === '{') && (tokenStart || open.length > 0)) open.push(c);
    else if ((c === ']' || c === '}') && open.length > 0) open.pop();
    last = c;
    tokenStart = '[]{},:'.includes(c);
  }
  return { open, last, inQuote: false };
}

const expectedClose = (open: string[]): string => `did not find expected ',' or '${open[open.length - 1] === '[' ? ']' : '}'}'`;

/** The nearest earlier non-blank, non-comment line indented at most `indent`, trimmed. */
function enclosingLine(text: string, lineStart: number, indent: number): string | undefined {
  const lines = text.slice(0, lineStart).split(/\r\n|[\r\n]/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const body = line.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (line.length - body.length <= indent) return body;
  }
  return undefined;
}

interface YAMLExceptionLike {
  reason?: unknown;
  mark?: { line?: unknown; position?: unknown };
}

/** The message go-yaml (via sigs.k8s.io/yaml) gives for `text`, from js-yaml's exception `e`. */
export function goYAMLError(text: string, e: unknown): string {
  const { reason, mark } = (e ?? {}) as YAMLExceptionLike;
  if (typeof reason !== 'string' || typeof mark?.line !== 'number' || typeof mark.position !== 'number') {
    return `yaml: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
  }
  const line = mark.line;
  const position = mark.position;
  const at = text[position];

  if (reason === 'the stream contains non-printable characters') return 'yaml: control characters are not allowed';
  if (reason === 'tab characters must not be used in indentation' || at === '@' || at === '`') return scannerError(line, CANNOT_START);
  if (/^unexpected end of the stream within a (single|double) quoted scalar$/.test(reason) || (reason === 'deficient indentation' && flowState(text, text.length).inQuote)) {
    // go-yaml reads on to the end of the text looking for the closing quote.
    return scannerError(lastLine(text), 'found unexpected end of stream');
  }
  if (reason === 'unexpected end of the stream within a flow collection') {
    const { open, last } = flowState(text, text.length);
    const problem = last === undefined || '[{,:'.includes(last) ? 'did not find expected node content' : expectedClose(open);
    return parserError(streamEndLine(text), problem);
  }
  if (reason === 'missed comma between flow collection entries') return parserError(line, expectedClose(flowState(text, position).open));
  if (reason === 'bad indentation of a mapping entry' || reason === 'end of the stream or a document separator is expected') {
    const lineStart = Math.max(text.lastIndexOf('\n', position - 1), text.lastIndexOf('\r', position - 1)) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
    if (indent.includes('\t')) return scannerError(line, CANNOT_START);
    // `a: b: c`, or a deeper line continuing a plain scalar: a `:` where no key may start.
    if (at === ':') return scannerError(line, 'mapping values are not allowed in this context');
    if (at === '-') return parserError(line, 'did not find expected key');
    const outer = enclosingLine(text, lineStart, indent.length);
    return parserError(line, outer !== undefined && /^-(\s|$)/.test(outer) ? "did not find expected '-' indicator" : 'did not find expected key');
  }
  const alias = /^unidentified alias "(.*)"$/.exec(reason);
  if (alias) return `yaml: unknown anchor '${alias[1]}' referenced`;
  return `yaml: line ${line + 1}: ${reason}`;
}
