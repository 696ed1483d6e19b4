// Stack selectors: label key → list of glob patterns. Every key must be present
// on the bundle; a non-empty list must match the label value with at least one
// glob (`*` matches any run of characters). An empty selector matches every
// bundle. For `exclude_selector`, absent never excludes while an explicit empty
// object excludes everything (as the control plane does).
import { globMatch } from './glob.js';

export type Selector = Record<string, string[]>;

export function selectorMatches(selector: Selector | undefined, labels: Record<string, string> | undefined): boolean {
  for (const [key, patterns] of Object.entries(selector ?? {})) {
    const value = labels?.[key];
    if (value === undefined) return false;
    if (patterns && patterns.length > 0 && !patterns.some((p) => globMatch(p, value))) return false;
  }
  return true;
}

/** Whether a stack applies to a bundle with these labels. */
export function stackApplies(
  stack: { selector?: Selector; exclude_selector?: Selector },
  labels: Record<string, string> | undefined,
): boolean {
  if (!selectorMatches(stack.selector, labels)) return false;
  if (stack.exclude_selector === undefined || stack.exclude_selector === null) return true;
  return !selectorMatches(stack.exclude_selector, labels);
}
