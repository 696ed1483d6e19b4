// Rule groups and virtual-document nodes → Wasm functions. Complete, set and object
// groups are memoized per evaluation (a global holding the value and one holding the
// evaluation generation it belongs to); functions take their arguments as params and
// are memoized from their second call in a generation on (emitFunctionMemo), and
// indexed on a constant argument (index-dispatch.ts, functionIndex).
// Conflicting values of a complete rule or object key abort through opa_abort, as
// OPA's Wasm does. Indexed groups dispatch on the indexed ref (index-dispatch.ts).
// Constructs outside this slice raise WasmUnsupportedError.
import binaryen from 'binaryen';
import type { RuleDef, RuleGroup } from '../../ir/ir.js';
import { FnGen } from './exprs.js';
import { functionIndex, indexDispatch, type DefCode } from './index-dispatch.js';
import { WasmUnsupportedError } from './errors.js';
import type { Linker } from './link.js';

const I32 = binaryen.i32;
type X = binaryen.ExpressionRef;

function frameOf(d: RuleDef | undefined): number {
  let n = 0;
  for (let x = d; x; x = x.else) n = Math.max(n, x.frameSize);
  return n;
}

function sameConstValue(g: RuleGroup): boolean {
  if (g.defs.some((d) => d.else || d.value.k !== 'const')) return false;
  const first = JSON.stringify(g.defs[0]?.value);
  return g.defs.every((d) => JSON.stringify(d.value) === first);
}

/** The body of rule group `g`'s function, added to the module as `name`. */
export function emitGroup(L: Linker, g: RuleGroup, name: string): void {
  const m = L.m;
  const where = `rule ${g.path.join('.')}`;
  const arity = g.kind === 'function' ? (g.arity ?? 0) : 0;
  const f = new FnGen(L, arity, Math.max(1, ...g.defs.map(frameOf)));
  f.inlineSets = true;
  const result = f.temp();
  const out: X[] = [];
  const memo = g.kind !== 'function';
  const memoVal = `memo_v${g.id}`;
  const memoGen = `memo_g${g.id}`;
  if (memo) {
    m.addGlobal(memoVal, I32, true, m.i32.const(0));
    m.addGlobal(memoGen, I32, true, m.i32.const(0));
    out.push(m.if(m.i32.eq(m.global.get(memoGen, I32), f.rt('rt_gen', [])), m.return(m.global.get(memoVal, I32))));
  }
  const exit = f.label('exit');
  const order = indexDispatch(L, f, g.kind === 'function' ? functionIndex(g) : g.index, out);
  const params = (d: RuleDef, fail: string): X[] =>
    d.params.flatMap((p, i) => f.pattern(p, i, fail));

  if (g.kind === 'complete' || g.kind === 'function') {
    for (const d of g.defs) if (d.keys.length > 0) throw new WasmUnsupportedError(`${where}: ref heads with variable keys`);
    const stopAll = sameConstValue(g);
    out.push(m.local.set(result, m.i32.const(0)));
    const defs: DefCode[] = [];
    for (const [di, d0] of g.defs.entries()) defs.push({ def: di, code: f.definitionScope(() => {
      // an else chain: the first branch with a solution gives the value
      const chain = f.label('chain');
      const matched = f.temp();
      const branches: X[] = [m.local.set(matched, m.i32.const(0))];
      for (let d: RuleDef | undefined = d0; d; d = d.else) {
        const def = d;
        const constValue = def.value.k === 'const';
        branches.push(
          f.body(def.body, (fail) => {
            const setOrCheck = [
              m.local.set(f.check, f.expr(def.value, fail)),
              m.if(
                m.i32.eqz(m.local.get(result, I32)),
                m.local.set(result, m.local.get(f.check, I32)),
                m.if(m.i32.eqz(f.rt('rt_equal', [m.local.get(result, I32), m.local.get(f.check, I32)])), f.rt('rt_conflict', [], binaryen.none)),
              ),
            ];
            // a constant value cannot conflict with itself: stop at the first solution;
            // otherwise every solution of the branch is checked, then the chain ends
            const fin = stopAll ? [m.br(exit)] : constValue ? [m.br(chain)] : [m.local.set(matched, m.i32.const(1))];
            return [...setOrCheck, ...fin];
          }, (fail) => params(def, fail)),
          m.br(chain, m.local.get(matched, I32)),
        );
      }
      return m.block(chain, branches);
    }) });
    out.push(m.block(exit, order(defs)));
    if (g.default !== undefined) {
      out.push(m.if(m.i32.eqz(m.local.get(result, I32)), m.local.set(result, m.global.get(L.constant(g.default), I32))));
    }
  } else if (g.kind === 'set' || g.kind === 'object') {
    const isSet = g.kind === 'set';
    out.push(m.local.set(result, f.rt(isSet ? 'rt_set' : 'rt_obj', [])));
    const defs: DefCode[] = [];
    for (const [di, d] of g.defs.entries()) {
      if (d.else) throw new WasmUnsupportedError(`${where}: else on a multi-value rule`);
      if (!isSet && d.keys.length === 0) throw new WasmUnsupportedError(`${where}: an object rule without keys`);
      if (isSet && d.keys.length !== 0) throw new WasmUnsupportedError(`${where}: ref heads on a set rule`);
      // general ref heads (`a.b[x].c[y] := v`, multi-level `contains`): nested objects
      // along the keys, the value (or a set member) at the last one, as the JS back end
      const general = g.leafSet === true || d.keys.length > 1;
      defs.push({ def: di, code: f.definitionScope(() => f.body(d.body, (fail) => isSet
        ? [m.drop(f.rt('rt_set_add', [m.local.get(result, I32), f.expr(d.value, fail)]))]
        : general
          ? [m.if(m.i32.eqz(f.rt('rt_obj_put_path', [m.local.get(result, I32), f.expr({ k: 'array', items: d.keys }, fail), f.expr(d.value, fail), m.i32.const(g.leafSet ? 1 : 0)])), f.rt('rt_conflict', [], binaryen.none))]
          : [m.if(m.i32.eqz(f.rt('rt_obj_put_once', [m.local.get(result, I32), f.expr(d.keys[0]!, fail), f.expr(d.value, fail)])), f.rt('rt_conflict', [], binaryen.none))])) });
    }
    out.push(...order(defs));
  } else throw new WasmUnsupportedError(`${where}: kind ${String(g.kind)}`);

  if (memo) out.push(m.global.set(memoVal, m.local.get(result, I32)), m.global.set(memoGen, f.rt('rt_gen', [])));
  out.push(m.local.get(result, I32));
  const paramType = binaryen.createType(new Array<number>(arity).fill(I32));
  if (g.kind !== 'function') {
    m.addFunction(name, paramType, I32, f.varTypes(), m.block(null, out, I32));
    return;
  }
  m.addFunction(`${name}_body`, paramType, I32, f.varTypes(), m.block(null, out, I32));
  emitFunctionMemo(L, g, name, `${name}_body`);
}

