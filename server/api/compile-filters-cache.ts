// Caches of the data-filter API (POST/GET /v1/compile/{path}), all tied to the
// engine generation, which moves on every policy or data change
// (server/engine/engine.ts): a cache built for an older generation is dropped
// whole on the next request, so nothing outlives the policies and data it was
// computed from.
//   * annotations: the `compile:` unknowns and mask rule found for a path (OPA
//     keeps the same per-path caches, unknownsCache/maskingRulesCache);
//   * prepared filters: the constraint set, the short names the mappings allow
//     and the planned mask rule, keyed by path, targets, unknowns, mask rule,
//     mappings and disableInlining; repeated requests skip all of that and go
//     straight to the mask evaluation and partial evaluation with their input.
// Both are bounded (oldest entry evicted first).
import { filters as f, type CompiledPolicy, type Module } from '../../compiler/index.js';
import type { Engine } from '../engine/engine.js';

const LIMIT = 500;

/** A Map with insertion-order eviction. */
class Bounded<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }

  get size(): number {
    return this.map.size;
  }
}

interface Generation {
  id: number;
  policy: CompiledPolicy;
  modules: readonly Module[];
  annotations: Bounded<f.FilterAnnotations | f.FilterASTErrors>;
  hintSites: Bounded<f.HintSite[]>;
  prepared: Bounded<f.PreparedFilter>;
}

export interface PreparedLookup {
  prepared: f.PreparedFilter;
  /** True when it came from the cache. */
  hit: boolean;
}

/** The per-engine filter caches (one instance per server). */
export class FilterCaches {
  private current?: Generation;
  /** Hits and misses since start, for tests and benchmarks. */
  readonly stats = { preparedHits: 0, preparedMisses: 0, annotationHits: 0, annotationMisses: 0 };

  constructor(private readonly engine: Engine) {}

  /** The state of the engine's current generation (caches reset when it changed). */
  private generation(): Generation {
    const id = this.engine.generation;
    const policy = this.engine.policy;
    if (!this.current || this.current.id !== id || this.current.policy !== policy) {
      this.current = {
        id,
        policy,
        modules: this.engine.policies().map((r) => r.module),
        annotations: new Bounded(LIMIT),
        hintSites: new Bounded(LIMIT),
        prepared: new Bounded(LIMIT),
      };
    }
    return this.current;
  }

  get policy(): CompiledPolicy {
    return this.generation().policy;
  }

  /** `compile:` annotations of the rule at `path` (throws FilterASTErrors, cached too). */
  annotations(path: string[]): f.FilterAnnotations {
    const g = this.generation();
    const key = path.join('\u0000');
    let found = g.annotations.get(key);
    if (found === undefined) {
      this.stats.annotationMisses++;
      try {
        found = f.filterAnnotations(g.modules, path);
      } catch (e) {
        if (!(e instanceof f.FilterASTErrors)) throw e;
        found = e;
      }
      g.annotations.set(key, found);
    } else this.stats.annotationHits++;
    if (found instanceof f.FilterASTErrors) throw found;
    return found;
  }

  /** The comparisons on `input.X…` the query at `path` reaches (typo hints), cached per path. */
  hintSites(path: string[]): f.HintSite[] {
    const g = this.generation();
    const key = path.join('\u0000');
    let sites = g.hintSites.get(key);
    if (!sites) {
      sites = f.hintSites(g.policy.modules, path);
      g.hintSites.set(key, sites);
    }
    return sites;
  }

  /** A prepared filter for the spec (throws FilterError for unknown targets; not cached then). */
  prepared(spec: f.FilterSpec): PreparedLookup {
    const g = this.generation();
    const key = JSON.stringify([spec.path, spec.targets, spec.unknowns, spec.maskRule ?? null, spec.mappings ?? null, spec.disableInlining ?? null, spec.mirrorComparisons === true]);
    const cached = g.prepared.get(key);
    if (cached) {
      this.stats.preparedHits++;
      return { prepared: cached, hit: true };
    }
    this.stats.preparedMisses++;
    const prepared = f.prepareFilter(g.policy, spec);
    g.prepared.set(key, prepared);
    return { prepared, hit: false };
  }
}
