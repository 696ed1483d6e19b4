// `npm start`: run the engine server on localhost:8181 with the RBAC example
// (examples/rbac), and print curl commands to try once it listens.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const addr = process.env.REGENT_ADDR ?? 'localhost:8181';
const base = `http://${addr}`;
const child = spawn(process.execPath, [join(root, 'bin', 'regent.js'), 'run', '--server', '--addr', addr, join(root, 'examples', 'rbac')], {
  stdio: ['inherit', 'inherit', 'pipe'],
});

const tryIt = `
Try it:
  curl -s ${base}/v1/data/rbac/allow -d '{"input": {"user": "bob", "action": "update", "type": "finance"}}'
  curl -s ${base}/v1/data/rbac/allow -d @examples/rbac.input.json
  curl -s '${base}/v1/data/rbac?pretty=true' -d '{"input": {"user": "eve", "action": "update", "type": "dog"}}'
  curl -s -g '${base}/v1/query?q=data.user_roles[user][_]%20==%20%22admin%22'
  curl -s -X PUT ${base}/v1/data/user_roles/dave -d '["admin"]'
  curl -s ${base}/v1/policies
  curl -s ${base}/health
Stop with Ctrl-C.
`;

child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  if (String(chunk).includes('listening on')) process.stdout.write(tryIt);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));
