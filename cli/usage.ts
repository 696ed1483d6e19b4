// How a command reports a bad command line, the same way for every command, as opa's
// cobra commands do: `Error: <message>` on stderr, then the command's usage text, and
// exit code 1. (cobra returns a flag or argument error from Execute; opa's main exits
// 1 for any error that is not an ExitError. Exit code 2 in opa means something else:
// evaluation errors in `eval`, failing tests in `test`, a diff in `fmt --fail`.)
import type { IO } from './output.js';

/** The exit code of a command line that could not be parsed or is incomplete. */
export const USAGE_EXIT = 1;

/** Print `Error: <message>` and the usage text `help` (when given) on stderr; returns USAGE_EXIT. */
export function usageFailed(io: Pick<IO, 'err'>, message: string, help?: string): number {
  io.err(`Error: ${message}\n${help === undefined ? '' : `\n${help}\n`}`);
  return USAGE_EXIT;
}
