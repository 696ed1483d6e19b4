import { compile, stringifyOpaJSON } from '../../compiler/index.js';
import { eventJSON, traceQuery } from '../../compiler/interp/index.js';
const p = compile([{ file: 'x.rego', text: 'package x\nallow if { input.user == "admin" }\nallow if { trace("no admin"); input.name == "root" }' }]);
const { events } = traceQuery(p, 'data.x.allow');
console.log(stringifyOpaJSON(events.slice(0, 2).map(eventJSON), ''));
