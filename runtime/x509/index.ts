// X.509 certificates and certificate requests as Go's x509 package parses them
// and encoding/json writes them (what OPA returns from crypto.x509.* and hands
// the authorizer as `client_certificates`). Exported from runtime/index.ts as
// the namespace `x509`.
export * from './decode.js';
export { goURL, ipString, type GoJSON, type GoObject } from './formats.js';
export { goValue } from './value.js';
