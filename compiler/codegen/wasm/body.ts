// IR blocks, statements and patterns → binaryen expressions, inside one generated
// Wasm function (BodyGen; expressions, calls and `with` are in exprs.ts, FnGen). Slots are Wasm locals; a block is a sequence in
// which every statement that can fail does `br $fail`; `scan` becomes a loop whose
// body holds the rest of the block, so backtracking is "br to the innermost loop".
// Falling off the end of a sequence means "no more solutions here". Every value is
// an i32 pointer into linear memory; 0 is undefined, and `check` turns it into a
// branch to the current failure label, so expressions only ever yield real values.
import binaryen from 'binaryen';
import type { Block, Expr, Pattern, Stmt, WithMod } from '../../ir/ir.js';
import type { Linker } from './link.js';
import { WasmUnsupportedError } from './errors.js';

export { WasmUnsupportedError };

const I32 = binaryen.i32;
type X = binaryen.ExpressionRef;

/** What a successful solution of a body does (code placed at the innermost point). */
export type OnSuccess = (fail: string) => X[];

export abstract class BodyGen {
  private labels = 0;
  private extra: number[] = [];
  readonly check: number;

  /** `params` Wasm params; slots of the bodies start at `slotBase`; `slots` = max frame size. */
  constructor(readonly L: Linker, readonly params: number, readonly slots: number) {
    this.check = this.temp();
  }

  get m(): binaryen.Module {
    return this.L.m;
  }

  label(kind: string): string {
    return `${kind}${this.labels++}`;
  }

  /** A local for one value (an i32), fresh or, inside definitionScope, one a finished scope no longer uses. */
  temp(): number {
    const scope = this.scope;
    if (scope !== undefined && scope.next < this.reusable.length) {
      const idx = this.reusable[scope.next++]!;
      scope.reused.push(idx);
      return idx;
    }
    return this.freshTemp();
  }

  private freshTemp(): number {
    const idx = this.params + this.slots + this.extra.length;
    this.extra.push(I32);
    this.scope?.fresh.push(idx);
    return idx;
  }

  /** `n` consecutive fresh locals (a frame addressed as base + slot); the first is returned. */
  tempFrame(n: number): number {
    const base = this.freshTemp();
    for (let i = 1; i < n; i++) this.freshTemp();
    return base;
  }

  /** Locals of finished definition scopes, handed out again by later ones (in this order). */
  private readonly reusable: number[] = [];
  private scope: { next: number; reused: number[]; fresh: number[] } | undefined;

  /**
   * The code of one of a group's definitions, whose locals later definitions may take
   * over: a definition's locals hold nothing once its code ends (the group's result and
   * the index selector live outside every scope). A reused local is set to 0 first, so
   * the code finds it as a fresh local would be (Wasm zeroes locals on entry). Without
   * this, a group of n definitions has about n locals in one function, and binaryen's
   * coalesce-locals pass is quadratic in them (10,000 indexed rules: 31 s at -O2).
   */
  definitionScope(gen: () => X): X {
    if (this.scope !== undefined) return gen();
    const scope = (this.scope = { next: 0, reused: [] as number[], fresh: [] as number[] });
    try {
      const code = gen();
      this.reusable.push(...scope.fresh);
      if (scope.reused.length === 0) return code;
      return this.m.block(null, [...scope.reused.map((t) => this.m.local.set(t, this.m.i32.const(0))), code]);
    } finally {
      this.scope = undefined;
    }
  }

  varTypes(): number[] {
    return [...new Array<number>(this.slots).fill(I32), ...this.extra];
  }

  /** The frame of a set rule's definition inlined into this function (see inlineSetScan). */
  protected frame: { base: number; size: number } | undefined;
  /** Inside a comprehension body, where repeated solutions would be visible. */
  protected comprDepth = 0;
  /** Set-rule scans being inlined around the current point. */
  private inlineDepth = 0;
  /** Rule bodies may scan set rules inline (repeated members only repeat a solution). */
  inlineSets = false;

  slot(s: number): number {
    if (this.frame) {
      if (s >= this.frame.size) throw new WasmUnsupportedError(`slot ${s} beyond frame`);
      return this.frame.base + s;
    }
    if (s >= this.slots) throw new WasmUnsupportedError(`slot ${s} beyond frame`);
    return this.params + s;
  }

