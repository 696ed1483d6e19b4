// The Wasm back end's typed compile error, in a file of its own so that importing it
// (compiler/index.ts does) never loads binaryen.

/** A construct the Wasm back end does not compile: the policy is refused, never wrong. */
export class WasmUnsupportedError extends Error {
  readonly code = 'wasm_unsupported';
  constructor(what: string) {
    super(`not supported on wasm: ${what}`);
  }
}
