// Which sources make up a bundle. A synthetic root source named after the bundle
// holds the bundle's requirements plus those of every stack whose selector
// matches the bundle's labels (in stack order). Stack requirements are mounted
// under `data.stacks.<stack>` unless `automount: false` or the bundle option
// `no_default_stack_mount`. The transitive closure of requirements is collected
// breadth first; cycles, missing sources and two different `git.commit` pins for
// one source are ConfigErrors. Every requirement list is taken in the order the
// required sources were created (the `sources` list order), not as written: the
// reference reads requirements back from its database through the (owner,
// source id) primary key, so that is the order its roots come out in.
import type { BundleDef, Requirement, SourceDef, StackDef } from '../contract.js';
import { ConfigError } from './errors.js';
import { stackApplies } from './selector.js';

/** Optional fields some stores carry beyond the contract (OCP's config). */
export type RequirementX = Requirement & { automount?: boolean };
export type BundleDefX = BundleDef & { options?: { no_default_stack_mount?: boolean; target?: string; optimization?: { level?: number } }; rebuild_interval?: string };

export interface BundlePlan {
  /** The synthetic root: the bundle's own and its stacks' requirements. */
  root: { name: string; requirements: RequirementX[] };
  /** Every required source, breadth-first from the root, each once. */
  sources: SourceDef[];
  /** Git commit pins from requirements: source name → commit. */
  pins: Map<string, string>;
  /** Puts a requirement list in source creation order (as the reference stores it). */
  order: <R extends Requirement>(reqs: readonly R[]) => R[];
}

/** Stable sort of requirements by the position of their source in `sources`. */
export function requirementOrder(sources: SourceDef[]): <R extends Requirement>(reqs: readonly R[]) => R[] {
  const rank = new Map(sources.map((s, i) => [s.name, i]));
  const of = (r: Requirement): number => (r.source === undefined ? -1 : (rank.get(r.source) ?? sources.length));
  return (reqs) => [...reqs].sort((a, b) => of(a) - of(b));
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The automount prefix of a stack requirement: `data.stacks.<stack>[.<prefix>]`. */
export function stackPrefix(stack: string, prefix: string | undefined): string {
  const base = IDENT.test(stack) ? `data.stacks.${stack}` : `data.stacks[${JSON.stringify(stack)}]`;
  let rest = prefix ?? '';
  if (rest === 'data') rest = '';
  else if (rest.startsWith('data.')) rest = rest.slice(5);
  return rest ? `${base}.${rest}` : base;
}

export function planBundle(bundle: BundleDefX, sources: SourceDef[], stacks: StackDef[]): BundlePlan {
  const byName = new Map(sources.map((s) => [s.name, s]));
  const order = requirementOrder(sources);
  const rootReqs: RequirementX[] = order(bundle.requirements ?? []);
  const noAutomount = bundle.options?.no_default_stack_mount === true;
  for (const stack of stacks) {
    if (!stackApplies(stack, bundle.labels)) continue;
    for (const r of order((stack.requirements ?? []) as RequirementX[])) {
      if (noAutomount || r.automount === false) rootReqs.push(r);
      else rootReqs.push({ ...r, prefix: stackPrefix(stack.name, r.prefix) });
    }
  }
  checkCycles(rootReqs, byName);
  const ordered: SourceDef[] = [];
  const seen = new Set<string>();
  const queue: RequirementX[][] = [rootReqs];
  const pins = new Map<string, string>();
  while (queue.length > 0) {
    for (const r of queue.shift()!) {
      if (!r.source) continue;
      const src = byName.get(r.source);
      if (!src) throw new ConfigError(`missing source "${r.source}"`);
      if (r.git?.commit) {
        const prev = pins.get(r.source);
        if (prev !== undefined && prev !== r.git.commit) throw new ConfigError(`requirements on "${r.source}" conflict`);
        pins.set(r.source, r.git.commit);
      }
      if (seen.has(r.source)) continue;
      seen.add(r.source);
      ordered.push(src);
      queue.push(src.requirements ?? []);
    }
  }
  return { root: { name: bundle.name, requirements: rootReqs }, sources: ordered, pins, order };
}

/** Depth-first search for a requirement cycle among sources. */
function checkCycles(rootReqs: Requirement[], byName: Map<string, SourceDef>): void {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    const st = state.get(name);
    if (st === 'done') return;
    if (st === 'open') {
      const cycle = [...path.slice(path.indexOf(name)), name];
      throw new ConfigError(`cycle found on source "${name}" (${cycle.join(' -> ')})`);
    }
    const src = byName.get(name);
    if (!src) return;
    state.set(name, 'open');
    for (const r of src.requirements ?? []) if (r.source) visit(r.source, [...path, name]);
    state.set(name, 'done');
  };
  for (const r of rootReqs) if (r.source) visit(r.source, []);
}
