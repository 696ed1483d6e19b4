// Where a JSON text first goes wrong, as "line L, column C: what was expected".
// JSON.parse says that the text is invalid but, in current V8, often not where;
// this small recursive-descent scanner (RFC 8259 grammar) finds the offset, so
// the source-data editor can point at it before anything is sent.

class JsonSyntaxError extends Error {
  constructor(pos, message) {
    super(message);
    this.pos = pos;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

function scan(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (what) => {
    throw new JsonSyntaxError(i, i >= text.length ? `unexpected end, expected ${what}` : `unexpected ${JSON.stringify(text[i])}, expected ${what}`);
  };
  const match = (re) => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (m) i += m[0].length;
    return Boolean(m);
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (!match(STRING)) fail('a "key"');
        ws();
        if (text[i] !== ':') fail('":"');
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail('"," or "}"');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail('"," or "]"');
      }
    }
    if (c === '"') return void (match(STRING) || fail('a valid string'));
    for (const lit of ['true', 'false', 'null']) if (text.startsWith(lit, i)) return void (i += lit.length);
    if (!match(NUMBER)) fail('a value');
  };
  value();
  ws();
  if (i < text.length) fail('the end of the document');
}

/** undefined when `text` is valid JSON, else "line L, column C: …". */
export function jsonErrorAt(text) {
  try {
    scan(text);
    return undefined;
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const before = text.slice(0, e.pos).split('\n');
    return `line ${before.length}, column ${before[before.length - 1].length + 1}: ${e.message}`;
  }
}
