// Generate JWT/crypto fixtures from conformance YAML: each case's io.jwt call args as JSON.
import * as yaml from 'js-yaml';
import fs from 'node:fs';
const dir = '/work/shared/opa-conformance/v1/';
const folders = process.argv.slice(2);
function splitArgs(s: string): string[] {
  const out: string[] = []; let depth = 0, cur = '', q: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (q) { cur += c; if (q === '"' && c === '\\') { cur += s[++i]; continue; } if (c === q) q = null; continue; }
    if (c === '"' || c === '`') { q = c; cur += c; continue; }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) { if (depth === 0) { out.push(cur); return out; } depth--; }
    if (c === ',' && depth === 0) { out.push(cur); cur = ''; continue; }
    cur += c;
  }
  return out;
}
function toJSON(rego: string): unknown {
  let s = rego.trim().replace(/`([^`]*)`/g, (_, x) => JSON.stringify(x));
  s = s.replace(/,(\s*[}\]])/g, '$1');
  return JSON.parse(s);
}
const out: unknown[] = [];
for (const f of folders) for (const file of fs.readdirSync(dir + f).sort()) {
  const doc: any = yaml.load(fs.readFileSync(dir + f + '/' + file, 'utf8'));
  for (const c of doc.cases) {
    const mod: string = c.modules.join('\n');
    const m = mod.match(/(io\.jwt\.[a-z0-9_]+|crypto\.[a-z0-9_.]+|providers\.aws\.sign_req)\(/);
    if (!m) continue;
    const args = splitArgs(mod.slice(m.index! + m[0].length)).filter((a) => a.trim() !== "");
    let parsed: unknown[];
    try { parsed = args.map((a) => /^\s*[a-z_][a-z0-9_]*\s*$|^\s*\[x, y, z\]\s*$/.test(a) ? { var: a.trim() } : toJSON(a)); }
    catch (e) { console.error('skip', c.note, (e as Error).message); continue; }
    const want = c.want_result ? c.want_result[0]?.x : undefined;
    out.push({ note: c.note, fn: m[1], args: parsed, want, want_error: c.want_error, code: c.want_error_code });
  }
}
console.log(JSON.stringify(out, null, 1));
