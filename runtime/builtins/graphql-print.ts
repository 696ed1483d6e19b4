// Prints gqlparser-shaped AST objects (as returned by graphql.parse_query /
// graphql.parse_schema) back to GraphQL source text, so that the graphql.*
// builtins can accept AST objects as well as strings.
type O = Record<string, unknown>;

const arr = (v: unknown): O[] => (Array.isArray(v) ? (v as O[]) : []);
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

function value(v: unknown): string {
  const o = (v ?? {}) as O;
  const raw = s(o.Raw);
  switch (o.Kind ?? 0) {
    case 0:
      return '$' + raw;
    case 3:
    case 4:
      return JSON.stringify(raw);
    case 8:
      return '[' + arr(o.Children).map((c) => value(c.Value)).join(', ') + ']';
    case 9:
      return '{' + arr(o.Children).map((c) => `${s(c.Name)}: ${value(c.Value)}`).join(', ') + '}';
    default:
      return raw;
  }
}

function type(t: unknown): string {
  const o = (t ?? {}) as O;
  const base = o.Elem ? `[${type(o.Elem)}]` : s(o.NamedType);
  return base + (o.NonNull ? '!' : '');
}

const args = (as: unknown): string => {
  const a = arr(as);
  return a.length ? '(' + a.map((x) => `${s(x.Name)}: ${value(x.Value)}`).join(', ') + ')' : '';
};
const dirs = (ds: unknown): string => arr(ds).map((d) => ` @${s(d.Name)}${args(d.Arguments)}`).join('');

function selections(ss: unknown): string {
  const list = arr(ss);
  if (!list.length) return '';
  return (
    ' { ' +
    list
      .map((x) => {
        if ('Alias' in x) {
          const alias = s(x.Alias) && s(x.Alias) !== s(x.Name) ? `${s(x.Alias)}: ` : '';
          return `${alias}${s(x.Name)}${args(x.Arguments)}${dirs(x.Directives)}${selections(x.SelectionSet)}`;
        }
        // A pruned field always keeps Alias (gqlparser fills it with the name),
        // so a selection with a Name but no Alias is a fragment spread.
        if ('Name' in x) return `...${s(x.Name)}${dirs(x.Directives)}`;
        const tc = s(x.TypeCondition);
        return `...${tc ? ' on ' + tc : ''}${dirs(x.Directives)}${selections(x.SelectionSet)}`;
      })
      .join(' ') +
    ' }'
  );
}

const varDefs = (vs: unknown): string => {
  const v = arr(vs);
  if (!v.length) return '';
  return '(' + v.map((d) => `$${s(d.Variable)}: ${type(d.Type)}${d.DefaultValue ? ' = ' + value(d.DefaultValue) : ''}${dirs(d.Directives)}`).join(', ') + ')';
};

export function printQueryDocument(doc: O): string {
  const out: string[] = [];
  for (const op of arr(doc.Operations)) {
    out.push(`${s(op.Operation) || 'query'} ${s(op.Name)}${varDefs(op.VariableDefinitions)}${dirs(op.Directives)}${selections(op.SelectionSet)}`);
  }
  for (const f of arr(doc.Fragments)) out.push(`fragment ${s(f.Name)} on ${s(f.TypeCondition)}${dirs(f.Directives)}${selections(f.SelectionSet)}`);
  return out.join('\n');
}

const desc = (d: unknown): string => (s(d) ? JSON.stringify(s(d)) + ' ' : '');
const inputValues = (as: unknown): string => {
  const a = arr(as);
  if (!a.length) return '';
  return '(' + a.map((x) => `${desc(x.Description)}${s(x.Name)}: ${type(x.Type)}${x.DefaultValue ? ' = ' + value(x.DefaultValue) : ''}${dirs(x.Directives)}`).join(', ') + ')';
};

function definition(d: O, extend: boolean): string {
  const pre = extend ? 'extend ' : desc(d.Description);
  const name = s(d.Name);
  const fields = (input: boolean) =>
    ' { ' +
    arr(d.Fields)
      .map((f) => `${desc(f.Description)}${s(f.Name)}${input ? '' : inputValues(f.Arguments)}: ${type(f.Type)}${f.DefaultValue ? ' = ' + value(f.DefaultValue) : ''}${dirs(f.Directives)}`)
      .join(' ') +
    ' }';
  const ifaces = arr(d.Interfaces).length ? ' implements ' + (d.Interfaces as string[]).join(' & ') : '';
  switch (d.Kind) {
    case 'OBJECT':
      return `${pre}type ${name}${ifaces}${dirs(d.Directives)}${arr(d.Fields).length ? fields(false) : ''}`;
    case 'INTERFACE':
      return `${pre}interface ${name}${ifaces}${dirs(d.Directives)}${arr(d.Fields).length ? fields(false) : ''}`;
    case 'INPUT_OBJECT':
      return `${pre}input ${name}${dirs(d.Directives)}${arr(d.Fields).length ? fields(true) : ''}`;
    case 'UNION':
      return `${pre}union ${name}${dirs(d.Directives)}${arr(d.Types).length ? ' = ' + (d.Types as string[]).join(' | ') : ''}`;
    case 'ENUM':
      return `${pre}enum ${name}${dirs(d.Directives)} { ${arr(d.EnumValues).map((e) => `${desc(e.Description)}${s(e.Name)}${dirs(e.Directives)}`).join(' ')} }`;
    default:
      return `${pre}scalar ${name}${dirs(d.Directives)}`;
  }
}

export function printSchemaDocument(doc: O): string {
  const out: string[] = [];
  for (const sd of arr(doc.Schema)) {
    out.push(`${desc(sd.Description)}schema${dirs(sd.Directives)} { ${arr(sd.OperationTypes).map((o) => `${s(o.Operation)}: ${s(o.Type)}`).join(' ')} }`);
  }
  for (const sd of arr(doc.SchemaExtension)) {
    out.push(`extend schema${dirs(sd.Directives)} { ${arr(sd.OperationTypes).map((o) => `${s(o.Operation)}: ${s(o.Type)}`).join(' ')} }`);
  }
  for (const d of arr(doc.Directives)) {
    out.push(`${desc(d.Description)}directive @${s(d.Name)}${inputValues(d.Arguments)}${d.IsRepeatable ? ' repeatable' : ''} on ${(d.Locations as string[] | undefined ?? []).join(' | ')}`);
  }
  for (const d of arr(doc.Definitions)) out.push(definition(d, false));
  for (const d of arr(doc.Extensions)) out.push(definition(d, true));
  return out.join('\n');
}
