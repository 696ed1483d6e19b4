// Package and import statements, including `import rego.v1` and
// `import future.keywords[.kw]`, which activate keywords in v0 mode.
import type { Import, Package, RefTerm, Term, VarTerm } from '../ast/nodes.js';
import { FUTURE_KEYWORDS, KEYWORDS, T } from '../lexer/token-kinds.js';
import type { Parser } from './parser.js';
import { parseTerm } from './terms.js';

const IMPORT_ROOTS = new Set(['data', 'input', 'future', 'rego']);

/** Parse a dotted/bracketed path term with every keyword allowed as a name. */
function parsePathTerm(p: Parser): Term {
  if (p.tok() !== T.Ident && !p.isNameToken()) throw p.illegal('expected ident');
  if (p.tok() !== T.Ident) p.lx.type = T.Ident;
  return parseTerm(p);
}

/** Package = "package" Name { "." Name | "[" String "]" }. Path is `data.<name>…`. */
export function parsePackage(p: Parser): Package {
  const loc = p.loc();
  p.next();
  if (p.tok() === T.EOF) throw p.illegal('expected path');
  const term = parsePathTerm(p);
  const path: Term[] = [{ kind: 'var', name: 'data', loc: term.loc }];
  if (term.kind === 'var') {
    path.push({ kind: 'string', value: term.name, loc: term.loc });
  } else if (term.kind === 'ref' && term.head.kind === 'var') {
    path.push({ kind: 'string', value: term.head.name, loc: term.head.loc });
    for (const x of term.path) {
      if (x.kind !== 'string') throw p.errorAt(`unexpected ${x.kind} token: expecting string`, x.loc.offset);
      path.push(x);
    }
  } else {
    throw p.errorAt(`unexpected ${term.kind} token: expecting var`, term.loc.offset);
  }
  return { kind: 'package', path, loc };
}

/** Import = "import" Name { "." Name | "[" String "]" } [ "as" Var ]. */
export function parseImport(p: Parser): Import {
  const loc = p.loc();
  p.next();
  if (p.tok() === T.EOF) throw p.illegal('expected path');
  const term = parsePathTerm(p);
  let path: RefTerm | VarTerm;
  if (term.kind === 'var') {
    path = term;
  } else if (term.kind === 'ref') {
    for (const x of term.path) {
      if (x.kind !== 'string') throw p.errorAt(`unexpected ${x.kind} token: expecting string`, x.loc.offset);
    }
    path = term;
  } else {
    throw p.errorAt('expected path', term.loc.offset);
  }
  const root = path.kind === 'var' ? path.name : path.head.kind === 'var' ? path.head.name : '';
  if (!IMPORT_ROOTS.has(root)) {
    throw p.errorAt(`unexpected import path, must begin with one of: {data, future, input, rego}, got: ${root}`, path.loc.offset);
  }
  const imp: Import = { kind: 'import', path, loc };
  if (p.tok() === T.As) {
    p.next();
    if (p.tok() !== T.Ident) throw p.illegal('expected var');
    imp.alias = p.lx.value;
    p.next();
  }
  const segs = path.kind === 'ref' ? path.path.map((x) => (x.kind === 'string' ? x.value : '')) : [];
  if (root === 'rego') {
    if (segs.length === 1 && segs[0] === 'v2') {
      if (imp.alias) throw p.errorAt('`rego` imports cannot be aliased', path.loc.offset);
      for (const kw of FUTURE_KEYWORDS) p.futureKw.add(kw);
      p.notBodies = true;
      return imp;
    }
    if (segs.length !== 1 || segs[0] !== 'v1') {
      throw p.errorAt(`invalid import \`${importText(root, segs)}\`, must be \`rego.v1\``, path.loc.offset);
    }
    if (imp.alias) throw p.errorAt('`rego` imports cannot be aliased', path.loc.offset);
    for (const kw of FUTURE_KEYWORDS) p.futureKw.add(kw);
  } else if (root === 'future') {
    if (segs[0] !== 'keywords') throw p.errorAt('invalid import, must be `future.keywords`', path.loc.offset);
    if (imp.alias) throw p.errorAt('`future` imports cannot be aliased', path.loc.offset);
    if (segs.length === 1) for (const kw of FUTURE_KEYWORDS) p.futureKw.add(kw);
    else if (segs.length === 2 && segs[1] === 'not') p.notBodies = true;
    else if (segs.length === 2 && FUTURE_KEYWORDS.includes(segs[1]!)) p.futureKw.add(segs[1]!);
    else if (segs.length === 2) {
      throw p.errorAt(`unexpected keyword, must be one of [${[...FUTURE_KEYWORDS, 'not'].sort().join(' ')}]`, path.loc.offset);
    } else {
      throw p.errorAt('invalid import, must be `future.keywords.x`, e.g. `import future.keywords.in`', path.loc.offset);
    }
  } else if (!imp.alias) {
    const last = segs.length ? segs[segs.length - 1]! : root;
    if (isActiveKeyword(p, last)) {
      throw p.errorAt(`unexpected import path, must not end with a keyword, got: ${last} (hint: import a different path or use an alias)`, path.loc.offset);
    }
  }
  return imp;
}

function isActiveKeyword(p: Parser, name: string): boolean {
  if (!KEYWORDS.has(name) || name === 'null' || name === 'true' || name === 'false') return false;
  if (FUTURE_KEYWORDS.includes(name)) return !p.v0 || p.futureKw.has(name);
  return true;
}

function importText(root: string, segs: string[]): string {
  return [root, ...segs].join('.');
}
