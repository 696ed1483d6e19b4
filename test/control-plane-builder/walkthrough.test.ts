// The walk-through of server/control-plane/README.md, run as written. Fenced
// blocks of its "Walk-through" section are taken in order:
//   ```<lang> file=<path>   a file the reader creates (written at that point)
//   ```sh                   commands, run in one bash session (cd and export carry over)
//   ```text output          the exact stdout of the `sh` block just before it
// `regent` and `s3rver` are this repository's bin/regent.js and s3rver's bin;
// the only rewrite is the ports (4568, 8282, 8181 → free ones), so parallel test
// runs do not collide. Timestamps in outputs compare as <time>. Background
// servers the commands start are killed with the session's process group.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REGENT, workDir } from './blackbox.js';

const here = dirname(fileURLToPath(import.meta.url));
const README = resolve(here, '../../server/control-plane/README.md');
const S3RVER = join(dirname(createRequire(import.meta.url).resolve('s3rver/package.json')), 'bin/s3rver.js');

export interface Step {
  kind: 'file' | 'sh' | 'output';
  path?: string;
  text: string;
}

/** The fenced blocks of the walk-through section, in order. */
export function walkthroughSteps(markdown: string): Step[] {
  const start = markdown.indexOf('\n## Walk-through');
  if (start < 0) throw new Error('no "## Walk-through" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const steps: Step[] = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (let m; (m = fence.exec(section)); ) {
    const info = m[1]!.trim().split(/\s+/);
    const file = info.find((w) => w.startsWith('file='));
    if (file) steps.push({ kind: 'file', path: file.slice(5), text: m[2]! });
    else if (info[0] === 'sh') steps.push({ kind: 'sh', text: m[2]! });
    else if (info[0] === 'text' && info.includes('output')) steps.push({ kind: 'output', text: m[2]! });
  }
  return steps;
}

const normalize = (s: string): string => s.replace(/"\d{4}-\d\d-\d\dT[^"]*"/g, '"<time>"');

let dir: string;
let cleanup: () => Promise<void>;
let ports: Record<string, string>;

beforeAll(async () => {
  ({ dir, cleanup } = await workDir('regent-walk-'));
  ports = { '4568': String(await freePort()), '8282': String(await freePort()), '8181': String(await freePort()) };
});
afterAll(() => cleanup());

const withPorts = (s: string): string => s.replace(/(127\.0\.0\.1:|-p )(4568|8282|8181)\b/g, (_m, pre: string, port: string) => pre + ports[port]);

/** One bash script for the whole walk-through; each `sh` block's stdout follows a marker line. */
function script(steps: Step[]): string {
  const lines = [
    'set -e',
    `regent() { node ${JSON.stringify(REGENT)} "$@"; }`,
    `s3rver() { node ${JSON.stringify(S3RVER)} "$@"; }`,
  ];
  steps.forEach((s, i) => {
    if (s.kind === 'file') {
      lines.push(`mkdir -p "$(dirname ${JSON.stringify(s.path)})"`, `cat > ${JSON.stringify(s.path)} <<'__REGENT_WALKTHROUGH__'`, withPorts(s.text) + '__REGENT_WALKTHROUGH__');
    } else if (s.kind === 'sh') {
      lines.push(`printf '@@@STEP ${i}@@@\\n'`, withPorts(s.text));
    }
  });
  lines.push(`printf '@@@END@@@\\n'`);
  return lines.join('\n') + '\n';
}

function runScript(text: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn('bash', ['-c', text], { cwd: dir, detached: true, env: { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => {
      out.push(c);
      if (Buffer.concat(out).toString().includes('@@@END@@@\n')) kill();
    });
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(kill, 150_000);
    child.on('error', rej);
    // Background servers keep the pipes open; the END marker (or a failure) ends the session.
    child.on('exit', (code) => {
      if (code !== 0) kill();
      setTimeout(() => {
        clearTimeout(timer);
        kill();
        res({ code: code ?? -1, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
      }, 200);
    });
  });
}

describe('server/control-plane/README.md walk-through', () => {
  it('extracts files, commands and outputs', async () => {
    const steps = walkthroughSteps(await readFile(README, 'utf8'));
    expect(steps.filter((s) => s.kind === 'sh').length).toBeGreaterThanOrEqual(6);
    expect(steps.find((s) => s.path === 'config.d/regent.yaml')?.text).toMatch(/git:[\s\S]*directory:[\s\S]*filesystem:[\s\S]*aws:[\s\S]*stacks:[\s\S]*tokens:|tokens:[\s\S]*git:[\s\S]*directory:[\s\S]*filesystem:[\s\S]*aws:[\s\S]*stacks:/);
  });

  it('runs as written: every command succeeds and prints the documented output', async () => {
    const steps = walkthroughSteps(await readFile(README, 'utf8'));
    const r = await runScript(script(steps));
    const diag = `stderr:\n${r.stderr}\nstdout:\n${r.stdout}`;
    expect(r.stdout, diag).toContain('@@@END@@@\n');
    // Split stdout at the markers: step index → its output.
    const outputs = new Map<number, string>();
    const parts = r.stdout.split(/^@@@(STEP \d+|END)@@@\n/m);
    for (let i = 1; i + 1 < parts.length; i += 2) {
      const m = /^STEP (\d+)$/.exec(parts[i]!);
      if (m) outputs.set(Number(m[1]), parts[i + 1]!);
    }
    let checked = 0;
    steps.forEach((s, i) => {
      if (s.kind !== 'output') return;
      expect(steps[i - 1]?.kind, `output block ${i} must follow a sh block`).toBe('sh');
      expect(normalize(outputs.get(i - 1) ?? ''), `output of step ${i - 1}\n${diag}`).toBe(normalize(withPorts(s.text)));
      checked++;
    });
    expect(checked).toBeGreaterThanOrEqual(6);
  }, 180_000);
});
