// How the optimizer (optimize.ts) prints a generated module: OPA's formatter output,
// v1 text with `import rego.v1` in a rego_version 0 bundle (or v0 text with the future
// keywords it needs, for the entrypoint's own module), and the blank lines between
// body expressions that OPA's formatter keeps from the source rows.
import { formatModule, formatModuleSource, parseModule, type Import, type Module, type Term } from '../../../compiler/index.js';

/**
 * A generated module as text. Support rules: v1, with `import rego.v1` in a v0
 * bundle (`v0v1`); the entrypoint's own module in a v0 bundle is v0 text, as OPA
 * prints the module it creates without imports.
 */
export function printGenerated(m: Module, v0v1: boolean, v0 = false): string {
  const raw = formatModule(m);
  const mod = parseModule(raw, '', { v0Compatible: false });
  const gaps = (text: string): string => sourceGaps(text, m);
  if (v0) {
    // v0 text needs the future keywords it uses imported (OPA's formatter adds them)
    for (const kws of [[], ['in'], ['in', 'every']]) {
      const text = gaps(ensureNewline(formatModuleSource({ ...mod, imports: [...mod.imports, ...kws.map(futureImport)] }, raw, { mode: 'v0' })));
      try {
        parseModule(text, '', { v0Compatible: true });
        return text;
      } catch {
        // try the next set of imports; v1 text with `import rego.v1` at last
      }
    }
  }
  return gaps(ensureNewline(formatModuleSource(mod, raw, { mode: v0 || v0v1 ? 'v0-v1' : 'v1' })));
}

function futureImport(kw: string): Import {
  const loc = { file: '', row: 2, col: 1, offset: -1 };
  const str = (value: string): Term => ({ kind: 'string', value, loc });
  return { kind: 'import', path: { kind: 'ref', head: { kind: 'var', name: 'future', loc }, path: [str('keywords'), str(kw)], loc }, loc };
}

/**
 * OPA's formatter keeps one blank line between two body expressions whose source
 * rows are more than one apart; the residual expressions keep their source rows, so
 * the same gaps are put back into the printed rule bodies. Only bodies printed one
 * expression per line are touched; anything else is left as printed.
 */
function sourceGaps(text: string, m: Module): string {
  const withBodies = m.rules.filter((r) => r.body.length > 0);
  if (m.rules.some((r) => r.else)) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  let next = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    out.push(line);
    if (!line.endsWith(' {') || line.startsWith('\t')) continue;
    const end = lines.indexOf('}', i + 1);
    const rule = withBodies[next++];
    if (end < 0 || !rule) return text;
    const body = lines.slice(i + 1, end);
    const oneLine = body.length === rule.body.length && body.every((l) => l.startsWith('\t') && !l.startsWith('\t\t'));
    body.forEach((l, j) => {
      const prev = rule.body[j - 1]?.loc?.row ?? 0;
      const cur = rule.body[j]?.loc?.row ?? 0;
      if (oneLine && j > 0 && prev > 0 && cur - prev > 1) out.push('');
      out.push(l);
    });
    i = end - 1;
  }
  return next === withBodies.length ? out.join('\n') : text;
}

export function ensureNewline(s: string): string {
  return s.endsWith('\n') ? s : s + '\n';
}
