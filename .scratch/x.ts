import * as yaml from 'js-yaml';
import fs from 'node:fs';
import { builtins } from '/work/main/runtime/builtins/crypto.ts';
import { toJSONText } from '/work/main/runtime/value/index.ts';
const get = (n: string) => builtins.find((b) => b.decl.name === n)!.impl;
const ctx: any = { strict: true, cache: new Map(), extras: {} };
const dir = '/work/shared/opa-conformance/v1/';
for (const f of ['cryptox509parsecertificates/' ]) {
  for (const file of fs.readdirSync(dir + f)) {
    const doc: any = yaml.load(fs.readFileSync(dir + f + file, 'utf8'));
    for (const c of doc.cases) {
      const m = c.modules[0].match(/certs := "([^"]*)"/);
      try {
        const r: any = get('crypto.x509.parse_certificates')([m[1].replace(/\\n/g, '\n')], ctx);
        console.log(c.note, r.map((x: any) => [x.get('Subject').get('CommonName'), x.get('URIStrings')]));
      } catch (e) { console.log(c.note, 'ERR', (e as Error).message); }
    }
  }
}
const kp = yaml.load(fs.readFileSync(dir + 'cryptox509parsekeypair/' + fs.readdirSync(dir + 'cryptox509parsekeypair')[0], 'utf8')) as any;
const r: any = get('crypto.x509.parse_keypair')([kp.cases[0].input.cert, kp.cases[0].input.key], ctx);
console.log(r.get('Certificate')[0] === kp.cases[0].want_result[0].x);
console.log(toJSONText(r.get('Leaf')).slice(0, 1500));
const rk = yaml.load(fs.readFileSync(dir + 'cryptox509parsersaprivatekey/' + fs.readdirSync(dir + 'cryptox509parsersaprivatekey')[0], 'utf8')) as any;
const pem = rk.cases[0].modules[0].match(/pem := "([^"]*)"/)[1].replace(/\\n/g, '\n');
console.log(toJSONText(get('crypto.x509.parse_rsa_private_key')([pem], ctx)!) === JSON.stringify(Object.fromEntries(Object.entries(rk.cases[0].want_result[0].x).sort())));
try { get('crypto.x509.parse_rsa_private_key')(['invalid'], ctx) } catch (e) { console.log((e as Error).message) }
try { get('crypto.x509.parse_certificate_request')(['foobar'], ctx) } catch (e) { console.log((e as Error).message) }
console.log(toJSONText(get('crypto.parse_private_keys')([pem], ctx)!).slice(0, 200));
