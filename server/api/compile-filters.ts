// Data filters: POST and GET /v1/compile/{path} (OPA's v1CompileFilters). The
// document at `data.<path>` is partially evaluated with the unknowns (request
// `unknowns`, else the `compile:` annotations of the rule; no default to `input`)
// and translated into the filter the Accept header asks for:
//   application/vnd.opa.sql.{postgresql,mysql,sqlserver,sqlite}+json → WHERE text
//   application/vnd.opa.ucast.{all,minimal,prisma,linq}+json        → UCAST tree
//   application/vnd.opa.multitarget+json → several, from options.targetDialects
// The reply's Content-Type repeats the Accept value. Order of the steps as OPA:
// body, path, annotations (only when the request leaves unknowns or the mask rule
// open), Accept header, prepare (cached: compile-filters-cache.ts), masks, partial
// evaluation, fragment checks, translation, typo hints (`hints`). Replies: `{"result": {query, masks?}}`,
// `{}` for an unconditional NO (multitarget: the target is left out), `""`/`{}` as
// the query for an unconditional YES. Errors go through api/errors.ts: header and
// body problems 400 invalid_parameter, fragment/annotation errors 400
// evaluation_error, translation and target problems 500 internal_error.
// Successful requests are decision-logged (logFilterDecision, OPA's fields).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { filters as f } from '../../compiler/index.js';
import { fromWireError } from '../engine/evaluate.js';
import { filterPartialEvaluator, setFilterPartialEvaluator } from '../engine/filter-task.js';
import type { WireError } from '../engine/protocol.js';
import { fromJS, type Value } from '../../runtime/index.js';
import { documentMember, goTypeMismatch, requestDocument } from './body.js';
import { readBody } from './body-reader.js';
import { FilterCaches } from './compile-filters-cache.js';
import { DECODE, stringList } from './compile.js';
import { RequestMetrics, logDecision, newDecisionId, type ServerContext } from './context.js';
import { ApiError, MSG, badRequest, toApiError } from './errors.js';
import { RawJSON, stringify } from './json.js';
import { QueryParams, pathSegments } from './params.js';
import { sendTyped } from './reply.js';

const PREFIX = '/v1/compile';

/** Replace the partial evaluator (tests of the route alone, on the main thread: `--workers 0`); undefined restores the compiler's. */
export function setPartialEvaluator(fn: f.PartialEvalFn | undefined): void {
  setFilterPartialEvaluator(fn);
}

/** The partial evaluator of compiler/partial, when the compiler provides it. */
export function partialEvaluator(): f.PartialEvalFn | undefined {
  return filterPartialEvaluator();
}

/** What the filters route reads from a request body. */
export interface FilterRequestBody {
  input?: Value;
  unknowns?: string[];
  disableInlining?: string[];
  mappings?: Record<string, unknown> | null;
  targetDialects?: string[];
  maskRule?: string;
  /** The body's `query` (ignored on this route; logged as OPA logs it). */
  query?: string;
}

/** Decode the body as OPA's CompileFiltersRequestV1 (an empty body is an empty request). */
export function readFilterBody(ctx: ServerContext, req: FastifyRequest): FilterRequestBody {
  const doc = requestDocument(req, ctx.limits, DECODE);
  if (doc === undefined || doc.js === null) return {};
  if (typeof doc.js !== 'object' || Array.isArray(doc.js)) throw badRequest(`${DECODE}: ${goTypeMismatch(doc.js, 'Go value of type server.CompileFiltersRequestV1')}`);
  const js = doc.js as Record<string, unknown>;
  const out: FilterRequestBody = {};
  if (typeof js.query === 'string' && js.query !== '') out.query = js.query;
  const input = documentMember(doc, 'input');
  if (input !== undefined && input.js !== null) out.input = input.exact ?? fromJS(input.js as never);
  const unknowns = stringList(js.unknowns, 'CompileFiltersRequestV1.unknowns');
  if (unknowns) out.unknowns = unknowns;
  const options = js.options;
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' || Array.isArray(options)) throw badRequest(`${DECODE}: ${goTypeMismatch(options, 'Go struct field CompileFiltersRequestV1.options of type struct')}`);
    const o = options as Record<string, unknown>;
    const di = stringList(o.disableInlining, 'CompileFiltersRequestV1.options.disableInlining');
    if (di) out.disableInlining = di;
    const td = stringList(o.targetDialects, 'CompileFiltersRequestV1.options.targetDialects');
    if (td) out.targetDialects = td;
    const m = o.targetSQLTableMappings;
    if (m !== undefined && m !== null) {
      if (typeof m !== 'object' || Array.isArray(m)) throw badRequest(`${DECODE}: ${goTypeMismatch(m, 'Go struct field CompileFiltersRequestV1.options.targetSQLTableMappings of type map[string]interface {}')}`);
      out.mappings = m as Record<string, unknown>;
    }
    if (o.maskRule !== undefined && o.maskRule !== null) {
      if (typeof o.maskRule !== 'string') throw badRequest(`${DECODE}: ${goTypeMismatch(o.maskRule, 'Go struct field CompileFiltersRequestV1.options.maskRule of type string')}`);
      if (o.maskRule !== '') out.maskRule = o.maskRule;
    }
  }
  return out;
}

