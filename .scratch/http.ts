import { Worker } from 'node:worker_threads';
import { builtins } from '/work/main/runtime/builtins/http.ts';
import { stopHttpWorker } from '/work/main/runtime/builtins/http-sync.ts';
import { fromJS, toJSONText } from '/work/main/runtime/value/index.ts';
const srv = new Worker(`
const http = require('node:http'); const { parentPort } = require('node:worker_threads');
const s = http.createServer((req, res) => { let b=''; req.on('data', c => b += c); req.on('end', () => {
  if (req.url === '/slow') { setTimeout(() => res.end('late'), 2000); return; }
  res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({method: req.method, url: req.url, body: b, h: req.headers})); }); });
s.listen(0, '127.0.0.1', () => parentPort.postMessage(s.address().port));`, { eval: true });
const port: number = await new Promise((r) => srv.once('message', r));
const ctx: any = { strict: true, cache: new Map(), extras: {}, nowNs: BigInt(Date.now()) * 1000000n };
const send = builtins[0]!.impl;
console.log(toJSONText(send([fromJS({ method: 'post', url: `http://127.0.0.1:${port}/x?y=1`, body: { a: 1 }, headers: { 'x-foo': 'bar' } })], ctx)!));
try { send([fromJS({ method: 'get', url: `http://127.0.0.1:${port}/slow`, timeout: '200ms' })], ctx); } catch (e) { console.log('ERR', (e as Error).message); }
console.log(toJSONText(send([fromJS({ method: 'get', url: `http://127.0.0.1:1/`, raise_error: false })], ctx)!));
console.log(toJSONText(send([fromJS({ method: 'get', raise_error: false })], ctx)!));
await stopHttpWorker(); await srv.terminate();
