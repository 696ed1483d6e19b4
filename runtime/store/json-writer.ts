// Writing a (possibly large) Rego value as UTF-8 JSON bytes in slices, so the thread
// doing it keeps serving between slices: bundle data is handed to the worker threads
// this way (they build their copies from the bytes, see json-builder.ts). Objects
// are written in insertion order (the reader sorts anyway); sets as arrays, as
// canonical JSON does; non-string keys as their JSON text.
import { RObject, RSet } from '../value/collections.js';
import { toJSONText } from '../value/json.js';
import type { Value } from '../value/value.js';

/** Text is turned into bytes in parts of about this many characters. */
const PART = 1 << 16;

class Sink {
  private text = '';
  readonly parts: Buffer[] = [];
  size = 0;

  push(s: string): void {
    this.text += s;
    if (this.text.length >= PART) this.flush();
  }

  flush(): void {
    if (this.text === '') return;
    const b = Buffer.from(this.text, 'utf8');
    this.parts.push(b);
    this.size += b.length;
    this.text = '';
  }
}

type Frame = { items: Value[]; i: number; close: string } | { entries: [Value, Value][]; i: number };

function* write(root: Value, out: Sink): Generator<void, void> {
  const stack: Frame[] = [];
  const open = (v: Value): void => {
    if (v instanceof RObject) {
      out.push('{');
      const entries: [Value, Value][] = [];
      v.forEachUnordered((k, x) => (entries.push([k, x]), false));
      stack.push({ entries, i: 0 });
    } else if (Array.isArray(v) || v instanceof RSet) {
      out.push('[');
      stack.push({ items: Array.isArray(v) ? v : v.values(), i: 0, close: ']' });
    } else out.push(toJSONText(v));
  };
  open(root);
  let steps = 0;
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if ('items' in f) {
      if (f.i === f.items.length) {
        out.push(f.close);
        stack.pop();
        continue;
      }
      if (f.i > 0) out.push(',');
      open(f.items[f.i++]!);
    } else {
      if (f.i === f.entries.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      const [k, x] = f.entries[f.i++]!;
      out.push((f.i > 1 ? ',' : '') + JSON.stringify(typeof k === 'string' ? k : toJSONText(k)) + ':');
      open(x);
    }
    if ((++steps & 0x3ff) === 0) yield;
  }
  out.flush();
}

/** JSON bytes of `v`, written in slices of about `sliceMs` (yielding to the event loop between them). */
export async function writeDocument(v: Value, sliceMs = 4): Promise<Buffer> {
  const out = new Sink();
  const it = write(v, out);
  let until = performance.now() + sliceMs;
  for (;;) {
    if (it.next().done) break;
    if (performance.now() >= until) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      until = performance.now() + sliceMs;
    }
  }
  return out.parts.length === 1 ? out.parts[0]! : Buffer.concat(out.parts, out.size);
}
