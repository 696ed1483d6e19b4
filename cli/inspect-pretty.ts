// The pretty output of `regent inspect`, as OPA's cmd/inspect.go prints it:
//   MANIFEST:    a FIELD/VALUE table (Rego Version, Revision, Roots — sorted when
//                several, one row each, the repeated field name blanked as
//                tablewriter's auto-merge does — and Metadata as compact JSON);
//   NAMESPACES:  a NAMESPACE/FILE table, namespaces sorted, files in load order;
//   ANNOTATIONS: (with -a) per annotation a title underlined with `=`, the
//                description, Package/Rule/Location/Scope/Entrypoint lines, and the
//                Organizations, Authors, Schemas, Related Resources and Custom lists.
// Table cells longer than 50 characters are shortened as OPA does: values to 47
// characters and `...`, file names to `<first segment>/...<tail>` of 50 characters.
// Tables use the ASCII borders of `regent eval --format pretty` (OPA's tablewriter
// before v1.0 of that library); newer OPA releases draw the same cells with box
// characters.
import type { Annotation } from '../compiler/ast/nodes.js';
import { quote, table } from './output.js';
import type { AnnotationsRef, InspectInfo } from './inspect.js';

const MAX_FIELD = 50;
const PAGE_WIDTH = 80;

/** Go's truncateStr: kept when shorter than max, else cut to max-3 plus `...`. */
export function truncateStr(s: string, max: number): string {
  return s.length < max ? s : s.slice(0, max - 3) + '...';
}

/** OPA's truncateFileName for one path: first segment, `...`, and the tail, 50 characters. */
export function truncateFileName(s: string): string {
  if (s.length < MAX_FIELD) return s;
  const slash = s.indexOf('/', s.startsWith('/') ? 1 : 0);
  const head = slash >= 0 ? s.slice(0, slash + 1) : '';
  const keep = MAX_FIELD - head.length - 3;
  return keep > 0 ? head + '...' + s.slice(s.length - keep) : truncateStr(s, MAX_FIELD);
}

/** Blank a column's value where it repeats the row above (tablewriter's auto-merge). */
function merge(rows: string[][], col: number): string[][] {
  return rows.map((r, i) => (i > 0 && rows[i - 1]![col] === r[col] ? r.map((c, j) => (j === col ? '' : c)) : r));
}

/** Go's json.Marshal of a JSON-like value (compact, map keys sorted, HTML-escaped). */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(goJSON).join(',') + ']';
  const o = v as Record<string, unknown>;
  return '{' + Object.keys(o).sort().map((k) => quote(k) + ':' + goJSON(o[k])).join(',') + '}';
}

function manifestTable(info: InspectInfo): string {
  const m = info.manifest;
  const lines: string[][] = [];
  if (m.rego_version !== undefined) lines.push(['Rego Version', truncateStr(String(m.rego_version), MAX_FIELD)]);
  if (m.revision !== '') lines.push(['Revision', truncateStr(m.revision, MAX_FIELD)]);
  if (m.roots.length === 1) {
    if (m.roots[0] !== '') lines.push(['Roots', truncateFileName(m.roots[0]!)]);
  } else {
    for (const r of [...m.roots].sort()) lines.push(['Roots', truncateFileName(r)]);
  }
  if (m.metadata && Object.keys(m.metadata).length > 0) lines.push(['Metadata', truncateStr(goJSON(m.metadata), MAX_FIELD)]);
  if (lines.length === 0) return '';
  return 'MANIFEST:\n' + table(['FIELD', 'VALUE'], merge(lines, 0));
}

function namespacesTable(info: InspectInfo): string {
  const rows: string[][] = [];
  for (const ns of [...info.namespaces.keys()].sort()) for (const f of info.namespaces.get(ns)!) rows.push([ns, truncateFileName(f)]);
  if (rows.length === 0) return '';
  return 'NAMESPACES:\n' + table(['NAMESPACE', 'FILE'], merge(rows, 0));
}

interface Entry {
  key: string;
  value: string;
}

function list(entries: Entry[], sep: string): string {
  const width = Math.max(0, ...entries.map((e) => e.key.length));
  return entries
    .map((e) => truncateStr(e.value.length > 0 ? ` ${e.key}${sep}${' '.repeat(width - e.key.length)}${e.value}` : ` ${e.key}`, PAGE_WIDTH) + '\n')
    .join('');
}

const oneLine = (s: string): string => s.replace(/\n/g, ' ');

function authorText(a: { name?: string; email?: string }): string {
  if (!a.email) return a.name ?? '';
  if (!a.name) return `<${a.email}>`;
  return `${a.name} <${a.email}>`;
}

/** The path shown without its `data` head: `test.p`, `a["b-c"]`. */
function shownPath(path: string[]): string {
  return path
    .slice(1)
    .map((p, i) => (i === 0 || /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? (i === 0 ? p : '.' + p) : `[${quote(p)}]`))
    .join('');
}

function annotationText(ref: AnnotationsRef, pkgPath: string[]): string {
  const a: Annotation = ref.annotation;
  let out = '';
  const title = a.title?.trim() || shownPath(ref.path);
  out += `${title}\n${'='.repeat(Math.min(title.length, PAGE_WIDTH))}\n\n`;
  if (a.description) out += `${a.description}\n\n`;
  out += `Package:  ${shownPath(pkgPath)}\n`;
  if (ref.rule !== undefined) out += `Rule:     ${ref.rule}\n`;
  out += `Location: ${ref.location.file ? `${ref.location.file}:${ref.location.row}` : `${ref.location.row}:${ref.location.col}`}\n`;
  if (a.scope) out += `Scope: ${a.scope}\n`;
  if (a.entrypoint) out += 'Entrypoint: true\n';
  out += '\n';
  if (a.organizations?.length) out += 'Organizations:\n' + list(a.organizations.map((o) => ({ key: oneLine(o), value: '' })), '') + '\n';
  if (a.authors?.length) out += 'Authors:\n' + list(a.authors.map((x) => ({ key: oneLine(authorText(x)), value: '' })), '') + '\n';
  if (a.schemas?.length) {
    const entries = a.schemas.map((s) => ({ key: s.path, value: typeof s.schema === 'string' ? s.schema : s.definition !== undefined ? goJSON(s.definition) : '' }));
    out += 'Schemas:\n' + list(entries, ': ') + '\n';
  }
  if (a.related_resources?.length) out += 'Related Resources:\n' + list(a.related_resources.map((r) => ({ key: oneLine(r.ref), value: r.description ?? '' })), ' ') + '\n';
  if (a.custom && Object.keys(a.custom).length > 0) {
    out += 'Custom:\n' + list(Object.keys(a.custom).sort().map((k) => ({ key: k, value: goJSON(a.custom![k]) })), ': ') + '\n';
  }
  return out;
}

/** The whole pretty report. */
export function inspectPretty(info: InspectInfo, withAnnotations: boolean): string {
  let out = '';
  if (info.hasManifestFile || info.manifest.revision !== '' || info.manifest.rego_version !== undefined) out += manifestTable(info);
  out += namespacesTable(info);
  if (withAnnotations && info.annotations.length > 0) {
    out += 'ANNOTATIONS:\n';
    for (const ref of info.annotations) out += annotationText(ref, ref.pkg);
  }
  return out;
}
