// Parser entry points (to be implemented by the parser work).
import type { Body, Module, Term } from '../ast/nodes.js';

export interface ParseOptions {
  v0Compatible?: boolean;
}

export function parseModule(_text: string, _file: string, _opts: ParseOptions = {}): Module {
  throw new Error('parseModule: not implemented yet');
}

export function parseQuery(_text: string, _file = '', _opts: ParseOptions = {}): Body {
  throw new Error('parseQuery: not implemented yet');
}

export function parseTerm(_text: string): Term {
  throw new Error('parseTerm: not implemented yet');
}
