// Every builtin namespace, in one list. Each file exports `builtins: BuiltinDef[]`.
import type { BuiltinDef } from './types.js';
import { builtins as numbers_ } from './numbers.js';
import { builtins as comparison_ } from './comparison.js';
import { builtins as aggregates_ } from './aggregates.js';
import { builtins as bits_ } from './bits.js';
import { builtins as sets_ } from './sets.js';
import { builtins as arrays_ } from './arrays.js';
import { builtins as typechecks_ } from './typechecks.js';
import { builtins as conversions_ } from './conversions.js';
import { builtins as strings_ } from './strings.js';
import { builtins as sprintf_ } from './sprintf.js';
import { builtins as regex_ } from './regex.js';
import { builtins as glob_ } from './glob.js';
import { builtins as units_ } from './units.js';
import { builtins as semver_ } from './semver.js';
import { builtins as uuid_ } from './uuid.js';
import { builtins as objects_ } from './objects.js';
import { builtins as json_ } from './json.js';
import { builtins as encoding_ } from './encoding.js';
import { builtins as graph_ } from './graph.js';
import { builtins as time_ } from './time.js';
import { builtins as net_ } from './net.js';
import { builtins as crypto_ } from './crypto.js';
import { builtins as jwt_ } from './jwt.js';
import { builtins as graphql_ } from './graphql.js';
import { builtins as http_ } from './http.js';
import { builtins as providers_ } from './providers.js';
import { builtins as opa_ } from './opa.js';
import { builtins as rego_ } from './rego.js';

export const ALL_BUILTINS: readonly (readonly BuiltinDef[])[] = [
  numbers_,
  comparison_,
  aggregates_,
  bits_,
  sets_,
  arrays_,
  typechecks_,
  conversions_,
  strings_,
  sprintf_,
  regex_,
  glob_,
  units_,
  semver_,
  uuid_,
  objects_,
  json_,
  encoding_,
  graph_,
  time_,
  net_,
  crypto_,
  jwt_,
  graphql_,
  http_,
  providers_,
  opa_,
  rego_,
];
