// Rule-level evaluation for the reference interpreter, mirroring
// codegen/js/program.ts operation for operation: memoized rule groups (with the
// same recursion marker, depth guard and `with data` overrides), complete /
// set / object / function semantics and their conflict errors, and the virtual
// document tree (`vdoc`, `vdocKey`). Each rule definition's body runs as a child
// query and, when tracing, is bracketed by Enter(rule) … Exit(rule) / Redo(rule).
import type { RuleDef, RuleGroup } from '../ir/ir.js';
import type { Location } from '../source/location.js';
import type { Value } from '../../runtime/value/value.js';
import type { EvalContext } from '../../runtime/eval/context.js';
import type { Interpreter, K } from './interpreter.js';
import { userNames, type Slots } from './frames.js';
import { DocumentTree, NOT_OVERRIDDEN } from '../ir/documents.js';
import { indexedDefinitions } from '../ir/index-lookup.js';
import { dataRefText } from '../../runtime/value/format.js';

const MAX_CALL_DEPTH = 2000;
const IN_PROGRESS = Symbol('in-progress');

export class Rules {
  private depth = 0;

  /** The virtual document tree (shared with the JS back ends). */
  private readonly docs: DocumentTree;

  constructor(private readonly ip: Interpreter) {
    this.docs = new DocumentTree(ip.ir, ip.rt, (id, c) => this.evalGroup(id, c));
  }

  private get rt() {
    return this.ip.rt;
  }

  /**
   * Run one definition's body in a fresh frame as a child query; `sink` sees each
   * solution (and returns true to stop). Params are matched first for functions.
   */
  private run(g: RuleGroup, d: RuleDef, f: Slots, c: EvalContext, sink: K): boolean {
    const ip = this.ip;
    return ip.child(ip.rec ? userNames(d) : [], (q) => {
      const rec = ip.rec;
      if (!rec || !d.src) return ip.block(d.body, 0, f, c, sink);
      rec.exprIndex.addRule(d.src);
      const node = { type: 'rule', node: d.src, path: dataRefText(g.path) } as const;
      rec.emit('Enter', q, f, node, d.loc);
      return ip.block(d.body, 0, f, c, (f2, c2) => {
        rec.emit('Exit', q, f2, node, d.loc);
        const stop = sink(f2, c2);
        if (!stop) rec.emit('Redo', q, f2, node, d.loc);
        return stop;
      });
    });
  }

  evalGroup(id: number, c: EvalContext): Value | undefined {
    const rt = this.rt;
    const g = this.ip.ir.groups[id]!;
    if (c.dataOverrides !== undefined) {
      const o = this.docs.override(g.path, c, () => this.computeGroup(g, c));
      if (o !== NOT_OVERRIDDEN) return o;
    }
    const m = c.memo.get(id);
    if (m !== undefined) {
      if ((m as unknown) === IN_PROGRESS) throw new rt.EvalError('eval_recursion_error', `rule data.${g.path.join('.')} is recursive`);
      return m === rt.NO_VALUE ? undefined : (m as Value);
    }
    c.memo.set(id, IN_PROGRESS as never);
    let v: Value | undefined;
    try {
      v = this.guard(() => this.computeGroup(g, c));
    } catch (e) {
      c.memo.delete(id);
      throw e;
    }
    c.memo.set(id, (v === undefined ? rt.NO_VALUE : v) as Value);
    return v;
  }

