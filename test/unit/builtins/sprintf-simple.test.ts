// sprintf's fast path for plain `%v` / `%s` / `%d` formats (runtime/builtins/sprintf.ts
// simpleSprintf) must print exactly what Go's verb parser (goSprintf) prints: checked
// by calling the builtin and goSprintf directly on the same formats and arguments,
// including the cases the fast path hands back (floats, big numbers, flags, missing
// and extra arguments, `%` at the end).
import { describe, expect, it } from 'vitest';
import { goSprintf, toGoArg } from '../../../runtime/builtins/sprintf.js';
import { fromJS, parseNumber, RSet, type Value } from '../../../runtime/value/index.js';
import { registryCaller } from './helpers.js';

const call = registryCaller();
const full = (fmt: string, args: Value[]): string => goSprintf(fmt, args.map(toGoArg));

describe('sprintf fast path agrees with the verb parser', () => {
  const args: Value[] = [
    'web',
    '',
    'é😀 "q" <x>',
    0,
    -7,
    42,
    9007199254740991,
    9007199254740992,
    1e21,
    1.5,
    -0,
    parseNumber('1.0'),
    parseNumber('123456789012345678901234567890'),
    true,
    false,
    null,
    fromJS(['gcr.io/acme/', 'registry.example.com/']),
    fromJS({ b: 1, a: ['x'] }),
    RSet.of(['z', 'a']),
    new RSet(),
  ];
  const formats = ['%v', '%s', '%d', 'container <%v> x', '%v%v', '100%% %v', '%v %%', '%', 'a%', '%q', '%5v', '%-v', '%.2v', '%[1]v', 'plain', ''];
  it('on every format and argument', () => {
    let checked = 0;
    for (const f of formats) {
      for (const a of args) {
        for (const list of [[a], [a, 'extra'], []] as Value[][]) {
          expect(call('sprintf', f, list), `${JSON.stringify(f)} ${String(list)}`).toBe(full(f, list));
          checked++;
        }
      }
    }
    expect(checked).toBe(formats.length * args.length * 3);
  });
  it('prints the gatekeeper messages', () => {
    expect(call('sprintf', 'container <%v> has an invalid image repo <%v>, allowed repos are %v', ['app', 'docker.io/nginx', fromJS(['gcr.io/acme/'])])).toBe(
      'container <app> has an invalid image repo <docker.io/nginx>, allowed repos are ["gcr.io/acme/"]',
    );
    expect(call('sprintf', 'you must provide labels: %v', [RSet.of(['owner', 'env'])])).toBe('you must provide labels: {"env", "owner"}');
    expect(call('sprintf', 'n=%d', [3])).toBe('n=3');
  });
});
