// The supported fragment: checks on the residual queries of partial evaluation
// before they are translated into a filter (OPA's internal/compile checks). Every
// expression of every body is checked and every failure is reported, with code
// `pe_fragment_error`, OPA's messages and locations:
//   * the expression must be a call (comparison, `in`, string builtin); `not` only
//     on a call and only where the targets allow `not`; no `every`, no `with`;
//     bare refs to support rules, other data documents or input values are refused
//     with hints (`use of default rule in …`, `has rule … an \`else\`?`,
//     `try \`x != false\``);
//   * the builtin must be one of the allowed ten, and allowed by every target;
//   * each operand is a literal, or an unknown `input.<table>.<column>` (or a short
//     `input.<name>` that a `$table` mapping names); nested calls are refused;
//   * column-against-column needs `field-ref`; `input.t.c = _` needs
//     `existence-ref`; string builtins and `in` need the unknown first; a
//     comparison needs a scalar side.
// Locations follow OPA: the operator term when it has one, else the expression.
// A top-level `==`/`=` is a rewritten unification in OPA and its operator carries
// no location, so eq errors point at the expression (or, for nested calls, at the
// nested call's operator); existence errors carry no location at all.
import type { CallTerm, Expr, Module, RefTerm, Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { packagePath } from '../passes/pass.js';
import { rulePath } from '../passes/annotation-set.js';
import { FilterASTError, type ConstraintSet } from './constraints.js';
import { callText, exprCall, exprText, filterOp, isScalar, opName, refRootedAt, refSegments, refText, termText } from './term-text.js';

const TWO_REFS_OK = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte']);
const UNKNOWN_FIRST = new Set(['startswith', 'endswith', 'contains', 'internal.member_2']);
/** Builtin names shown differently in messages. */
const DISPLAY: Record<string, string> = { 'internal.member_2': 'in' };

export interface CheckContext {
  constraints: ConstraintSet;
  /** Short unknown names (`input.<name>`) made valid by a `$table` mapping. */
  shorts: ReadonlySet<string>;
}

/** Check all residual bodies; returns every error found (empty when the fragment is supported). */
export function checkResidual(queries: Expr[][], support: Module[], ctx: CheckContext): FilterASTError[] {
  const errors: FilterASTError[] = [];
  for (const body of queries) {
    for (const e of body) {
      const a = checkShape(e, support, ctx);
      if (a) errors.push(a);
      const b = checkBuiltin(e, ctx);
      if (b) errors.push(b);
    }
  }
  return errors;
}

/** A location, unless it is a generated term's placeholder (row 0): OPA's nil location. */
function known(loc: Location | undefined): Location | undefined {
  return loc && loc.row > 0 ? loc : undefined;
}

function fragmentError(message: string, loc: Location | undefined, details?: string): FilterASTError {
  return new FilterASTError('pe_fragment_error', message, known(loc), details);
}

/** The shape of the expression: a (possibly negated) call, nothing else. */
function checkShape(e: Expr, support: Module[], ctx: CheckContext): FilterASTError | undefined {
  const call = exprCall(e);
  if (e.negated) {
    if (!call) return fragmentError('"not" not permitted', e.loc);
    const err = ctx.constraints.featureError('not');
    return err === undefined ? undefined : fragmentError(`"not" not permitted: ${err}`, e.loc);
  }
  if (call) return undefined;
  if (e.body.type === 'every') return fragmentError('"every" not permitted', e.loc);
  if (e.with.length > 0) return fragmentError('"with" not permitted', e.loc);
  if (e.body.type === 'term' && e.body.term.kind === 'ref' && refRootedAt(e.body.term, 'data')) {
    const ref = e.body.term;
    const segs = refSegments(ref);
    if (segs && segs[0] === 'partial') {
      const last = ref.path[ref.path.length - 1];
      const why = supportDetails(segs, support);
      if (why) return fragmentError(why, known(last?.loc) ?? e.loc);
    }
    // A rule kept whole (OPA: one with `else`), named as the policy names it.
    const text = withoutPartial(refText(ref));
    return fragmentError(`invalid data reference "${withoutPartial(exprText(e))}"`, e.loc, `has rule "${text}" an \`else\`?`);
  }
  const text = exprText(e);
  return fragmentError(`invalid statement "${text}"`, e.loc, `try \`${text} != false\``);
}

/** Why a support rule cannot be used as a condition: it is a default rule or has several values. */
function supportDetails(segs: string[], support: Module[]): string {
  const want = segs.join('\u0000');
  for (const m of support) {
    let count = 0;
    const pkg = packagePath(m);
    for (const r of m.rules) {
      const path = rulePath(pkg, r);
      if (path.join('\u0000') !== want) continue;
      count++;
      const shown = `data.${path.slice(1).join('.')}`;
      if (r.default) return `use of default rule in ${shown}`;
      if (count > 1) return `use of multi-value rule in ${shown}`;
    }
  }
  return '';
}

/** A support rule's name as the policy has it (`data.partial.p.f` → `data.p.f`). */
function withoutPartial(text: string): string {
  return text.replace(/^data\.partial\./, 'data.');
}

/** The operator's location, except for unification, whose operator OPA generated. */
function operatorLoc(c: CallTerm): Location | undefined {
  return filterOp(c) === 'eq' ? undefined : known(c.op.loc);
}

function checkBuiltin(e: Expr, ctx: CheckContext): FilterASTError | undefined {
  if (e.with.length > 0) return undefined; // reported by checkShape
  const call = exprCall(e);
  if (!call) return undefined;
  const op = filterOp(call);
  const opLoc = operatorLoc(call);
  const loc = opLoc ?? e.loc;
  let twoRefsOK = false;
  let unknownFirst = false;
  if (TWO_REFS_OK.has(op)) twoRefsOK = true;
  else if (UNKNOWN_FIRST.has(op)) unknownFirst = true;
  else if (op === 'internal.member_3') return fragmentError('invalid use of "... in ..."', loc);
  else if (call.op.kind === 'ref' && refRootedAt(call.op, 'data')) {
    return fragmentError(`invalid data reference "${withoutPartial(exprText(e))}"`, e.loc, `has function "${withoutPartial(opName(call))}(...)" an \`else\`?`);
  } else return fragmentError(`invalid builtin \`${opName(call)}\``, loc);

  const unsupported = ctx.constraints.builtinError(op);
  if (unsupported !== undefined) return fragmentError(`invalid builtin \`${DISPLAY[op] ?? op}\`: ${unsupported}`, loc);

  // A builtin outside the fragment whose result is unified with a known value: OPA's
  // partial evaluator keeps it as a call of its own (`object.get(…, "orange")`), so
  // the error names the builtin rather than the nesting.
  if (op === 'eq') {
    for (let i = 0; i < 2; i++) {
      const a = call.args[i];
      const other = call.args[1 - i];
      if (a?.kind === 'call' && other && isScalar(other) && !TWO_REFS_OK.has(filterOp(a)) && !UNKNOWN_FIRST.has(filterOp(a))) {
        return fragmentError(`invalid builtin \`${opName(a)}\``, known(a.op.loc) ?? e.loc);
      }
    }
  }
  for (let i = 0; i < 2; i++) {
    const err = checkOperand(op, opLoc, call.args[i], ctx);
    if (err) return err;
  }
  const operands = [call.args[0]!, call.args[1]!];
  const refs = operands.filter((t) => t.kind === 'ref').length;
  if (refs === 2) {
    const err = ctx.constraints.featureError('field-ref');
    if (err !== undefined) return fragmentError(`reference to field: ${err}`, loc);
  }
  if (unknownFirst) {
    return operands[0].kind === 'ref' ? undefined : fragmentError(`rhs of ${op} must be known`, loc);
  }
  if (operands.some(isScalar)) return undefined;
  if (op === 'eq' && refs === 1) {
    for (const t of operands) {
      if (t.kind === 'var' || t.kind === 'ref') {
        const err = ctx.constraints.featureError('existence-ref');
        if (err !== undefined) return fragmentError(`existence of field: ${err}`, undefined);
      } else return fragmentError('both rhs and lhs non-scalar/non-ground', loc);
    }
    return undefined;
  }
  if (!twoRefsOK || refs !== 2) return fragmentError('both rhs and lhs non-scalar/non-ground', loc);
  return undefined;
}

function checkOperand(op: string, opLoc: Location | undefined, t: Term | undefined, ctx: CheckContext): FilterASTError | undefined {
  if (t === undefined) return fragmentError(`${op}: missing operand`, opLoc);
  if (t.kind === 'call') return fragmentError(`${op}: nested call operand: ${callText(t)}`, opLoc ?? known(t.op.loc));
  if (t.kind !== 'ref') return undefined;
  if (isColumnRef(t, ctx.shorts)) return undefined;
  return fragmentError(`${op}: invalid ref operand: ${termText(t)}`, opLoc ?? known(t.loc));
}

/** `input.<table>.<column>`, or `input.<short>` when a mapping names the short. */
export function isColumnRef(t: RefTerm, shorts: ReadonlySet<string>): boolean {
  if (!refRootedAt(t, 'input')) return false;
  if (t.path.length === 2) return true;
  const p = t.path[0];
  return t.path.length === 1 && p?.kind === 'string' && shorts.has(p.value);
}
