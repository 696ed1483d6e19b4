// The certificate decoder on its own: what runtime/builtins/x509-lazy.ts loads on
// the first crypto.x509.* call. Everything it imports stays inside runtime/x509
// (plus @peculiar/* and node:), and what it returns is plain data (objects, arrays,
// strings, numbers, bigints, Buffers), never an instance of a runtime class. So it
// is safe to load as a second copy: the single-file CLI build (cli/build-bundle.mjs)
// holds the runtime in its own files, and this decoder is then required from dist/.
// test/unit/cli/bundle.test.ts checks the imports.
export { goCertificate, goCertificateRequest, type GoCertificate } from './certificate.js';
export { EXT_KEY_USAGE_OIDS } from './extensions.js';
