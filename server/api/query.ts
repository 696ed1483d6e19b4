// Query API: GET /v1/query?q=<rego> and POST /v1/query {query, input} run an
// ad-hoc query and return one bindings object per solution; POST / evaluates the
// default decision (config `default_decision`) with the body as input.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { goJSONError } from '../../runtime/index.js';
import { fromWireError } from '../engine/evaluate.js';
import { bodyText, documentMember, goTypeMismatch, parseDocument, type ParsedDocument } from './body.js';
import { RequestMetrics, inputPayload, logDecision, newDecisionId, type ServerContext } from './context.js';
import { webhookDecision } from './data.js';
import { ApiError, badRequest, toApiError } from './errors.js';
import { RawJSON, stringify } from './json.js';
import { QueryParams, configPathSegments, toDataPath } from './params.js';
import { sendJSON } from './reply.js';

async function runQuery(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, query: string, input: ParsedDocument | undefined): Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  const metrics = new RequestMetrics();
  const pretty = params.bool('pretty');
  const explain = params.explain();
  const { payload, exact } = inputPayload(input);
  const decisionId = newDecisionId(ctx);
  const outcome = await ctx.engine.evaluate(
    {
      query,
      mode: 'bindings',
      strictBuiltinErrors: false,
      pretty,
      ...(payload ? { input: payload } : {}),
      ...(explain ? { explain } : {}),
      ...(params.bool('instrument') ? { instrument: true } : {}),
    },
    exact,
  );
  metrics.addOutcome(outcome);
  if (outcome.error) {
    logDecision(ctx, req, { decisionId, query, input, error: outcome.error });
    throw toApiError(fromWireError(outcome.error), 'query');
  }
  logDecision(ctx, req, { decisionId, query, input, resultText: outcome.resultText ?? '[]' });
  const body = {
    explanation: explain ? (outcome.explanation ?? []) : undefined,
    metrics: params.bool('metrics') || params.bool('instrument') ? metrics.snapshot() : undefined,
    result: outcome.resultText !== undefined ? new RawJSON(outcome.resultText) : undefined,
  };
  return sendJSON(req, reply, 200, stringify(body, pretty));
}

function postBody(ctx: ServerContext, req: FastifyRequest): { query: string; input?: ParsedDocument } {
  const prefix = 'error(s) occurred while decoding request';
  const text = bodyText(req, ctx.limits, false);
  const doc = parseDocument(text, false, ctx.limits, prefix);
  if (doc === undefined) throw badRequest(`${prefix}: ${goJSONError(text)}`);
  // OPA decodes the body into types.QueryRequestV1 (JSON null decodes to the empty request).
  if (doc.js === null) return { query: '' };
  if (typeof doc.js !== 'object' || Array.isArray(doc.js)) throw badRequest(`${prefix}: ${goTypeMismatch(doc.js, 'Go value of type types.QueryRequestV1')}`);
  const query = (doc.js as Record<string, unknown>).query;
  if (query !== undefined && query !== null && typeof query !== 'string') throw badRequest(`${prefix}: ${goTypeMismatch(query, 'Go struct field QueryRequestV1.query of type string')}`);
  const input = documentMember(doc, 'input');
  return { query: (query as string | null | undefined) ?? '', ...(input !== undefined && input.js !== null ? { input } : {}) };
}

export function registerQueryRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const config = { handler: 'v1/query' };
  app.get('/v1/query', { config }, (req, reply) => {
    const q = QueryParams.fromUrl(req.url).last('q');
    if (q === undefined) throw badRequest("missing parameter 'q'");
    return runQuery(ctx, req, reply, q, undefined);
  });
  app.post('/v1/query', { config }, (req, reply) => {
    const { query, input } = postBody(ctx, req);
    if (query.trim() === '') throw new ApiError(400, 'invalid_parameter', 'error(s) occurred while parsing query', [{ code: 'rego_parse_error', message: 'empty query' }]);
    return runQuery(ctx, req, reply, query, input);
  });
  app.post('/', { config: { handler: 'index' } }, (req, reply) => {
    const segs = configPathSegments(ctx.config.defaultDecision);
    return webhookDecision(ctx, req, reply, toDataPath(segs), segs.join('/'));
  });
}
