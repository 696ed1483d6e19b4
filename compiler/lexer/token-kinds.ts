// Numeric token kinds (acorn style) and their printable names. Names follow OPA's
// scanner token names so that error messages read like OPA's
// (`unexpected eof token`, `unexpected identifier token`, `unexpected if keyword`).

export enum T {
  EOF = 0,
  Ident,
  Number,
  String,
  RawString,
  /** `$"…{` or `$\`…{`: a template chunk followed by an embedded expression. */
  TemplatePart,
  /** `$"…"` / a chunk that closes the template. */
  TemplateEnd,
  // keywords
  Package,
  Import,
  As,
  Default,
  Else,
  Not,
  Some,
  With,
  Null,
  True,
  False,
  If,
  Contains,
  In,
  Every,
  // punctuation
  LBrack,
  RBrack,
  LBrace,
  RBrace,
  LParen,
  RParen,
  Comma,
  Colon,
  Semicolon,
  Dot,
  // operators
  Add,
  Sub,
  Mul,
  Quo,
  Rem,
  And,
  Or,
  Unify,
  Equal,
  Assign,
  Neq,
  Lt,
  Lte,
  Gt,
  Gte,
}

export const TOKEN_NAMES: readonly string[] = [
  'eof', 'identifier', 'number', 'string', 'string', 'template-string', 'template-string',
  'package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false',
  'if', 'contains', 'in', 'every',
  '[', ']', '{', '}', '(', ')', ',', ':', ';', '.',
  'plus', 'minus', 'mul', 'div', 'rem', 'and', 'or', 'eq', 'equal', 'assign', 'neq', 'lt', 'lte', 'gt', 'gte',
];

/** Keywords recognised by the lexer. The parser decides whether a "future" keyword is active. */
export const KEYWORDS: ReadonlyMap<string, T> = new Map<string, T>([
  ['package', T.Package], ['import', T.Import], ['as', T.As], ['default', T.Default],
  ['else', T.Else], ['not', T.Not], ['some', T.Some], ['with', T.With], ['null', T.Null],
  ['true', T.True], ['false', T.False], ['if', T.If], ['contains', T.Contains], ['in', T.In],
  ['every', T.Every],
]);

/** Keywords that only exist in v0 after `import future.keywords[.kw]` / `import rego.v1`. */
export const FUTURE_KEYWORDS: readonly string[] = ['contains', 'every', 'if', 'in'];

export function isKeywordKind(k: T): boolean {
  return k >= T.Package && k <= T.Every;
}

export function tokenName(k: T): string {
  return TOKEN_NAMES[k] ?? 'illegal';
}
