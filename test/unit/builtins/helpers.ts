// Shared helpers for the builtin unit tests: a default BuiltinContext, callers
// that look a builtin up by name (in one namespace's list, or in the registry),
// and error-text helpers that turn a failing call into `code: name: message`.
import { BuiltinError } from '../../../runtime/builtins/errors.js';
import { getBuiltin, callBuiltin, BuiltinCallError } from '../../../runtime/builtins/registry.js';
import type { BuiltinContext, BuiltinDef } from '../../../runtime/builtins/types.js';
import { fromJS, formatNumber, type BigNum, type Value } from '../../../runtime/value/index.js';

/** A strict context at time 0 with an empty cache; `overrides` replace any field. */
export function testContext(overrides: Partial<BuiltinContext> = {}): BuiltinContext {
  return { strict: true, cache: new Map(), nowNs: 0n, print() {}, runtime: null, extras: {}, ...overrides };
}

/** A fresh test context per call, strict unless told otherwise. */
export const makeContext = (strict = true): BuiltinContext => testContext({ strict });

/** A context, or a function giving the context to use at call time. */
export type ContextSource = BuiltinContext | (() => BuiltinContext);

const resolve = (source: ContextSource): BuiltinContext => (typeof source === 'function' ? source() : source);

/**
 * Calls a builtin of `list` by name, straight to its impl (no registry error
 * policy). Uses `c` when given, else the context from `ctx`.
 */
export function callerFor(
  list: readonly BuiltinDef[],
  ctx: ContextSource = testContext(),
): (name: string, args: Value[], c?: BuiltinContext) => Value | undefined {
  return (name, args, c) => {
    const def = list.find((b) => b.decl.name === name);
    if (!def) throw new Error(`no builtin ${name}`);
    return def.impl(args, c ?? resolve(ctx));
  };
}

/** Like `callerFor`, but the arguments are spread: `call(name, a, b)`. */
export function variadicCallerFor(list: readonly BuiltinDef[], ctx: ContextSource = testContext()): (name: string, ...args: Value[]) => Value | undefined {
  const call = callerFor(list, ctx);
  return (name, ...args) => call(name, args);
}

/** Like `callerFor`, but the arguments are plain JS values converted with `fromJS`. */
export function jsCallerFor(list: readonly BuiltinDef[], ctx: ContextSource = testContext()): (name: string, args: unknown[]) => Value | undefined {
  const call = callerFor(list, ctx);
  return (name, args) => call(name, args.map((a) => fromJS(a)));
}

/**
 * Calls a registered builtin through `callBuiltin` (so with the registry's error
 * policy), with spread plain JS arguments and a fresh context per call.
 */
export function registryCaller(strict = true): (name: string, ...args: unknown[]) => Value | undefined {
  return (name, ...args) => callBuiltin(getBuiltin(name)!, args.map(fromJS), makeContext(strict));
}

/** Runs `fn`, which must throw a BuiltinError, and returns `code: name: message`. */
export function builtinErrorText(fn: () => unknown, name: string): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof BuiltinError) return `${e.code}: ${name}: ${e.message}`;
    throw e;
  }
  throw new Error('no error');
}

/**
 * Runs `fn`, which must throw a BuiltinCallError, and returns `code: message`
 * (the registry has already put the builtin name in the message).
 */
export function callErrorText(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof BuiltinCallError) return `${e.code}: ${e.message}`;
    throw e;
  }
  throw new Error('expected an error');
}

/** Wraps a direct-impl caller: `err(name, ...)` gives the BuiltinError as `code: name: message`. */
export function builtinErrors<A extends unknown[]>(call: (name: string, ...rest: A) => unknown): (name: string, ...rest: A) => string {
  return (name, ...rest) => builtinErrorText(() => call(name, ...rest), name);
}

/** Wraps a registry caller: `err(name, ...)` gives the BuiltinCallError as `code: message`. */
export function callErrors<A extends unknown[]>(call: (name: string, ...rest: A) => unknown): (name: string, ...rest: A) => string {
  return (name, ...rest) => callErrorText(() => call(name, ...rest));
}

/** A number result as exact decimal text (big and fractional numbers included). */
export const numberText = (v: Value | undefined): string => formatNumber(v as number | BigNum);
