// The JS source back end: a rule body or query becomes one JavaScript function.
// Each statement becomes straight-line code; an iteration becomes a `for` loop
// whose body holds the rest of the block; a failing statement `break`s to the
// innermost label, which ends the current iteration (or the whole body). The
// continuation `sink(f, c)` runs at the end; true stops enumeration.
// Values that come from the policy, and rule group and tree node ids, are referenced
// by index into K (constants), so bodies of one shape have one source text;
// expressions this emitter does not handle are closures in CL. A body with a
// statement it does not handle (`with`) throws Unsupported: the caller then uses
// the closure back end for that body. Some rules run in place in their consumer
// (a leading loop over a small set rule, a test of a constant rule): emit-inline.ts;
// so do calls of small one-constant leaf functions: emit-inline-call.ts.
// Expressions, patterns and the emitter's state are in emit-exprs.ts.
import type { Block, Expr, Pattern, Stmt } from '../../ir/ir.js';
import { _, Code, join, Name, Names } from './code.js';
import { inlineSet, inlineTest } from './emit-inline.js';
import { inlineCall } from './emit-inline-call.js';
import { ExprEmitter, NeedsFrame, Unsupported } from './emit-exprs.js';

export { internalize, Unsupported, type EmitOptions, type EmitTables } from './emit-exprs.js';

/** Iterations nested in one generated function beyond which a body uses closures. */
export const MAX_NESTED_LOOPS = 100;

/** The rest of a block emitted by the loop in `block` rather than by the statement. */
const EMPTY = new Code('');

/** The per-iteration step count and deadline check. */
export const TICK = new Code('if ((++c.steps & 1023) === 0) c.checkDeadline();');

/** Where a generator scan lists the local slots its callback's wrapper takes (see withSlots). */
const SLOTS = '/*slots*/';

/** Runtime helpers bound once per generated function, so calls target a stable local. */
const PRELUDE = new Code('const equal = rt.equal, compare = rt.compare, dot = rt.dot, dig = rt.dig, RSet = rt.RSet;');

export class Emitter extends ExprEmitter {
  /**
   * Source of `function (f, c, sink) { … }` for a block. Without `value`, each
   * solution calls `sink(f, c)`; with it, the value is computed in place and each
   * solution calls `sink(value, f, c)` (solutions where it is undefined are skipped).
   */
  functionSource(block: Block, value?: Expr | 'exists', opts: { frameInputs?: boolean; params?: Pattern[] } = {}): Code {
    if (opts.params !== undefined) {
      // A function definition called with its arguments in `f` (the argument list, not a
      // frame): the parameters are matched into locals first, so only local slots will do.
      this.locals = true;
      try {
        const src = this.source(block, value, opts.params);
        this.usedLocals = true;
        return src;
      } catch (e) {
        if (e instanceof NeedsFrame) throw new Unsupported('parameters with frame slots');
        throw e;
      } finally {
        this.locals = false;
      }
    }
    // Solutions that leave through `sink(f, c)` need the frame, and so do bodies whose
    // inputs arrive in it (function parameters); the others may use locals.
    if (value !== undefined && !opts.frameInputs) {
      const mark = { K: this.tables.K.length, CL: this.tables.CL.length, B: this.tables.B.length };
      try {
        this.locals = true;
        const src = this.source(block, value);
        this.usedLocals = true;
        return src;
      } catch (e) {
        if (!(e instanceof NeedsFrame)) throw e;
        this.tables.K.length = mark.K;
        this.tables.CL.length = mark.CL;
        this.tables.B.length = mark.B;
      } finally {
        this.locals = false;
      }
    }
    this.usedLocals = false;
    return this.source(block, value);
  }

  /**
   * Source of `function (f, c) { … }` for a complete rule whose definitions all give one
   * constant (Program.firstConstant): the definitions' bodies in order, each in its own
   * block with its own local slots, returning true at the first solution. One call per
   * test instead of a frame, a call and a loop step per definition. Throws NeedsFrame
   * or Unsupported when a body cannot keep its slots in locals.
   */
  groupExistsSource(bodies: Block[]): Code {
    return this.withReuse(() => this.groupExistsOnce(bodies));
  }

