// Conversion of graphql-js ASTs into the JSON shape of gqlparser's ast package
// (what OPA returns), with OPA's pruning: no Position, no null values, no empty
// arrays/objects. Known gaps: gqlparser's Comment groups are not produced, and
// block strings keep graphql-js's dedented value as Raw.
import type {
  ArgumentNode,
  DefinitionNode,
  DirectiveNode,
  DocumentNode,
  FieldDefinitionNode,
  InputValueDefinitionNode,
  SelectionNode,
  TypeNode,
  ValueNode,
  VariableDefinitionNode,
} from 'graphql';

type J = unknown;
type O = Record<string, J>;

/** OPA's pruneIrrelevantGraphQLASTNodes on plain JS data. */
export function prune(v: J): J {
  if (Array.isArray(v)) {
    const out: J[] = [];
    for (const x of v) {
      if (x === null || x === undefined) continue;
      const p = prune(x);
      if (typeof p === 'object' && p !== null && (Array.isArray(p) ? p.length === 0 : Object.keys(p).length === 0)) continue;
      out.push(p);
    }
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: O = {};
    for (const [k, x] of Object.entries(v as O)) {
      if (k === 'Position' || x === null || x === undefined) continue;
      const p = prune(x);
      if (typeof p === 'object' && p !== null && (Array.isArray(p) ? p.length === 0 : Object.keys(p).length === 0)) continue;
      out[k] = p;
    }
    return out;
  }
  return v;
}

const KIND: Record<string, number> = {
  Variable: 0,
  IntValue: 1,
  FloatValue: 2,
  StringValue: 3,
  BlockValue: 4,
  BooleanValue: 5,
  NullValue: 6,
  EnumValue: 7,
  ListValue: 8,
  ObjectValue: 9,
};

function value(v: ValueNode | undefined): J {
  if (!v) return null;
  switch (v.kind) {
    case 'Variable':
      return { Raw: v.name.value, Kind: KIND.Variable };
    case 'IntValue':
      return { Raw: v.value, Kind: KIND.IntValue };
    case 'FloatValue':
      return { Raw: v.value, Kind: KIND.FloatValue };
    case 'StringValue':
      return { Raw: v.value, Kind: v.block ? KIND.BlockValue : KIND.StringValue };
    case 'BooleanValue':
      return { Raw: String(v.value), Kind: KIND.BooleanValue };
    case 'NullValue':
      return { Raw: 'null', Kind: KIND.NullValue };
    case 'EnumValue':
      return { Raw: v.value, Kind: KIND.EnumValue };
    case 'ListValue':
      return { Raw: '', Kind: KIND.ListValue, Children: v.values.map((x) => ({ Name: '', Value: value(x) })) };
    case 'ObjectValue':
      return { Raw: '', Kind: KIND.ObjectValue, Children: v.fields.map((f) => ({ Name: f.name.value, Value: value(f.value) })) };
  }
}

function type(t: TypeNode | undefined): J {
  if (!t) return null;
  if (t.kind === 'NonNullType') return { ...(type(t.type) as O), NonNull: true };
  if (t.kind === 'ListType') return { NamedType: '', Elem: type(t.type), NonNull: false };
  return { NamedType: t.name.value, Elem: null, NonNull: false };
}

const args = (as: readonly ArgumentNode[] | undefined): J[] => (as ?? []).map((a) => ({ Name: a.name.value, Value: value(a.value) }));
const directives = (ds: readonly DirectiveNode[] | undefined): J[] => (ds ?? []).map((d) => ({ Name: d.name.value, Arguments: args(d.arguments) }));

function selections(ss: readonly SelectionNode[] | undefined): J[] {
  return (ss ?? []).map((s) => {
    if (s.kind === 'Field') {
      return {
        Alias: s.alias?.value ?? s.name.value,
        Name: s.name.value,
        Arguments: args(s.arguments),
        Directives: directives(s.directives),
        SelectionSet: selections(s.selectionSet?.selections),
      };
    }
    if (s.kind === 'FragmentSpread') return { Name: s.name.value, Directives: directives(s.directives) };
    return {
      TypeCondition: s.typeCondition?.name.value ?? '',
      Directives: directives(s.directives),
      SelectionSet: selections(s.selectionSet.selections),
    };
  });
}

function varDef(v: VariableDefinitionNode): J {
  return { Variable: v.variable.name.value, Type: type(v.type), DefaultValue: value(v.defaultValue), Directives: directives(v.directives) };
}

