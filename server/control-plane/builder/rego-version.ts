// Rego version help. Bundles are built as Rego v0 unless a source `.manifest`
// declares {"rego_version": 1} (as the reference does). A plain v1 policy without
// `import rego.v1` then fails with a v0 parse error such as `var cannot be used
// for rule name`, which tells a user nothing; when a file that fails under v0
// parses as v1, the build error gets one more line saying so and how to declare
// it. parseForBundle parses one file with that hint; v1Hint builds the line for
// errors raised elsewhere (the compile step).
import { parseModule, RegoErrors, type Module } from '../../../compiler/index.js';
import { BuildError, withDetails } from './errors.js';
import { formatRegoErrors, regoErrorDetails } from './gotext.js';

/** The hint line for one file that parses as v1 but not as v0. */
export function v1HintLine(file: string): string {
  return `\n${file} looks like Rego v1, and bundles are Rego v0 unless declared: add {"rego_version": 1} to the source's .manifest, or "import rego.v1" to the file`;
}

function parsesAsV1(text: string, file: string): boolean {
  try {
    parseModule(text, file, { v0Compatible: false });
    return true;
  } catch {
    return false;
  }
}

/** Hint lines for the files named in `e` that parse as v1 (v0 bundles only). */
export function v1Hint(e: RegoErrors, modules: { path: string; text: string }[], regoVersion: 0 | 1, shown: (f: string) => string = (f) => f): string {
  if (regoVersion !== 0) return '';
  const files = new Set(e.errors.filter((x) => x.code === 'rego_parse_error').map((x) => x.location?.file ?? ''));
  return modules.filter((m) => files.has(m.path) && parsesAsV1(m.text, m.path)).map((m) => v1HintLine(shown(m.path))).join('');
}

/** Parse one bundle file (label = path shown in errors); throws BuildError in OPA's text plus the v1 hint. */
export function parseForBundle(text: string, label: string, v0: boolean): Module {
  try {
    return parseModule(text, label, { v0Compatible: v0 });
  } catch (e) {
    if (e instanceof RegoErrors) {
      throw withDetails(new BuildError(formatRegoErrors(e) + (v0 && parsesAsV1(text, label) ? v1HintLine(label) : '')), regoErrorDetails(e));
    }
    throw new BuildError(`${label}: ${(e as Error).message}`);
  }
}
