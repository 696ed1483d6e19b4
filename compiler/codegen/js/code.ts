// Typed code fragments for generated JavaScript (after ajv's codegen/code.ts).
// Generated source is built only with the `_` tag, whose interpolations must be
// Code (made here), Name (identifiers we allocate) or numbers. A plain string is
// rejected at run time, so user text can never reach generated source: user
// values live in the constants array and are referenced by index.

export class Code {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** An identifier we allocate (`t12`, `L3`); never derived from user input. */
export class Name extends Code {}

export type Fragment = Code | number;

/** Tagged template: `_\`if (${a} === undefined) break ${label};\``. */
export function _(strings: TemplateStringsArray, ...parts: Fragment[]): Code {
  let out = strings[0]!;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p instanceof Code) out += p.text;
    else if (typeof p === 'number' && Number.isFinite(p)) out += String(p);
    else throw new Error(`codegen: refusing to interpolate ${typeof p} into generated source`);
    out += strings[i + 1]!;
  }
  return new Code(out);
}

/** Join fragments with a separator. */
export function join(parts: Code[], sep: Code = new Code('\n')): Code {
  return new Code(parts.map((p) => p.text).join(sep.text));
}

/** Allocates identifiers with a prefix, unique per generated function. */
export class Names {
  private counts = new Map<string, number>();
  next(prefix: 't' | 'L' | 'i' | 'o' | 'm' | 'v' | 'k' | 'n' | 'x'): Name {
    const n = this.counts.get(prefix) ?? 0;
    this.counts.set(prefix, n + 1);
    return new Name(`${prefix}${n}`);
  }
}
