// The compiler's half of rego.parse_module: the runtime declares the builtin but
// never imports the compiler, so the compiler hands it a parser when it loads.
// The parser returns OPA's JSON AST (what `opa parse --format json` prints) as a
// value; parse errors become the builtin error OPA reports ("1 error occurred: …").
import { provideModuleParser } from '../runtime/builtins/rego.js';
import { BuiltinError } from '../runtime/builtins/errors.js';
import { parseJSON } from '../runtime/value/json.js';
import { moduleToJSON, stringifyOpaJSON } from './ast/opa-json.js';
import { parseModule } from './parser/index.js';
import { RegoErrors } from './source/diagnostics.js';

provideModuleParser((file, text) => {
  let m;
  try {
    m = parseModule(text, file);
  } catch (e) {
    if (!(e instanceof RegoErrors)) throw e;
    const lines = e.errors.map((x) => `${x.location ? `${x.location.file}:${x.location.row}: ` : ''}${x.code}: ${x.message}`);
    throw new BuiltinError(lines.length === 1 ? `1 error occurred: ${lines[0]}` : `${lines.length} errors occurred:\n${lines.join('\n')}`);
  }
  return parseJSON(stringifyOpaJSON(moduleToJSON(m), ''));
});
