// Data API: GET/POST /v1/data[/{path}] evaluate the document at the path (with
// input), PUT/PATCH/DELETE write base documents, and POST /v0/data[/{path}] is the
// webhook form whose body is the input and whose answer is the bare value.
// Undefined is 200 without `result` on /v1 and 404 undefined_document on /v0.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RObject, goEscapeHTML, goJSONError, parseJSON, type Value } from '../../runtime/index.js';
import { fromWireError } from '../engine/evaluate.js';
import { LARGE_DOCUMENT_BYTES } from '../engine/shared-docs.js';
import type { EvalOutcome } from '../engine/protocol.js';
import { bodyText, documentMember, goTypeMismatch, parseDocument, requestDocument, type ParsedDocument } from './body.js';
import { RequestMetrics, inputPayload, logDecision, newDecisionId, provenance, type ServerContext } from './context.js';
import { ApiError, badRequest } from './errors.js';
import { RawJSON, stringify } from './json.js';
import { QueryParams, dataPath, pathSegments, refText, type DataPath } from './params.js';
import { sendEmpty, sendJSON } from './reply.js';

const MISSING_INPUT_WARNING = { code: 'api_usage_warning', message: "'input' key missing from the request" };

interface ReadOptions {
  params: QueryParams;
  input?: ParsedDocument | undefined;
  warning?: typeof MISSING_INPUT_WARNING;
}

/** Evaluate the document at a data path; errors come back in the outcome. */
export function evaluatePath(
  ctx: ServerContext,
  dp: DataPath,
  input: ParsedDocument | undefined,
  opts: { strict: boolean; pretty: boolean; explain?: ReturnType<QueryParams['explain']>; instrument?: boolean },
): EvalOutcome | Promise<EvalOutcome> {
  const { payload, exact } = inputPayload(input);
  // One object shape for every Data API task (the engine completes it in place).
  const task = {
    query: dp.query,
    mode: 'value' as const,
    path: dp.direct ? dp.segs : undefined,
    pathKey: dp.key,
    strictBuiltinErrors: opts.strict,
    pretty: opts.pretty,
    input: payload,
    explain: opts.explain,
    instrument: opts.instrument === true ? true : undefined,
  };
  return ctx.engine.evaluateNow(task, exact);
}

/** Continue with `fn` now when the outcome is at hand (in-process evaluation), or once it arrives. */
function withOutcome<T>(pending: EvalOutcome | Promise<EvalOutcome>, fn: (outcome: EvalOutcome) => T): T | Promise<T> {
  return pending instanceof Promise ? pending.then(fn) : fn(pending);
}

/**
 * The response body when only `result` (and `decision_id`, with decision logging)
 * is asked for: the common case, built directly in OPA's field order.
 */
function plainResultBody(resultText: string | undefined, decisionId: string | undefined): string {
  const id = decisionId === undefined ? '' : '"decision_id":' + JSON.stringify(decisionId);
  if (resultText === undefined) return '{' + id + '}\n';
  return '{"result":' + goEscapeHTML(resultText) + (id ? ',' + id : '') + '}\n';
}

// Not async: with in-process evaluation the whole request is answered synchronously.
function readData(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, opts: ReadOptions): FastifyReply | Promise<FastifyReply> {
  const { params } = opts;
  const metrics = new RequestMetrics();
  // No query string (most decision requests): no param lookups.
  const plain = params.empty;
  const instrument = !plain && params.bool('instrument');
  const wantMetrics = !plain && (params.bool('metrics') || instrument);
  const pretty = !plain && params.bool('pretty');
  const explain = plain ? undefined : params.explain();
  const provenanceWanted = !plain && params.bool('provenance');
  const dp = dataPath(req.url, '/v1/data');
  const decisionId = newDecisionId(ctx);
  const pending = evaluatePath(ctx, dp, opts.input, { strict: !plain && params.bool('strict-builtin-errors'), pretty, explain, instrument });
  return withOutcome(pending, (outcome) => {
    metrics.addOutcome(outcome);
    const path = decisionId === undefined ? undefined : dp.segs.join('/');
    if (outcome.error) {
      const err = fromWireError(outcome.error);
      logDecision(ctx, req, { decisionId, path, input: opts.input, error: outcome.error, requestMetrics: metrics });
      throw err;
    }
    if (decisionId !== undefined) logDecision(ctx, req, { decisionId, path, input: opts.input, resultText: outcome.resultText, resultIsValueText: true, requestMetrics: metrics });
    const defined = outcome.resultText !== undefined;
    if (!pretty && !wantMetrics && !provenanceWanted && !explain && !opts.warning) {
      return sendJSON(req, reply, 200, plainResultBody(outcome.resultText, decisionId));
    }
    const body = {
      provenance: provenanceWanted ? provenance(ctx) : undefined,
      metrics: wantMetrics ? metrics.snapshot() : undefined,
      result: defined ? new RawJSON(outcome.resultText!) : undefined,
      warning: opts.warning,
      decision_id: decisionId,
      explanation: explain && (defined || explain === 'full') ? (outcome.explanation ?? []) : undefined,
    };
    return sendJSON(req, reply, 200, stringify(body, pretty));
  });
}

