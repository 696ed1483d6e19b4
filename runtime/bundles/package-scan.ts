// A tiny scanner for the `package` line of a Rego module. runtime/ may not import
// the compiler, yet reading a bundle must check that every module's package sits
// under the manifest roots; the package clause is the first non-comment token of
// every module, so scanning it is enough. Callers that hold the compiler (the
// server, `regent build`) may pass a real parser instead (ReadOptions.packageOf).

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

/**
 * The package path of a module as segments (`package a.b["c-d"]` → ["a","b","c-d"]),
 * or undefined when the text does not start with a package clause.
 */
export function scanPackage(text: string): string[] | undefined {
  let i = 0;
  const n = text.length;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  // Skip whitespace and comments (bounded by the text length).
  while (i < n) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') i++;
    else if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else break;
  }
  if (!text.startsWith('package', i)) return undefined;
  i += 'package'.length;
  if (i >= n || !/[ \t]/.test(text[i]!)) return undefined;
  while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
  const segs: string[] = [];
  const ident = (): string | undefined => {
    if (i >= n || !IDENT_START.test(text[i]!)) return undefined;
    const start = i;
    while (i < n && IDENT_PART.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  const first = ident();
  if (first === undefined) return undefined;
  segs.push(first);
  while (i < n) {
    const c = text[i]!;
    if (c === '.') {
      i++;
      const id = ident();
      if (id === undefined) return undefined;
      segs.push(id);
    } else if (c === '[') {
      i++;
      const s = stringLiteral();
      if (s === undefined || text[i] !== ']') return undefined;
      i++;
      segs.push(s);
    } else break;
  }
  // `package data.x` names the same package as `package x`.
  if (segs[0] === 'data' && segs.length > 1) segs.shift();
  return segs;

  function stringLiteral(): string | undefined {
    if (text[i] === '`') {
      const end = text.indexOf('`', i + 1);
      if (end < 0) return undefined;
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    if (text[i] !== '"') return undefined;
    let j = i + 1;
    while (j < n && text[j] !== '"') {
      if (text[j] === '\n') return undefined;
      j += text[j] === '\\' ? 2 : 1;
    }
    if (j >= n) return undefined;
    try {
      const s = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
      return s;
    } catch {
      return undefined;
    }
  }
}

/** OPA's text of a package clause: `package a.b["c-d"]`. */
export function formatPackage(segs: readonly string[]): string {
  let out = 'package ';
  segs.forEach((s, k) => {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += (k === 0 ? '' : '.') + s;
    else out += (k === 0 ? 'data' : '') + `[${JSON.stringify(s)}]`;
  });
  return out;
}
