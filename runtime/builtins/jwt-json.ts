// JSON helpers that mimic Go's encoding/json where JWT builtins expose it:
// json.Unmarshal with its syntax error messages (the scanner port in
// value/go-json.ts) and json.Marshal's output (sorted keys, HTML-safe escaping).
import { goEscapeHTML, goJSONCheckValid, parseJSON, toJSONText, type Value } from '../value/index.js';

/** json.Unmarshal into a Rego value, with Go's error messages. */
export function goJSONParse(text: string): Value {
  const err = goJSONCheckValid(text);
  if (err !== undefined) throw new SyntaxError(err);
  return parseJSON(text);
}

/** json.Marshal of a Rego value: canonical JSON with Go's HTML-safe escapes. */
export function goJSONMarshal(v: Value): string {
  return goEscapeHTML(toJSONText(v));
}
