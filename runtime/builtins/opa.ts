// Builtins of the `opa` family and `trace`: opa.runtime returns the host-provided
// runtime document (ctx.runtime); trace forwards a note to the host's tracer, if
// one is installed as ctx.extras.trace, and always succeeds.
import type { BuiltinContext, BuiltinDef } from './types.js';
import { T } from './types.js';
import { asString } from './args.js';
import type { Value } from '../value/index.js';

function trace(args: Value[], ctx: BuiltinContext): Value {
  const note = asString(args[0]!, 1);
  const fn = ctx.extras.trace;
  if (typeof fn === 'function') (fn as (note: string) => void)(note);
  return true;
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'opa.runtime',
      args: [],
      result: T.objectOf(T.string, T.any),
      nondeterministic: true,
      categories: ['opa'],
      description: 'Returns an object that describes the runtime environment where OPA is deployed.',
    },
    impl: (_args, ctx) => ctx.runtime,
  },
  {
    decl: {
      name: 'trace',
      args: [T.string],
      result: T.boolean,
      categories: ['tracing'],
      description: 'Emits `note` as a `Note` event in the query explanation.',
    },
    impl: trace,
  },
];
