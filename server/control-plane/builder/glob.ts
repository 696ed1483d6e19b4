// Glob patterns as the control plane uses them (gobwas/glob compiled without
// separators): `*` matches any run of characters *including* `/`, `?` one
// character, `[abc]` / `[a-z]` / `[!abc]` a character class, `{a,b}` alternatives
// (which may nest globs), `\x` a literal x; a leading `**/` (or `/**/`) also
// matches zero directories. So `app/*` matches `app/x/y.rego` and
// `*.rego` matches a file at any depth. Used for included/excluded files, bundle
// excluded_files, directory `paths` and stack selectors.

export class GlobSyntaxError extends Error {
  override name = 'GlobSyntaxError';
}

const cache = new Map<string, RegExp>();

/** Compile a glob to an anchored RegExp (cached). Throws GlobSyntaxError. */
export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (!re) {
    const [src, end] = translate(glob, 0, false);
    if (end !== glob.length) throw new GlobSyntaxError(`invalid glob ${JSON.stringify(glob)}: unexpected '}'`);
    re = new RegExp(`^${src}$`, 's');
    if (cache.size > 1000) cache.clear();
    cache.set(glob, re);
  }
  return re;
}

/** Translate from `i`; inside `{…}` stop at `,` or `}`. Returns [regexp source, index]. */
function translate(g: string, i: number, inAlt: boolean): [string, number] {
  let out = '';
  while (i < g.length) {
    const c = g[i]!;
    if (inAlt && (c === ',' || c === '}')) return [out, i];
    if (c === '*') {
      const start = i;
      while (g[i] === '*') i++;
      // `**/` also matches no directory at all, so `**/*.rego` includes top-level files.
      if (i - start >= 2 && g[i] === '/' && (start === 0 || g[start - 1] === '/')) {
        out += '(?:.*/)?';
        i++;
      } else out += '.*';
      continue;
    }
    if (c === '?') out += '.';
    else if (c === '\\') {
      i++;
      if (i >= g.length) throw new GlobSyntaxError(`invalid glob ${JSON.stringify(g)}: trailing backslash`);
      out += escapeRe(g[i]!);
    } else if (c === '[') {
      const close = g.indexOf(']', i + 2);
      if (close < 0) throw new GlobSyntaxError(`invalid glob ${JSON.stringify(g)}: unclosed '['`);
      let body = g.slice(i + 1, close);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, (m) => '\\' + m)}]`;
      i = close;
    } else if (c === '{') {
      const alts: string[] = [];
      i++;
      for (;;) {
        const [alt, j] = translate(g, i, true);
        alts.push(alt);
        if (j >= g.length) throw new GlobSyntaxError(`invalid glob ${JSON.stringify(g)}: unclosed '{'`);
        i = j + 1;
        if (g[j] === '}') break;
      }
      out += `(?:${alts.join('|')})`;
      continue;
    } else out += escapeRe(c);
    i++;
  }
  return [out, i];
}

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? '\\' + c : c;
}

export function globMatch(glob: string, text: string): boolean {
  return globToRegExp(glob).test(text);
}

export function matchesAny(globs: readonly string[] | undefined, text: string): boolean {
  return !!globs && globs.some((g) => globMatch(g, text));
}

/** Validate globs up front (bundle/source definitions); throws GlobSyntaxError. */
export function checkGlobs(globs: readonly string[] | undefined): void {
  for (const g of globs ?? []) globToRegExp(g);
}

/**
 * The control plane's file filter: a file is kept when no exclude pattern matches
 * it or any of its parent directories (excluded directories are pruned), and —
 * when include patterns are given — some include pattern matches the file itself.
 */
export function keepFile(path: string, include: readonly string[] | undefined, exclude: readonly string[] | undefined): boolean {
  if (exclude && exclude.length > 0) {
    const parts = path.split('/');
    for (let n = 1; n <= parts.length; n++) {
      if (matchesAny(exclude, parts.slice(0, n).join('/'))) return false;
    }
  }
  if (include && include.length > 0) return matchesAny(include, path);
  return true;
}