/** The table value standing for "this call is undefined" (never a value's address). */
const UNDEFINED_RESULT = 1;

/**
 * Function `name` of group `g` calling `body` through a memo of its results per
 * evaluation, as OPA's function output cache (and the JS back end's callFunction):
 * from the function's second call under one generation on, results are kept in a
 * hash table (runtime/wasm/assembly/memo.ts) keyed by the arguments, up to four passed
 * as they are, more as one array, so a key matches exactly when the arguments are
 * equal in Rego; an undefined result is kept as UNDEFINED_RESULT. The first call of a
 * generation only claims it and drops the previous generation's table, so a function
 * called once per evaluation builds none. `with` runs under a fresh generation, as for
 * rule values.
 */
function emitFunctionMemo(L: Linker, g: RuleGroup, name: string, body: string): void {
  const m = L.m;
  const arity = g.arity ?? 0;
  const f = new FnGen(L, arity, 0);
  const [table, gen] = [`fmemo_t${g.id}`, `fmemo_g${g.id}`];
  m.addGlobal(table, I32, true, m.i32.const(0));
  m.addGlobal(gen, I32, true, m.i32.const(0));
  const [now, r, hash, tuple] = [f.temp(), f.temp(), f.temp(), f.temp()];
  const args = () => Array.from({ length: arity }, (_, i) => m.local.get(i, I32));
  // the key: (n, a0 … a3), zeros for unused places; beyond four arguments one array
  const key = (): X[] => {
    if (arity > 4) return [m.i32.const(1), m.local.get(tuple, I32), m.i32.const(0), m.i32.const(0), m.i32.const(0)];
    const a: X[] = args();
    while (a.length < 4) a.push(m.i32.const(0));
    return [m.i32.const(arity), ...a];
  };
  const pack: X[] = arity > 4
    ? [m.local.set(tuple, f.rt('rt_arr', [])), ...args().map((a) => m.drop(f.rt('rt_arr_push', [m.local.get(tuple, I32), a])))]
    : [];
  const memoized = [
    m.if(m.i32.eqz(m.global.get(table, I32)), m.global.set(table, f.rt('rt_memo_new', []))),
    ...pack,
    m.local.set(r, f.rt('rt_memo_get', [m.global.get(table, I32), ...key()])),
    m.if(m.local.get(r, I32), m.return(m.select(m.i32.eq(m.local.get(r, I32), m.i32.const(UNDEFINED_RESULT)), m.i32.const(0), m.local.get(r, I32)))),
    m.local.set(hash, f.rt('rt_memo_hash', [])),
    m.local.set(r, m.call(body, args(), I32)),
    f.rt('rt_memo_put', [m.global.get(table, I32), m.local.get(hash, I32), ...key(),
      m.select(m.local.get(r, I32), m.local.get(r, I32), m.i32.const(UNDEFINED_RESULT))], binaryen.none),
    m.return(m.local.get(r, I32)),
  ];
  const code = [
    m.local.set(now, f.rt('rt_gen', [])),
    m.if(m.i32.eq(m.global.get(gen, I32), m.local.get(now, I32)), m.block(null, memoized)),
    m.global.set(gen, m.local.get(now, I32)),
    m.global.set(table, m.i32.const(0)),
    m.call(body, args(), I32),
  ];
  const paramType = binaryen.createType(new Array<number>(arity).fill(I32));
  m.addFunction(name, paramType, I32, f.varTypes(), m.block(null, code, I32));
}

