// Expressions and calls for the Wasm back end's function generator: values, builtin
// calls (native in the runtime or through opa_builtinN), user function calls, and
// `with` (input/data replacement and function replacements, "mocks", dispatched at
// each call site of a replaced function through per-name globals). Statements,
// patterns and control flow are in body.ts.
import binaryen from 'binaryen';
import type { Block, Expr, WithMod } from '../../ir/ir.js';
import { BodyGen } from './body.js';
import { WasmUnsupportedError } from './errors.js';
import { nativeName } from './link.js';

const I32 = binaryen.i32;
type X = binaryen.ExpressionRef;

/** Builtins the runtime implements natively (runtime/wasm/assembly/builtins.ts), by arity. */
const NATIVE_ARITY: Record<string, number> = {
  is_null: 1, is_boolean: 1, is_number: 1, is_string: 1, is_array: 1, is_object: 1, is_set: 1, type_name: 1,
  startswith: 2, endswith: 2, contains: 2, indexof: 2, trim_prefix: 2, trim_suffix: 2, concat: 2, split: 2,
  lower: 1, upper: 1, abs: 1, sum: 1, product: 1, max: 1, min: 1, sort: 1,
  'array.concat': 2, union: 1, 'object.get': 3, 'object.union': 2,
  trim: 2, trim_left: 2, trim_right: 2, trim_space: 1, replace: 3, substring: 3, 'array.slice': 3,
  'numbers.range': 2, intersection: 1, 'object.remove': 2, 'object.filter': 2, floor: 1, ceil: 1, round: 1,
  'base64.encode': 1, 'base64url.encode': 1, 'base64url.encode_no_pad': 1,
  'bits.and': 2, 'bits.or': 2, 'bits.xor': 2, 'bits.lsh': 2, 'bits.rsh': 2, 'bits.negate': 1,
  // runtime/wasm/assembly/natives-strings.ts
  'strings.any_prefix_match': 2, 'strings.any_suffix_match': 2, 'strings.count': 2, indexof_n: 2,
  'strings.replace_n': 2, 'strings.split_n': 3, 'strings.reverse': 1, format_int: 2,
  // runtime/wasm/assembly/natives-collections.ts
  'object.subset': 2, 'object.union_n': 1, 'array.flatten': 1, 'array.reverse': 1, 'numbers.range_step': 3,
  'json.filter': 2, 'json.remove': 2, 'graph.reachable': 2, 'graph.reachable_paths': 2,
  // runtime/wasm/assembly/natives-numbers.ts
  to_number: 1, 'units.parse': 1, 'units.parse_bytes': 1,
  // runtime/wasm/assembly/natives-glob.ts
  'glob.match': 3, 'glob.quote_meta': 1,
  // runtime/wasm/assembly/natives-semver.ts
  'semver.is_valid': 1, 'semver.compare': 2,
  // runtime/wasm/assembly/natives-net.ts (IPv4; IPv6 aborts)
  'net.cidr_contains': 2, 'net.cidr_overlap': 2, 'net.cidr_intersects': 2, 'net.cidr_contains_matches': 2,
  // runtime/wasm/assembly/natives-encoding.ts
  'base64.decode': 1, 'base64.is_valid': 1, 'base64url.decode': 1, 'hex.encode': 1, 'hex.decode': 1,
  'urlquery.encode': 1, 'urlquery.decode': 1, 'urlquery.encode_object': 1, 'urlquery.decode_object': 1,
  // runtime/wasm/assembly/natives-uuid.ts
  'uuid.parse': 1,
};

/**
 * Natives that hand some inputs to the host (they answer 1, and the call goes through
 * opa_builtinN): IPv6 in the net builtins, non-ASCII case mapping and trim cutsets,
 * hex/underscore number text, decoded bytes that are not UTF-8. The builtin is then listed in `builtins`; OPA's SDK only
 * fails if such an input actually reaches it.
 */
const HOST_FALLBACK = new Set(['net.cidr_contains', 'net.cidr_overlap', 'net.cidr_intersects', 'net.cidr_contains_matches',
  'lower', 'upper', 'trim', 'trim_left', 'trim_right', 'to_number',
  'base64.decode', 'base64url.decode', 'hex.decode', 'urlquery.decode', 'urlquery.encode_object', 'urlquery.decode_object']);