  /**
   * `some x in setRule` in a rule body: run the set rule's definitions inline (a
   * generator, as the JS back end does) instead of building the set. A member produced
   * twice runs the rest twice, which a rule body cannot observe (complete values must
   * agree, sets and objects absorb repeats); comprehension bodies never get here.
   */
  protected inlineSetScan(id: number, key: Pattern, value: Pattern, rest: (fail: string) => X[]): X[] {
    const m = this.m;
    const g = this.L.ir.groups[id]!;
    const out: X[] = [];
    this.inlineDepth++;
    for (const d of g.defs) {
      const outer = this.frame;
      const base = this.tempFrame(d.frameSize);
      const inner = { base, size: d.frameSize };
      this.frame = inner;
      out.push(this.body(d.body, (f) => {
        const v = this.temp();
        const code: X[] = [m.local.set(v, this.expr(d.value, f))];
        this.frame = outer;
        code.push(...this.pattern(key, v, f), ...this.pattern(value, v, f), ...rest(f));
        this.frame = inner;
        return code;
      }));
      this.frame = outer;
    }
    this.inlineDepth--;
    return out;
  }

  private inlineable(e: Expr): number | undefined {
    if (!this.inlineSets || this.comprDepth > 0 || e.k !== 'rule') return undefined;
    const g = this.L.ir.groups[e.group]!;
    if (g.kind !== 'set' || g.leafSet || g.defs.some((d) => d.else || d.keys.length > 0 || d.params.length > 0)) return undefined;
    // the rest of the block is compiled once per definition: keep that from multiplying
    if (g.defs.length > 2 || this.inlineDepth >= 2) return undefined;
    return g.id;
  }

  get(i: number): X {
    return this.m.local.get(i, I32);
  }

  rt(name: string, args: X[], type = I32): X {
    return this.m.call(this.L.rt(name), args, type);
  }

  /** The value of `e`, branching to `fail` when it is undefined (0). */
  checked(e: X, fail: string): X {
    const m = this.m;
    return m.block(null, [m.local.set(this.check, e), m.br(fail, m.i32.eqz(this.get(this.check))), this.get(this.check)], I32);
  }

  // ------------------------------------------------------------ blocks

  /** Statements `stmts[i..]`, then `onSuccess`; `fail` is the label that abandons a solution. */
  block(stmts: Block, i: number, fail: string, onSuccess: OnSuccess): X[] {
    if (i >= stmts.length) return onSuccess(fail);
    const s = stmts[i]!;
    const rest = (f: string) => this.block(stmts, i + 1, f, onSuccess);
    return this.stmt(s, fail, rest);
  }

  /** A whole body in its own failure block: control continues after it when it has no more solutions. */
  body(stmts: Block, onSuccess: OnSuccess, prefix?: (fail: string) => X[]): X {
    const fail = this.label('f');
    return this.m.block(fail, [...(prefix?.(fail) ?? []), ...this.block(stmts, 0, fail, onSuccess)]);
  }

  private stmt(s: Stmt, fail: string, rest: (fail: string) => X[]): X[] {
    const m = this.m;
    switch (s.k) {
      case 'let':
        return [m.local.set(this.slot(s.slot), this.expr(s.expr, fail)), ...rest(fail)];
      case 'test':
        return [m.br(fail, this.rt('rt_is_false', [this.expr(s.expr, fail)])), ...rest(fail)];
      case 'equal':
        return [m.br(fail, m.i32.eqz(this.rt('rt_equal', [this.expr(s.a, fail), this.expr(s.b, fail)]))), ...rest(fail)];
      case 'match': {
        const t = this.temp();
        return [m.local.set(t, this.expr(s.expr, fail)), ...this.pattern(s.pattern, t, fail), ...rest(fail)];
      }
      case 'scan': {
        const inline = this.inlineable(s.source);
        if (inline !== undefined) return this.inlineSetScan(inline, s.key, s.value, rest);
        return this.scan(s.source, fail, (k, v, f) => [...this.pattern(s.key, k, f), ...this.pattern(s.value, v, f), ...rest(f)]);
      }
      case 'not': {
        // a solution of the body makes `not` fail; no solution falls through to the rest
        return [this.body(s.body, () => [m.br(fail)]), ...rest(fail)];
      }
      case 'every': {
        // every member must give the body a solution: one that does jumps to the next member
        const ok = this.label('every');
        const loop = this.scanLoop(s.domain, fail, ok, (k, v, ef, next) => [
          ...this.pattern(s.key, k, ef),
          ...this.pattern(s.value, v, ef),
          this.body(s.body, () => [m.br(next)]),
          m.br(fail),
        ]);
        return [loop, ...rest(fail)];
      }
      case 'with':
        return this.with(s.mods, s.body, fail, rest);
      case 'relation': {
        if (s.name !== 'walk' || s.args.length !== 1 || this.L.mocks.has('walk')) throw new WasmUnsupportedError(`relation ${s.name}`);
        const pairs = this.temp();
        const src = { k: 'tmp', local: pairs } as unknown as Expr;
        return [
          m.local.set(pairs, this.checked(this.rt('rtb_walk', [this.expr(s.args[0]!, fail)]), fail)),
          ...this.scan(src, fail, (_k, v, f) => [...this.pattern(s.out, v, f), ...rest(f)]),
        ];
      }
      default:
        throw new WasmUnsupportedError(`statement ${s.k}`);
    }
  }

