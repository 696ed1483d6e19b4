// Bundle revisions. Without a `revision` on the bundle, the revision is the
// content hash of the assembled bundle files (`bundle.hash`, 64 hex). With one,
// it is a Rego *expression* (notes §5.10) evaluated with our engine against
//   input.bundle.hash                      sha256 of the assembled files
//   input.sources[<s>].git.commit          HEAD commit of a git source
//   input.sources[<s>].sql.hash            hash of the documents pushed through the API
//   input.sources[<s>].http[<ds>].hash     hash of one datasource's result
// e.g. `"v1"`, `$"git-{substring(input.sources.repo.git.commit, 0, 7)}"`,
// `input.bundle.hash`. A source `.manifest` revision overrides both.
import { compile, RegoErrors } from '../../../compiler/index.js';
import { fromJS, toJS } from '../../../runtime/index.js';
import { BuildError, messageOf } from './errors.js';

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

/** Resolve the revision; throws BuildError `revision: failed to resolve revision: …`. */
export function resolveRevision(expr: string | undefined, input: RevisionInput): string {
  if (expr === undefined || expr.trim() === '') return input.bundle.hash;
  const fail = (msg: string): never => {
    throw new BuildError(`revision: failed to resolve revision: ${msg}`);
  };
  let rows;
  try {
    rows = compile([]).prepare(expr).eval({ input: fromJS(input) });
  } catch (e) {
    return fail(e instanceof RegoErrors ? e.errors.map((x) => x.message).join('; ') : messageOf(e));
  }
  const first = rows[0]?.expressions[0];
  if (!first) return fail('no results from Rego evaluation');
  const js = toJS(first.value);
  const rev = typeof js === 'string' ? js : JSON.stringify(js);
  if (rev.length > MAX_REVISION_LENGTH) fail(`revision is longer than ${MAX_REVISION_LENGTH} characters`);
  return rev;
}
