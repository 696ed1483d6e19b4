// Parser entry points. All three throw `RegoErrors` holding one or more
// `rego_parse_error`s with locations; nothing else ever escapes (stack overflows and
// unexpected internal failures are converted into parse errors too).
import type { Body, Module, Term } from '../ast/nodes.js';
import { parseError, RegoError, RegoErrors } from '../source/diagnostics.js';
import { MAX_INPUT_BYTES } from '../source/limits.js';
import { ParseFailure, Parser, type ParserOptions } from './parser.js';
import { depthError } from './depth.js';
import { withDetails } from './error-detail.js';

export interface ParseOptions extends ParserOptions {
  v0Compatible?: boolean;
}

/**
 * Run `fn` on a parser of `text`. Every parse error carries its source line and caret
 * (OPA's ParserErrorDetail), except the errors OPA raises while assembling the module
 * from statements (`Parser.moduleErrorAt`, and everything `Parser.report` records).
 */
function run<R>(text: string, file: string, opts: ParseOptions, fn: (p: Parser) => R): R {
  if (typeof text !== 'string') throw new RegoErrors([parseError('input is not a string', { file, row: 1, col: 1, offset: 0 })]);
  const detailed = (errors: RegoError[]) => new RegoErrors(withDetails(errors, text));
  if (text.length > MAX_INPUT_BYTES) {
    throw detailed([parseError(`input too large (${text.length} bytes, limit ${MAX_INPUT_BYTES})`, { file, row: 1, col: 1, offset: 0 })]);
  }
  const p = new Parser(text, file, opts);
  let result: R;
  try {
    result = fn(p);
  } catch (e) {
    if (e instanceof ParseFailure) {
      const err = parseError(e.message, e.location);
      throw e.withDetail ? detailed([err]) : new RegoErrors([err]);
    }
    if (e instanceof RegoError) throw detailed([e]);
    if (e instanceof RegoErrors) throw detailed(e.errors);
    const loc = p.loc(Math.min(p.lx.start, text.length));
    const msg = e instanceof RangeError ? 'max nesting depth exceeded' : `internal parser error: ${String((e as Error)?.message ?? e)}`;
    throw detailed([parseError(msg, loc)]);
  }
  if (p.errors.length) {
    const errs = [...p.errors].sort((a, b) => (a.location?.offset ?? 0) - (b.location?.offset ?? 0));
    throw new RegoErrors(errs);
  }
  const deep = depthError(result as Module | Body | Term);
  if (deep) throw detailed([deep]);
  return result;
}

export function parseModule(text: string, file: string, opts: ParseOptions = {}): Module {
  return run(text, file, opts, (p) => p.parseModule());
}

export function parseQuery(text: string, file = '', opts: ParseOptions = {}): Body {
  return run(text, file, opts, (p) => p.parseQuery());
}

export function parseTerm(text: string): Term {
  return run(text, '', {}, (p) => p.parseTermOnly());
}