  /** Iterate a collection: `inner(keyLocal, valueLocal, fail)` runs once per member. */
  scan(source: Expr, fail: string, inner: (k: number, v: number, fail: string) => X[]): X[] {
    const done = this.label('done');
    return [this.scanLoop(source, fail, done, (k, v, f) => inner(k, v, f))];
  }

  private scanLoop(
    source: Expr,
    fail: string,
    done: string,
    inner: (k: number, v: number, fail: string, next: string) => X[],
  ): X {
    const m = this.m;
    const src = this.temp();
    const i = this.temp();
    const n = this.temp();
    const k = this.temp();
    const v = this.temp();
    const next = this.label('next');
    const elemFail = this.label('ef');
    const elem = [
      ...this.tick(),
      m.local.set(k, this.rt('rt_iter_key', [this.get(src), this.get(i)])),
      m.local.set(v, this.rt('rt_iter_val', [this.get(src), this.get(i)])),
      m.local.set(i, m.i32.add(this.get(i), m.i32.const(1))),
    ];
    const body = m.block(elemFail, inner(k, v, elemFail, next));
    return m.block(done, [
      m.local.set(src, this.expr(source, fail)),
      m.local.set(i, m.i32.const(0)),
      m.local.set(n, this.rt('rt_scan_len', [this.get(src)])),
      m.loop(next, m.block(null, [m.br(done, m.i32.ge_s(this.get(i), this.get(n))), ...elem, body, m.br(next)])),
    ]);
  }

  /**
   * One loop step of the evaluation deadline: count down; when the count runs out, the
   * runtime refills it, asking the host first when a deadline is on (limits.ts).
   */
  private tick(): X[] {
    const m = this.m;
    const steps = this.L.steps;
    return [
      m.global.set(steps, m.i32.sub(m.global.get(steps, I32), m.i32.const(1))),
      m.if(m.i32.lt_s(m.global.get(steps, I32), m.i32.const(0)), m.global.set(steps, this.rt('rt_steps_out', []))),
    ];
  }

  // ------------------------------------------------------------ patterns

  pattern(p: Pattern, local: number, fail: string): X[] {
    const m = this.m;
    switch (p.k) {
      case 'wild':
        return [];
      case 'bind':
        return [m.local.set(this.slot(p.slot), this.get(local))];
      case 'value':
        return [m.br(fail, m.i32.eqz(this.rt('rt_equal', [this.get(local), this.expr(p.expr, fail)])))];
      case 'array': {
        const out: X[] = [
          m.br(fail, m.i32.ne(this.rt('rt_tag', [this.get(local)]), m.i32.const(5))),
          m.br(fail, m.i32.ne(this.rt('rt_len', [this.get(local)]), m.i32.const(p.items.length))),
        ];
        p.items.forEach((item, idx) => {
          const t = this.temp();
          out.push(m.local.set(t, this.rt('rt_iter_val', [this.get(local), m.i32.const(idx)])), ...this.pattern(item, t, fail));
        });
        return out;
      }
      case 'object': {
        const out: X[] = [m.br(fail, m.i32.eqz(this.rt('rt_is_obj', [this.get(local)])))];
        if (p.entries.length > 0) {
          // exact key set: the sizes must agree
          out.push(m.br(fail, m.i32.ne(this.rt('rt_len', [this.get(local)]), m.i32.const(p.entries.length))));
        }
        for (const [key, sub] of p.entries) {
          const t = this.temp();
          out.push(m.local.set(t, this.checked(this.rt('rt_dot', [this.get(local), this.expr(key, fail)]), fail)), ...this.pattern(sub, t, fail));
        }
        return out;
      }
    }
  }

  // ------------------------------------------------------------ expressions


  /** A non-zero value pointer, or a branch to `fail` (exprs.ts). */
  abstract expr(e: Expr, fail: string): X;

  /** `with` (exprs.ts). */
  protected abstract with(mods: WithMod[], body: Block, fail: string, rest: (fail: string) => X[]): X[];
}
