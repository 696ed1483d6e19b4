// Builtins of the `net` family. Declarations sit next to implementations.
import type { BuiltinDef } from './types.js';

export const builtins: BuiltinDef[] = [];