  private guard<T>(fn: () => T): T {
    if (++this.depth > MAX_CALL_DEPTH) {
      this.depth = 0;
      throw new this.rt.EvalError('eval_recursion_error', 'maximum evaluation depth exceeded');
    }
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  /**
   * The definitions of a rule group worth running in this context: all of them, or for
   * an indexed group those its index picks for the index ref's value (as OPA, and the
   * JS back ends' `candidates`, skip the others).
   */
  private candidates(g: RuleGroup, c: EvalContext): RuleDef[] {
    if (g.index === undefined) return g.defs;
    return indexedDefinitions(g, this.ip.expr(g.index.ref, [], c), this.rt.canonicalKey);
  }

  private computeGroup(g: RuleGroup, c: EvalContext): Value | undefined {
    switch (g.kind) {
      case 'complete':
        return orDefault(this.single(g, this.candidates(g, c), c, undefined, 'complete rules must not produce multiple outputs'), g.default);
      case 'set': {
        const out = new this.rt.RSet();
        for (const d of this.candidates(g, c)) {
          this.run(g, d, new Array(d.frameSize), c, (f, c2) => {
            const v = this.ip.expr(d.value, f, c2);
            if (v !== undefined) out.add(v);
            return false;
          });
        }
        return out;
      }
      case 'object':
        return this.object(g, c);
      case 'function':
        return undefined;
    }
  }

  /** Complete-rule or function definitions: every one that succeeds must agree. */
  private single(g: RuleGroup, defs: RuleDef[], c: EvalContext, args: Value[] | undefined, conflict: string): Value | undefined {
    const rt = this.rt;
    let result: Value | undefined;
    for (const first of defs) {
      let d: RuleDef | undefined = first;
      while (d) {
        const cur: RuleDef = d;
        const f: Slots = new Array(cur.frameSize);
        if (args && !this.matchParams(cur, args, f, c)) break;
        let found = false;
        this.run(g, cur, f, c, (f2, c2) => {
          const v = this.ip.expr(cur.value, f2, c2);
          if (v === undefined) return false;
          found = true;
          if (result === undefined) result = v;
          else if (!rt.equal(result, v)) throw new rt.EvalError('eval_conflict_error', conflict, cur.loc);
          return cur.value.k === 'const';
        });
        if (found) break;
        d = cur.else;
      }
    }
    return result;
  }

  private matchParams(d: RuleDef, args: Value[], f: Slots, c: EvalContext): boolean {
    for (let i = 0; i < d.params.length; i++) if (!this.ip.match(d.params[i]!, args[i]!, f, c)) return false;
    return true;
  }

  private object(g: RuleGroup, c: EvalContext): Value {
    const rt = this.rt;
    const root = new rt.RObject();
    for (const d of this.candidates(g, c)) {
      this.run(g, d, new Array(d.frameSize), c, (f, c2) => {
        const keys: Value[] = [];
        for (const k of d.keys) {
          const v = this.ip.expr(k, f, c2);
          if (v === undefined) return false;
          keys.push(v);
        }
        const v = this.ip.expr(d.value, f, c2);
        if (v === undefined) return false;
        rt.insertRuleValue(root, keys, v, g.leafSet === true, d.loc);
        return false;
      });
    }
    return root;
  }

  callFunction(id: number, args: Value[], c: EvalContext, loc: Location): Value | undefined {
    const g = this.ip.ir.groups[id]!;
    if (c.fnOverrides !== undefined) {
      const name = dataRefText(g.path);
      if (c.fnOverrides.has(name)) return this.callByName(name, args, c, loc);
    }
    return this.guard(() => orDefault(this.single(g, g.defs, c, args, 'functions must not produce multiple outputs for same inputs'), g.default));
  }

  callByName(name: string, args: Value[], c: EvalContext, loc: Location): Value | undefined {
    const ip = this.ip;
    const o = c.fnOverrides?.get(name);
    if (o) {
      if (o.kind === 'value') return o.value;
      // A mock runs without mocks: inside it, every function is the original.
      const plain = c.withoutMocks();
      if (o.kind === 'group') return this.callFunction(o.group, args, plain, loc);
      return ip.invoke(ip.builtin(o.name, loc), o.name, args, plain, loc);
    }
    return ip.invoke(ip.builtin(name, loc), name, args, c, loc);
  }

  vdoc(id: number, c: EvalContext): Value | undefined {
    return this.docs.vdoc(id, c);
  }

  /** `data.<node>[key]` for a key known only at run time: evaluates just that child. */
  vdocKey(id: number, key: Value, c: EvalContext): Value | undefined {
    return this.docs.vdocKey(id, key, c);
  }
}

/** `v ?? d` without treating Rego `null` as missing. */
function orDefault(v: Value | undefined, d: Value | undefined): Value | undefined {
  return v === undefined ? d : v;
}