/** QueryDocument JSON (before pruning). */
export function queryDocument(doc: DocumentNode): O {
  const ops: J[] = [];
  const frags: J[] = [];
  for (const d of doc.definitions) {
    if (d.kind === 'OperationDefinition') {
      ops.push({
        Operation: d.operation,
        Name: d.name?.value ?? '',
        VariableDefinitions: (d.variableDefinitions ?? []).map(varDef),
        Directives: directives(d.directives),
        SelectionSet: selections(d.selectionSet.selections),
      });
    } else if (d.kind === 'FragmentDefinition') {
      frags.push({
        Name: d.name.value,
        VariableDefinition: (d.variableDefinitions ?? []).map(varDef),
        TypeCondition: d.typeCondition.name.value,
        Directives: directives(d.directives),
        SelectionSet: selections(d.selectionSet.selections),
      });
    }
  }
  return { Operations: ops, Fragments: frags };
}

function inputValue(a: InputValueDefinitionNode): J {
  return { Description: a.description?.value ?? '', Name: a.name.value, DefaultValue: value(a.defaultValue), Type: type(a.type), Directives: directives(a.directives) };
}

function fieldDef(f: FieldDefinitionNode | InputValueDefinitionNode): J {
  if (f.kind === 'InputValueDefinition') return { ...(inputValue(f) as O), Arguments: [] };
  return {
    Description: f.description?.value ?? '',
    Name: f.name.value,
    Arguments: (f.arguments ?? []).map(inputValue),
    DefaultValue: null,
    Type: type(f.type),
    Directives: directives(f.directives),
  };
}

const DEF_KIND: Record<string, string> = {
  ObjectType: 'OBJECT',
  InterfaceType: 'INTERFACE',
  UnionType: 'UNION',
  EnumType: 'ENUM',
  InputObjectType: 'INPUT_OBJECT',
  ScalarType: 'SCALAR',
};

function typeDef(d: DefinitionNode): O | undefined {
  const m = d.kind.match(/^(ObjectType|InterfaceType|UnionType|EnumType|InputObjectType|ScalarType)(Definition|Extension)$/);
  if (!m) return undefined;
  const n = d as DefinitionNode & Record<string, unknown>;
  const desc = (n.description as { value: string } | undefined)?.value ?? '';
  return {
    Kind: DEF_KIND[m[1]!],
    Description: desc,
    Name: (n.name as { value: string }).value,
    Directives: directives(n.directives as DirectiveNode[] | undefined),
    Interfaces: ((n.interfaces as { name: { value: string } }[] | undefined) ?? []).map((i) => i.name.value),
    Fields: ((n.fields as (FieldDefinitionNode | InputValueDefinitionNode)[] | undefined) ?? []).map(fieldDef),
    Types: ((n.types as { name: { value: string } }[] | undefined) ?? []).map((t) => t.name.value),
    EnumValues: ((n.values as { name: { value: string }; description?: { value: string }; directives?: DirectiveNode[] }[] | undefined) ?? []).map((e) => ({
      Description: e.description?.value ?? '',
      Name: e.name.value,
      Directives: directives(e.directives),
    })),
    BuiltIn: false,
  };
}

/** SchemaDocument JSON (before pruning). */
export function schemaDocument(doc: DocumentNode): O {
  const out: { Schema: J[]; SchemaExtension: J[]; Directives: J[]; Definitions: J[]; Extensions: J[] } = {
    Schema: [],
    SchemaExtension: [],
    Directives: [],
    Definitions: [],
    Extensions: [],
  };
  for (const d of doc.definitions) {
    if (d.kind === 'SchemaDefinition' || d.kind === 'SchemaExtension') {
      const s = {
        Description: d.kind === 'SchemaDefinition' ? (d.description?.value ?? '') : '',
        Directives: directives(d.directives),
        OperationTypes: (d.operationTypes ?? []).map((o) => ({ Operation: o.operation, Type: o.type.name.value })),
      };
      (d.kind === 'SchemaDefinition' ? out.Schema : out.SchemaExtension).push(s);
    } else if (d.kind === 'DirectiveDefinition') {
      out.Directives.push({
        Description: d.description?.value ?? '',
        Name: d.name.value,
        Arguments: (d.arguments ?? []).map(inputValue),
        Locations: d.locations.map((l) => l.value),
        IsRepeatable: d.repeatable,
      });
    } else {
      const t = typeDef(d);
      if (t) (d.kind.endsWith('Extension') ? out.Extensions : out.Definitions).push(t);
    }
  }
  return out;
}
