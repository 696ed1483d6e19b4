// Compile API, classic partial evaluation: POST /v1/compile (OPA's v1CompilePost).
// The body `{query, input?, unknowns?, options?: {disableInlining?,
// nondeterministicBuiltins?}}` is decoded as Go does (keys matched without regard
// to case, gzip allowed); `unknowns` absent means ["input"], `[]` nothing unknown.
// The query is partially evaluated (compiler/partial) against the engine's policy
// and data; the reply is `{"result": {"queries": [...], "support": [...]}}` in OPA's
// AST JSON, each key left out when empty (`{"result": {}}`: never true).
// Query parameters (OPA's v1CompilePost): pretty; metrics; instrument (metrics
// plus the query's compile stage timers, `timer_query_compile_stage_*_ns`, when
// it is planned: planned queries are cached per policy, query and unknowns);
// explain=notes|fails|full|debug: the partial evaluation's trace (Enter/Eval/
// Save/Exit/Redo/Fail/Note events, recorded by compiler/partial with the
// interpreter's recorder), filtered and rendered as the Query API does
// (server/engine/explain.ts), lines when pretty. The evaluation goes through the
// engine (server/engine: worker pool or in-process) as a task of mode 'partial'.
// Errors: body problems and a missing query 400 invalid_parameter; a query that
// does not parse 400 "error(s) occurred while parsing query"; one that does not
// compile (unsafe vars, types) 400 "error(s) occurred while compiling module(s)";
// a bad unknown ref 400; evaluation errors and unsupported constructs 500.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseQuery, RegoError, RegoErrors } from '../../compiler/index.js';
import { fromWireError } from '../engine/evaluate.js';
import { documentMember, goTypeMismatch, requestDocument, type ParsedDocument } from './body.js';
import { RequestMetrics, inputPayload, type ServerContext } from './context.js';
import { ApiError, MSG, badRequest, toApiError } from './errors.js';
import { RawJSON, stringify } from './json.js';
import { QueryParams } from './params.js';
import { sendJSON } from './reply.js';

export const DECODE = 'error(s) occurred while decoding request';

interface CompileRequest {
  query: string;
  inputDoc?: ParsedDocument;
  unknowns: string[];
  disableInlining?: string[];
  nondeterministicBuiltins: boolean;
}

/** A member of a decoded object, its key matched as Go's decoder does (exact first, then any case). */
function member(o: Record<string, unknown>, key: string): string | undefined {
  if (Object.hasOwn(o, key)) return key;
  const lower = key.toLowerCase();
  return Object.keys(o).find((k) => k.toLowerCase() === lower);
}

/** A `[]string` request field as Go decodes it (absent or null: undefined). */
export function stringList(v: unknown, field: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`${DECODE}: ${goTypeMismatch(v, `Go struct field ${field} of type []string`)}`);
  return v as string[];
}

/** Decode the body as OPA's CompileRequestV1. */
export function readCompileBody(ctx: ServerContext, req: FastifyRequest): CompileRequest {
  const doc = requestDocument(req, ctx.limits, DECODE);
  const js = doc?.js ?? {};
  if (typeof js !== 'object' || Array.isArray(js) || js === null) throw badRequest(`${DECODE}: ${goTypeMismatch(js, 'Go value of type types.CompileRequestV1')}`);
  const o = js as Record<string, unknown>;
  const qk = member(o, 'query');
  const query = qk === undefined ? undefined : o[qk];
  if (query !== undefined && query !== null && typeof query !== 'string') throw badRequest(`${DECODE}: ${goTypeMismatch(query, 'Go struct field CompileRequestV1.query of type string')}`);
  const out: CompileRequest = { query: (query as string | null | undefined) ?? '', unknowns: ['input'], nondeterministicBuiltins: false };
  const ik = member(o, 'input');
  if (ik !== undefined && doc) {
    const input: ParsedDocument | undefined = documentMember(doc, ik);
    if (input !== undefined && input.js !== null) out.inputDoc = input;
  }
  const uk = member(o, 'unknowns');
  const unknowns = uk === undefined ? undefined : stringList(o[uk], 'CompileRequestV1.unknowns');
  if (unknowns) out.unknowns = unknowns;
  const ok = member(o, 'options');
  const options = ok === undefined ? undefined : o[ok];
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' || Array.isArray(options)) throw badRequest(`${DECODE}: ${goTypeMismatch(options, 'Go struct field CompileRequestV1.options of type struct')}`);
    const opts = options as Record<string, unknown>;
    const dk = member(opts, 'disableInlining');
    const di = dk === undefined ? undefined : stringList(opts[dk], 'CompileRequestV1.options.disableInlining');
    if (di) out.disableInlining = di;
    // The Go tag is spelled correctly; the docs' `nondeterminsticBuiltins` is accepted too.
    const nk = member(opts, 'nondeterministicBuiltins') ?? member(opts, 'nondeterminsticBuiltins');
    const ndb = nk === undefined ? undefined : opts[nk];
    if (ndb !== undefined && ndb !== null && typeof ndb !== 'boolean') throw badRequest(`${DECODE}: ${goTypeMismatch(ndb, 'Go struct field CompileRequestV1.options.nondeterministicBuiltins of type bool')}`);
    out.nondeterministicBuiltins = ndb === true;
  }
  return out;
}

