// The filter policies of the soundness tests (soundness.test.ts): each a Rego
// policy with `compile:` unknowns, the tables its unknowns name (column types and
// random value pools), the request input, and which outputs apply (SQLite has no
// string builtins; prisma no column-against-column). Value pools avoid the places
// where SQL and Rego are known to differ on purpose: NULL in ordering comparisons
// and under `!=`/`not` (SQL's three-valued logic), and `input.t.c = _` on NULL
// (there a NULL column is given to Rego as a missing key: `nullAsMissing`).
import { benchFiltersPolicy, benchRoles } from './helpers.js';

export type ColumnType = 'int' | 'real' | 'text' | 'bool';

export interface Column {
  name: string;
  type: ColumnType;
  /** Values drawn uniformly; `null` is SQL NULL. */
  pool: (string | number | boolean | null)[];
}

export interface Table {
  name: string;
  columns: Column[];
}

export interface SoundnessPolicy {
  name: string;
  rego: string;
  /** Tables; with two, rows are joined 1:1 on `id`. */
  tables: Table[];
  input: Record<string, unknown>;
  data?: Record<string, unknown>;
  /** The document: `['filters', 'include']` unless given. */
  path?: string[];
  sqlite: boolean;
  prisma: boolean;
  /** NULL columns are left out of the Rego input (for existence checks). */
  nullAsMissing?: boolean;
  /** Mirror reversed comparisons correctly (OPA's default negates them). */
  mirror?: boolean;
  /** The UCAST variant checked with @ucast/js (default `all`; `prisma` has existence but no column refs). */
  ucast?: 'all' | 'prisma';
}

const COLOURS = ['red', 'green', 'yellow', 'orange', 'blue'];
const NAMES = ['apple', 'banana', 'cherry', 'pineapple', 'grape', 'apricot'];
const TRICKY = ["o'neil", 'back\\slash', 'per%cent', 'under_score', 'quote"d', 'tab\tbed', 'plain', "x' OR 1=1 --", 'a_b%c'];

const fruits = (extra: Column[] = []): Table => ({
  name: 'fruits',
  columns: [
    { name: 'name', type: 'text', pool: NAMES },
    { name: 'colour', type: 'text', pool: COLOURS },
    { name: 'price', type: 'int', pool: [0, 5, 10, 15, 20, 50, 100] },
    ...extra,
  ],
});

const header = (unknowns: string) => `package filters
# METADATA
# scope: document
# compile:
#   unknowns: [${unknowns}]
`;

