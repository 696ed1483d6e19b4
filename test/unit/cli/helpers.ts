// Test helpers for the CLI tests: an IO that records what a command prints, and
// temporary directories populated from a { relativePath: content } map.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { IO } from '../../../cli/output.js';

export interface Captured {
  io: IO;
  readonly out: string;
  readonly err: string;
}

export function capture(stdin = ''): Captured {
  let out = '';
  let err = '';
  return {
    io: { out: (s) => void (out += s), err: (s) => void (err += s), stdin: () => stdin },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

/** Create a temp dir with the given files; returns its path and a cleanup function. */
export function tempTree(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'regent-cli-'));
  for (const [rel, text] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Run a command with a captured IO: its exit code and what it printed on stdout and stderr. */
export async function runCaptured(command: (argv: string[], io: IO) => number | Promise<number>, argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const c = capture();
  const code = await command(argv, c.io);
  return { code, err: c.err, out: c.out };
}