function parseInputParam(params: QueryParams): ParsedDocument | undefined {
  const text = params.last('input');
  if (text === undefined) return undefined;
  const limits = { gzipMaxLength: Infinity, maxDepth: 1000 };
  const doc = parseDocument(text, false, limits, 'parameter contains malformed input document', 'unmarshal');
  if (doc === undefined) throw badRequest(`parameter contains malformed input document: ${goJSONError(text, 'unmarshal')}`);
  return doc;
}

function postInput(ctx: ServerContext, req: FastifyRequest): { input?: ParsedDocument; warning?: typeof MISSING_INPUT_WARNING } {
  const doc = requestDocument(req, ctx.limits, 'body contains malformed input document');
  // OPA decodes the body into types.DataRequestV1: JSON null leaves input unset.
  if (doc === undefined || doc.js === null) return { warning: MISSING_INPUT_WARNING };
  if (typeof doc.js !== 'object' || Array.isArray(doc.js)) {
    throw badRequest(`body contains malformed input document: ${goTypeMismatch(doc.js, 'Go value of type types.DataRequestV1')}`);
  }
  const input = documentMember(doc, 'input');
  if (input === undefined || input.js === null) return { warning: MISSING_INPUT_WARNING };
  return { input };
}

/** The parsed JSON body of PUT/PATCH (no gzip, no YAML, exact numbers). */
function jsonBody(ctx: ServerContext, req: FastifyRequest): Value {
  const text = bodyText(req, ctx.limits, false);
  const doc = parseDocument(text, false, ctx.limits, ''); // OPA reports the decoder's error as is
  if (doc === undefined) throw badRequest(goJSONError(text));
  return doc.exact ?? parseJSON(JSON.stringify(doc.js));
}

function storagePath(req: FastifyRequest): string[] {
  return pathSegments(req.url, '/v1/data');
}

function writeReply(req: FastifyRequest, reply: FastifyReply, params: QueryParams, metrics: RequestMetrics): FastifyReply {
  if (params.bool('metrics')) return sendJSON(req, reply, 200, stringify({ metrics: metrics.snapshot() }));
  return sendEmpty(reply, 204);
}

async function putData(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  const metrics = new RequestMetrics();
  const path = storagePath(req);
  ctx.engine.store.checkPathScope(path);
  // A large body is parsed off the request path (worker threads, or slices), see Engine.prepareDocument.
  const raw = req.body;
  const large = Buffer.isBuffer(raw) && raw.length >= LARGE_DOCUMENT_BYTES ? await ctx.engine.prepareDocument(raw, ctx.limits.maxDepth) : undefined;
  try {
    const value = large ? large.value : jsonBody(ctx, req);
    const exists = ctx.engine.store.read(path) !== undefined;
    if (exists && req.headers['if-none-match'] === '*') return sendEmpty(reply, 304);
    await ctx.engine.writeData([path], (txn) => {
      if (path.length === 0) {
        txn.write('add', [], value);
      } else if (txn.read(path) !== undefined) {
        txn.write('replace', path, value);
      } else {
        txn.makeParents(path);
        txn.write('add', path, value);
      }
    });
  } finally {
    large?.release();
  }
  return writeReply(req, reply, params, metrics);
}

interface PatchOp {
  op: 'add' | 'remove' | 'replace';
  path: string[];
  value?: Value;
}

