import fs from 'node:fs';
import { BuiltinError } from '/work/main/runtime/builtins/errors.ts';
import { builtins as b1 } from '/work/main/runtime/builtins/jwt.ts';
import { builtins as b2 } from '/work/main/runtime/builtins/crypto.ts';
import { builtins as b3 } from '/work/main/runtime/builtins/providers.ts';
const all = [...b1, ...b2, ...b3];
const getBuiltin = (n: string) => all.find((b) => b.decl.name === n);
function callBuiltin(def: any, args: any, ctx: any) {
  try { return def.impl(args, ctx); } catch (e) { if (e instanceof BuiltinError) { const x: any = new Error(e.raw ? e.message : def.decl.name + ': ' + e.message); x.code = e.code; throw x; } throw e; }
}
import { fromJS, toJS } from '/work/main/runtime/value/index.ts';
const fx = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8'));
const ctx: any = { strict: true, cache: new Map(), extras: {}, nowNs: BigInt(Date.now()) * 1000000n, print() {}, runtime: null };
let pass = 0, fail = 0;
for (const c of fx) {
  const def = getBuiltin(c.fn)!;
  const n = def.decl.args.length;
  const args = c.args.slice(0, n).map((a: any) => fromJS(a));
  let got: any, err: string | undefined;
  try { got = callBuiltin(def, args, ctx); } catch (e) { err = (e as Error).message + ' [' + (e as any).code + ']'; }
  let ok: boolean;
  if (c.want_error) ok = !!err && err.includes(c.want_error);
  else if (c.want === undefined) ok = got === undefined || (c.args.length === n && got === false);
  else if (c.args.length === n) ok = JSON.stringify(toJS(got)) === 'true' ; 
  else ok = err === undefined && JSON.stringify(toJS(got)) === JSON.stringify(toJS(fromJS(c.want)));
  if (ok) pass++; else { fail++; console.log('FAIL', c.note, '\n  got', err ?? JSON.stringify(toJS(got))?.slice(0, 300), '\n  want', c.want_error ?? JSON.stringify(c.want)?.slice(0, 300)); }
}
console.log(pass, 'pass', fail, 'fail');
