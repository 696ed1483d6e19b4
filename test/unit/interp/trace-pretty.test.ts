// The location column of pretty traces (compiler/interp/trace-pretty.ts): long file
// paths are shortened as OPA's getShortenedFileNames does. The cases and the expected
// aliases are those of OPA's TestShortTraceFileNames (v1/topdown/trace_test.go).
import { describe, expect, it } from 'vitest';
import { prettyTrace } from '../../../compiler/interp/trace-pretty.js';
import type { TraceEvent } from '../../../compiler/interp/trace.js';

const LONG1 = '/really/long/file/path/longer/than/most/would/really/ever/be/policy.rego';
const LONG1_SIMILAR = '/really/long/file/path/longer/than/most/policy.rego';
const LONG2 = 'GfjEjnMA6coNiPoMoRMVk7KeorGeRmjRkIYUsWtr564SQ7yDo4Yss2SoN8PMoe0TOfVaNFd1HQbC9NhK.rego';
const LONG3 = 'RqS50uWAOxqqHmzdKVM3OCVsZDb12FJikUYHhz9pNqMWx3wjeQBKY3UYXsJXzYGOzuYZbidag5SfKVdk.rego';

/** A Note event at `file:row` (a Note needs no node). */
function at(file: string, row: number): TraceEvent {
  return { op: 'Note', queryId: 1, parentId: 0, locals: [], message: 'n', location: { file, row, col: 1, offset: 0 } };
}

/** The location cell of each line. */
function locations(events: TraceEvent[]): string[] {
  return prettyTrace(events, { locations: true })
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s+/)[0]!);
}

describe('pretty trace locations', () => {
  it('keeps short names, and the query as query:row', () => {
    expect(locations([at('policy.rego', 1), at('policy.rego', 1234), at('', 3)])).toEqual(['policy.rego:1', 'policy.rego:1234', 'query:3']);
  });

  it('shortens a long path by its longest common middle part', () => {
    expect(locations([at(LONG1, 1)])).toEqual(['/really/...h/longer/than/most/would/really/ever/be/policy.rego:1']);
    const rows = [1, 1234, 123, 12];
    expect(locations(rows.map((r) => at(LONG1, r)))).toEqual(rows.map((r) => `/really/...onger/than/most/would/really/ever/be/policy.rego:${r}`));
    expect(locations([at(LONG1.slice(1), 1)])).toEqual(['really/...th/longer/than/most/would/really/ever/be/policy.rego:1']);
  });

  it('shortens several paths by what they share, and leaves paths that share nothing', () => {
    expect(locations([at(LONG1_SIMILAR, 1), at(LONG1, 1234)])).toEqual(['/really/...onger/than/most/policy.rego:1', '/really/...onger/than/most/would/really/ever/be/policy.rego:1234']);
    expect(locations([at(LONG2, 1), at(LONG3, 1234)])).toEqual([`${LONG2}:1`, `${LONG3}:1234`]);
  });
});