  /**
   * Emit twice when a read of input or data occurs more than once (ExprEmitter.reads):
   * first counting the reads, then with the repeated ones kept in function-level
   * variables (`let x0, …;`, see readDecls); once when nothing repeats. Only for group
   * tests (a decision's definitions, which repeat reads across bodies and rules inlined
   * into them): emitting every rule body twice made compiling the ACI policy about 1.7×
   * slower.
   */
  private withReuse(emit: () => Code): Code {
    const mark = { K: this.tables.K.length, CL: this.tables.CL.length, B: this.tables.B.length };
    this.reads = { mode: 'count', counts: new Map(), vars: new Map() };
    try {
      const once = emit();
      if (![...this.reads.counts.values()].some((n) => n > 1)) return once;
      this.tables.K.length = mark.K;
      this.tables.CL.length = mark.CL;
      this.tables.B.length = mark.B;
      this.reads = { mode: 'use', counts: this.reads.counts, vars: new Map() };
      return emit();
    } finally {
      this.reads = { mode: 'off', counts: new Map(), vars: new Map() };
    }
  }

  /** `let x0, x1;` for the reads kept in variables (after the body is emitted). */
  private readDecls(): Code {
    const vars = [...this.reads.vars.values()];
    return vars.length > 0 ? _`let ${join(vars, new Code(', '))};` : new Code('');
  }

  private groupExistsOnce(bodies: Block[]): Code {
    this.names = new Names();
    this.loops = 0;
    this.slotPrefix = '';
    this.inlined = 0;
    this.locals = true;
    try {
      const parts = bodies.map((b) => {
        this.usedSlots = new Set();
        const label = this.names.next('L');
        const body = this.withSlots(this.block(b, 0, label, () => _`return true;`, true));
        return _`{\n${this.slotDecls()}\n${label}: {\n${body}\n}\n}`;
      });
      return _`${PRELUDE}\nreturn function (f, c, sink) {\nconst plain = c.fnOverrides === undefined;\n${this.readDecls()}\n${join(parts)}\nreturn false;\n};`;
    } finally {
      this.locals = false;
    }
  }

  /** `let s0, s1, …;` for the local slots used so far. */
  private slotDecls(): Code {
    return this.locals && this.usedSlots.size > 0 ? _`let ${join([...this.usedSlots].sort().map((n) => new Name(n)), new Code(', '))};` : new Code('');
  }

  /** Fills generator scans' SLOTS markers (see generatorScan) with the local slots used. */
  private withSlots(body: Code): Code {
    if (!this.locals || !body.text.includes(SLOTS)) return body;
    const list = [...this.usedSlots].sort().map((n) => `, ${n}`).join('');
    return new Code(body.text.replaceAll(SLOTS, list));
  }

  private source(block: Block, value?: Expr | 'exists', params?: Pattern[]): Code {
    this.names = new Names();
    this.loops = 0;
    this.usedSlots = new Set();
    this.slotPrefix = '';
    this.inlined = 0;
    const top = this.names.next('L');
    const head = params === undefined ? new Code('') : join(params.map((p, i) => this.pattern(p, _`f[${i}]`, top)));
    const success = (fail: Name): Code => {
      if (value === 'exists') return _`return true;`;
      // The sink may do any work (the caller's continuation).
      this.unbounded++;
      if (!value) return _`if (sink(f, c)) return true;`;
      const pre: Code[] = [];
      const v = this.expr(value, fail, pre);
      return join([...pre, _`if (sink(${v}, f, c)) return true;`]);
    };
    const body = this.withSlots(join([head, this.block(block, 0, top, success, true)]));
    const decls = this.slotDecls();
    return _`${PRELUDE}\nreturn function (f, c, sink) {\nconst plain = c.fnOverrides === undefined;\n${decls}\n${top}: {\n${body}\n}\nreturn false;\n};`;
  }

  protected inlineCall(call: Expr & { k: 'callfn' }, args: Code[], fail: Name, pre: Code[]): Code | undefined {
    return inlineCall(this, call, args, fail, pre);
  }

  /** Statements i.. of a block, then `success`. `fail` is the label that abandons this path. */
  /** @internal (emit-inline.ts) */
  block(stmts: Block, i: number, fail: Name, success: (fail: Name) => Code, first: boolean): Code {
    // Straight-line statements (which emit the rest of the block last, under the same
    // label) are emitted in a loop; only loops recurse, so a long body cannot
    // overflow the stack and its source is joined once.
    const parts: Code[] = [];
    for (; i < stmts.length; i++) {
      const s = stmts[i]!;
      const firstIteration = first && (s.k === 'scan' || s.k === 'relation' || s.k === 'every');
      const stillFirst = first && !firstIteration;
      if (this.isLoop(s, firstIteration)) {
        // Each loop nests the rest of the body in generated source (and in the
        // emitter's recursion): very deep nests go to the closure back end instead.
        if (++this.loops > MAX_NESTED_LOOPS) throw new Unsupported('loops nested too deeply');
        const at = i;
        try {
          parts.push(this.stmt(s, fail, (label) => this.block(stmts, at + 1, label, success, stillFirst), firstIteration));
        } finally {
          this.loops--;
        }
        return join(parts);
      }
      parts.push(this.stmt(s, fail, () => EMPTY, firstIteration));
      first = stillFirst;
    }
    parts.push(success(fail));
    return join(parts);
  }