function regoErrors(e: RegoErrors | RegoError): unknown[] {
  return (e instanceof RegoErrors ? e.errors : [e]).map((x) => x.toJSON());
}

async function handle(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  const pretty = params.bool('pretty');
  const explain = params.explain();
  const instrument = params.bool('instrument');
  const metrics = new RequestMetrics();
  const timers: Record<string, number> = {};
  metrics.add(timers);
  const body = readCompileBody(ctx, req);
  if (body.query.trim() === '') throw badRequest("missing required 'query' value");
  const t = process.hrtime.bigint();
  try {
    parseQuery(body.query, '', { v0Compatible: ctx.engine.v0Compatible });
  } catch (e) {
    if (e instanceof RegoErrors || e instanceof RegoError) throw new ApiError(400, 'invalid_parameter', MSG.parseQuery, regoErrors(e));
    throw e;
  }
  timers.timer_rego_query_parse_ns = Number(process.hrtime.bigint() - t);
  // Through the engine like every decision: a worker thread evaluates it (or the main
  // thread with --workers 0), against that evaluator's policy and data, within the
  // evaluation deadline.
  const { payload, exact } = inputPayload(body.inputDoc);
  const outcome = await ctx.engine.evaluate(
    {
      query: body.query,
      mode: 'partial',
      partial: { unknowns: body.unknowns, ...(body.disableInlining ? { disableInlining: body.disableInlining } : {}), nondeterministicBuiltins: body.nondeterministicBuiltins },
      strictBuiltinErrors: false,
      pretty,
      ...(payload ? { input: payload } : {}),
      ...(explain ? { explain } : {}),
      ...(instrument ? { instrument: true } : {}),
    },
    exact,
  );
  metrics.addOutcome(outcome);
  const err = outcome.error;
  if (err) {
    if (err.code === 'partial_unknowns' || err.code === 'partial_disableInlining') {
      throw new ApiError(400, 'invalid_parameter', `error(s) occurred while parsing ${err.code.slice('partial_'.length)}`, [{ code: 'rego_parse_error', message: err.message }]);
    }
    if (err.code === 'partial_unsupported') throw new ApiError(500, 'internal_error', err.message);
    if (err.kind === 'rego') throw new ApiError(400, 'invalid_parameter', MSG.compileModules, err.errors ?? []);
    throw toApiError(fromWireError(err), 'query');
  }
  // OPA's CompileResponseV1 field order: result, explanation, metrics.
  const text = stringify(
    {
      result: new RawJSON(outcome.resultText ?? '{}'),
      explanation: explain ? (outcome.explanation ?? []) : undefined,
      metrics: params.bool('metrics') || instrument ? metrics.snapshot() : undefined,
    },
    pretty,
  );
  return sendJSON(req, reply, 200, text);
}

export function registerCompileRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/v1/compile', { config: { handler: 'v1/compile' } }, (req, reply) => handle(ctx, req, reply));
}
