// OPA's RefErrInvalidDetail (v1/ast/errors.go): the details of an `undefined ref`
// type error, printed after the message as the ref, a caret under the bad part, what
// it has and what fits there:
//   	input.request.kind.kinds
//   	                   ^
//   	                   have: "kinds"
//   	                   want (one of): ["kind" "version"]
// Used by the type checker (refs into values of known types) and the input schema
// checks of `eval`/`check -s` (cli/eval-schema.ts); also OPA's RefErrUnsupportedDetail
// (a key into a scalar: carets under the scalar's part, `have: number`) and
// UnificationErrDetail (`match error`).
import type { RefTerm, Term } from '../ast/nodes.js';
import { formatTerm } from '../ast/print.js';

/**
 * OPA's RefErrInvalidDetail: the ref, the position of the bad part, what fits there.
 * `want` is a type's name (`number`), or null for an object's keys (their type is
 * `string`, and `oneOf` lists them).
 */
export class RefErrInvalidDetail {
  // Own enumerable fields in OPA's JSON order: ref, pos, want (a type), oneOf (null
  // when there are no keys, as Go writes a nil slice).
  readonly ref: unknown[];
  readonly pos: number;
  readonly want: { type: string };
  readonly oneOf: unknown[] | null;
  private readonly wantText: string | null;
  constructor(
    private readonly term: RefTerm,
    pos: number,
    want: string | null,
    private readonly keys: string[],
  ) {
    Object.defineProperty(this, 'term', { enumerable: false });
    Object.defineProperty(this, 'keys', { enumerable: false });
    this.ref = [term.head, ...term.path].map(termJSON);
    this.pos = pos;
    this.want = { type: want ?? 'string' };
    this.oneOf = keys.length > 0 ? keys.map((k) => ({ type: 'string', value: k })) : null;
    this.wantText = want;
    Object.defineProperty(this, 'wantText', { enumerable: false });
  }

  /** The lines ast.Error.Error() prints after the message. */
  detailLines(): string[] {
    const ref = formatTerm(this.term);
    const prefix = formatTerm({ ...this.term, path: this.term.path.slice(0, this.pos - 1) } as RefTerm);
    const pad = ' '.repeat(prefix.length + 1);
    const have = this.term.path[this.pos - 1]!;
    const lines = [ref, pad + '^', `${pad}have: ${formatTerm(have)}`];
    if (this.keys.length > 0) lines.push(`${pad}want (one of): [${this.keys.map((k) => formatTerm({ kind: 'string', value: k, loc: this.term.loc })).join(' ')}]`);
    else lines.push(`${pad}want (type): ${this.wantText}`);
    return lines;
  }
}

/**
 * OPA's RefErrUnsupportedDetail: a ref that goes on past a scalar (`p := 1`, `p.x`).
 * `pos` is the position of the scalar's last term; printed as the ref, carets under
 * the scalar's part, and `have: number`.
 */
export class RefErrUnsupportedDetail {
  readonly ref: unknown[];
  readonly pos: number;
  readonly have: { type: string };
  constructor(
    private readonly term: RefTerm,
    pos: number,
    have: string,
  ) {
    Object.defineProperty(this, 'term', { enumerable: false });
    this.ref = [term.head, ...term.path].map(termJSON);
    this.pos = pos;
    this.have = { type: have };
  }

  detailLines(): string[] {
    const prefix = formatTerm({ ...this.term, path: this.term.path.slice(0, this.pos) } as RefTerm);
    return [formatTerm(this.term), '^'.repeat(prefix.length), `have: ${this.have.type}`];
  }
}

function termJSON(t: Term): unknown {
  switch (t.kind) {
    case 'var':
      return { type: 'var', value: t.name };
    case 'string':
      return { type: 'string', value: t.value };
    case 'number':
      return { type: 'number', value: Number(t.value) };
    default:
      return { type: t.kind };
  }
}

/**
 * OPA's UnificationErrDetail, the details of a `match error`: the two types (as OPA's
 * type JSON) that do not unify, printed `left  : number` / `right : string`.
 */
export class UnificationErrDetail {
  constructor(
    readonly a: object,
    readonly b: object,
    private readonly leftText: string,
    private readonly rightText: string,
  ) {
    Object.defineProperty(this, 'leftText', { enumerable: false });
    Object.defineProperty(this, 'rightText', { enumerable: false });
  }

  detailLines(): string[] {
    return [`left  : ${this.leftText}`, `right : ${this.rightText}`];
  }
}