const CMP: Record<string, number> = { equal: 0, neq: 1, lt: 2, lte: 3, gt: 4, gte: 5 };
const ARITH: Record<string, number> = { plus: 0, minus: 1, mul: 2, div: 3, rem: 4, or: 5, and: 6 };

export class FnGen extends BodyGen {
  /**
   * `with`: the body runs with input/data replaced and a fresh memoization generation;
   * the rest of the block runs, per solution, with the outer ones restored (and the
   * replacement put back before the body looks for its next solution).
   */
  protected with(mods: WithMod[], body: Block, fail: string, rest: (fail: string) => X[]): X[] {
    const m = this.m;
    const [oldIn, oldData, oldGen, newIn, newData, newGen] = [0, 0, 0, 0, 0, 0].map(() => this.temp()) as [number, number, number, number, number, number];
    const out: X[] = [
      m.local.set(oldIn, this.rt('rt_input', [])),
      m.local.set(oldData, this.rt('rt_data', [])),
      m.local.set(oldGen, this.rt('rt_gen', [])),
      m.local.set(newIn, this.get(oldIn)),
      m.local.set(newData, this.get(oldData)),
    ];
    const mockOld: X[] = [];
    const mockNew: X[] = [];
    for (const mod of mods) {
      if (mod.k === 'function') {
        const e = this.L.mocks.get(mod.name)!;
        const target = mod.value as { k: string; name?: string };
        const [oldKind, oldVal, newVal] = [this.temp(), this.temp(), this.temp()];
        let kind = 1;
        if (target.k === 'fnref') kind = 2 + e.targets.findIndex((t) => t.name === target.name);
        else out.push(m.local.set(newVal, this.expr(mod.value as Expr, fail)));
        out.push(m.local.set(oldKind, m.global.get(e.kind, I32)), m.local.set(oldVal, m.global.get(e.val, I32)));
        mockOld.push(m.global.set(e.kind, this.get(oldKind)), m.global.set(e.val, this.get(oldVal)));
        mockNew.push(m.global.set(e.kind, m.i32.const(kind)), m.global.set(e.val, this.get(newVal)));
        continue;
      }
      const v = this.expr(mod.value, fail);
      const target = mod.k === 'input' ? newIn : newData;
      if (mod.k === 'data') this.L.checkDataOverride(mod.path);
      if (mod.path.length === 0) out.push(m.local.set(target, v));
      else out.push(m.local.set(target, this.rt('rt_set_path', [this.get(target), m.global.get(this.L.constant(mod.path), I32), v])));
    }
    const enter = () => [this.rt('rt_with_set', [this.get(newIn), this.get(newData), this.get(newGen)], binaryen.none), ...mockNew.map((x) => m.copyExpression(x))];
    const leave = () => [this.rt('rt_with_set', [this.get(oldIn), this.get(oldData), this.get(oldGen)], binaryen.none), ...mockOld.map((x) => m.copyExpression(x))];
    out.push(m.local.set(newGen, this.rt('rt_gen_new', [])), ...enter());
    out.push(this.body(body, () => {
      const restFail = this.label('wr');
      return [m.block(restFail, [...leave(), ...rest(restFail)]), ...enter()];
    }));
    out.push(...leave());
    return out;
  }


  /**
   * `call` with every replacement out of force (OPA: a mock runs without mocks; inside
   * it every function is the original), under a fresh memo generation so rule values
   * computed there stay there. Yields the call's value, 0 when undefined.
   */
  private withoutMocks(call: X): X {
    const m = this.m;
    const mocks = [...this.L.mocks.values()];
    const saved = mocks.map(() => this.temp());
    const g0 = this.temp();
    const r = this.temp();
    return m.block(null, [
      ...mocks.map((e, i) => m.local.set(saved[i]!, m.global.get(e.kind, I32))),
      ...mocks.map((e) => m.global.set(e.kind, m.i32.const(0))),
      m.local.set(g0, this.rt('rt_gen', [])),
      this.rt('rt_with_set', [this.rt('rt_input', []), this.rt('rt_data', []), this.rt('rt_gen_new', [])], binaryen.none),
      m.local.set(r, call),
      ...mocks.map((e, i) => m.global.set(e.kind, this.get(saved[i]!))),
      this.rt('rt_with_set', [this.rt('rt_input', []), this.rt('rt_data', []), this.get(g0)], binaryen.none),
      this.get(r),
    ], I32);
  }

