import * as yaml from 'js-yaml';
import fs from 'node:fs';
import { builtins } from '/work/main/runtime/builtins/providers.ts';
import { fromJS, toJSONText, RSet, RObject } from '/work/main/runtime/value/index.ts';
const doc: any = yaml.load(fs.readFileSync('/work/shared/opa-conformance/v1/providers-aws/' + fs.readdirSync('/work/shared/opa-conformance/v1/providers-aws')[0], 'utf8'));
const conv = (x: any): any => x && typeof x === 'object' && !Array.isArray(x) ? (x.__set ? RSet.of(x.__set) : RObject.fromEntries(Object.entries(x).map(([k, v]) => [k, conv(v)]))) : x;
const grab = (mod: string, name: string) => {
  const m = mod.match(new RegExp(`\\n${name} := (\\{.*\\})\\n`)) ?? mod.match(new RegExp(`\\n${name} := (\\{[\\s\\S]*?\\n\\})`));
  let s = m![1]!.replace(/(?<!\\"example\\": )\{1, 2, 3, 4\}/g, '{"__set":[1,2,3,4]}').replace(/,(\s*\})/g, '$1');
  return conv(JSON.parse(s));
};
const out: any[] = [];
for (const c of doc.cases) {
  const mod = '\n' + c.modules[0];
  const req = grab(mod, 'req'), cfg = grab(mod, 'aws_config'), exp = grab(mod, 'expected');
  const got = builtins[0]!.impl([req, cfg, 1451311705000000000], {} as any)!;
  const ok = toJSONText(got) === toJSONText(exp);
  console.log(ok ? 'ok  ' : 'FAIL', c.note);
  if (!ok) console.log('  got ', toJSONText((got as any).get('headers')), '\n  want', toJSONText(exp.get('headers')));
  out.push({ note: c.note, req: toJSONText(req), cfg: toJSONText(cfg), expected: toJSONText(exp) });
}
fs.writeFileSync('/work/main/.scratch/aws-cases.json', JSON.stringify(out, null, 1));
