// The one scope object through which compiled policies reach runtime helpers.
// The JS back end receives it at instantiation; it never imports the runtime.
import { dot, dig, setPath, forEachMember, forEachMemberUnordered, members, templateText, mergeValues } from './eval/ops.js';
import { EvalContext, NO_VALUE } from './eval/context.js';
import { EvalError } from './eval/errors.js';
import { equal, compare } from './value/compare.js';
import { canonicalKey } from './value/key.js';
import { RObject, RSet } from './value/collections.js';
import { getBuiltin, callBuiltin, BuiltinCallError } from './builtins/registry.js';
import { member, memberWithKey } from './builtins/sets.js';
import { builtinFailed, insertRuleValue, invokeBuiltin, setUnique } from './eval/rules.js';
import { limits, collectionTooLarge, checkArgumentRoom, LARGE_ARGUMENT } from './eval/limits.js';
import { comprehensionLookup } from './eval/compr-index.js';
import { shapedWalk } from './builtins/graph.js';

export const RUNTIME = {
  dot,
  dig,
  setPath,
  forEachMember,
  forEachMemberUnordered,
  members,
  templateText,
  mergeValues,
  equal,
  compare,
  canonicalKey,
  RObject,
  RSet,
  getBuiltin,
  invokeBuiltin,
  builtinFailed,
  checkArgumentRoom,
  LARGE_ARGUMENT,
  insertRuleValue,
  setUnique,
  member,
  memberWithKey,
  callBuiltin,
  BuiltinCallError,
  EvalError,
  EvalContext,
  NO_VALUE,
  limits,
  collectionTooLarge,
  comprehensionLookup,
  shapedWalk,
};

export type RuntimeScope = typeof RUNTIME;