  /** Statements that put the rest of the block inside a loop (or a generator callback). */
  private isLoop(s: Stmt, firstIteration: boolean): boolean {
    if (s.k === 'relation') return true;
    if (s.k !== 'scan') return false;
    if (firstIteration && this.opts.generators && s.source.k === 'rule' && this.opts.isSetGroup(s.source.group)) return true;
    return s.key.k !== 'value';
  }

  private stmt(s: Stmt, fail: Name, rest: (fail: Name) => Code, firstIteration: boolean): Code {
    const pre: Code[] = [];
    switch (s.k) {
      case 'let': {
        const v = this.expr(s.expr, fail, pre);
        return join([...pre, _`${this.slot(s.slot)} = ${v};`, rest(fail)]);
      }
      case 'test': {
        const inline = inlineTest(this, s, fail);
        if (inline) return join([inline, rest(fail)]);
        const v = this.expr(s.expr, fail, pre);
        return join([...pre, _`if (${v} === false) break ${fail};`, rest(fail)]);
      }
      case 'capture':
        return join([_`${this.slot(s.slot)} = ${this.closure(s.expr)};`, rest(fail)]);
      case 'equal': {
        const a = this.expr(s.a, fail, pre);
        const b = this.expr(s.b, fail, pre);
        return join([...pre, _`if (!(${this.equality(a, b, s.a, s.b)})) break ${fail};`, rest(fail)]);
      }
      case 'match': {
        const v = this.expr(s.expr, fail, pre);
        return join([...pre, this.pattern(s.pattern, v, fail), rest(fail)]);
      }
      case 'scan':
        return this.scan(s, fail, rest, firstIteration, pre);
      case 'relation': {
        const args = s.args.map((a) => this.expr(a, fail, pre));
        const r = this.names.next('t');
        const i = this.names.next('i');
        const inner = this.names.next('L');
        const def = this.relationBuiltin(s);
        const mark = this.unbounded;
        const body = join([this.pattern(s.out, _`${r}[${i}]`, inner), rest(inner)]);
        const { entry, each } = this.steps(mark, _`${r}.length`);
        return join([
          ...pre,
          _`const ${r} = X.relation(${def}, ${this.k(s.name)}, [${join(args, new Code(', '))}], c, ${this.k(s.loc)});`,
          _`if (Array.isArray(${r})) { ${entry} for (let ${i} = 0; ${i} < ${r}.length; ${i}++) { ${each} ${inner}: {`,
          body,
          _`} } }`,
        ]);
      }
      case 'not': {
        const found = this.names.next('n');
        const label = this.names.next('L');
        const inner = this.block(s.body, 0, label, () => _`${found} = true; break ${label};`, false);
        return join([_`let ${found} = false;`, _`${label}: {`, inner, _`}`, _`if (${found}) break ${fail};`, rest(fail)]);
      }
      case 'every':
        return this.every(s, fail, rest, pre);
      case 'print': {
        this.unbounded++;
        const args = s.args.map((a) => this.closure(a));
        return join([_`X.print([${join(args, new Code(', '))}], c);`, rest(fail)]);
      }
      case 'with':
        throw new Unsupported('with');
    }
  }

  private scan(s: Stmt & { k: 'scan' }, fail: Name, rest: (fail: Name) => Code, firstIteration: boolean, pre: Code[]): Code {
    const inner = this.names.next('L');
    if (firstIteration && this.opts.generators && s.source.k === 'rule' && this.opts.isSetGroup(s.source.group)) {
      return inlineSet(this, s, rest, () => this.generatorScan(s, rest)) ?? this.generatorScan(s, rest);
    }
    const src = this.expr(s.source, fail, pre);
    if (s.key.k === 'value') {
      const key = this.expr(s.key.expr, fail, pre);
      const t = this.names.next('t');
      return join([...pre, _`const ${t} = dot(${src}, ${key});`, _`if (${t} === undefined) break ${fail};`, this.pattern(s.value, t, fail), rest(fail)]);
    }
    const i = this.names.next('i');
    const { code, keys, values } = this.members(src);
    const mark = this.unbounded;
    const body = join([this.pattern(s.key, _`(${keys} === null ? ${i} : ${keys}[${i}])`, inner), this.pattern(s.value, _`${values}[${i}]`, inner), rest(inner)]);
    const { entry, each } = this.steps(mark, _`${values}.length`);
    return join([
      ...pre,
      code,
      _`if (${values} !== undefined) { ${entry} for (let ${i} = 0; ${i} < ${values}.length; ${i}++) { ${each} ${inner}: {`,
      body,
      _`} } }`,
    ]);
  }

