// Capabilities of older OPA releases (`regent capabilities --version v0.50.0`,
// `check/eval --capabilities v0.50.0`), generated from facts rather than OPA's
// per-release JSON files: which release introduced each builtin, future keyword
// and feature. A release's document is this build's catalog (runtime/builtins)
// filtered to what existed then, in OPA's key order.
//
// Sources of the facts:
//   - builtins up to v0.56.0: the `introduced` field of OPA's builtin_metadata.json
//     (open-policy-agent/opa at v0.56); every builtin not listed below was there
//     from v0.17.0, the first release with capabilities;
//   - later builtins: OPA's release notes, checked against the capabilities files
//     v0.59.0, v1.0.0 and v1.16.1 where noted (`verified`); builtins whose release
//     could not be established are listed only for this build's own version;
//   - keywords and features: OPA's release notes, checked against the v0.59.0,
//     v1.0.0, v1.5.0, v1.8.0, v1.11.0, v1.12.2, v1.15.1 and v1.16.1 files (v0.59.0 has
//     no `wasm_abi_versions` key; v1.0.0 lists the ABI versions 1.1 and 1.2 and is the
//     last with `future_keywords`; from v1.5.0 on features are sorted).
import { capabilities } from '../runtime/builtins/catalog.js';

/** OPA releases with a capabilities file that Regent can emulate, oldest first (`opa capabilities` lists them by file name: `listOrder`). */
export const OPA_RELEASES: readonly string[] = (
  '0.17.0 0.17.1 0.17.2 0.17.3 0.18.0 0.19.0-rc1 0.19.0 0.19.1 0.19.2 0.20.0 0.20.1 0.20.2 0.20.3 0.20.4 0.20.5 ' +
  '0.21.0 0.21.1 0.22.0 0.23.0 0.23.1 0.23.2 0.24.0 0.25.0-rc1 0.25.0-rc2 0.25.0-rc3 0.25.0-rc4 0.25.0 0.25.1 0.25.2 ' +
  '0.26.0 0.27.0 0.27.1 0.28.0 0.29.0 0.29.1 0.29.2 0.29.3 0.29.4 0.30.0 0.30.1 0.30.2 0.31.0 0.32.0 0.32.1 0.33.0 ' +
  '0.33.1 0.34.0 0.34.1 0.34.2 0.35.0 0.36.0 0.36.1 0.37.0 0.37.1 0.37.2 0.38.0 0.38.1 0.39.0 0.40.0 0.41.0 0.42.0 ' +
  '0.42.1 0.42.2 0.43.0 0.43.1 0.44.0 0.45.0 0.46.0 0.46.1 0.46.2 0.46.3 0.47.0 0.47.1 0.47.2 0.47.3 0.47.4 0.48.0 ' +
  '0.49.0 0.49.1 0.49.2 0.50.0 0.50.1 0.50.2 0.51.0 0.52.0 0.53.0 0.53.1 0.54.0 0.55.0 0.56.0 0.59.0 1.0.0 1.5.0 ' +
  '1.8.0 1.11.0 1.12.2 1.15.1 1.16.1'
)
  .split(' ')
  .map((v) => `v${v}`);

/** The releases in the order `opa capabilities` lists them: its embedded files by name (`v1.11.0` before `v1.5.0`). */
export function listOrder(): string[] {
  return [...OPA_RELEASES].sort((a, b) => (a + '.json' < b + '.json' ? -1 : 1));
}

/** Builtins introduced after v0.17.0, by release. */
const BUILTINS_SINCE: Record<string, string> = group({
  'v0.17.2': 'object.filter object.remove object.union',
  'v0.18.0': 'bits.and bits.lsh bits.negate bits.or bits.rsh bits.xor json.remove',
  'v0.19.0-rc1': 'net.cidr_contains_matches',
  'v0.19.0': 'time.add_date',
  'v0.20.0':
    'graph.reachable io.jwt.verify_es384 io.jwt.verify_es512 io.jwt.verify_hs384 io.jwt.verify_hs512 io.jwt.verify_ps384 ' +
    'io.jwt.verify_ps512 io.jwt.verify_rs384 io.jwt.verify_rs512 uuid.rfc4122',
  'v0.21.0': 'crypto.x509.parse_certificate_request',
  'v0.22.0': 'numbers.range semver.compare semver.is_valid',
  'v0.23.0': 'regex.is_valid regex.match',
  'v0.24.0': 'base64.is_valid net.cidr_merge urlquery.decode_object',
  'v0.25.0-rc1': 'json.is_valid yaml.is_valid',
  'v0.25.0-rc2': 'base64url.encode_no_pad hex.decode hex.encode',
  'v0.25.0': 'json.patch',
  'v0.26.0': 'ceil floor',
  'v0.28.0': 'time.diff',
  'v0.31.0': 'crypto.x509.parse_and_verify_certificates rand.intn',
  'v0.33.0': 'crypto.x509.parse_rsa_private_key',
  'v0.34.0': 'internal.member_2 internal.member_3 internal.print print',
  'v0.35.0': 'net.lookup_ip_addr',
  'v0.36.0': 'array.reverse crypto.hmac.md5 crypto.hmac.sha1 crypto.hmac.sha256 crypto.hmac.sha512 strings.reverse',
  'v0.37.0': 'graph.reachable_paths indexof_n object.union_n',
  'v0.40.0': 'rego.metadata.chain rego.metadata.rule',
  'v0.41.0': 'graphql.is_valid graphql.parse graphql.parse_and_verify graphql.parse_query graphql.parse_schema units.parse',
  'v0.42.0': 'object.subset',
  'v0.44.0': 'strings.any_prefix_match strings.any_suffix_match',
  'v0.45.0': 'regex.replace',
  'v0.46.0': 'graphql.schema_is_valid net.cidr_is_valid',
  'v0.47.0': 'object.keys providers.aws.sign_req',
  'v0.48.0': 'time.format',
  'v0.50.0': 'json.match_schema json.verify_schema',
  'v0.52.0': 'crypto.hmac.equal',
  'v0.53.0': 'crypto.x509.parse_keypair',
  'v0.55.0': 'crypto.parse_private_keys',
  'v0.56.0': 'numbers.range_step',
  // after v0.56.0 (release notes; `verified` against capabilities files where noted)
  'v0.57.0': 'uuid.parse',
  'v0.59.0': 'strings.render_template',
  'v0.63.0': 'crypto.x509.parse_and_verify_certificates_with_options', // verified: absent in v0.59.0, present in v1.0.0
  'v0.64.0': 'json.marshal_with_options', // verified present in v1.16.1
  'v0.67.0': 'strings.count',
  'v1.16.1': 'array.flatten', // earliest file verified to list it
  current: 'internal.template_string internal.test_case io.jwt.verify_eddsa strings.split_n',
});

