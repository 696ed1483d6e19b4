// Bundle revisions (notes §5.10). Without a `revision` on the bundle the
// revision is "" (the reference's default); the content hash is opt-in with
// `revision: input.bundle.hash`. A bundle `revision` is a Rego *expression*
// evaluated with our engine against
//   input.bundle.hash                      sha256 of the assembled files
//   input.sources[<s>].git.commit          HEAD commit of a git source
//   input.sources[<s>].sql.hash            hash of the documents pushed through the API
//   input.sources[<s>].http[<ds>].hash     hash of one datasource's result
// and `opa.runtime().env` (the process environment), e.g. `"v1"`,
// `opa.runtime().env.BUILD_NUMBER`, `$"git-{substring(input.sources.repo.git.commit, 0, 7)}"`.
// As in the reference (strict mode with a schema generated from the available
// metadata), a reference to input that the schema does not have is a type
// error with OPA's have/want detail. A source `.manifest` revision overrides both.
import { compile, parseQuery, mapBody, RegoErrors, type Term } from '../../../compiler/index.js';
import { fromJS, toJS } from '../../../runtime/index.js';
import { BuildError, messageOf } from './errors.js';
import { regoErrorsText } from './gotext.js';

export interface SourceMeta {
  git?: { commit: string };
  sql?: { hash: string };
  http?: Record<string, { hash: string }>;
}

export interface RevisionInput {
  bundle: { hash: string };
  sources: Record<string, SourceMeta>;
}

export const MAX_REVISION_LENGTH = 255;

/** The data key `opa.runtime()` is rewritten to (our engine takes no runtime value per query). */
const RUNTIME_KEY = '__regent_opa_runtime';

/** Resolve the revision; throws BuildError `revision: failed to resolve revision: …`. */
export function resolveRevision(expr: string | undefined, input: RevisionInput, env: NodeJS.ProcessEnv = process.env): string {
  if (expr === undefined || expr.trim() === '') return '';
  const fail = (msg: string): never => {
    throw new BuildError(`revision: failed to resolve revision: ${msg}`);
  };
  const typeError = checkInputRefs(expr, input);
  if (typeError) fail(typeError);
  let rows;
  try {
    const query = expr.replace(/\bopa\s*\.\s*runtime\s*\(\s*\)/g, `data.${RUNTIME_KEY}`);
    const data = fromJS({ [RUNTIME_KEY]: { env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) } });
    rows = compile([]).prepare(query).eval({ input: fromJS(input), data });
  } catch (e) {
    return fail(e instanceof RegoErrors ? regoErrorsText(e.errors.map((x) => ({ code: x.code, message: x.message, location: x.location }))) : messageOf(e));
  }
  const first = rows[0]?.expressions[0];
  if (!first) return fail('no results from Rego evaluation');
  const js = toJS(first.value);
  const rev = typeof js === 'string' ? js : JSON.stringify(js);
  if (rev.length > MAX_REVISION_LENGTH) {
    throw new BuildError(`revision: resolved revision exceeds maximum length of ${MAX_REVISION_LENGTH} characters (got ${rev.length})`);
  }
  return rev;
}

/** Closed object types of the input schema: key → nested type, or 'string' for a leaf. */
type Shape = { [k: string]: Shape } | 'string';

function inputShape(input: RevisionInput): Shape {
  const sources: Record<string, Shape> = {};
  for (const [name, meta] of Object.entries(input.sources)) {
    const s: Record<string, Shape> = { git: { commit: 'string' }, sql: { hash: 'string' } };
    if (meta.http) s.http = Object.fromEntries(Object.keys(meta.http).map((d) => [d, { hash: 'string' }]));
    sources[name] = s;
  }
  return { sources, bundle: { hash: 'string' } };
}

/** OPA's rego_type_error for the first `input` ref the schema lacks, as Errors.Error() prints it. */
function checkInputRefs(expr: string, input: RevisionInput): string | undefined {
  let body;
  try {
    body = parseQuery(expr);
  } catch {
    return undefined; // the evaluation reports parse errors
  }
  const shape = inputShape(input);
  let found: string | undefined;
  const visit = (t: Term): Term | undefined => {
    if (found || t.kind !== 'ref' || t.head.kind !== 'var' || t.head.name !== 'input') return undefined;
    let cur: Shape = shape;
    const parts = ['input'];
    for (let i = 0; i < t.path.length; i++) {
      const p = t.path[i]!;
      if (p.kind !== 'string' || cur === 'string') return undefined;
      const next: Shape | undefined = cur[p.value];
      if (next === undefined) {
        const text = parts.join('');
        const full = text + t.path.slice(i).map((x) => (x.kind === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(x.value) ? `.${x.value}` : '')).join('');
        const pad = ' '.repeat(text.length + 1);
        const oneOf = Object.keys(cur).sort().map((k) => JSON.stringify(k)).join(' ');
        found = regoErrorsText([{
          code: 'rego_type_error',
          message: `undefined ref: ${full}`,
          location: { row: t.loc.row, col: t.loc.col },
          details: [full, `${pad}^`, `${pad}have: ${JSON.stringify(p.value)}`, `${pad}want (one of): [${oneOf}]`],
        }]);
        return undefined;
      }
      parts.push(/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.value) ? `.${p.value}` : `[${JSON.stringify(p.value)}]`);
      cur = next;
    }
    return undefined;
  };
  mapBody(body, visit);
  return found;
}
