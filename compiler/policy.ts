// compile(): source files → checked AST → IR → JS closures, wrapped as a Policy.
import type { CompileOptions, Policy, SourceFile } from './api.js';

export function compile(_files: SourceFile[], _opts: CompileOptions = {}): Policy {
  throw new Error('compile: not implemented yet');
}
