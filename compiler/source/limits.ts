// Hard limits applied by the lexer and parser. Inputs beyond them are rejected with
// a `rego_parse_error` (with a location) instead of exhausting memory or the stack.

/** Largest source text accepted by parseModule/parseQuery/parseTerm (in UTF-16 units). */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** Deepest nesting of terms/bodies the recursive-descent parser will follow. */
export const MAX_NESTING_DEPTH = 1000;