/** Future keywords by first release; listed up to v1.0.0 (verified there; absent from the v1.5.0 file on). */
const KEYWORDS_SINCE: Record<string, string> = { in: 'v0.34.0', every: 'v0.37.0', contains: 'v0.42.0', if: 'v0.42.0' };
const LAST_WITH_FUTURE_KEYWORDS = 'v1.0.0';
/** The first release whose capabilities file marks builtins `deprecated` (verified: absent in v1.8.0). */
const FIRST_WITH_DEPRECATED_FLAGS = 'v1.11.0';

function withoutDeprecated<B extends { deprecated?: true }>(b: B): Omit<B, 'deprecated'> {
  const { deprecated: _, ...rest } = b;
  return rest;
}

/** Features and the release that first lists them; `v0` ones are the Rego v0 features. */
const FEATURES: { name: string; since: string; v0: boolean }[] = [
  { name: 'rule_head_ref_string_prefixes', since: 'v0.46.0', v0: true },
  { name: 'rule_head_refs', since: 'v0.59.0', v0: true }, // verified in v0.59.0
  { name: 'rego_v1', since: 'v1.0.0', v0: false }, // verified in v1.0.0
  { name: 'rego_v1_import', since: 'v1.0.0', v0: true }, // verified: absent in v0.59.0, present in v1.0.0
  { name: 'keywords_in_refs', since: 'v1.8.0', v0: false }, // verified: absent in v1.5.0, present in v1.8.0
  { name: 'template_strings', since: 'v1.12.2', v0: false }, // verified: absent in v1.11.0, present in v1.12.2
];

function group(byVersion: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [v, names] of Object.entries(byVersion)) for (const n of names.split(' ')) out[n] = v;
  return out;
}

type Parsed = [number, number, number, number];

/** `v1.2.3` / `v0.25.0-rc2` → comparable parts (a release sorts after its release candidates). */
export function parseVersion(v: string): Parsed | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-rc(\d+))?$/.exec(v);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? Infinity : Number(m[4])];
}

/** a < b: negative; equal: 0. `current` is newer than every release. */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  if (a === 'current') return 1;
  if (b === 'current') return -1;
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return a < b ? -1 : 1;
  for (let i = 0; i < 4; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

/** The release that introduced a builtin (v0.17.0 for the original set). */
export function builtinSince(name: string): string {
  return BUILTINS_SINCE[name] ?? 'v0.17.0';
}

type Doc = ReturnType<typeof capabilities>;

/**
 * The capabilities document of an OPA release (`v0.50.0`), or of this build when
 * `version` is `current`; undefined for a release Regent does not know.
 */
export function capabilitiesForRelease(version: string, opts: { v0Compatible?: boolean } = {}): Record<string, unknown> | undefined {
  const cur = capabilities(opts) as Doc;
  if (version === 'current') return { ...cur };
  if (!OPA_RELEASES.includes(version)) return undefined;
  const has = (since: string): boolean => compareVersions(since, version) <= 0;
  const pre1 = compareVersions(version, 'v1.0.0') <= 0;
  // Empty lists are left out, as OPA's Capabilities JSON (omitempty) leaves them out.
  // The `deprecated` flag appears in OPA's files from v1.11.0 on (none in v1.0.0, v1.5.0, v1.8.0).
  const flagged = has(FIRST_WITH_DEPRECATED_FLAGS);
  const builtins = cur.builtins.filter((b) => has(builtinSince(b.name))).map((b) => (flagged || !b.deprecated ? b : withoutDeprecated(b)));
  const out: Record<string, unknown> = { builtins };
  const keywords = compareVersions(version, LAST_WITH_FUTURE_KEYWORDS) <= 0 ? Object.keys(KEYWORDS_SINCE).filter((k) => has(KEYWORDS_SINCE[k]!)).sort() : [];
  if (keywords.length > 0) out.future_keywords = keywords;
  if (compareVersions(version, 'v1.0.0') >= 0) out.wasm_abi_versions = cur.wasm_abi_versions;
  const features = FEATURES.filter((f) => has(f.since) && (!f.v0 || pre1 || opts.v0Compatible === true)).map((f) => f.name);
  // The files after v1.0.0 list features sorted (v1.8.0 on: keywords_in_refs, rego_v1, …); earlier ones in order of introduction.
  if (!pre1) features.sort();
  if (features.length > 0) out.features = features;
  return out;
}
