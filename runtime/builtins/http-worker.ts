// Source of the worker thread that performs http.send requests with undici. It is
// kept as plain JavaScript text and started with `eval: true`, so it runs the same
// under tsc output, tsx and vitest. Protocol (see http-sync.ts): requests arrive
// on a MessagePort as {id, spec}; the worker posts {id, result} back on the port,
// then stores `id` into the shared Int32Array slot 0 and notifies the waiter.

export const WORKER_SOURCE = String.raw`
const { workerData } = require('node:worker_threads');
const { STATUS_CODES } = require('node:http');
const tls = require('node:tls');
const undici = require(workerData.undiciPath);
const flag = new Int32Array(workerData.sab);
const port = workerData.port;

function goOp(method) {
  const m = method || 'GET';
  return m.charAt(0) + m.slice(1).toLowerCase();
}

function describe(err, spec, timedOut) {
  const op = goOp(spec.method);
  const url = spec.url;
  if (timedOut) return { timeout: true, message: op + ' "' + url + '": context deadline exceeded (Client.Timeout exceeded while awaiting headers)', op, url };
  let cause = err;
  while (cause && cause.cause && !cause.code) cause = cause.cause;
  const code = (cause && cause.code) || (err && err.code) || '';
  let host = '';
  try { const u = new URL(url); host = u.hostname + ':' + (u.port || (u.protocol === 'https:' ? '443' : '80')); } catch (_) {}
  let detail;
  switch (code) {
    case 'ECONNREFUSED': detail = 'dial tcp ' + host + ': connect: connection refused'; break;
    case 'ENOTFOUND': case 'EAI_AGAIN': detail = 'dial tcp: lookup ' + host.replace(/:\d+$/, '') + ': no such host'; break;
    case 'ECONNRESET': case 'UND_ERR_SOCKET': detail = 'EOF'; break;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      detail = 'tls: failed to verify certificate: x509: certificate signed by unknown authority'; break;
    case 'ERR_TLS_CERT_ALTNAME_INVALID': detail = 'tls: failed to verify certificate: x509: certificate is not valid for the requested host'; break;
    case 'ERR_INVALID_URL': return { timeout: false, message: 'parse "' + url + '": invalid URL', internal: true };
    default: detail = (cause && cause.message) || String(err);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^(https?|unix):/i.test(url)) detail = 'unsupported protocol scheme "' + url.split(':')[0] + '"';
  return { timeout: false, message: op + ' "' + url + '": ' + detail, op, url };
}

function dispatcherFor(spec) {
  const t = spec.tls;
  const connect = { rejectUnauthorized: t.rejectUnauthorized };
  let custom = !t.rejectUnauthorized || !!spec.socketPath;
  if (t.ca) { connect.ca = t.useSystem ? tls.rootCertificates.concat(t.ca) : t.ca; custom = true; }
  if (t.cert && t.key) { connect.cert = t.cert; connect.key = t.key; custom = true; }
  if (t.servername) { connect.servername = t.servername; custom = true; }
  if (spec.socketPath) connect.socketPath = spec.socketPath;
  let d = custom ? new undici.Agent({ connect, pipelining: 0 }) : undici.getGlobalDispatcher();
  if (spec.enableRedirect) d = d.compose(undici.interceptors.redirect({ maxRedirections: 10 }));
  return { d, custom };
}

async function once(spec) {
  const { d, custom } = dispatcherFor(spec);
  const ac = new AbortController();
  let timedOut = false;
  const timer = spec.timeoutMs > 0 ? setTimeout(() => { timedOut = true; ac.abort(); }, spec.timeoutMs) : null;
  try {
    const res = await undici.request(spec.url, {
      method: spec.method || 'GET',
      headers: spec.headers,
      body: spec.body === '' && (spec.method === 'GET' || spec.method === 'HEAD' || spec.method === '') ? undefined : spec.body,
      dispatcher: d,
      signal: ac.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const chunks = [];
    for await (const c of res.body) chunks.push(c);
    const headers = {};
    for (const [k, v] of Object.entries(res.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v : [String(v)];
    const text = STATUS_CODES[res.statusCode];
    return { ok: true, status: res.statusCode + (text ? ' ' + text : ''), statusCode: res.statusCode, headers, body: Buffer.concat(chunks).toString('base64') };
  } catch (err) {
    return { ok: false, error: describe(err, spec, timedOut) };
  } finally {
    if (timer) clearTimeout(timer);
    if (custom) d.close && d.close().catch(() => {});
  }
}

async function handle(spec) {
  let result;
  for (let i = 0; ; i++) {
    result = await once(spec);
    if (result.ok || i >= spec.maxRetries) return result;
    const delay = Math.min(60000, 100 * Math.pow(2, i)) * (0.8 + Math.random() * 0.4);
    await new Promise((r) => setTimeout(r, delay));
  }
}

port.on('message', async ({ id, spec }) => {
  let result;
  try { result = await handle(spec); } catch (e) { result = { ok: false, error: { timeout: false, message: String(e && e.message || e) } }; }
  port.postMessage({ id, result });
  Atomics.store(flag, 0, id);
  Atomics.notify(flag, 0);
});
`;
