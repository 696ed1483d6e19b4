// Whether the authorization policy can see the request body. OPA's authorizer
// reads (and decompresses and parses) the body of every POST to `/`, `/v0/data…`
// and `/v1/data…` before the policy runs, because the policy may use
// `input.body`. The decision can only depend on the body if a rule it can reach
// refers to it, so when none does, Regent authorizes before reading the body: a
// rejected request is answered without its body ever being read, decompressed or
// parsed.
//
// The check is conservative and syntactic, over the parsed modules. Reachable
// modules: those whose package overlaps the decision's path (default
// system/authz/allow), then, transitively, those whose package overlaps a
// `data.…` reference (or import) of a reachable module, up to its first
// non-constant segment (`data[x]` reaches everything). A reachable module "may
// read the body" when it mentions `input` other than as a reference starting with
// one of the other input keys (`input.method`, `input.path`, `input.params`,
// `input.headers`, `input.identity`, `input.client_certificates`): `input.body…`,
// `input[x]`, a bare `input`, `import input`, `with input as …` all count. The
// answer is cached per compiled policy and decision path.
import type { Engine } from '../engine/engine.js';
import { packagePath } from '../engine/policies.js';

/** The input keys other than `body` that the authorizer sets. */
const OTHER_KEYS = new Set(['method', 'path', 'params', 'headers', 'identity', 'client_certificates']);

const cache = new WeakMap<object, Map<string, boolean>>();

interface Node {
  kind?: unknown;
  name?: unknown;
  head?: Node;
  path?: Node[];
  value?: unknown;
}

function isVar(n: unknown, name: string): boolean {
  return typeof n === 'object' && n !== null && (n as Node).kind === 'var' && (n as Node).name === name;
}

export interface ModuleUse {
  /** The module may read input.body (see the header). */
  readsBody: boolean;
  /** Constant prefixes of the `data` references and imports. */
  dataPaths: string[][];
}

/** What the AST under `root` uses of `input` and `data`. */
export function moduleUse(root: unknown): ModuleUse {
  const dataPaths: string[][] = [];
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const n = stack.pop();
    if (typeof n !== 'object' || n === null || seen.has(n)) continue;
    seen.add(n);
    const node = n as Node;
    if (node.kind === 'ref' && isVar(node.head, 'input')) {
      const first = node.path?.[0];
      if (first?.kind !== 'string' || typeof first.value !== 'string' || !OTHER_KEYS.has(first.value)) return { readsBody: true, dataPaths };
      for (const t of node.path!.slice(1)) stack.push(t);
      continue;
    }
    if (node.kind === 'ref' && isVar(node.head, 'data')) {
      const prefix: string[] = [];
      for (const t of node.path ?? []) {
        if (t.kind !== 'string' || typeof t.value !== 'string') break;
        prefix.push(t.value);
      }
      dataPaths.push(prefix);
      for (const t of node.path ?? []) stack.push(t);
      continue;
    }
    if (isVar(node, 'input')) return { readsBody: true, dataPaths };
    if (isVar(node, 'data')) {
      dataPaths.push([]);
      continue;
    }
    // The package clause names `data` as a path of its own: not a reference.
    for (const [key, child] of Object.entries(n)) if (key !== 'loc' && key !== 'package' && key !== 'comments' && typeof child === 'object') stack.push(child);
  }
  return { readsBody: false, dataPaths };
}

/** One path is a prefix of the other. */
function overlaps(a: string[], b: string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether the modules reachable from the decision at `decision` (slash-free segments) may read input.body. */
export function policyReadsBody(engine: Engine, decision: string[]): boolean {
  const key = engine.policy as unknown as object;
  let byDecision = cache.get(key);
  if (!byDecision) cache.set(key, (byDecision = new Map()));
  const id = decision.join('/');
  const cached = byDecision.get(id);
  if (cached !== undefined) return cached;
  const modules = engine.policies().map((r) => ({ pkg: packagePath(r.module), module: r.module, reached: false }));
  const queue: string[][] = [decision];
  let value = false;
  while (queue.length > 0 && !value) {
    const path = queue.pop()!;
    for (const m of modules) {
      if (m.reached || !overlaps(m.pkg, path)) continue;
      m.reached = true;
      const use = moduleUse(m.module);
      if (use.readsBody) {
        value = true;
        break;
      }
      queue.push(...use.dataPaths);
    }
  }
  byDecision.set(id, value);
  return value;
}
