// `# METADATA` blocks: collected from the comments after parsing, their YAML parsed
// with js-yaml into Annotation nodes, and attached like OPA does: to the first
// statement that starts below the block, with scope `package` (package statement)
// or `rule` / `document` (rules; `document` when `entrypoint: true`).
import { loadYAML } from '../../runtime/value/yaml-lib.js';
import type { Annotation, Comment, Module, Rule } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import type { Parser } from './parser.js';

const SCOPES = new Set(['rule', 'document', 'package', 'subpackages']);

interface Block {
  loc: Location;
  comments: Comment[];
  yaml: string;
}

function isMetadataComment(c: Comment): boolean {
  return c.loc.col === 1 && c.text.trim().startsWith('METADATA');
}

function collectBlocks(comments: Comment[]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < comments.length; i++) {
    const c = comments[i]!;
    if (!isMetadataComment(c)) continue;
    const block: Block = { loc: c.loc, comments: [], yaml: '' };
    const lines: string[] = [];
    let prev = c;
    while (i + 1 < comments.length) {
      const n = comments[i + 1]!;
      if (n.loc.col !== 1 || n.loc.row - 1 !== prev.loc.row || isMetadataComment(n)) break;
      block.comments.push(n);
      lines.push(n.text.startsWith(' ') ? n.text.slice(1) : n.text);
      prev = n;
      i++;
    }
    block.yaml = lines.join('\n');
    blocks.push(block);
  }
  return blocks;
}

export function attachAnnotations(p: Parser, mod: Module): void {
  const blocks = collectBlocks(mod.comments);
  if (blocks.length === 0) return;
  type Stmt = { kind: 'package' | 'import' | 'rule'; row: number; rule?: Rule };
  const stmts: Stmt[] = [
    { kind: 'package', row: mod.package.loc.row } as Stmt,
    ...mod.imports.map((i): Stmt => ({ kind: 'import', row: i.loc.row })),
    ...mod.rules.map((r): Stmt => ({ kind: 'rule', row: r.loc.row, rule: r })),
  ].sort((a, b) => a.row - b.row);
  for (const block of blocks) {
    const a = parseAnnotation(p, block);
    const stmt = stmts.find((s) => s.row > block.loc.row);
    if (a.scope === undefined) {
      if (stmt?.kind === 'rule') a.scope = a.entrypoint ? 'document' : 'rule';
      else if (stmt?.kind === 'package') a.scope = 'package';
    }
    const scope = a.scope as string | undefined;
    const have = stmt ? ` (have ${stmt.kind})` : '';
    if (scope === 'rule' || scope === 'document') {
      if (stmt?.kind !== 'rule') {
        p.report(`annotation scope '${scope}' must be applied to rule${have}`, block.loc.offset);
        continue;
      }
      (stmt.rule!.annotations ??= []).push(a);
    } else if (scope === 'package' || scope === 'subpackages') {
      if (stmt?.kind !== 'package') {
        p.report(`annotation scope '${scope}' must be applied to package${have}`, block.loc.offset);
        continue;
      }
      mod.annotations.push(a);
    } else {
      p.report(
        `invalid annotation scope '${scope ?? (stmt?.kind === 'import' ? 'import' : '')}'. Use one of 'rule', 'document', 'package', or 'subpackages'`,
        block.loc.offset,
      );
    }
  }
}

function parseAnnotation(p: Parser, block: Block): Annotation {
  const fail = (msg: string, loc: Location = block.loc): never => {
    throw p.errorAt(msg, loc.offset);
  };
  if (block.yaml.trim() === '') fail('expected METADATA block, found whitespace');
  let raw: unknown;
  try {
    raw = loadYAML(block.yaml);
  } catch (e) {
    const err = e as { reason?: string; message?: string; mark?: { line?: number } };
    const line = err.mark?.line ?? 0;
    const c = block.comments[Math.min(line, block.comments.length - 1)];
    fail(`yaml: line ${line + 1}: ${err.reason ?? err.message ?? 'invalid YAML'}`, c?.loc ?? block.loc);
  }
  if (raw === null || raw === undefined) fail('expected METADATA block, found whitespace');
  if (typeof raw !== 'object' || Array.isArray(raw)) fail('yaml: METADATA block must be a mapping');
  const r = raw as Record<string, unknown>;
  const a: Annotation = { kind: 'annotation', loc: block.loc };
  if (r.scope !== undefined) {
    if (typeof r.scope !== 'string' || !SCOPES.has(r.scope)) {
      fail(`invalid annotation scope '${String(r.scope)}'. Use one of 'rule', 'document', 'package', or 'subpackages'`);
    }
    a.scope = r.scope as Annotation['scope'];
  }
  if (r.title !== undefined) a.title = String(r.title);
  if (r.description !== undefined) a.description = String(r.description);
  if (r.entrypoint !== undefined) a.entrypoint = r.entrypoint === true;
  if (Array.isArray(r.organizations)) a.organizations = r.organizations.map(String);
  if (Array.isArray(r.related_resources)) {
    a.related_resources = r.related_resources.map((x) => {
      if (typeof x === 'string' && x.length > 0) return { ref: x };
      if (x && typeof x === 'object' && typeof (x as Record<string, unknown>).ref === 'string') {
        const o = x as Record<string, unknown>;
        return { ref: String(o.ref).trim(), ...(o.description !== undefined ? { description: String(o.description).trim() } : {}) };
      }
      return fail(`invalid related-resource definition ${JSON.stringify(x)}: 'ref' value required in object`);
    });
  }
  if (Array.isArray(r.authors)) {
    a.authors = r.authors.map((x) => {
      if (typeof x === 'string') return parseAuthorString(x) ?? fail(`invalid author definition ${x}: author is an empty string`);
      if (x && typeof x === 'object') {
        const o = x as Record<string, unknown>;
        const name = typeof o.name === 'string' ? o.name.trim() : '';
        const email = typeof o.email === 'string' ? o.email.trim() : '';
        if (name || email) return { ...(name ? { name } : {}), ...(email ? { email } : {}) };
      }
      return fail(`invalid author definition ${JSON.stringify(x)}: 'name' and/or 'email' values required in object`);
    });
  }
  if (Array.isArray(r.schemas)) {
    a.schemas = r.schemas.map((x) => {
      if (!x || typeof x !== 'object') return fail('invalid schema declaration');
      const [path, v] = Object.entries(x as Record<string, unknown>)[0] ?? ['', undefined];
      if (typeof v === 'string') return { path, schema: v };
      if (v && typeof v === 'object') return { path, definition: v };
      return fail(`invalid schema declaration for path "${path}"`);
    });
  }
  if (r.custom !== undefined) {
    if (!r.custom || typeof r.custom !== 'object' || Array.isArray(r.custom)) fail('invalid custom annotation: must be a map');
    a.custom = r.custom as Record<string, unknown>;
  }
  // `compile:` (unknowns, mask_rule) is kept as written; compiler/filters validates it when used.
  if (r.compile && typeof r.compile === 'object' && !Array.isArray(r.compile)) a.compile = r.compile as Record<string, unknown>;
  return a;
}

function parseAuthorString(s: string): { name?: string; email?: string } | undefined {
  const t = s.trim();
  if (!t) return undefined;
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(t);
  if (m) return { ...(m[1] ? { name: m[1] } : {}), ...(m[2] ? { email: m[2] } : {}) };
  return { name: t };
}