/** The Accept header check (OPA's sanitizeHeader): exactly one known media type. */
export function acceptedMediaType(req: FastifyRequest): string {
  const raw = req.headers.accept;
  const accept = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  if (accept === '') throw badRequest('Accept header: missing required header');
  if (accept.includes(',')) throw badRequest('Accept header: multiple headers not supported');
  if (accept !== 'application/json' && !(accept in f.MEDIA_TYPES)) throw badRequest(`Accept header: unsupported header: ${accept}`);
  return accept;
}

/** A request's maskRule option as a data path (relative names are in the URL path's package). */
function requestMaskRule(rule: string, path: string[]): string[] {
  const full = rule.startsWith('data.') ? rule : `${f.dataRefText(path.slice(0, -1))}.${rule}`;
  const p = f.dataPath(full);
  if (!p) throw badRequest(`error(s) occurred while parsing mask_rule name: ${rule}`);
  return p;
}

/** A GET request's body (Fastify reads bodies of other methods only), under the same limits. */
async function readGetBody(ctx: ServerContext, req: FastifyRequest): Promise<void> {
  if (req.method !== 'GET' || req.body !== undefined) return;
  const length = Number(req.headers['content-length'] ?? 0);
  if (!(length > 0) && req.headers['transfer-encoding'] === undefined) return;
  (req as { body: unknown }).body = await readBody(req, req.raw, { maxLength: ctx.config.maxLength, gzipMaxLength: ctx.config.gzipMaxLength, maxDepth: ctx.limits.maxDepth });
}

