// The virtual document tree, shared by every back end: the value at a tree node
// (base data merged with the rules below it), a single key of a node looked up
// at run time, and values installed by `with data.… as …`. Back ends supply how
// a rule group is evaluated; everything else here is the same for all of them.
import type { PolicyIR } from './ir.js';
import type { Value } from '../../runtime/value/value.js';
import type { RuntimeScope } from '../../runtime/scope.js';
import type { EvalContext } from '../../runtime/eval/context.js';

export const NOT_OVERRIDDEN = Symbol('not-overridden');

export class DocumentTree {
  constructor(
    readonly ir: PolicyIR,
    readonly rt: RuntimeScope,
    /** How the back end evaluates a rule group (memoized on its side). */
    readonly evalGroup: (id: number, c: EvalContext) => Value | undefined,
  ) {}

  /** A value installed by `with data.… as …` that covers `path`, if any. */
  override(path: string[], c: EvalContext, compute: () => Value | undefined): Value | undefined | typeof NOT_OVERRIDDEN {
    let result: Value | undefined | typeof NOT_OVERRIDDEN = NOT_OVERRIDDEN;
    for (const o of c.dataOverrides!) {
      if (isPrefix(o.path, path)) result = this.rt.dig(o.value, path, o.path.length);
      else if (isPrefix(path, o.path)) {
        const base = result === NOT_OVERRIDDEN ? compute() : result;
        result = this.rt.setPath(base, o.path.slice(path.length), o.value);
      }
    }
    return result;
  }

  /** The document at a tree node, memoized per evaluation context. */
  vdoc(id: number, c: EvalContext): Value | undefined {
    const rt = this.rt;
    const node = this.ir.nodes[id]!;
    if (c.dataOverrides !== undefined) {
      const o = this.override(node.path, c, () => this.computeNode(id, c));
      if (o !== NOT_OVERRIDDEN) return o;
    }
    const m = c.nodeMemo.get(id);
    if (m !== undefined) return m === rt.NO_VALUE ? undefined : (m as Value);
    const v = this.computeNode(id, c);
    c.nodeMemo.set(id, (v === undefined ? rt.NO_VALUE : v) as Value);
    return v;
  }

  /** `data.<node>[key]` for a key known only at run time: evaluates just that child. */
  vdocKey(id: number, key: Value, c: EvalContext): Value | undefined {
    const rt = this.rt;
    const node = this.ir.nodes[id]!;
    const name = typeof key === 'string' ? key : typeof key === 'number' ? String(key) : undefined;
    const child = name === undefined ? undefined : node.children.get(name);
    if (child !== undefined) return this.nodeValue(child, c);
    const base = rt.dot(rt.dig(c.data, node.path), name ?? key);
    if (base !== undefined) return base;
    for (const g of node.groups) {
      if (this.ir.groups[g]!.kind !== 'object') continue;
      const v = rt.dot(this.evalGroup(g, c), key);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /** The value at a tree node: its rule group when it is a plain rule, else the merged document. */
  nodeValue(id: number, c: EvalContext): Value | undefined {
    const node = this.ir.nodes[id]!;
    if (node.children.size === 0 && node.groups.length > 0) {
      const g = this.ir.groups[node.groups[0]!]!;
      if (g.kind === 'function') return undefined;
      if (g.kind !== 'object') return this.evalGroup(g.id, c);
    }
    return this.vdoc(id, c);
  }

  private computeNode(id: number, c: EvalContext): Value | undefined {
    const rt = this.rt;
    const ir = this.ir;
    const node = ir.nodes[id]!;
    const groups = node.groups.map((g) => ir.groups[g]!).filter((g) => g.kind !== 'function');
    if (groups.length > 0 && node.children.size === 0 && groups[0]!.kind !== 'object') return this.evalGroup(groups[0]!.id, c);
    const base = rt.dig(c.data, node.path);
    let out = base instanceof rt.RObject ? base.clone() : new rt.RObject();
    for (const g of groups) {
      const v = this.evalGroup(g.id, c);
      if (v instanceof rt.RObject) out = rt.mergeValues(out, v) as typeof out;
      else if (v !== undefined) return v;
    }
    for (const [name, child] of node.children) {
      const cn = ir.nodes[child]!;
      const onlyFunctions = cn.children.size === 0 && cn.groups.length > 0 && cn.groups.every((g) => ir.groups[g]!.kind === 'function');
      if (onlyFunctions) continue;
      const v = this.vdoc(child, c);
      // Base documents win over rules at the same path (as OPA).
      if (v !== undefined) out.set(name, rt.mergeValues(v, out.getStr(name) ?? v));
    }
    return out;
  }
}

function isPrefix(a: string[], b: string[]): boolean {
  if (a.length > b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
