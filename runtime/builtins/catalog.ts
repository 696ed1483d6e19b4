// Builtin declarations for the compiler: the one builtins module compiler code
// imports. Exposes lookups and the OPA capabilities JSON built from declarations
// (shape of OPA's ast.CapabilitiesForThisVersion: builtins sorted by name with
// `decl` types, future keywords, Wasm ABI versions and language features).
import { allDecls, getBuiltin } from './registry.js';
import type { BuiltinDecl, TypeSpec } from './types.js';

export { getBuiltin, allDecls };

/**
 * Future keywords of the v0-compatible capabilities. In v1 they are keywords, and
 * OPA's v1 capabilities (the files of v1.5.0 on) list none: the key is left out.
 */
export const FUTURE_KEYWORDS = ['contains', 'every', 'if', 'in'] as const;

/**
 * Language features, sorted as OPA writes them: the v1 set (as OPA's v1.12.2 to
 * v1.16.1 files: string interpolation is `template_strings`), and the v0-compatible set.
 */
export const FEATURES_V1 = ['keywords_in_refs', 'rego_v1', 'template_strings'] as const;
export const FEATURES_V0 = ['keywords_in_refs', 'rego_v1', 'rego_v1_import', 'rule_head_ref_string_prefixes', 'rule_head_refs'] as const;

/** The Wasm ABI versions OPA advertises. */
export const WASM_ABI_VERSIONS = [
  { version: 1, minor_version: 1 },
  { version: 1, minor_version: 2 },
] as const;

export interface CapabilitiesOptions {
  /** The `--v0-compatible` feature set. */
  v0Compatible?: boolean;
}

export interface CapabilityBuiltin {
  name: string;
  decl: Record<string, unknown>;
  infix?: string;
  relation?: true;
  deprecated?: true;
  nondeterministic?: true;
}

export interface CapabilitiesDoc {
  builtins: CapabilityBuiltin[];
  /** Only in the v0-compatible document (omitted when empty, as OPA's omitempty). */
  future_keywords?: string[];
  wasm_abi_versions: { version: number; minor_version: number }[];
  features: string[];
}

/** A type as OPA's types package marshals it: object keys in sorted order. */
export function typeJSON(t: TypeSpec): Record<string, unknown> {
  switch (t.type) {
    case 'any': return t.of?.length ? { of: t.of.map(typeJSON), type: 'any' } : { type: 'any' };
    case 'array':
      return {
        ...(t.dynamic ? { dynamic: typeJSON(t.dynamic) } : {}),
        ...(t.static?.length ? { static: t.static.map(typeJSON) } : {}),
        type: 'array',
      };
    case 'set': return { of: typeJSON(t.of), type: 'set' };
    case 'object':
      return {
        ...(t.dynamic ? { dynamic: { key: typeJSON(t.dynamic.key), value: typeJSON(t.dynamic.value) } } : {}),
        ...(t.static?.length ? { static: t.static.map((p) => ({ key: p.key, value: typeJSON(p.value) })) } : {}),
        type: 'object',
      };
    case 'function': return declJSON({ name: '', args: t.args, result: t.result, ...(t.variadic ? { variadic: t.variadic } : {}) });
    default: return { type: t.type };
  }
}

/** A builtin's `decl`: `{args?, result?, type: "function", variadic?}`. */
export function declJSON(d: Pick<BuiltinDecl, 'args' | 'result' | 'variadic'> & { name?: string }): Record<string, unknown> {
  return {
    ...(d.args.length ? { args: d.args.map(typeJSON) } : {}),
    ...(d.result ? { result: typeJSON(d.result) } : {}),
    type: 'function',
    ...(d.variadic ? { variadic: typeJSON(d.variadic) } : {}),
  };
}

/** OPA-format capabilities document from our declarations. */
export function capabilities(opts: CapabilitiesOptions = {}): CapabilitiesDoc {
  return {
    builtins: allDecls().map((d: BuiltinDecl): CapabilityBuiltin => ({
      name: d.name,
      decl: declJSON(d),
      ...(d.infix ? { infix: d.infix } : {}),
      ...(d.relation ? { relation: true as const } : {}),
      ...(d.deprecated ? { deprecated: true as const } : {}),
      ...(d.nondeterministic ? { nondeterministic: true as const } : {}),
    })),
    ...(opts.v0Compatible ? { future_keywords: [...FUTURE_KEYWORDS] } : {}),
    wasm_abi_versions: WASM_ABI_VERSIONS.map((v) => ({ ...v })),
    features: [...(opts.v0Compatible ? FEATURES_V0 : FEATURES_V1)],
  };
}