function parsePatch(body: Value, base: string[]): PatchOp[] {
  if (!Array.isArray(body)) throw badRequest('body contains malformed patch: want an array of operations');
  return body.map((item) => {
    if (!(item instanceof RObject)) throw badRequest('body contains malformed patch: want an array of operations');
    const op = item.get('op');
    if (op !== 'add' && op !== 'remove' && op !== 'replace') throw badRequest(`bad patch operation: ${typeof op === 'string' ? op : JSON.stringify(op ?? null)}`);
    const p = item.get('path');
    if (typeof p !== 'string') throw badRequest(`bad patch path: ${JSON.stringify(p ?? null)}`);
    const segs = p
      .split('/')
      .filter((s) => s !== '')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const value = item.get('value');
    if (op !== 'remove' && value === undefined) throw badRequest(`bad patch value: missing for ${op} ${p}`);
    return { op, path: [...base, ...segs], ...(op === 'remove' ? {} : { value }) };
  });
}

async function patchData(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  const metrics = new RequestMetrics();
  const raw = req.body;
  const large = Buffer.isBuffer(raw) && raw.length >= LARGE_DOCUMENT_BYTES ? await ctx.engine.prepareDocument(raw, ctx.limits.maxDepth, 'patch') : undefined;
  try {
    const ops = parsePatch(large ? large.value : jsonBody(ctx, req), storagePath(req));
    for (const op of ops) ctx.engine.store.checkPathScope(op.path);
    await ctx.engine.writeData(
      ops.map((o) => o.path),
      (txn) => {
        for (const op of ops) txn.write(op.op, op.path, op.value);
      },
    );
  } finally {
    large?.release();
  }
  return writeReply(req, reply, params, metrics);
}

async function deleteData(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  const metrics = new RequestMetrics();
  const path = storagePath(req);
  ctx.engine.store.checkPathScope(path);
  ctx.engine.store.readOrThrow(path);
  await ctx.engine.writeData([path], (txn) => txn.write('remove', path));
  return writeReply(req, reply, params, metrics);
}

/** POST /v0/data and POST /: the body is the input; the answer is the bare value. */
export function webhookDecision(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, dp: DataPath, logPath: string): FastifyReply | Promise<FastifyReply> {
  const segs = dp.segs;
  const params = QueryParams.fromUrl(req.url);
  const doc = requestDocument(req, ctx.limits, 'unexpected parse error for input: body contains malformed input document') ?? { js: null };
  const decisionId = newDecisionId(ctx);
  return withOutcome(evaluatePath(ctx, dp, doc, { strict: false, pretty: params.bool('pretty') }), (outcome) => {
    if (outcome.error) {
      logDecision(ctx, req, { decisionId, path: logPath, input: doc, error: outcome.error });
      throw fromWireError(outcome.error);
    }
    logDecision(ctx, req, { decisionId, path: logPath, input: doc, resultText: outcome.resultText });
    if (outcome.resultText === undefined) {
      const kind = ctx.engine.hasRulesFor(segs) ? 'document undefined' : 'document missing';
      throw new ApiError(404, 'undefined_document', `${kind}: ${refText(segs)}`);
    }
    return sendJSON(req, reply, 200, outcome.resultText + '\n');
  });
}

/** GET/POST /v1/data[/{path}]: the Fastify routes and the fast path (fast-path.ts) both answer here. */
export function readDecision(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  if (req.method === 'GET') return readData(ctx, req, reply, { params, input: parseInputParam(params) });
  return readData(ctx, req, reply, { params, ...postInput(ctx, req) });
}

export function registerDataRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const gzip = { handler: 'v1/data' };
  for (const url of ['/v1/data', '/v1/data/*']) {
    app.get(url, { config: gzip }, (req, reply) => readDecision(ctx, req, reply));
    app.post(url, { config: gzip }, (req, reply) => readDecision(ctx, req, reply));
    app.put(url, { config: { handler: 'v1/data' } }, (req, reply) => putData(ctx, req, reply));
    app.patch(url, { config: { handler: 'v1/data' } }, (req, reply) => patchData(ctx, req, reply));
  }
  app.delete('/v1/data/*', { config: { handler: 'v1/data' } }, (req, reply) => deleteData(ctx, req, reply));
  for (const url of ['/v0/data', '/v0/data/*']) {
    app.post(url, { config: { handler: 'v0/data' } }, (req, reply) => {
      const dp = dataPath(req.url, '/v0/data');
      return webhookDecision(ctx, req, reply, dp, dp.segs.join('/'));
    });
  }
}
