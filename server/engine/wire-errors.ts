// Rego errors across threads. A worker's compile and query errors reach the main
// thread as plain data (structured clone keeps no classes), and become RegoErrors
// again there with everything OPA's API shows: code, message, location and the
// details (their JSON fields, and the lines they print after the message).
import { RegoError, type ErrorDetails } from '../../compiler/index.js';
import type { WireRegoError } from './protocol.js';

export function regoErrorToWire(e: RegoError): WireRegoError {
  const l = e.location;
  const d = e.details;
  return {
    code: e.code,
    message: e.message,
    ...(l ? { location: { file: l.file, row: l.row, col: l.col, offset: l.offset } } : {}),
    ...(d ? { details: { json: JSON.parse(JSON.stringify(d)) as object, lines: d.detailLines() } } : {}),
  };
}

/** Details that crossed threads: the same JSON fields, and the lines they printed. */
function wireDetails(d: { json: object; lines: string[] }): ErrorDetails {
  const details = { ...d.json };
  Object.defineProperty(details, 'detailLines', { value: () => d.lines, enumerable: false });
  return details as ErrorDetails;
}

export function regoErrorFromWire(e: WireRegoError): RegoError {
  return new RegoError(e.code as RegoError['code'], e.message, e.location ? { ...e.location } : undefined, e.details ? wireDetails(e.details) : undefined);
}
