import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';
import { formatModule, formatBody, formatTerm } from '../../../compiler/ast/print.js';
const strip = (x: any): any => JSON.parse(JSON.stringify(x, (k, v) => (k === 'loc' ? undefined : v)));
const src = `package a.b["c-d"]
import future.keywords.in
import data.x as y
# METADATA
# title: P
p := 1 if { x := [1,2][0]; y = {"a": 1}.a } else := 2 if input.z else := 3
q contains x if { some x in [1,2] }
r[x] := y if { some x, y in {"a": 1} }
a.b[x].c contains y if { y := x; x := input.every; data.if.else; input.not == 1 }
f(x, _) := z if { z := -x + 1 * 2 - 3 / 4 % 5 | 6 & 7 }
g(x) if x > 1
default h := false
t := $"a{1 + 2}b\\{ {{"a": "b"}} {[x | some x in [1]]}"
`;
const m = parseModule(src, 'f.rego');
console.log(formatModule(m));
console.log(JSON.stringify(strip(m.rules[4]!.body), null, 0));
console.log(formatBody(parseQuery('x := 1 + 2 * 3 == 7; k, v in obj; not f(x) with input as 1 with data.y as 2; every x in xs { x > 1 }')));
console.log(JSON.stringify(strip(parseTerm('{1, 2}'))), formatTerm(parseTerm('set()')), formatTerm(parseTerm('123456789012345678901234567890')), formatTerm(parseTerm('1e400')));
console.log(m.rules[0]!.annotations);
try { parseModule('package x\np { true }\nq[x] { x = 1 }', 'v.rego'); } catch (e: any) { console.log(e.message); }
console.log(formatModule(parseModule('package x\np { true }\nq[x] { x = 1 }\nr[k] = v { k = 1; v = 2 } { k = 3; v = 4 }\n f(x) = y { y = x }', 'v0', { v0Compatible: true })));
