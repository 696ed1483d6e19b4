// A readable listing of the IR, one statement per line, for `--dump-ir` and tests.
import { formatTerm } from '../../runtime/value/format.js';
import type { Block, Expr, Pattern, PolicyIR, QueryPlan, RuleDef, Stmt } from './ir.js';

export function listIR(ir: PolicyIR): string {
  const lines: string[] = [];
  for (const g of ir.groups) {
    lines.push(`group ${g.id} ${g.kind} data.${g.path.join('.')}${g.default !== undefined ? ` default=${formatTerm(g.default)}` : ''}`);
    g.defs.forEach((d, i) => listDef(d, `  def ${i}`, lines));
  }
  return lines.join('\n');
}

export function listQuery(q: QueryPlan): string {
  const lines = [`query vars=${q.vars.map((v) => `${v.name}@${v.slot}`).join(',')} frame=${q.frameSize}`];
  listBlock(q.body, '  ', lines);
  return lines.join('\n');
}

function listDef(d: RuleDef, label: string, lines: string[]): void {
  lines.push(`${label} frame=${d.frameSize}${d.params.length ? ` params=(${d.params.map(pat).join(', ')})` : ''}`);
  listBlock(d.body, '    ', lines);
  if (d.keys.length) lines.push(`    keys ${d.keys.map(ex).join(', ')}`);
  lines.push(`    value ${ex(d.value)}`);
  if (d.else) listDef(d.else, `  else`, lines);
}

function listBlock(b: Block, indent: string, lines: string[]): void {
  for (const s of b) listStmt(s, indent, lines);
}

function listStmt(s: Stmt, indent: string, lines: string[]): void {
  switch (s.k) {
    case 'let':
      return void lines.push(`${indent}let $${s.slot} = ${ex(s.expr)}`);
    case 'test':
      return void lines.push(`${indent}test ${ex(s.expr)}`);
    case 'capture':
      return void lines.push(`${indent}capture $${s.slot} = ${ex(s.expr)}`);
    case 'equal':
      return void lines.push(`${indent}equal ${ex(s.a)} ${ex(s.b)}`);
    case 'match':
      return void lines.push(`${indent}match ${pat(s.pattern)} = ${ex(s.expr)}`);
    case 'scan':
      return void lines.push(`${indent}scan ${ex(s.source)} key=${pat(s.key)} value=${pat(s.value)}`);
    case 'relation':
      return void lines.push(`${indent}relation ${s.name}(${s.args.map(ex).join(', ')}) -> ${pat(s.out)}`);
    case 'print':
      return void lines.push(`${indent}print ${s.args.map(ex).join(', ')}`);
    case 'not':
      lines.push(`${indent}not`);
      return listBlock(s.body, indent + '  ', lines);
    case 'every':
      lines.push(`${indent}every ${ex(s.domain)} key=${pat(s.key)} value=${pat(s.value)}`);
      return listBlock(s.body, indent + '  ', lines);
    case 'with':
      lines.push(`${indent}with ${s.mods.map((m) => `${m.k}:${'path' in m ? m.path.join('.') : m.name}`).join(', ')}`);
      return listBlock(s.body, indent + '  ', lines);
  }
}

function pat(p: Pattern): string {
  switch (p.k) {
    case 'bind':
      return `$${p.slot}`;
    case 'wild':
      return '_';
    case 'value':
      return `=${ex(p.expr)}`;
    case 'array':
      return `[${p.items.map(pat).join(', ')}]`;
    case 'object':
      return `{${p.entries.map(([k, v]) => `${ex(k)}: ${pat(v)}`).join(', ')}}`;
  }
}

function ex(e: Expr): string {
  switch (e.k) {
    case 'const':
      return formatTerm(e.value);
    case 'local':
      return `$${e.slot}`;
    case 'input':
      return 'input';
    case 'base':
      return `base(${e.path.join('.')})`;
    case 'rule':
      return `rule#${e.group}`;
    case 'vdoc':
      return `vdoc#${e.node}`;
    case 'dot':
      return `${ex(e.base)}[${ex(e.key)}]`;
    case 'vdocdot':
      return `vdoc#${e.node}[${ex(e.key)}]`;
    case 'call':
      return `${e.name}(${e.args.map(ex).join(', ')})`;
    case 'callfn':
      return `fn#${e.group}(${e.args.map(ex).join(', ')})`;
    case 'array':
      return `[${e.items.map(ex).join(', ')}]`;
    case 'set':
      return `{${e.items.map(ex).join(', ')}}`;
    case 'object':
      return `{${e.entries.map(([k, v]) => `${ex(k)}: ${ex(v)}`).join(', ')}}`;
    case 'compr':
      return `${e.kind}-comprehension(${e.body.length} stmts)`;
    case 'template':
      return `template(${e.parts.map((p) => (typeof p === 'string' ? JSON.stringify(p) : ex(p))).join(', ')})`;
  }
}
