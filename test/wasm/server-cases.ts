// Shared set-up of the Wasm server tests: policies in the style of the conformance
// cases (sets, objects, functions, `else`, `with`, host-served builtins, conflicts,
// decimals the module refuses, a construct the back end refuses), the decisions to
// ask, and helpers to start a server and compare its answers with the JS back end's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type StartOptions } from '../../server/main.js';
import { repoRoot } from '../shared-dir.js';

export const RBAC_DIR = join(repoRoot, 'examples/rbac');

export const POLICIES: Record<string, string> = {
  'shapes.rego': `package shapes

names contains lower(u.name) if some u in input.users

by_id[u.id] := u.name if some u in input.users

admins := count([u | some u in input.users; u.admin])

greeting := concat(", ", sort(names))

summary := {"n": count(names), "first": sort(names)[0]} if count(names) > 0

default all_a := false

all_a if every u in input.users { startswith(u.name, "A") }
`,
  'funcs.rego': `package funcs

double(x) := x * 2

size(x) := "big" if x > 10
else := "small"

out := [double(n) | some n in input.nums]

label := size(input.n)

mocked := x if x := out with input.nums as [100, 200]
`,
  'hosted.rego': `package hosted

msg := sprintf("%s has %d items", [input.name, count(input.items)])

valid if regex.match("^[a-z]+$", input.name)
`,
  'fallback.rego': `package fallback

x := 1 if input.a

x := 2 if input.b

ratio := input.n * 1.5
`,
  'refused.rego': `package refused

p := 1 if {
	print("on the JS back end only")
	input.x == 1
}
`,
};

const USERS = { users: [{ id: 'u1', name: 'Ann', admin: true }, { id: 'u2', name: 'Bo' }, { id: 'u3', name: 'Al' }] };
const AS = { users: [{ id: 'u1', name: 'Ann' }, { id: 'u3', name: 'Al' }] };

/**
 * [data path, input, where it runs]: `either` where the module may abort (numbers it
 * cannot represent exactly) and hand over to JS, depending on the runtime's number support.
 */
export const DECISIONS: [string, unknown, 'wasm' | 'fallback' | 'js' | 'either'][] = [
  ['rbac/allow', { user: 'alice', action: 'delete', type: 'finance' }, 'wasm'],
  ['rbac/allow', { user: 'bob', action: 'update', type: 'finance' }, 'wasm'],
  ['rbac/allow', { user: 'eve', action: 'update', type: 'finance' }, 'wasm'],
  ['rbac', { user: 'bob', action: 'read', type: 'dog' }, 'wasm'],
  ['rbac/user_is_granted', { user: 'bob' }, 'wasm'],
  ['shapes', USERS, 'wasm'],
  ['shapes/names', USERS, 'wasm'],
  ['shapes/by_id', USERS, 'wasm'],
  ['shapes/summary', { users: [] }, 'wasm'],
  ['shapes/all_a', AS, 'wasm'],
  ['shapes/all_a', USERS, 'wasm'],
  ['funcs/out', { nums: [1, 2, 3] }, 'wasm'],
  ['funcs/label', { n: 11 }, 'wasm'],
  ['funcs/label', { n: 3 }, 'wasm'],
  ['funcs/mocked', { nums: [1] }, 'wasm'],
  ['funcs', { nums: [5], n: 50 }, 'wasm'],
  ['hosted/msg', { name: 'cart', items: [1, 2] }, 'wasm'],
  ['hosted/valid', { name: 'abc' }, 'wasm'],
  ['hosted/valid', { name: 'ABC' }, 'wasm'],
  ['fallback/x', { a: true }, 'wasm'],
  ['fallback/x', { a: true, b: true }, 'fallback'],
  ['fallback/ratio', { n: 3 }, 'either'],
  ['fallback/ratio', { n: 123456789012345678901234567890 }, 'either'],
  ['refused/p', { x: 1 }, 'js'],
  ['user_roles', undefined, 'js'],
  ['nothing/here', {}, 'js'],
];

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  /** The module answered (timer_regent_wasm_eval_ns), or tried and handed over (counter_regent_wasm_fallback). */
  via: 'wasm' | 'fallback' | 'js';
}

/** POST /v1/data/<path>?metrics=true; the body without its metrics. */
export async function decide(url: string, path: string, input: unknown): Promise<Answer> {
  const res = await fetch(`${url}/v1/data/${path}?metrics=true`, { method: 'POST', body: JSON.stringify(input === undefined ? {} : { input }) });
  const body = (await res.json()) as Record<string, unknown>;
  const metrics = (body.metrics ?? {}) as Record<string, number>;
  delete body.metrics;
  const via = metrics.timer_regent_wasm_eval_ns !== undefined ? 'wasm' : metrics.counter_regent_wasm_fallback ? 'fallback' : 'js';
  return { status: res.status, body, via };
}

export interface TempDir {
  dir: string;
  cleanup(): void;
}

export function policyDir(files: Record<string, string> = POLICIES): TempDir {
  const dir = mkdtempSync(join(tmpdir(), 'regent-wasm-server-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function start(opts: Partial<StartOptions>): Promise<RunningServer> {
  return startServer({ version: 'wasm-test', addrs: ['127.0.0.1:0'], ...opts });
}

/** Resolves once the engine's Wasm module is built and in every evaluator (after its last policy change). */
export async function wasmReady(server: RunningServer): Promise<void> {
  const report = await server.app.regent.engine.wasmReady();
  if (report?.error) throw new Error(`wasm build failed: ${report.error}`);
}
