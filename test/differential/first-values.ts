// Shared by the differential tests that check one query's first expression on every
// back end: the values of each row as plain JS, or `error: <message>` when it raises.
import { toJS, type Value } from '../../runtime/index.js';

/** Anything prepared that evaluates against an input and a data document. */
export type Prepared = { eval: (o: { input?: Value; data: Value }) => { expressions: { value: Value }[] }[] };

/** The first expression's value of every row, or the error's message. */
export function rows(p: Prepared, input: Value, data: Value): unknown {
  try {
    return p.eval({ input, data }).map((r) => toJS(r.expressions[0]!.value));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}
