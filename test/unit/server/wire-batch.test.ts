// The flat wire form of evaluation batches and their answers (server/engine/wire-batch.ts):
// every task and outcome must come out of a real structured clone (what postMessage does)
// carrying what the evaluator and the API read, whichever shape it has.
import { describe, expect, it } from 'vitest';
import type { EvalOutcome, EvalTask } from '../../../server/engine/protocol.js';
import { batchLength, batchSlot, batchTask, encodeBatch, encodeOutcomes, newestGeneration, outcomeAt, outcomesLength } from '../../../server/engine/wire-batch.js';

/** The fields of a task that mean something (undefined fields dropped), for comparison. */
const meaning = (t: EvalTask): Record<string, unknown> => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined && v !== false));

const read = (extra: Partial<EvalTask>): EvalTask => ({ generation: 3, query: 'data.rbac.allow', mode: 'value', path: ['rbac', 'allow'], pathKey: 'rbac\u0000allow', strictBuiltinErrors: false, pretty: false, ...extra });

const tasks: EvalTask[] = [
  read({}),
  read({ input: { kind: 'js', js: { user: 'bob', n: [1, -0.5, null, true], nested: { 'a b': '\u0000x' } } } }),
  read({ input: { kind: 'text', text: '{"big":123456789012345678901234567890}' }, strictBuiltinErrors: true, pretty: true, timeoutMs: 250 }),
  read({ input: { kind: 'js', js: null }, instrument: true, explain: 'full', generation: 9 }),
  read({ path: undefined, pathKey: undefined, query: 'x := input.a', input: { kind: 'js', js: 'str' }, explain: 'notes' }),
  { generation: 4, query: 'data.p.q == true', mode: 'partial', partial: { unknowns: ['input.x'], disableInlining: ['data.p'] }, strictBuiltinErrors: false, pretty: false, input: { kind: 'js', js: { a: 1 } } },
  { generation: 5, query: '', mode: 'filter', filter: { spec: { path: ['filters', 'include'], targets: ['ucast'], unknowns: ['input.fruits'] } as never, multi: true }, strictBuiltinErrors: false, pretty: true },
  { generation: 2, query: 'data.x', mode: 'bindings', strictBuiltinErrors: true, pretty: false },
];

describe('the wire form of a batch', () => {
  const posted = structuredClone(encodeBatch(tasks, 17));

  it('keeps the watchdog slot, the count and the newest generation', () => {
    expect(batchSlot(posted)).toBe(17);
    expect(batchLength(posted)).toBe(tasks.length);
    expect(newestGeneration(posted)).toBe(9);
    expect(newestGeneration(structuredClone(encodeBatch([], -1)))).toBe(-1);
  });

  it('gives back every task with the fields it had, in order', () => {
    for (let i = 0; i < tasks.length; i++) expect(meaning(batchTask(posted, i)), `task ${i}`).toEqual(meaning(tasks[i]!));
  });

  it('decodes the flat tasks to one object shape (the evaluator reads them monomorphically)', () => {
    const keys = [0, 1, 2, 3, 4].map((i) => Object.keys(batchTask(posted, i)).join(','));
    expect(new Set(keys).size).toBe(1);
  });

  it('is an array of primitives and plain documents, not task objects, for plain reads', () => {
    const flat = encodeBatch([tasks[1]!], -1);
    expect(flat.some((x) => typeof x === 'object' && x !== null && 'query' in x)).toBe(false);
  });
});

describe('the wire form of a batch\'s answers', () => {
  const outcomes: EvalOutcome[] = [
    { timers: { timer_rego_input_parse_ns: 1200, timer_rego_query_eval_ns: 3400 }, cacheHit: true, resultText: 'true' },
    { timers: {}, cacheHit: false },
    { timers: { timer_rego_query_eval_ns: 5 }, cacheHit: false, resultText: '{"a":[1,2]}' },
    { timers: { timer_rego_query_eval_ns: 7 }, cacheHit: true, error: { kind: 'eval', phase: 'eval', code: 'eval_conflict_error', message: 'complete rules must not produce multiple outputs', location: { file: 'p.rego', row: 3, col: 1 } } },
    { timers: {}, cacheHit: false, resultText: '[]', explanation: ['Enter data.p'] },
    { timers: { timer_compile_prep_partial_ns: 9 }, cacheHit: true, resultText: '{"query":{}}', resultPretty: '{\n  "query": {}\n}', hints: [{ message: 'input.fruit undefined, did you mean input.fruits?' }] },
  ];
  const posted = structuredClone(encodeOutcomes(outcomes));

  it('gives back every outcome with its result, cache flag, timers and the rest', () => {
    expect(outcomesLength(posted)).toBe(outcomes.length);
    for (let i = 0; i < outcomes.length; i++) expect(outcomeAt(posted, i), `outcome ${i}`).toEqual(outcomes[i]);
  });

  it('leaves no resultText on an undefined result (the API answers {} for it)', () => {
    expect('resultText' in outcomeAt(posted, 1)).toBe(false);
  });
});
