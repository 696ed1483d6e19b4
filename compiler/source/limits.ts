// Hard limits applied by the lexer and parser. Inputs beyond them are rejected with
// a `rego_parse_error` (with a location) instead of exhausting memory or the stack.
// Every later stage (passes, planner, back ends, V8 compiling generated source)
// recurses over expression trees, so bounding the tree depth at parse time bounds
// their stack use too. The defaults are documented in compiler/README.md.

/** Largest source text accepted by parseModule/parseQuery/parseTerm (in UTF-16 units). */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** Deepest nesting of terms/bodies the recursive-descent parser will follow. */
export const MAX_NESTING_DEPTH = 1000;

/**
 * Deepest expression tree accepted: one level per AST node (call, collection,
 * comprehension, body expression …) plus one per ref path step, so this bounds
 * operator chains (`1 == 1 == …`, `a + b + …`) and ref lengths (`x.a.b…`, `x[0][0]…`).
 */
export const MAX_EXPR_DEPTH = 500;