  /** A call of a function some `with` replaces: dispatch on the replacement in force. */
  private mocked(name: string, args: Expr[], fail: string, normal: (args: Expr[]) => X): X {
    const m = this.m;
    const e = this.L.mocks.get(name)!;
    const temps = args.map(() => this.temp());
    const targs = temps.map((t) => ({ k: 'tmp', local: t }) as unknown as Expr);
    let x = normal(targs);
    e.targets.forEach((t, j) => {
      let call: X;
      if (t.group !== undefined) {
        const g = this.L.ir.groups[t.group]!;
        if (g.arity !== args.length) throw new WasmUnsupportedError(`with ${name} as ${t.name}: arity`);
        call = m.call(this.L.groupFn(t.group), targs.map((a) => this.expr(a, fail)), I32);
      } else {
        const inner = this.label('mk');
        const r = this.temp();
        // a builtin replacement: its undefined result is 0, not a branch out of the mock scope
        call = m.block(null, [m.local.set(r, m.i32.const(0)), m.block(inner, [m.local.set(r, this.call(t.name, targs, inner, true))]), this.get(r)], I32);
      }
      x = m.if(m.i32.eq(m.global.get(e.kind, I32), m.i32.const(2 + j)), this.checked(this.withoutMocks(call), fail), x);
    });
    x = m.if(m.i32.eq(m.global.get(e.kind, I32), m.i32.const(1)), m.global.get(e.val, I32), x);
    return m.block(null, [...args.map((a, i) => m.local.set(temps[i]!, this.expr(a, fail))), x], I32);
  }

  /** A non-zero value pointer, or a branch to `fail`. */
  expr(e: Expr, fail: string): X {
    const m = this.m;
    const L = this.L;
    if ((e as { k: string }).k === 'tmp') return this.get((e as unknown as { local: number }).local);
    switch (e.k) {
      case 'const':
        return m.global.get(L.constant(e.value), I32);
      case 'local':
        return this.get(this.slot(e.slot));
      case 'input':
        return this.checked(this.rt('rt_input', []), fail);
      case 'base': {
        let x = this.rt('rt_data', []);
        for (const key of e.path) x = this.checked(this.rt('rt_dot_base', [x, m.global.get(L.constant(key), I32)]), fail);
        return x;
      }
      case 'rule':
        return this.checked(m.call(L.groupFn(e.group), [], I32), fail);
      case 'vdoc':
        return this.checked(m.call(L.nodeFn(e.node), [], I32), fail);
      case 'vdocdot':
        return this.checked(m.call(L.nodeKeyFn(e.node), [this.expr(e.key, fail)], I32), fail);
      case 'dot':
        return this.checked(this.rt('rt_dot', [this.expr(e.base, fail), this.expr(e.key, fail)]), fail);
      case 'call':
        return this.call(e.name, e.args, fail);
      case 'callfn': {
        const g = L.ir.groups[e.group]!;
        if (g.arity !== e.args.length) throw new WasmUnsupportedError(`call of ${g.path.join('.')} with ${e.args.length} arguments`);
        const direct = (args: Expr[]) => this.checked(m.call(L.groupFn(e.group), args.map((a) => this.expr(a, fail)), I32), fail);
        const name = 'data.' + g.path.join('.');
        return L.mocks.has(name) ? this.mocked(name, e.args, fail, direct) : direct(e.args);
      }
      case 'array':
      case 'set': {
        const t = this.temp();
        const [mk, add] = e.k === 'array' ? ['rt_arr', 'rt_arr_push'] : ['rt_set', 'rt_set_add'];
        return m.block(null, [
          m.local.set(t, this.rt(mk, [])),
          ...e.items.map((it) => m.drop(this.rt(add, [this.get(t), this.expr(it, fail)]))),
          this.get(t),
        ], I32);
      }
      case 'object': {
        const t = this.temp();
        return m.block(null, [
          m.local.set(t, this.rt('rt_obj', [])),
          ...e.entries.map(([k, v]) => m.drop(this.rt('rt_obj_put', [this.get(t), this.expr(k, fail), this.expr(v, fail)]))),
          this.get(t),
        ], I32);
      }
      case 'compr': {
        const t = this.temp();
        const mk = e.kind === 'array' ? 'rt_arr' : e.kind === 'set' ? 'rt_set' : 'rt_obj';
        const add = (f: string): X[] => {
          if (e.kind === 'object') {
            return [m.if(m.i32.eqz(this.rt('rt_obj_put_once', [this.get(t), this.expr(e.key!, f), this.expr(e.head, f)])), this.rt('rt_conflict', [], binaryen.none))];
          }
          return [m.drop(this.rt(e.kind === 'array' ? 'rt_arr_push' : 'rt_set_add', [this.get(t), this.expr(e.head, f)]))];
        };
        this.comprDepth++;
        const body = this.body(e.body, add);
        this.comprDepth--;
        return m.block(null, [m.local.set(t, this.rt(mk, [])), body, this.get(t)], I32);
      }
      case 'template': {
        // parts never fail: an undefined one prints as <undefined>
        const t = this.temp();
        const out: X[] = [m.local.set(t, m.global.get(L.constant(''), I32))];
        for (const part of e.parts) {
          let pv: X;
          if (typeof part === 'string') pv = m.global.get(L.constant(part), I32);
          else {
            const p = this.temp();
            const pf = this.label('tp');
            out.push(m.local.set(p, m.i32.const(0)), m.block(pf, [m.local.set(p, this.expr(part, pf))]));
            pv = this.rt('rt_template_part', [this.get(p)]);
          }
          out.push(m.local.set(t, this.rt('rt_str_concat', [this.get(t), pv])));
        }
        return m.block(null, [...out, this.get(t)], I32);
      }
      default:
        throw new WasmUnsupportedError(`expression ${(e as { k: string }).k}`);
    }
  }

