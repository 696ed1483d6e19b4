// strings.render_template, part 1: the lexer and parser of the Go text/template
// subset (see strings-template.ts for what is supported). Templates become a
// list of nodes; actions hold pipelines of commands whose arguments are fields,
// literals or function names. Errors use Go's `template: template:<pos>: …` form.
import type { Value } from '../value/value.js';
import { BuiltinError } from './errors.js';

export type Node =
  | { t: 'text'; s: string }
  | { t: 'action'; p: Pipe; pos: number }
  | { t: 'if' | 'with'; p: Pipe; list: Node[]; els: Node[] | null; pos: number }
  | { t: 'range'; p: Pipe; list: Node[]; els: Node[] | null; pos: number }
  | { t: 'break' | 'continue' };
export interface Pipe {
  decl: string[];
  assign: boolean;
  cmds: Arg[][];
  src: string;
}
export type Arg =
  | { t: 'field'; base: 'dot' | string | Pipe; path: string[] }
  | { t: 'lit'; v: Value | undefined }
  | { t: 'fn'; name: string };

export const fail = (msg: string): never => {
  throw new BuiltinError(`template: template:${msg}`);
};

interface Tok {
  v: string;
  pos: number;
}

const TOKEN_RE = /\s+|"(?:[^"\\]|\\.)*"|`[^`]*`|:=|[=|(),]|\$[\w]*(?:\.[\w]+)*|(?:\.[\w]+)+|\.|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_]\w*(?:\.[\w]+)*|\S/gy;

function tokenize(src: string, base: number): Tok[] {
  const out: Tok[] = [];
  TOKEN_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN_RE.exec(src)) !== null) if (!/^\s/.test(m[0])) out.push({ v: m[0], pos: base + m.index });
  return out;
}

class Parser {
  i = 0;
  constructor(readonly toks: Tok[], readonly line: (pos: number) => string) {}
  peek(): string | undefined {
    return this.toks[this.i]?.v;
  }
  pipe(): Pipe {
    const start = this.i;
    const p: Pipe = { decl: [], assign: false, cmds: [], src: '' };
    let j = this.i;
    while (j < this.toks.length && (this.toks[j]!.v.startsWith('$') || this.toks[j]!.v === ',')) j++;
    const op = this.toks[j]?.v;
    if (j > this.i && (op === ':=' || op === '=')) {
      p.decl = this.toks.slice(this.i, j).map((t) => t.v).filter((v) => v !== ',');
      p.assign = op === '=';
      this.i = j + 1;
    }
    let cmd: Arg[] = [];
    for (let v = this.peek(); v !== undefined && v !== ')'; v = this.peek()) {
      this.i++;
      if (v === '|') {
        if (cmd.length === 0) fail(`${this.line(this.toks[this.i - 1]!.pos)}: missing command`);
        p.cmds.push(cmd);
        cmd = [];
      } else cmd.push(this.operand(v));
    }
    if (cmd.length) p.cmds.push(cmd);
    p.src = this.toks.slice(start, this.i).map((t) => t.v).join(' ');
    return p;
  }
  operand(v: string): Arg {
    if (v === '(') {
      const inner = this.pipe();
      if (this.peek() !== ')') fail(`${this.line(this.toks[this.i - 1]?.pos ?? 0)}: unclosed left paren`);
      this.i++;
      return { t: 'field', base: inner, path: [] };
    }
    if (v === '.') return { t: 'field', base: 'dot', path: [] };
    if (v.startsWith('.')) return { t: 'field', base: 'dot', path: v.slice(1).split('.') };
    if (v.startsWith('$')) {
      const [name, ...path] = v.split('.');
      return { t: 'field', base: name!, path };
    }
    if (v.startsWith('"')) return { t: 'lit', v: JSON.parse(v) as string };
    if (v.startsWith('`')) return { t: 'lit', v: v.slice(1, -1) };
    if (/^-?\d/.test(v)) return { t: 'lit', v: Number(v) };
    if (v === 'true' || v === 'false') return { t: 'lit', v: v === 'true' };
    if (v === 'nil') return { t: 'lit', v: undefined };
    if (/^[A-Za-z_]\w*$/.test(v)) return { t: 'fn', name: v };
    return fail(`${this.line(this.toks[this.i - 1]!.pos)}: unexpected "${v}" in command`);
  }
}

export function parseTemplate(src: string): Node[] {
  const line = (pos: number): string => String(src.slice(0, pos).split('\n').length);
  const root: Node[] = [];
  const stack: { node: Node & { list: Node[]; els: Node[] | null }; inElse: boolean }[] = [];
  const cur = (): Node[] => {
    const top = stack[stack.length - 1];
    return top ? (top.inElse ? top.node.els! : top.node.list) : root;
  };
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = src.slice(i, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    trimNext = false;
    if (open < 0) {
      if (text) cur().push({ t: 'text', s: text });
      break;
    }
    let bodyStart = open + 2;
    if (/^- [\s\S]/.test(src.slice(bodyStart, bodyStart + 3)) || /^-[ \t\r\n]/.test(src.slice(bodyStart, bodyStart + 2))) {
      text = text.replace(/[ \t\r\n]+$/, '');
      bodyStart++;
    }
    if (text) cur().push({ t: 'text', s: text });
    const close = src.indexOf('}}', bodyStart);
    if (close < 0) fail(`${line(open)}: unclosed action`);
    let bodyEnd = close;
    if (/[ \t\r\n]-$/.test(src.slice(bodyStart, close))) {
      bodyEnd = close - 1;
      trimNext = true;
    }
    i = close + 2;
    const body = src.slice(bodyStart, bodyEnd);
    if (/^\s*\/\*[\s\S]*\*\/\s*$/.test(body)) continue;
    const toks = tokenize(body, bodyStart);
    if (toks.length === 0) fail(`${line(open)}: missing value for command`);
    const p = new Parser(toks, line);
    const kw = toks[0]!.v;
    const pos = toks[0]!.pos;
    if (kw === 'if' || kw === 'with' || kw === 'range') {
      p.i = 1;
      const node = { t: kw as 'if' | 'with' | 'range', p: p.pipe(), list: [] as Node[], els: null as Node[] | null, pos };
      cur().push(node);
      stack.push({ node, inElse: false });
    } else if (kw === 'else') {
      const top = stack[stack.length - 1];
      if (!top || top.inElse) fail(`${line(pos)}: unexpected {{else}}`);
      top!.inElse = true;
      top!.node.els = [];
      if (toks.length > 1 && (toks[1]!.v === 'if' || toks[1]!.v === 'with')) {
        p.i = 2;
        const node = { t: toks[1]!.v as 'if' | 'with', p: p.pipe(), list: [] as Node[], els: null as Node[] | null, pos, chained: true };
        top!.node.els!.push(node);
        stack.push({ node, inElse: false });
      }
    } else if (kw === 'end') {
      if (!stack.length) fail(`${line(pos)}: unexpected {{end}}`);
      while ((stack.pop()!.node as { chained?: boolean }).chained);
    } else if (kw === 'break' || kw === 'continue') {
      cur().push({ t: kw });
    } else if (kw === 'define' || kw === 'template' || kw === 'block') {
      fail(`${line(pos)}: {{${kw}}} is not supported`);
    } else {
      const pipe = p.pipe();
      if (p.i < toks.length) fail(`${line(pos)}: unexpected "${toks[p.i]!.v}" in operand`);
      cur().push({ t: 'action', p: pipe, pos });
    }
  }
  if (stack.length) fail(`${line(src.length)}: unexpected EOF`);
  return root;
}
