// strings.render_template: a subset of Go's text/template, executed with
// missingkey=error over the variables object (as OPA does). Supported: text,
// {{- / -}} trimming, comments, pipelines with `|`, fields (.a.b, $x.a, $),
// variables (:= and =), literals (strings, raw strings, numbers, true/false/nil),
// parentheses, if/else if/else, range (with $i, $v := …, else), with/else,
// break/continue and the functions and, or, not, len, index, print, printf,
// println, eq, ne, lt, le, gt, ge. Not supported (errors): define, template,
// block and the html/js/urlquery/slice/call functions. This file executes;
// strings-template-parse.ts lexes and parses.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { BigNum, compareNumbers, formatNumber, isNumber, type RNumber } from '../value/number.js';
import { goSprintf, toGoArg } from './sprintf.js';
import { fail, parseTemplate, type Node, type Pipe, type Arg } from './strings-template-parse.js';

class Stop extends Error {
  constructor(readonly kind: 'break' | 'continue') {
    super(kind);
  }
}

// ---- execution -----------------------------------------------------------

type TV = Value | undefined;

function truth(v: TV): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (isNumber(v)) return compareNumbers(v, 0) !== 0;
  if (Array.isArray(v)) return v.length > 0;
  return v.size > 0;
}

/** fmt's %v of a value inside the template data (Go map/slice syntax). */
export function goPrint(v: TV, top = true): string {
  if (v === undefined || v === null) return top ? '<no value>' : '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (isNumber(v)) return formatNumber(v as RNumber);
  if (Array.isArray(v)) return '[' + v.map((x) => goPrint(x, false)).join(' ') + ']';
  if (v instanceof RSet) return '[' + v.values().map((x) => goPrint(x, false)).join(' ') + ']';
  return 'map[' + (v as RObject).entries().map(([k, x]) => goPrint(k, false) + ':' + goPrint(x, false)).join(' ') + ']';
}

class Exec {
  out = '';
  vars: [string, TV][] = [];
  constructor(readonly src: string, readonly root: TV) {}

  where(pos: number, what: string): string {
    const before = this.src.slice(0, pos);
    const ln = before.split('\n').length;
    const col = pos - (before.lastIndexOf('\n') + 1);
    return `${ln}:${col}: executing "template" at <${what}>`;
  }

  lookupVar(name: string, pos: number): TV {
    if (name === '$') return this.vars[0]![1];
    for (let k = this.vars.length - 1; k >= 0; k--) if (this.vars[k]![0] === name) return this.vars[k]![1];
    return fail(`${this.where(pos, name)}: undefined variable: ${name}`);
  }

  field(v: TV, path: string[], pos: number, label: string): TV {
    for (const key of path) {
      if (v instanceof RObject) {
        const x = v.get(key);
        if (x === undefined) fail(`${this.where(pos, label)}: map has no entry for key "${key}"`);
        v = x;
      } else if (v === undefined || v === null) {
        fail(`${this.where(pos, label)}: nil pointer evaluating interface {}.${key}`);
      } else {
        fail(`${this.where(pos, label)}: can't evaluate field ${key} in type ${goType(v)}`);
      }
    }
    return v;
  }

  arg(a: Arg, dot: TV, pos: number, label: string): TV {
    if (a.t === 'lit') return a.v;
    if (a.t === 'fn') return this.call(a.name, [], undefined, dot, pos, label);
    let base: TV;
    if (a.base === 'dot') base = dot;
    else if (typeof a.base === 'string') base = this.lookupVar(a.base, pos);
    else base = this.pipe(a.base, dot, pos);
    return this.field(base, a.path, pos, label);
  }