  /**
   * How a loop over `length` items counts its steps (c.steps, which the deadline and heap
   * checks follow). When its body, emitted since `mark`, calls and allocates nothing
   * unbounded (ExprEmitter.unbounded: only reads, comparisons, bindings and local
   * results), all at once on entry (EvalContext.countSteps): its iterations then hold no
   * call, which lets V8 keep loop-invariant loads out of the loop (the RBAC decision's
   * inner loop, about 10%). Every iteration's cost is then bounded, so a check on entry
   * delays the deadline by at most one pass over one collection, and nested loops still
   * count each pass on its own entry. Otherwise one step per iteration (TICK).
   */
  private steps(mark: number, length: Code): { entry: Code; each: Code } {
    return this.unbounded === mark ? { entry: _`c.countSteps(${length});`, each: EMPTY } : { entry: EMPTY, each: TICK };
  }

  /** Run the set rule's definitions directly (its members cannot be observed in order). */
  private generatorScan(s: Stmt & { k: 'scan' }, rest: (fail: Name) => Code): Code {
    if (s.source.k !== 'rule') throw new Error('generatorScan: not a rule');
    const inner = this.names.next('L');
    const v = this.names.next('v');
    // With local slots, the callback runs inside an arrow function whose parameters
    // shadow the slots (and f, c, sink, plain): a closure over the function's own
    // variables would move them all into a heap context, slowing every other path of
    // the body (an inlined set rule's loop is the usual one; this is its fallback).
    // The rest of the body is inside the callback, so nothing reads the slots after it.
    const open = this.locals ? new Code(`((f, c, sink, plain${SLOTS}) => `) : new Code('');
    const close = this.locals ? new Code(`)(f, c, sink, plain${SLOTS})`) : new Code('');
    // No shared reads inside the callback: it would close over their variables.
    const mode = this.reads.mode;
    this.reads.mode = 'off';
    try {
      return this.generatorCallback(s, rest, inner, v, open, close);
    } finally {
      this.reads.mode = mode;
    }
  }

  private generatorCallback(s: Stmt & { k: 'scan' }, rest: (fail: Name) => Code, inner: Name, v: Name, open: Code, close: Code): Code {
    if (s.source.k !== 'rule') throw new Error('generatorScan: not a rule');
    // The generator evaluates the set rule: unbounded work for an enclosing loop.
    this.unbounded++;
    return join([
      _`if (${open}ops.generateSet(${this.k(s.source.group)}, c, (${v}) => { ${TICK} ${inner}: {`,
      this.pattern(s.key, v, inner),
      this.pattern(s.value, v, inner),
      rest(inner),
      _`} return false; })${close}) return true;`,
    ]);
  }

  /** Inline code giving a collection's keys (null for arrays) and values, without allocating. */
  private members(src: Code): { code: Code; keys: Name; values: Name } {
    const keys = this.names.next('k');
    const values = this.names.next('v');
    const set = this.opts.ordered || this.orderedDepth > 0 ? _`${src}.values()` : _`${src}.unorderedArray()`;
    const code = join([
      _`let ${keys} = null, ${values};`,
      _`if (Array.isArray(${src})) ${values} = ${src};`,
      _`else if (${src} instanceof RObject) { ${keys} = ${src}.keys(); ${values} = ${src}.values(); }`,
      _`else if (${src} instanceof RSet) { ${values} = ${set}; ${keys} = ${values}; }`,
    ]);
    return { code, keys, values };
  }

  private every(s: Stmt & { k: 'every' }, fail: Name, rest: (fail: Name) => Code, pre: Code[]): Code {
    const d = this.expr(s.domain, fail, pre);
    const m = this.names.next('m');
    const i = this.names.next('i');
    const hit = this.names.next('n');
    const label = this.names.next('L');
    const mark = this.unbounded;
    const body = join([
      this.pattern(s.key, _`(${m}.keys === null ? ${i} : ${m}.keys[${i}])`, label),
      this.pattern(s.value, _`${m}.values[${i}]`, label),
      this.block(s.body, 0, label, () => _`${hit} = true; break ${label};`, false),
    ]);
    const { entry, each } = this.steps(mark, _`${m}.values.length`);
    return join([
      ...pre,
      _`const ${m} = rt.members(${d}, 0);`,
      _`if (${m} === undefined) break ${fail};`,
      entry,
      _`for (let ${i} = 0; ${i} < ${m}.values.length; ${i}++) { ${each} let ${hit} = false; ${label}: {`,
      body,
      _`} if (!${hit}) break ${fail}; }`,
      rest(fail),
    ]);
  }
}