async function handle(ctx: ServerContext, caches: FilterCaches, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  await readGetBody(ctx, req);
  const params = QueryParams.fromUrl(req.url);
  const metrics = new RequestMetrics();
  const timers: Record<string, number> = {};
  metrics.add(timers);
  let t = process.hrtime.bigint();
  const body = readFilterBody(ctx, req);
  const path = pathSegments(req.url, PREFIX);
  if (path.length === 0) throw badRequest("missing required 'path' parameter");
  let unknowns: string[] | undefined;
  if (body.unknowns && body.unknowns.length > 0) {
    try {
      unknowns = f.parseUnknowns(body.unknowns);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
  }
  let maskRule = body.maskRule !== undefined ? requestMaskRule(body.maskRule, path) : undefined;
  timers.timer_rego_query_parse_ns = Number(process.hrtime.bigint() - t);
  if (unknowns === undefined || maskRule === undefined) {
    t = process.hrtime.bigint();
    const found = caches.annotations(path);
    unknowns ??= found.unknowns;
    maskRule ??= found.maskRule;
    timers.timer_compile_extract_annotations_unknowns_ns = Number(process.hrtime.bigint() - t);
  }
  const accept = acceptedMediaType(req);
  const selected = accept === 'application/json' ? { target: '', dialect: '' } : f.MEDIA_TYPES[accept]!;
  const multi = selected === 'multi';
  const targets = multi ? f.parseTargetDialects(body.targetDialects ?? []) : [selected];
  // Prepared, partially evaluated and translated where evaluations run (a worker
  // thread, or in-process with --workers 0), under the evaluation deadline.
  const instrument = params.bool('instrument');
  const spec: f.FilterSpec = {
    path,
    targets,
    unknowns,
    ...(maskRule ? { maskRule } : {}),
    ...(body.mappings !== undefined ? { mappings: body.mappings as f.FilterSpec['mappings'] } : {}),
    ...(body.disableInlining ? { disableInlining: body.disableInlining } : {}),
  };
  const pretty = params.bool('pretty');
  const outcome = await ctx.engine.evaluate({ query: '', mode: 'filter', filter: { spec, multi }, strictBuiltinErrors: false, pretty, ...(instrument ? { instrument: true } : {}) }, body.input);
  const { timer_rego_input_parse_ns: _inputParse, ...runTimers } = outcome.timers; // not reported here (the body's input is already a value)
  void _inputParse;
  Object.assign(timers, runTimers);
  if (outcome.error) throw filterApiError(outcome.error);
  // Rendered by the evaluator, newline-terminated (api/json.ts stringify).
  const rendered = pretty ? outcome.resultPretty : outcome.resultText;
  const result = rendered === undefined ? undefined : new RawJSON(rendered.slice(0, -1));
  const hints = outcome.hints;
  const withMetrics = params.bool('metrics') || instrument;
  const text = stringify({ result, metrics: withMetrics ? metrics.snapshot() : undefined, hints }, pretty);
  logFilterDecision(ctx, req, body, path, outcome.resultText, unknowns, maskRule, metrics);
  return sendTyped(req, reply, 200, accept, text);
}

/** A filter task's error as the API error it was on the main thread (filter-task.ts codes). */
function filterApiError(err: WireError): ApiError {
  if (err.code === 'filter_ast') return new ApiError(400, 'evaluation_error', MSG.evalQuery, err.filterErrors ?? []);
  if (err.code === 'filter_error') return new ApiError(500, 'internal_error', err.message);
  return toApiError(fromWireError(err));
}

/**
 * The decision log event of a successful filter request, as OPA's v1CompileFilters
 * logs it: `path` the URL path (`filters/include`), `query` the body's query if
 * any, `input` the request input, `result` the reply's result (absent for an
 * unconditional NO), metrics, and `custom` = {mask_rule, options, type, unknowns}:
 * the mask rule ref ("" when none), the request options as sent (empty ones
 * left out), `open-policy-agent/compile`, and the unknowns used (request or
 * annotations). Failed requests are not logged (OPA returns before logging).
 */
function logFilterDecision(ctx: ServerContext, req: FastifyRequest, body: FilterRequestBody, path: string[], resultText: string | undefined, unknowns: string[], maskRule: string[] | undefined, metrics: RequestMetrics): void {
  const decisionId = newDecisionId(ctx);
  if (decisionId === undefined) return;
  const options: Record<string, unknown> = {};
  if (body.disableInlining && body.disableInlining.length > 0) options.disableInlining = body.disableInlining;
  if (body.mappings && Object.keys(body.mappings).length > 0) options.targetSQLTableMappings = body.mappings;
  if (body.targetDialects && body.targetDialects.length > 0) options.targetDialects = body.targetDialects;
  if (body.maskRule !== undefined) options.maskRule = body.maskRule;
  logDecision(ctx, req, {
    decisionId,
    path: path.join('/'),
    ...(body.query !== undefined ? { query: body.query } : {}),
    ...(body.input !== undefined ? { inputValue: body.input } : {}),
    ...(resultText !== undefined ? { resultText } : {}),
    metrics: metrics.snapshot(),
    custom: { mask_rule: maskRule ? f.dataRefText(maskRule) : '', options, type: 'open-policy-agent/compile', unknowns },
  });
}

export function registerCompileFilterRoutes(app: FastifyInstance, ctx: ServerContext): FilterCaches {
  const caches = new FilterCaches(ctx.engine);
  const config = { handler: 'v1/compile' };
  app.route({ method: ['GET', 'POST'], url: `${PREFIX}/*`, config, handler: (req, reply) => handle(ctx, caches, req, reply) });
  return caches;
}

