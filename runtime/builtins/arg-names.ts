// Argument and result names from OPA's builtin declarations (v1/ast/builtins.go,
// `types.Named("x", ...)`). OPA's type checker prints them in `want: (x: string, y: string)`.
// Builtins whose declaration is entirely unnamed (eq, assign, internal.*, the deprecated
// casts, set_diff, re_match, all, any, net.cidr_overlap, print) are left out.

/** Builtin name → the names OPA's declaration gives its arguments and result (null where the type is unnamed). */
export const ARG_NAMES: Record<string, { args: (string | null)[]; result: string | null }> = {
  // Comparison
  gt: { args: ['x', 'y'], result: 'result' },
  gte: { args: ['x', 'y'], result: 'result' },
  lt: { args: ['x', 'y'], result: 'result' },
  lte: { args: ['x', 'y'], result: 'result' },
  neq: { args: ['x', 'y'], result: 'result' },
  equal: { args: ['x', 'y'], result: 'result' },

  // Arithmetic
  plus: { args: ['x', 'y'], result: 'z' },
  minus: { args: ['x', 'y'], result: 'z' },
  mul: { args: ['x', 'y'], result: 'z' },
  div: { args: ['x', 'y'], result: 'z' },
  rem: { args: ['x', 'y'], result: 'z' },
  round: { args: ['x'], result: 'y' },
  ceil: { args: ['x'], result: 'y' },
  floor: { args: ['x'], result: 'y' },
  abs: { args: ['x'], result: 'y' },

  // Bitwise
  'bits.or': { args: ['x', 'y'], result: 'z' },
  'bits.and': { args: ['x', 'y'], result: 'z' },
  'bits.negate': { args: ['x'], result: 'z' },
  'bits.xor': { args: ['x', 'y'], result: 'z' },
  'bits.lsh': { args: ['x', 's'], result: 'z' },
  'bits.rsh': { args: ['x', 's'], result: 'z' },

  // Sets
  and: { args: ['x', 'y'], result: 'z' },
  or: { args: ['x', 'y'], result: 'z' },
  intersection: { args: ['xs'], result: 'y' },
  union: { args: ['xs'], result: 'y' },

  // Aggregates
  count: { args: ['collection'], result: 'n' },
  sum: { args: ['collection'], result: 'n' },
  product: { args: ['collection'], result: 'n' },
  max: { args: ['collection'], result: 'n' },
  min: { args: ['collection'], result: 'n' },
  sort: { args: ['collection'], result: 'n' },

  // Arrays
  'array.concat': { args: ['x', 'y'], result: 'z' },
  'array.slice': { args: ['arr', 'start', 'stop'], result: 'slice' },
  'array.reverse': { args: ['arr'], result: 'rev' },

  // Conversions
  to_number: { args: ['x'], result: 'num' },

  // Regular expressions
  'regex.match': { args: ['pattern', 'value'], result: 'result' },
  'regex.is_valid': { args: ['pattern'], result: 'result' },
  'regex.find_all_string_submatch_n': { args: ['pattern', 'value', 'number'], result: 'output' },
  'regex.template_match': { args: ['template', 'value', 'delimiter_start', 'delimiter_end'], result: 'result' },
  'regex.split': { args: ['pattern', 'value'], result: 'output' },
  'regex.find_n': { args: ['pattern', 'value', 'number'], result: 'output' },
  'regex.globs_match': { args: ['glob1', 'glob2'], result: 'result' },
  'regex.replace': { args: ['s', 'pattern', 'value'], result: 'output' },

  // Strings
  'strings.any_prefix_match': { args: ['search', 'base'], result: 'result' },
  'strings.any_suffix_match': { args: ['search', 'base'], result: 'result' },
  concat: { args: ['delimiter', 'collection'], result: 'output' },
  format_int: { args: ['number', 'base'], result: 'output' },
  indexof: { args: ['haystack', 'needle'], result: 'output' },
  indexof_n: { args: ['haystack', 'needle'], result: 'output' },
  substring: { args: ['value', 'offset', 'length'], result: 'output' },
  contains: { args: ['haystack', 'needle'], result: 'result' },
  'strings.count': { args: ['search', 'substring'], result: 'output' },
  startswith: { args: ['search', 'base'], result: 'result' },
  endswith: { args: ['search', 'base'], result: 'result' },
  lower: { args: ['x'], result: 'y' },
  upper: { args: ['x'], result: 'y' },
  split: { args: ['x', 'delimiter'], result: 'ys' },
  replace: { args: ['x', 'old', 'new'], result: 'y' },
  'strings.replace_n': { args: ['patterns', 'value'], result: 'output' },
  trim: { args: ['value', 'cutset'], result: 'output' },
  trim_left: { args: ['value', 'cutset'], result: 'output' },
  trim_prefix: { args: ['value', 'prefix'], result: 'output' },
  trim_right: { args: ['value', 'cutset'], result: 'output' },
  trim_suffix: { args: ['value', 'suffix'], result: 'output' },
  trim_space: { args: ['value'], result: 'output' },
  sprintf: { args: ['format', 'values'], result: 'output' },
  'strings.reverse': { args: ['x'], result: 'y' },
  'strings.render_template': { args: ['value', 'vars'], result: 'result' },

  // Numbers, units, UUIDs
  'rand.intn': { args: ['str', 'n'], result: 'y' },
  'numbers.range': { args: ['a', 'b'], result: 'range' },
  'numbers.range_step': { args: ['a', 'b', 'step'], result: 'range' },
  'units.parse': { args: ['x'], result: 'y' },
  'units.parse_bytes': { args: ['x'], result: 'y' },
  'uuid.rfc4122': { args: ['k'], result: 'output' },
  'uuid.parse': { args: ['uuid'], result: 'result' },

  // Objects and JSON documents
  'json.filter': { args: ['object', 'paths'], result: 'filtered' },
  'json.remove': { args: ['object', 'paths'], result: 'output' },
  'json.patch': { args: ['object', 'patches'], result: 'output' },
  'object.subset': { args: ['super', 'sub'], result: 'result' },
  'object.union': { args: ['a', 'b'], result: 'output' },
  'object.union_n': { args: ['objects'], result: 'output' },
  'object.remove': { args: ['object', 'keys'], result: 'output' },
  'object.filter': { args: ['object', 'keys'], result: 'filtered' },
  'object.get': { args: ['object', 'key', 'default'], result: 'value' },
  'object.keys': { args: ['object'], result: 'value' },

  // Encoding
  'json.marshal': { args: ['x'], result: 'y' },
  'json.marshal_with_options': { args: ['x', 'opts'], result: 'y' },
  'json.unmarshal': { args: ['x'], result: 'y' },
  'json.is_valid': { args: ['x'], result: 'result' },
  'base64.encode': { args: ['x'], result: 'y' },
  'base64.decode': { args: ['x'], result: 'y' },
  'base64.is_valid': { args: ['x'], result: 'result' },
  'base64url.encode': { args: ['x'], result: 'y' },
  'base64url.encode_no_pad': { args: ['x'], result: 'y' },
  'base64url.decode': { args: ['x'], result: 'y' },
  'urlquery.decode': { args: ['x'], result: 'y' },
  'urlquery.encode': { args: ['x'], result: 'y' },
  'urlquery.encode_object': { args: ['object'], result: 'y' },
  'urlquery.decode_object': { args: ['x'], result: 'object' },
  'yaml.marshal': { args: ['x'], result: 'y' },
  'yaml.unmarshal': { args: ['x'], result: 'y' },
  'yaml.is_valid': { args: ['x'], result: 'result' },
  'hex.encode': { args: ['x'], result: 'y' },
  'hex.decode': { args: ['x'], result: 'y' },

  // Tokens
  'io.jwt.decode': { args: ['jwt'], result: 'output' },
  'io.jwt.verify_rs256': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_rs384': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_rs512': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_ps256': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_ps384': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_ps512': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_es256': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_es384': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_es512': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_eddsa': { args: ['jwt', 'certificate'], result: 'result' },
  'io.jwt.verify_hs256': { args: ['jwt', 'secret'], result: 'result' },
  'io.jwt.verify_hs384': { args: ['jwt', 'secret'], result: 'result' },
  'io.jwt.verify_hs512': { args: ['jwt', 'secret'], result: 'result' },
  'io.jwt.decode_verify': { args: ['jwt', 'constraints'], result: 'output' },
  'io.jwt.encode_sign_raw': { args: ['headers', 'payload', 'key'], result: 'output' },
  'io.jwt.encode_sign': { args: ['headers', 'payload', 'key'], result: 'output' },

  // Time
  'time.now_ns': { args: [], result: 'now' },
  'time.parse_ns': { args: ['layout', 'value'], result: 'ns' },
  'time.parse_rfc3339_ns': { args: ['value'], result: 'ns' },
  'time.parse_duration_ns': { args: ['duration'], result: 'ns' },
  'time.format': { args: ['x'], result: 'formatted timestamp' },
  'time.date': { args: ['x'], result: 'date' },
  'time.clock': { args: ['x'], result: 'output' },
  'time.weekday': { args: ['x'], result: 'day' },
  'time.add_date': { args: ['ns', 'years', 'months', 'days'], result: 'output' },
  'time.diff': { args: ['ns1', 'ns2'], result: 'output' },

  // Crypto
  'crypto.x509.parse_certificates': { args: ['certs'], result: 'output' },
  'crypto.x509.parse_and_verify_certificates': { args: ['certs'], result: 'output' },
  'crypto.x509.parse_and_verify_certificates_with_options': { args: ['certs', 'options'], result: 'output' },
  'crypto.x509.parse_certificate_request': { args: ['csr'], result: 'output' },
  'crypto.x509.parse_keypair': { args: ['cert', 'pem'], result: 'output' },
  'crypto.x509.parse_rsa_private_key': { args: ['pem'], result: 'output' },
  'crypto.parse_private_keys': { args: ['keys'], result: 'output' },
  'crypto.md5': { args: ['x'], result: 'y' },
  'crypto.sha1': { args: ['x'], result: 'y' },
  'crypto.sha256': { args: ['x'], result: 'y' },
  'crypto.hmac.md5': { args: ['x', 'key'], result: 'y' },
  'crypto.hmac.sha1': { args: ['x', 'key'], result: 'y' },
  'crypto.hmac.sha256': { args: ['x', 'key'], result: 'y' },
  'crypto.hmac.sha512': { args: ['x', 'key'], result: 'y' },
  'crypto.hmac.equal': { args: ['mac1', 'mac2'], result: 'result' },

  // Graphs
  walk: { args: ['x'], result: 'output' },
  'graph.reachable': { args: ['graph', 'initial'], result: 'output' },
  'graph.reachable_paths': { args: ['graph', 'initial'], result: 'output' },

  // Types
  is_number: { args: ['x'], result: 'result' },
  is_string: { args: ['x'], result: 'result' },
  is_boolean: { args: ['x'], result: 'result' },
  is_array: { args: ['x'], result: 'result' },
  is_set: { args: ['x'], result: 'result' },
  is_object: { args: ['x'], result: 'result' },
  is_null: { args: ['x'], result: 'result' },
  type_name: { args: ['x'], result: 'type' },

  // HTTP
  'http.send': { args: ['request'], result: 'response' },

  // GraphQL
  'graphql.parse': { args: ['query', 'schema'], result: 'output' },
  'graphql.parse_and_verify': { args: ['query', 'schema'], result: 'output' },
  'graphql.parse_query': { args: ['query'], result: 'output' },
  'graphql.parse_schema': { args: ['schema'], result: 'output' },
  'graphql.is_valid': { args: ['query', 'schema'], result: 'output' },
  'graphql.schema_is_valid': { args: ['schema'], result: 'output' },

  // JSON Schema
  'json.verify_schema': { args: ['schema'], result: 'output' },
  'json.match_schema': { args: ['document', 'schema'], result: 'output' },

  // Providers
  'providers.aws.sign_req': { args: ['request', 'aws_config', 'time_ns'], result: 'signed_request' },

  // Rego, OPA, tracing
  'rego.parse_module': { args: ['filename', 'rego'], result: 'output' },
  'rego.metadata.chain': { args: [], result: 'chain' },
  'rego.metadata.rule': { args: [], result: 'output' },
  'opa.runtime': { args: [], result: 'output' },
  trace: { args: ['note'], result: 'result' },

  // Glob
  'glob.match': { args: ['pattern', 'delimiters', 'match'], result: 'result' },
  'glob.quote_meta': { args: ['pattern'], result: 'output' },

  // Networking
  'net.cidr_intersects': { args: ['cidr1', 'cidr2'], result: 'result' },
  'net.cidr_expand': { args: ['cidr'], result: 'hosts' },
  'net.cidr_contains': { args: ['cidr', 'cidr_or_ip'], result: 'result' },
  'net.cidr_contains_matches': { args: ['cidrs', 'cidrs_or_ips'], result: 'output' },
  'net.cidr_merge': { args: ['addrs'], result: 'output' },
  'net.cidr_is_valid': { args: ['cidr'], result: 'result' },
  'net.lookup_ip_addr': { args: ['name'], result: 'addrs' },

  // Semantic versions
  'semver.is_valid': { args: ['vsn'], result: 'result' },
  'semver.compare': { args: ['a', 'b'], result: 'result' },
};