export function soundnessPolicies(): SoundnessPolicy[] {
  return [
    {
      name: 'bench_filters (OPA, compile: annotations)',
      rego: benchFiltersPolicy(),
      tables: [
        { name: 'tickets', columns: [{ name: 'tenant', type: 'int', pool: [1, 2, 3] }, { name: 'assignee', type: 'text', pool: ['caesar', 'alice', 'bob', null] }, { name: 'resolved', type: 'bool', pool: [true, false] }] },
        { name: 'users', columns: [{ name: 'name', type: 'text', pool: ['caesar', 'alice', 'bob', 'dylan'] }] },
      ],
      input: { user: 'caesar', tenant: { id: 2, name: 'acmecorp' } },
      data: { roles: benchRoles() },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'equality and inequality from input',
      rego: `${header('input.fruits')}include if input.fruits.colour == input.colour\ninclude if { input.fruits.name != "apple"; input.fruits.price == 10 }\n`,
      tables: [fruits()],
      input: { colour: 'red' },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'numeric ranges',
      rego: `${header('input.fruits')}include if { input.fruits.price > input.min; input.fruits.price <= 50 }\ninclude if input.fruits.price >= 100\n`,
      tables: [fruits()],
      input: { min: 5 },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'in a literal set with an input element',
      rego: `${header('input.fruits')}include if input.fruits.name in {"apple", "banana", input.extra}\n`,
      tables: [fruits()],
      input: { extra: 'grape' },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'in an input array, and an empty array',
      rego: `${header('input.fruits')}include if input.fruits.colour in input.fav_colours\ninclude if { input.fruits.price < 10; input.fruits.name in input.none }\n`,
      tables: [fruits()],
      input: { fav_colours: ['yellow', 'green'], none: [] },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'negation',
      rego: `${header('input.fruits')}include if { not input.fruits.name == "apple"; not input.fruits.price > 20 }\n`,
      tables: [fruits()],
      input: {},
      sqlite: true,
      prisma: true,
    },
    {
      name: 'string builtins with LIKE metacharacters',
      rego: `${header('input.fruits')}include if startswith(input.fruits.name, input.prefix)\ninclude if endswith(input.fruits.name, "%c")\ninclude if contains(input.fruits.name, "\\\\")\n`,
      tables: [{ name: 'fruits', columns: [{ name: 'name', type: 'text', pool: [...TRICKY, 'ap', 'apple', 'a_bx', 'axbx'] }] }],
      input: { prefix: 'a_b' },
      sqlite: false,
      prisma: true,
    },
    {
      name: 'booleans, or of ands',
      rego: `${header('input.fruits')}include if { input.fruits.organic == true; input.fruits.price > 0 }\ninclude if { input.fruits.organic == false; input.fruits.colour == "blue" }\n`,
      tables: [fruits([{ name: 'organic', type: 'bool', pool: [true, false] }])],
      input: {},
      sqlite: true,
      prisma: true,
    },
    {
      name: 'null checks',
      rego: `${header('input.fruits')}include if input.fruits.owner == null\ninclude if input.fruits.owner == input.user\n`,
      tables: [fruits([{ name: 'owner', type: 'text', pool: ['alice', 'bob', null] }])],
      input: { user: 'alice' },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'existence (= _) as IS NOT NULL',
      rego: `${header('input.fruits')}include if { input.fruits.owner = _; input.fruits.price > 10 }\n`,
      tables: [fruits([{ name: 'owner', type: 'text', pool: ['alice', null] }])],
      input: {},
      sqlite: true,
      prisma: true,
      nullAsMissing: true,
      ucast: 'prisma',
    },
    {
      name: 'column against column',
      rego: `${header('input.fruits')}include if input.fruits.price < input.fruits.max_price\ninclude if input.fruits.colour == input.fruits.fav\n`,
      tables: [fruits([{ name: 'max_price', type: 'int', pool: [5, 10, 50] }, { name: 'fav', type: 'text', pool: COLOURS }])],
      input: {},
      sqlite: true,
      prisma: false,
    },
    {
      name: 'helper rules and functions inlined',
      rego: `${header('input.fruits')}include if { allowed_colour(input.fruits.colour); cheap }\ninclude if input.fruits.name == data.favourites[input.user]\nallowed_colour(c) if c in {"red", "green"}\ncheap if input.fruits.price < input.budget\n`,
      tables: [fruits()],
      input: { budget: 20, user: 'bob' },
      data: { favourites: { bob: 'cherry', alice: 'apple' } },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'iteration over input and data (one body per element)',
      rego: `${header('input.fruits')}include if { some c in input.colours; input.fruits.colour == c }\ninclude if { some n in data.specials; input.fruits.name == n; input.fruits.price > 10 }\n`,
      tables: [fruits()],
      input: { colours: ['red', 'blue'] },
      data: { specials: ['grape', 'apricot'] },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'escaping of quotes and backslashes in literals',
      rego: `${header('input.fruits')}include if input.fruits.name == input.a\ninclude if input.fruits.name in {"o'neil", "back\\\\slash", "quote\\"d"}\ninclude if input.fruits.name == "tab\\tbed"\n`,
      tables: [{ name: 'fruits', columns: [{ name: 'name', type: 'text', pool: TRICKY }] }],
      input: { a: "x' OR 1=1 --" },
      sqlite: true,
      prisma: true,
    },
    {
      name: 'reversed comparisons (mirrored)',
      rego: `${header('input.fruits')}include if 10 <= input.fruits.price\ninclude if { 50 > input.fruits.price; "red" == input.fruits.colour }\n`,
      tables: [fruits()],
      input: {},
      sqlite: true,
      prisma: true,
      mirror: true,
    },
  ];
}
