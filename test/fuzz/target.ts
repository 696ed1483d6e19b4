// What the fuzzer runs on one input, and how an outcome is classified. A module is
// parsed and compiled (every pass and the JS back end) and, when it compiles, a
// query over its package is planned and generated; a query or a term is parsed
// (queries also planned against an empty policy). The only acceptable failures
// are Regent's structured errors: a RegoErrors with at least one RegoError, each
// with an OPA code and a message. Anything else (a TypeError, a RangeError stack
// overflow, an empty error list) is a crash.
import { compile, parseQuery, parseTerm, RegoError, RegoErrors } from '../../compiler/index.js';

export interface FuzzInput {
  kind: 'module' | 'query' | 'term';
  text: string;
  v0: boolean;
}

export type Outcome =
  | { kind: 'ok' }
  | { kind: 'error'; code: string; message: string }
  | { kind: 'crash'; message: string };

const CODE = /^rego_[a-z_]+_error$/;

function classify(e: unknown): Outcome {
  const errors = e instanceof RegoErrors ? e.errors : e instanceof RegoError ? [e] : undefined;
  if (!errors) {
    const err = e as Error;
    return { kind: 'crash', message: `${err?.constructor?.name ?? typeof e}: ${String(err?.stack ?? err?.message ?? e).slice(0, 2000)}` };
  }
  if (errors.length === 0) return { kind: 'crash', message: 'RegoErrors with an empty error list' };
  for (const x of errors) {
    if (!(x instanceof RegoError) || !CODE.test(x.code) || typeof x.message !== 'string' || x.message === '') {
      return { kind: 'crash', message: `malformed error: ${JSON.stringify(x)}` };
    }
  }
  return { kind: 'error', code: errors[0]!.code, message: errors[0]!.message };
}

const PACKAGE = /^\s*package\s+([A-Za-z_][\w.]*)/m;

/** Run one input through the compiler; never throws. */
export function runInput(input: FuzzInput): Outcome {
  try {
    if (input.kind === 'term') {
      parseTerm(input.text);
    } else if (input.kind === 'query') {
      parseQuery(input.text, '', { v0Compatible: input.v0 });
      compile([], { v0Compatible: input.v0 }).prepare(input.text);
    } else {
      const policy = compile([{ file: 'fuzz.rego', text: input.text }], { v0Compatible: input.v0 });
      const pkg = PACKAGE.exec(input.text)?.[1];
      policy.prepare(pkg ? `x = data.${pkg}` : 'x = data');
    }
    return { kind: 'ok' };
  } catch (e) {
    return classify(e);
  }
}
