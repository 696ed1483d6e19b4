// Character-code constants and classification helpers used by the lexer.

export enum C {
  Tab = 9, LF = 10, CR = 13, Space = 32,
  Bang = 33, DQuote = 34, Hash = 35, Dollar = 36, Percent = 37, Amp = 38,
  LParen = 40, RParen = 41, Star = 42, Plus = 43, Comma = 44, Minus = 45, Dot = 46, Slash = 47,
  D0 = 48, D9 = 57, Colon = 58, Semicolon = 59, Lt = 60, Eq = 61, Gt = 62,
  UpperA = 65, UpperE = 69, UpperZ = 90, LBrack = 91, Backslash = 92, RBrack = 93, Underscore = 95,
  Backquote = 96, LowerA = 97, LowerB = 98, LowerE = 101, LowerF = 102, LowerN = 110, LowerR = 114,
  LowerT = 116, LowerU = 117, LowerZ = 122, LBrace = 123, Pipe = 124, RBrace = 125,
}

export function isDigit(c: number): boolean {
  return c >= C.D0 && c <= C.D9;
}

export function isLetter(c: number): boolean {
  return (c >= C.LowerA && c <= C.LowerZ) || (c >= C.UpperA && c <= C.UpperZ) || c === C.Underscore;
}

export function isIdentPart(c: number): boolean {
  return isLetter(c) || isDigit(c);
}

export function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

export function isSpace(c: number): boolean {
  return c === C.Space || c === C.Tab || c === C.CR || c === C.LF;
}
