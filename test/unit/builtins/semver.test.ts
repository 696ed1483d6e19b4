// Unit tests for semver.is_valid / semver.compare (strict SemVer 2.0.0, OPA messages).
import { describe, expect, it } from 'vitest';
import { parseNumber } from '../../../runtime/value/number.js';
import { registryCaller, callErrors } from './helpers.js';

const call = registryCaller();
const err = callErrors(call);
describe('semver', () => {
  it('is_valid is strict', () => {
    for (const v of ['0.0.0', '1.2.3-0', '1.2.3-0a', '1.2.3+01', 'v1.2.3', '1.0.0-alpha.1+build.5']) expect(call('semver.is_valid', v)).toBe(true);
    for (const v of ['01.2.3', '1.02.3', '1.2.03', '1.2.3-01', '1.2.3-alpha.01', '1.2.3-', '1.2.3+', '1.2', '1.2.3.4', '', 'a.b.c', '1.2.3-a..b', '99999999999999999999.0.0'])
      expect(call('semver.is_valid', v)).toBe(false);
    expect(call('semver.is_valid', 123)).toBe(false);
    expect(call('semver.is_valid', null)).toBe(false);
  });
  it('compare follows SemVer precedence', () => {
    expect(call('semver.compare', '1.0.0', '2.0.0')).toBe(-1);
    expect(call('semver.compare', '2.0.0', '1.0.0')).toBe(1);
    expect(call('semver.compare', '1.2.3-0', '1.2.3-1')).toBe(-1);
    expect(call('semver.compare', '1.2.3+01', '1.2.3+2')).toBe(0);
    expect(call('semver.compare', '1.0.0-alpha', '1.0.0')).toBe(-1);
    expect(call('semver.compare', '1.0.0-alpha.1', '1.0.0-alpha')).toBe(1);
    expect(call('semver.compare', '1.0.0-alpha.beta', '1.0.0-alpha.1')).toBe(1);
    expect(call('semver.compare', '1.0.0-rc.11', '1.0.0-rc.2')).toBe(1);
    expect(call('semver.compare', '10.0.0', '9.99.99')).toBe(1);
  });
  it('compare errors', () => {
    expect(err('semver.compare', '1', '1.0.0')).toBe('eval_builtin_error: semver.compare: operand 1: string "1" is not a valid SemVer');
    expect(err('semver.compare', '1.2.3', '1.2.3-01')).toBe('eval_builtin_error: semver.compare: operand 2: string "1.2.3-01" is not a valid SemVer');
    expect(err('semver.compare', 1, '1.0.0')).toBe('eval_type_error: semver.compare: operand 1 must be string but got number');
  });
});
