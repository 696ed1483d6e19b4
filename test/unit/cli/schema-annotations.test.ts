// `check`/`eval -s DIR` with `# METADATA` `schemas:` annotations (cli/eval-schema-set.ts):
// a directory gives no global input schema; each file is `schema.<dotted path>`; an
// annotation types `input` or a `data` document for the rules it covers (rule, package,
// subpackages scopes, or an inline definition), and refs outside the schema are OPA's
// `rego_type_error: undefined ref` with have/want lines.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { checkCommand } from '../../../cli/check.js';
import { evalCommand } from '../../../cli/eval.js';
import { capture, tempTree } from './helpers.js';

const POLICY = `package authz

import rego.v1

# METADATA
# schemas:
#   - input: schema.user
#   - data.acl: schema.k8s.acl
allow if {
	input.nmae == "alice"
	data.acl.admin[_] == input.name
}

other if input.anything

# METADATA
# schemas:
#   - input: {"type": "object", "properties": {"id": {"type": "number"}}, "additionalProperties": false}
inline if input.ident
`;

const PKG = `# METADATA
# scope: subpackages
# schemas:
#   - input: schema["user"]
package apps

import rego.v1

ok if input.roles[_] == "admin"
`;

const SUB = `package apps.billing

import rego.v1

bad if input.role == "admin"
`;

const tree = tempTree({
  'schemas/user.json': '{"type": "object", "properties": {"name": {"type": "string"}, "roles": {"type": "array", "items": {"type": "string"}}}, "additionalProperties": false}',
  'schemas/k8s/acl.json': '{"type": "object", "properties": {"admins": {"type": "array", "items": {"type": "string"}}}}',
  'pol/authz.rego': POLICY,
  'apps/apps.rego': PKG,
  'apps/billing.rego': SUB,
  'vars/schema.json': JSON.stringify({
    type: 'object',
    properties: {
      user: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
      containers: { type: 'array', items: { $ref: '#/definitions/container' } },
    },
    definitions: { container: { type: 'object', properties: { image: { type: 'string' } }, additionalProperties: false } },
  }),
  'vars/p.rego': 'package vars\n\nimport rego.v1\n\nr if {\n\tu := input.user\n\tu.nmae == "x"\n\tsome c in input.containers\n\tc.imagee == "y"\n\tu.name == "ok"\n\tc.image == "ok"\n}\n',
});
afterAll(() => tree.cleanup());

const detail = (file: string, row: number, ref: string, col: number, have: string, want: string): string => {
  const pad = '\t' + ' '.repeat(col);
  return `${file}:${row}: rego_type_error: undefined ref: ${ref}\n\t${ref}\n${pad}^\n${pad}have: "${have}"\n${pad}want (one of): ${want}`;
};

describe('schema annotations with -s DIR', () => {
  it('types input and data per rule; rules without an annotation are not checked', () => {
    const file = join(tree.dir, 'pol/authz.rego');
    const c = capture();
    expect(checkCommand(['-s', join(tree.dir, 'schemas'), file], c.io)).toBe(1);
    expect(c.err).toBe(
      '3 errors occurred:\n' +
        [
          detail(file, 10, 'input.nmae', 6, 'nmae', '["name" "roles"]'),
          detail(file, 11, 'data.acl.admin[_]', 9, 'admin', '["admins"]'),
          detail(file, 19, 'input.ident', 6, 'ident', '["id"]'),
        ].join('\n') +
        '\n',
    );
  });

  it('a schema file is the global input schema (every rule), annotations still override it', () => {
    const file = join(tree.dir, 'pol/authz.rego');
    const c = capture();
    expect(checkCommand(['-s', join(tree.dir, 'schemas/user.json'), file], c.io)).toBe(1);
    expect(c.err).toContain(detail(file, 14, 'input.anything', 6, 'anything', '["name" "roles"]'));
    expect(c.err).toContain(detail(file, 19, 'input.ident', 6, 'ident', '["id"]'));
    expect(c.err).not.toContain('data.acl');
  });

  it('subpackages scope covers the package and the ones below it', () => {
    const c = capture();
    expect(checkCommand(['-s', join(tree.dir, 'schemas'), join(tree.dir, 'apps')], c.io)).toBe(1);
    const sub = join(tree.dir, 'apps/billing.rego');
    expect(c.err).toBe(`1 error occurred: ${detail(sub, 5, 'input.role', 6, 'role', '["name" "roles"]')}\n`);
  });

  it('locals bound to part of the input are typed by that part (x := input.user, some c in input.containers)', () => {
    const file = join(tree.dir, 'vars/p.rego');
    const c = capture();
    expect(checkCommand(['-s', join(tree.dir, 'vars/schema.json'), file], c.io)).toBe(1);
    expect(c.err).toBe('2 errors occurred:\n' + [detail(file, 7, 'u.nmae', 2, 'nmae', '["name"]'), detail(file, 9, 'c.imagee', 2, 'imagee', '["image"]')].join('\n') + '\n');
  });

  it('eval reports the same errors before evaluating', async () => {
    const c = capture();
    expect(await evalCommand(['-s', join(tree.dir, 'schemas'), '-d', join(tree.dir, 'pol'), '-f', 'pretty', 'data.authz'], c.io)).toBe(2); // opa eval: errors exit 2
    expect(c.out + c.err).toContain('undefined ref: data.acl.admin[_]');
  });
});
