// The X.509 parser (runtime/x509, on @peculiar/asn1-*: about 50 ms to load) for the
// crypto.x509.* builtins, loaded on their first call instead of at start-up, so a CLI
// run that parses no certificate does not pay for it. Builtins are synchronous, so
// "on first call" means require(): the compiled build (.js) on a Node that can
// require ES modules (20.19+, 22.12+) loads it then; run from the TypeScript sources
// (tsx, vitest) or on an older Node, it is imported eagerly with this module.
// It loads the decoder alone (runtime/x509/decode.ts), which imports nothing of the
// rest of the runtime: in the single-file CLI build (cli/build-bundle.mjs) this
// require reaches dist/runtime/x509/decode.js, a second copy beside the bundle's.
import { createRequire } from 'node:module';

type X509 = typeof import('../x509/decode.js');

const lazy = import.meta.url.endsWith('.js') && (process.features as { require_module?: boolean }).require_module === true;
let x509Module: X509 | undefined = lazy ? undefined : await import('../x509/decode.js');

/** The runtime's x509 decoder. */
export function x509(): X509 {
  return (x509Module ??= createRequire(import.meta.url)('../x509/decode.js') as X509);
}