/**
 * The document at tree node `id`: a plain rule's value, else base data at the node's
 * path with the values of its object rules and child nodes put over it (one level).
 */
export function emitNode(L: Linker, id: number, name: string): void {
  const m = L.m;
  const node = L.ir.nodes[id]!;
  const groups = node.groups.map((g) => L.ir.groups[g]!).filter((g) => g.kind !== 'function');
  const f = new FnGen(L, 0, 1);
  const out: X[] = [];
  if (groups.length > 0 && node.children.size === 0 && groups[0]!.kind !== 'object') {
    out.push(m.call(L.groupFn(groups[0]!.id), [], I32));
  } else {
    const doc = f.temp();
    const base = f.temp();
    const tmp = f.temp();
    const noBase = f.label('nobase');
    // base data at the path, copied when it is an object (never shared with data)
    let x: X = f.rt('rt_data', []);
    const fetch: X[] = [];
    for (const key of node.path) {
      fetch.push(m.local.set(base, f.rt('rt_dot', [fetch.length ? m.local.get(base, I32) : x, m.global.get(L.constant(key), I32)])));
      fetch.push(m.br(noBase, m.i32.eqz(m.local.get(base, I32))));
    }
    if (node.path.length === 0) fetch.push(m.local.set(base, x));
    out.push(m.local.set(doc, f.rt('rt_obj', [])));
    out.push(m.block(noBase, [...fetch, m.call(L.copyFn(), [m.local.get(doc, I32), m.local.get(base, I32)], binaryen.none)]));
    for (const g of groups) {
      if (g.kind !== 'object') throw new WasmUnsupportedError(`document ${node.path.join('.')} mixing rules and packages`);
      out.push(m.local.set(tmp, m.call(L.groupFn(g.id), [], I32)));
      out.push(m.call(L.copyFn(), [m.local.get(doc, I32), m.local.get(tmp, I32)], binaryen.none));
    }
    for (const [key, child] of node.children) {
      const c = L.ir.nodes[child]!;
      if (c.groups.length > 0 && c.groups.every((g) => L.ir.groups[g]!.kind === 'function') && c.children.size === 0) continue;
      out.push(m.local.set(tmp, m.call(L.nodeFn(child), [], I32)));
      out.push(m.if(m.local.get(tmp, I32), f.rt('rt_put_child', [m.local.get(doc, I32), m.global.get(L.constant(key), I32), m.local.get(tmp, I32)], binaryen.none)));
    }
    out.push(m.local.get(doc, I32));
  }
  m.addFunction(name, binaryen.none, I32, f.varTypes(), m.block(null, out, I32));
}

/**
 * `data.<node>[key]` with a key known only at run time: just that child (its rule
 * value or document), else base data, else the node's object rules; never the whole
 * document (which may itself read `data[key]`).
 */
export function emitNodeKey(L: Linker, id: number, name: string): void {
  const m = L.m;
  const node = L.ir.nodes[id]!;
  const f = new FnGen(L, 1, 1);
  const key = m.local.get(0, I32);
  const tmp = f.temp();
  const out: X[] = [];
  const ret = (v: X) => [m.local.set(tmp, v), m.if(m.local.get(tmp, I32), m.return(m.local.get(tmp, I32)))];
  for (const [childName, child] of node.children) {
    const c = L.ir.nodes[child]!;
    const groups = c.groups.map((g) => L.ir.groups[g]!);
    let value: X;
    if (c.children.size === 0 && groups.length > 0) {
      if (groups[0]!.kind === 'function') {
        // a function is not a document: the key is undefined (as in the JS back end)
        out.push(m.if(f.rt('rt_equal', [key, m.global.get(L.constant(childName), I32)]), m.return(m.i32.const(0))));
        continue;
      }
      value = groups[0]!.kind !== 'object' ? m.call(L.groupFn(groups[0]!.id), [], I32) : m.call(L.nodeFn(child), [], I32);
    } else value = m.call(L.nodeFn(child), [], I32);
    out.push(m.if(f.rt('rt_equal', [key, m.global.get(L.constant(childName), I32)]), m.return(value)));
  }
  let base: X = f.rt('rt_data', []);
  for (const seg of node.path) base = f.rt('rt_dot', [base, m.global.get(L.constant(seg), I32)]);
  out.push(...ret(f.rt('rt_dot_base', [base, key])));
  for (const g of node.groups.map((i) => L.ir.groups[i]!)) {
    if (g.kind !== 'object') continue;
    out.push(...ret(f.rt('rt_dot', [m.call(L.groupFn(g.id), [], I32), key])));
  }
  out.push(m.i32.const(0));
  m.addFunction(name, binaryen.createType([I32]), I32, f.varTypes(), m.block(null, out, I32));
}
