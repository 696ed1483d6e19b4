// OPA's own JavaScript SDK (@open-policy-agent/opa-wasm, a pinned devDependency) as a
// host for Regent-built policy.wasm files, plus a helper that makes sure the runtime
// binary exists (it is built by `prepare`; tests build it when run from a bare checkout).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot } from '../shared-dir.js';
import type { Host } from './differential.js';

export interface SdkPolicy {
  setData(data: unknown): void;
  evaluate(input: unknown, entrypoint?: string | number): { result: unknown }[];
  entrypoints: Record<string, number>;
}

const require = createRequire(import.meta.url);
const sdk = require('@open-policy-agent/opa-wasm') as {
  loadPolicy(wasm: Uint8Array, memory?: unknown, custom?: Record<string, (...a: unknown[]) => unknown>): Promise<SdkPolicy>;
};

export function ensureRuntime(): void {
  if (!existsSync(join(repoRoot, 'runtime/wasm/build/runtime.wasm'))) {
    execFileSync(process.execPath, [join(repoRoot, 'runtime/wasm/build.mjs')], { stdio: 'inherit' });
  }
}

export function loadSdkPolicy(wasm: Uint8Array, custom?: Record<string, (...a: unknown[]) => unknown>): Promise<SdkPolicy> {
  return sdk.loadPolicy(wasm, undefined, custom);
}

/** The SDK as a differential host; its thrown strings/objects become Errors. */
export const sdkHost: Host = async (wasm, data, input, entrypoint = 0) => {
  try {
    const p = await loadSdkPolicy(wasm);
    p.setData(data ?? {});
    return p.evaluate(input, entrypoint);
  } catch (e) {
    if (e instanceof Error) throw e;
    const msg = typeof e === 'string' ? e : (e as { message?: string }).message ?? JSON.stringify(e);
    throw new Error(msg);
  }
};
