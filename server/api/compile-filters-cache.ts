// Caches of the data-filter API (POST/GET /v1/compile/{path}), all tied to the
// engine generation, which moves on every policy or data change
// (server/engine/engine.ts): a cache built for an older generation is dropped
// whole on the next request, so nothing outlives the policies and data it was
// computed from.
//   * annotations: the `compile:` unknowns and mask rule found for a path (OPA
//     keeps the same per-path caches, unknownsCache/maskingRulesCache);
// Bounded (oldest entry evicted first). Only the parsed modules are read, so the
// main thread never compiles a policy for this. The prepared filters (constraint
// set, short names, planned mask rule) and the typo-hint sites are cached where the
// filter runs, per evaluator (each worker thread, or the in-process core), and
// dropped on any policy or data change there (server/engine/filter-task.ts).
import { filters as f, type Module } from '../../compiler/index.js';
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
  modules: readonly Module[];
  annotations: Bounded<f.FilterAnnotations | f.FilterASTErrors>;
}

/** The per-engine filter caches (one instance per server). */
export class FilterCaches {
  private current?: Generation;
  /** Hits and misses since start, for tests and benchmarks. */
  readonly stats = { annotationHits: 0, annotationMisses: 0 };

  constructor(private readonly engine: Engine) {}

  /** The state of the engine's current generation (caches reset when it changed). */
  private generation(): Generation {
    const id = this.engine.generation;
    if (!this.current || this.current.id !== id) {
      this.current = { id, modules: this.engine.policies().map((r) => r.module), annotations: new Bounded(LIMIT) };
    }
    return this.current;
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
}