  call(name: string, argNodes: Arg[], final: TV | undefined, dot: TV, pos: number, label: string): TV {
    const args = (): TV[] => {
      const xs = argNodes.map((x) => this.arg(x, dot, pos, label));
      if (final !== undefined) xs.push(final);
      return xs;
    };
    switch (name) {
      case 'and':
      case 'or': {
        let last: TV;
        for (const x of argNodes) {
          last = this.arg(x, dot, pos, label);
          if (truth(last) === (name === 'or')) return last;
        }
        return final !== undefined ? final : last;
      }
      case 'not':
        return !truth(args()[0]);
      case 'len': {
        const v = args()[0];
        if (typeof v === 'string') return Buffer.byteLength(v);
        if (Array.isArray(v)) return v.length;
        if (v instanceof RObject || v instanceof RSet) return v.size;
        return fail(`${this.where(pos, label)}: error calling len: len of type ${goType(v)}`);
      }
      case 'index': {
        const [v, ...keys] = args();
        let x = v;
        for (const k of keys) {
          if (Array.isArray(x) && typeof k === 'number') x = x[k];
          else if (x instanceof RObject) x = x.get(k ?? null) ?? undefined;
          else return fail(`${this.where(pos, label)}: error calling index: cannot index ${goType(x)}`);
          if (x === undefined && Array.isArray(v)) fail(`${this.where(pos, label)}: error calling index: index out of range`);
        }
        return x;
      }
      case 'print':
      case 'println': {
        const xs = args();
        const parts = xs.map((x) => goPrint(x, false));
        if (name === 'println') return parts.join(' ') + '\n';
        return parts.reduce((acc, s, k) => acc + (k > 0 && typeof xs[k] !== 'string' && typeof xs[k - 1] !== 'string' ? ' ' : '') + s, '');
      }
      case 'printf': {
        const [f, ...rest] = args();
        return goSprintf(typeof f === 'string' ? f : goPrint(f), rest.map((x) => toGoArg(x === undefined ? null : x)));
      }
      case 'eq':
      case 'ne':
      case 'lt':
      case 'le':
      case 'gt':
      case 'ge': {
        const [a, ...bs] = args();
        if (name === 'eq') return bs.some((b) => compareBasic(a, b, this.where(pos, label)) === 0);
        const c = compareBasic(a, bs[0], this.where(pos, label));
        return name === 'ne' ? c !== 0 : name === 'lt' ? c < 0 : name === 'le' ? c <= 0 : name === 'gt' ? c > 0 : c >= 0;
      }
    }
    return fail(`${this.where(pos, label)}: function "${name}" not defined`);
  }

  pipe(p: Pipe, dot: TV, pos: number): TV {
    let v: TV;
    let first = true;
    for (const cmd of p.cmds) {
      const head = cmd[0]!;
      if (head.t === 'fn') v = this.call(head.name, cmd.slice(1), first ? undefined : v, dot, pos, p.src);
      else if (cmd.length > 1 || !first) fail(`${this.where(pos, p.src)}: can't give argument to non-function`);
      else v = this.arg(head, dot, pos, p.src);
      first = false;
    }
    if (p.decl.length === 1) {
      if (p.assign) {
        const k = this.vars.map((x) => x[0]).lastIndexOf(p.decl[0]!);
        if (k < 0) fail(`${this.where(pos, p.src)}: undefined variable: ${p.decl[0]}`);
        this.vars[k]![1] = v;
      } else this.vars.push([p.decl[0]!, v]);
    }
    return v;
  }

  run(list: Node[], dot: TV): void {
    for (const n of list) {
      switch (n.t) {
        case 'text':
          this.out += n.s;
          break;
        case 'action': {
          const v = this.pipe(n.p, dot, n.pos);
          if (n.p.decl.length === 0) this.out += goPrint(v);
          break;
        }
        case 'break':
        case 'continue':
          throw new Stop(n.t);
        case 'if':
        case 'with': {
          const mark = this.vars.length;
          const v = this.pipe(n.p, dot, n.pos);
          if (truth(v)) this.run(n.list, n.t === 'with' ? v : dot);
          else if (n.els) this.run(n.els, dot);
          this.vars.length = mark;
          break;
        }
        case 'range':
          this.range(n, dot);
          break;
      }
    }
  }

  range(n: Extract<Node, { t: 'range' }>, dot: TV): void {
    const mark = this.vars.length;
    const decl = n.p.decl;
    const v = this.pipe({ ...n.p, decl: [] }, dot, n.pos);
    let items: [TV, TV][];
    if (Array.isArray(v)) items = v.map((x, k) => [k, x]);
    else if (v instanceof RSet) items = v.values().map((x, k) => [k, x]);
    else if (v instanceof RObject) items = v.entries();
    else if (v === undefined || v === null) items = [];
    else return fail(`${this.where(n.pos, n.p.src)}: range can't iterate over ${goPrint(v)}`);
    if (items.length === 0 && n.els) this.run(n.els, dot);
    for (const [k, x] of items) {
      this.vars.length = mark;
      if (decl.length === 1) this.vars.push([decl[0]!, x]);
      else if (decl.length >= 2) this.vars.push([decl[0]!, k], [decl[1]!, x]);
      try {
        this.run(n.list, x);
      } catch (e) {
        if (!(e instanceof Stop)) throw e;
        if (e.kind === 'break') break;
      }
    }
    this.vars.length = mark;
  }
}

function goType(v: TV): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || v instanceof BigNum) return 'json.Number';
  if (Array.isArray(v) || v instanceof RSet) return '[]interface {}';
  return 'map[string]interface {}';
}

function compareBasic(a: TV, b: TV, where: string): number {
  if (isNumber(a as Value) && isNumber(b as Value)) return compareNumbers(a as RNumber, b as RNumber);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : 1;
  return fail(`${where}: error calling eq: incompatible types for comparison`);
}

/** Parse and execute a template against the variables object. */
export function renderTemplate(src: string, vars: RObject): string {
  const nodes = parseTemplate(src);
  const ex = new Exec(src, vars);
  ex.vars.push(['$', vars]);
  ex.run(nodes, vars);
  return ex.out;
}