  /** Builtins: natively in the runtime where OPA's Wasm has them, else through opa_builtinN. */
  private call(name: string, args: Expr[], fail: string, unmocked = false): X {
    if (!unmocked && this.L.mocks.has(name)) return this.mocked(name, args, fail, (targs) => this.call(name, targs, fail, true));
    const a = () => args.map((x) => this.expr(x, fail));
    const m = this.m;
    if (name in CMP && args.length === 2) return this.rt('rt_cmp', [m.i32.const(CMP[name]!), ...a()]);
    if (name in ARITH && args.length === 2) return this.checked(this.rt('rt_arith', [m.i32.const(ARITH[name]!), ...a()]), fail);
    if (name === 'count' && args.length === 1) return this.checked(this.rt('rt_count', a()), fail);
    if (name === 'internal.member_2' && args.length === 2) return this.rt('rt_member2', a());
    if (name === 'internal.member_3' && args.length === 3) return this.rt('rt_member3', a());
    if (name === 'print' || name === 'internal.print') throw new WasmUnsupportedError('print');
    if (NATIVE_ARITY[name] === args.length && this.L.hasNative(name)) {
      if (!HOST_FALLBACK.has(name)) return this.checked(this.rt(nativeName(name), a()), fail);
      // the native answers 1 (no value's address) for inputs it leaves to the host
      const temps = args.map(() => this.temp());
      const r = this.temp();
      const id = this.L.builtinId(name, args.length);
      const targs = () => temps.map((t) => this.get(t));
      return m.block(null, [
        ...args.map((x, i) => m.local.set(temps[i]!, this.expr(x, fail))),
        m.local.set(r, this.rt(nativeName(name), targs())),
        m.if(m.i32.eq(this.get(r), m.i32.const(1)), m.local.set(r, this.rt(`rt_builtin${args.length}`, [m.i32.const(id), ...targs()]))),
        this.checked(this.get(r), fail),
      ], I32);
    }
    if (args.length > 4) throw new WasmUnsupportedError(`builtin ${name} with ${args.length} arguments`);
    const id = this.L.builtinId(name, args.length);
    return this.checked(this.rt(`rt_builtin${args.length}`, [m.i32.const(id), ...a()]), fail);
  }
}
