// Conversion of a ground AST term (the result of parseTerm) into a runtime Value.
// The conformance runner needs it for `input_term`, which is written as a Rego term
// and may contain sets and non-string object keys. Only ground terms are accepted:
// scalars, arrays, objects, sets, and the negation the parser may produce for a
// negative literal (`minus(0, n)`); anything else (vars, refs, comprehensions,
// calls) throws, as a non-ground input would in OPA.
import type { Term } from '../../compiler/ast/nodes.js';
import type { Value } from '../../runtime/value/value.js';
import { RObject, RSet } from '../../runtime/value/collections.js';
import { normalizeNumber, toDecimal, type RNumber } from '../../runtime/value/number.js';

export class NonGroundTermError extends Error {
  constructor(kind: string) {
    super(`input term is not ground: contains a ${kind}`);
    this.name = 'NonGroundTermError';
  }
}

/** Convert a ground term to a Value. Throws NonGroundTermError otherwise. */
export function termToValue(t: Term): Value {
  switch (t.kind) {
    case 'null':
      return null;
    case 'boolean':
      return t.value;
    case 'number':
      return t.value;
    case 'string':
      return t.value;
    case 'array':
      return t.items.map(termToValue);
    case 'set': {
      const s = new RSet();
      for (const item of t.items) s.add(termToValue(item));
      return s;
    }
    case 'object': {
      const o = new RObject();
      for (const [k, v] of t.entries) o.set(termToValue(k), termToValue(v));
      return o;
    }
    case 'call': {
      const negated = negativeLiteral(t);
      if (negated !== undefined) return negated;
      throw new NonGroundTermError('call');
    }
    case 'ref':
      // `set()` may come back as a call; a bare ref is never ground input.
      throw new NonGroundTermError('reference');
    case 'var':
      throw new NonGroundTermError(`variable ${t.name}`);
    default:
      throw new NonGroundTermError(t.kind);
  }
}

/** `minus(0, n)` with a numeric literal n (how the parser desugars `-n`) → -n. */
function negativeLiteral(t: Extract<Term, { kind: 'call' }>): Value | undefined {
  const op = t.op;
  const name = op.kind === 'var' ? op.name : op.head.kind === 'var' && op.path.length === 0 ? op.head.name : undefined;
  if (name === 'set' && t.args.length === 0) return new RSet();
  if (name !== 'minus' || t.args.length !== 2) return undefined;
  const [a, b] = t.args as [Term, Term];
  if (a.kind !== 'number' || b.kind !== 'number') return undefined;
  return negate(b.value, a.value);
}

function negate(n: RNumber, zero: RNumber): RNumber | undefined {
  if (toDecimal(zero).isZero() === false) return undefined;
  if (typeof n === 'number') return n === 0 ? 0 : -n;
  return normalizeNumber(toDecimal(n).neg());
}
