// regent exec: OPA's cmd/testdata/script/exec.txtar cases (input from a file, from
// stdin, --fail-non-empty) and the report shape of cmd/internal/exec/json_reporter.go:
// {"result": [{"path": …, "result": …} | {"error": {code, message}, "path": …}]},
// files walked recursively in lexical order, non-JSON/YAML files skipped.
import { describe, expect, it } from 'vitest';
import { execCommand } from '../../../cli/exec.js';
import { capture, tempTree } from './helpers.js';

const FILES = {
  'policy/pkg.rego': 'package pkg\n\np if input.foo == "bar"\n\nitems contains x if some x in input.items\n',
  'policy/err.rego': 'package e\n\nx = input.a\n\nx = input.b\n',
  'input.json': '{"foo": "bar"}',
  'inputs/a.json': '{"foo": "bar", "items": [1]}',
  'inputs/sub/b.yaml': 'foo: baz\n',
  'inputs/notes.txt': 'not an input',
};

async function exec(argv: string[], stdin = '') {
  const t = tempTree(FILES);
  try {
    const c = capture(stdin);
    const code = await execCommand(argv.map((a) => a.replaceAll('$DIR', t.dir)), c.io);
    return { code, out: c.out.replaceAll(t.dir, '$DIR'), err: c.err.replaceAll(t.dir, '$DIR') };
  } finally {
    t.cleanup();
  }
}

describe('regent exec', () => {
  it('evaluates the decision for an input file (exec.txtar: input from file)', async () => {
    const r = await exec(['--bundle', '$DIR/policy/', '--decision', '/pkg/p', '$DIR/input.json']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toBe('{\n  "result": [\n    {\n      "path": "$DIR/input.json",\n      "result": true\n    }\n  ]\n}\n');
  });

  it('reads --stdin-input as the path "--stdin-input"', async () => {
    const r = await exec(['--bundle', '$DIR/policy/', '--decision', '/pkg/p', '--stdin-input'], '{"foo": "bar"}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ result: [{ result: true, path: '--stdin-input' }] });
  });

  it('walks directories and reports undefined decisions as the SDK error', async () => {
    const r = await exec(['-b', '$DIR/policy', '--decision', 'pkg/p', '$DIR/inputs']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      result: [
        { result: true, path: '$DIR/inputs/a.json' },
        { error: { code: 'opa_undefined_error', message: 'pkg/p decision was undefined' }, path: '$DIR/inputs/sub/b.yaml' },
      ],
    });
  });

  it('--fail-non-empty fails on a defined result (exec.txtar)', async () => {
    const r = await exec(['--bundle', '$DIR/policy/', '--fail-non-empty', '--decision', '/pkg/p', '$DIR/input.json']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('"result": true');
    const log = JSON.parse(r.err) as Record<string, string>;
    expect(log).toMatchObject({ err: 'exec error: there were 1 failures and 0 errors counted in the results list, and --fail-non-empty is set', level: 'error', msg: 'Unexpected error.' });
  });

  it('--fail counts undefined decisions; --fail-non-empty passes an empty set', async () => {
    const fail = await exec(['-b', '$DIR/policy', '--decision', 'pkg/p', '--fail', '$DIR/inputs']);
    expect(fail.code).toBe(1);
    expect(fail.err).toContain('there were 0 failures and 1 errors counted in the results list, and --fail is set');
    const empty = await exec(['-b', '$DIR/policy', '--decision', 'pkg/items', '--fail-non-empty', '--stdin-input'], '{"items": []}');
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.out)).toEqual({ result: [{ result: [], path: '--stdin-input' }] });
  });

  it('reads stdin first, then the files (cmd/internal/exec TestExec output)', async () => {
    const r = await exec(['-b', '$DIR/policy/', '--stdin-input', '$DIR/input.json'], '{"foo": 7}');
    expect(r.out).toBe(`{
  "result": [
    {
      "path": "--stdin-input",
      "error": {
        "code": "opa_undefined_error",
        "message": "/system/main decision was undefined"
      }
    },
    {
      "path": "$DIR/input.json",
      "error": {
        "code": "opa_undefined_error",
        "message": "/system/main decision was undefined"
      }
    }
  ]
}
`);
  });

  it('reports evaluation errors with their code', async () => {
    const t = await exec(['-b', '$DIR/policy', '--decision', 'e/x', '--stdin-input'], '{"a": 1, "b": 2}');
    expect(t.code).toBe(0);
    const entry = JSON.parse(t.out).result[0];
    expect(Object.keys(entry)).toEqual(['path', 'error']);
    expect(entry.error.code).toBe('eval_conflict_error');
    expect((await exec(['-b', '$DIR/policy', '--decision', 'e/x', '--fail-defined', '--stdin-input'], '{"a": 1, "b": 2}')).code).toBe(1);
  });

  it('uses /system/main without --decision and needs a path', async () => {
    const r = await exec(['-b', '$DIR/policy', '$DIR/input.json']);
    expect(JSON.parse(r.out).result[0].error.message).toBe('/system/main decision was undefined');
    const none = await exec(['-b', '$DIR/policy']);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.err).err).toBe('requires at least 1 path arg, or the --stdin-input flag');
  });
});
