// A unified line diff for `regent fmt -d`: `--- file` / `+++ file (formatted)`
// headers, then hunks with three lines of context. Longest-common-subsequence over
// lines (quadratic; files too large for that fall back to one replace-all hunk).

type Op = { k: ' ' | '-' | '+'; line: string; a: number; b: number };

const MAX_CELLS = 25_000_000;
const CONTEXT = 3;

function splitLines(s: string): string[] {
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    return [...a.map((line, i): Op => ({ k: '-', line, a: i, b: 0 })), ...b.map((line, j): Op => ({ k: '+', line, a: n, b: j }))];
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..]
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ k: ' ', line: a[i++]!, a: i - 1, b: j++ });
    else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ k: '-', line: a[i++]!, a: i - 1, b: j });
    else ops.push({ k: '+', line: b[j++]!, a: i, b: j - 1 });
  }
  return ops;
}

/** Unified diff of `before` → `after`; '' when equal. */
export function lineDiff(before: string, after: string, file: string): string {
  if (before === after) return '';
  const ops = diffOps(splitLines(before), splitLines(after));
  const out = [`--- ${file}`, `+++ ${file} (formatted)`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.k === ' ') k++;
    if (k >= ops.length) break;
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    // extend the hunk while changes are within 2*CONTEXT lines of each other
    for (let q = k; q < ops.length; q++) {
      if (ops[q]!.k !== ' ') end = q;
      else if (q - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(ops.length, end + CONTEXT + 1);
    const hunk = ops.slice(start, stop);
    const aLines = hunk.filter((o) => o.k !== '+').length;
    const bLines = hunk.filter((o) => o.k !== '-').length;
    const aStart = hunk[0]!.a + (aLines ? 1 : 0);
    const bStart = hunk[0]!.b + (bLines ? 1 : 0);
    out.push(`@@ -${aStart},${aLines} +${bStart},${bLines} @@`);
    for (const o of hunk) out.push(o.k + o.line);
    k = stop;
  }
  return out.join('\n');
}
