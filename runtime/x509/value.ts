// A Go document (formats.ts's GoJSON: what encoding/json writes for an
// x509.Certificate) as a Rego value, as OPA gets it from json.Marshal and
// util.UnmarshalJSON: a *big.Int (bigint here) becomes an exact number. Kept apart
// from the decoder (decode.ts), which imports nothing of the runtime.
import { RObject, parseNumber, type Value } from '../value/index.js';
import type { GoJSON } from './formats.js';

/** A document as a Rego value. */
export function goValue(v: GoJSON): Value {
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? parseNumber(v.toString()) : v;
  if (Array.isArray(v)) return v.map(goValue);
  const o = new RObject();
  for (const [k, x] of Object.entries(v)) o.set(k, goValue(x));
  return o;
}
