// What the planner needs to know about the program: the rule tree, groups by
// path, and builtin declarations (arity, relation) for call planning.
import type { Term } from '../ast/nodes.js';
import { refName } from '../ast/transform.js';
import type { TreeNode } from '../ir/ir.js';
import type { GroupInfo, RuleTree } from '../passes/rule-tree.js';
import { getBuiltin } from '../../runtime/builtins/catalog.js';
import type { BuiltinDecl } from '../../runtime/builtins/types.js';
import type { CallInfo } from './analyze.js';

export class PlanContext {
  /** `v0Compatible`: accept deprecated builtins (OPA v1 treats them as undefined). */
  constructor(readonly tree: RuleTree, readonly opts: { v0Compatible?: boolean } = {}) {}

  private builtin(name: string) {
    const b = getBuiltin(name);
    return b?.decl.deprecated && !this.opts.v0Compatible ? undefined : b;
  }

  node(id: number): TreeNode {
    return this.tree.nodes[id]!;
  }

  group(id: number): GroupInfo {
    return this.tree.groups[id]!;
  }

  groupAt(path: string[]): GroupInfo | undefined {
    const id = this.tree.byPath.get(path.join('.'));
    return id === undefined ? undefined : this.tree.groups[id];
  }

  /** The declaration of builtin `name` (undefined for `print`, which has none in the catalog). */
  builtinDecl(name: string): BuiltinDecl | undefined {
    return this.builtin(name)?.decl;
  }

  isBuiltin(name: string): boolean {
    return this.builtin(name) !== undefined || name === 'print' || name === 'internal.print';
  }

  callInfo(op: Term): CallInfo | undefined {
    const name = refName(op);
    if (!name) return undefined;
    if (name.startsWith('data.')) {
      const g = this.groupAt(name.split('.').slice(1));
      return g?.kind === 'function' ? { arity: g.arity ?? 0, variadic: false, relation: false } : undefined;
    }
    if (name === 'print' || name === 'internal.print') return { arity: 0, variadic: true, relation: false };
    const b = this.builtin(name);
    if (!b) return undefined;
    return { arity: b.decl.args.length, variadic: b.decl.variadic !== undefined, relation: b.decl.relation === true };
  }
}
