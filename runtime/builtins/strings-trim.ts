// The trim builtins: Go's strings.Trim/TrimLeft/TrimRight (cutset = a set of code
// points), TrimPrefix/TrimSuffix, and TrimSpace with unicode.IsSpace (which,
// unlike JS's \s, excludes U+FEFF).
import type { Value } from '../value/value.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { asString } from './args.js';
import { isSpaceRune } from './strings-go.js';

type RunePred = (r: number) => boolean;

function cutsetPred(cutset: string): RunePred {
  const set = new Set<number>();
  for (const ch of cutset) set.add(ch.codePointAt(0)!);
  return (r) => set.has(r);
}

export function trimLeftFunc(s: string, pred: RunePred): string {
  let i = 0;
  while (i < s.length) {
    const r = s.codePointAt(i)!;
    if (!pred(r)) break;
    i += r > 0xffff ? 2 : 1;
  }
  return s.slice(i);
}

export function trimRightFunc(s: string, pred: RunePred): string {
  let j = s.length;
  while (j > 0) {
    let k = j - 1;
    const lo = s.charCodeAt(k);
    if (lo >= 0xdc00 && lo <= 0xdfff && k > 0) {
      const hi = s.charCodeAt(k - 1);
      if (hi >= 0xd800 && hi <= 0xdbff) k--;
    }
    if (!pred(s.codePointAt(k)!)) break;
    j = k;
  }
  return s.slice(0, j);
}

export const goTrim = (s: string, cutset: string): string => {
  if (s === '' || cutset === '') return s;
  const p = cutsetPred(cutset);
  return trimRightFunc(trimLeftFunc(s, p), p);
};
export const goTrimLeft = (s: string, cutset: string): string => (s === '' || cutset === '' ? s : trimLeftFunc(s, cutsetPred(cutset)));
export const goTrimRight = (s: string, cutset: string): string => (s === '' || cutset === '' ? s : trimRightFunc(s, cutsetPred(cutset)));
export const goTrimSpace = (s: string): string => trimRightFunc(trimLeftFunc(s, isSpaceRune), isSpaceRune);

/** Each builtin passes its own impl (no shared wrapper calling `fn`), so its call sites stay monomorphic. */
const two = (name: string, impl: (args: Value[]) => string, description: string): BuiltinDef => ({
  decl: { name, args: [T.string, T.string], result: T.string, categories: ['strings'], description },
  impl,
});

export const builtins: BuiltinDef[] = [
  two('trim', (a) => goTrim(asString(a[0]!, 1), asString(a[1]!, 2)), 'Returns `value` with all leading or trailing instances of the `cutset` characters removed.'),
  two('trim_left', (a) => goTrimLeft(asString(a[0]!, 1), asString(a[1]!, 2)), 'Returns `value` with all leading instances of the `cutset` characters removed.'),
  two('trim_right', (a) => goTrimRight(asString(a[0]!, 1), asString(a[1]!, 2)), 'Returns `value` with all trailing instances of the `cutset` characters removed.'),
  two(
    'trim_prefix',
    (a) => {
      const s = asString(a[0]!, 1);
      const p = asString(a[1]!, 2);
      return s.startsWith(p) ? s.slice(p.length) : s;
    },
    'Returns `value` without the prefix.',
  ),
  two(
    'trim_suffix',
    (a) => {
      const s = asString(a[0]!, 1);
      const p = asString(a[1]!, 2);
      return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
    },
    'Returns `value` without the suffix.',
  ),
  {
    decl: { name: 'trim_space', args: [T.string], result: T.string, categories: ['strings'], description: 'Return the given string with all leading and trailing white space removed.' },
    impl: ([a]) => goTrimSpace(asString(a!, 1)),
  },
];
