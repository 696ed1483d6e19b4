// ARG_NAMES (runtime/builtins/arg-names.ts): every entry names a registered builtin with
// the same arity, and spot checks against OPA's declarations in v1/ast/builtins.go.
import { describe, it, expect } from 'vitest';
import { ARG_NAMES } from '../../../runtime/builtins/arg-names.js';
import { getBuiltin } from '../../../runtime/builtins/registry.js';

describe('ARG_NAMES', () => {
  it('has only registered builtins, with matching arity and result', () => {
    const entries = Object.entries(ARG_NAMES);
    expect(entries.length).toBeGreaterThan(150);
    for (const [name, names] of entries) {
      const def = getBuiltin(name);
      expect(def, `${name} is not a registered builtin`).toBeDefined();
      expect(names.args.length, `${name}: args length`).toBe(def!.decl.args.length);
      if (names.result !== null) expect(def!.decl.result, `${name}: result named but decl has none`).toBeDefined();
      expect(def!.decl.variadic, `${name}: variadic builtins are unnamed`).toBeUndefined();
      expect(names.args.some((a) => a !== null) || names.result !== null, `${name}: all unnamed`).toBe(true);
    }
  });

  it('leaves out builtins OPA declares without names', () => {
    for (const name of ['eq', 'assign', 'internal.member_2', 'internal.member_3', 'print', 'internal.print', 'set_diff', 're_match', 'cast_array', 'all', 'any', 'net.cidr_overlap']) {
      expect(ARG_NAMES[name], name).toBeUndefined();
    }
  });

  it('matches OPA declarations (spot checks)', () => {
    expect(ARG_NAMES['upper']).toEqual({ args: ['x'], result: 'y' });
    expect(ARG_NAMES['count']).toEqual({ args: ['collection'], result: 'n' });
    expect(ARG_NAMES['concat']).toEqual({ args: ['delimiter', 'collection'], result: 'output' });
    expect(ARG_NAMES['io.jwt.decode_verify']).toEqual({ args: ['jwt', 'constraints'], result: 'output' });
    expect(ARG_NAMES['http.send']).toEqual({ args: ['request'], result: 'response' });
    expect(ARG_NAMES['regex.template_match']).toEqual({ args: ['template', 'value', 'delimiter_start', 'delimiter_end'], result: 'result' });
    expect(ARG_NAMES['time.format']).toEqual({ args: ['x'], result: 'formatted timestamp' });
    expect(ARG_NAMES['time.now_ns']).toEqual({ args: [], result: 'now' });
    expect(ARG_NAMES['providers.aws.sign_req']).toEqual({ args: ['request', 'aws_config', 'time_ns'], result: 'signed_request' });
  });
});
