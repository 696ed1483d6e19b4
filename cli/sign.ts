// `regent sign --bundle --signing-key KEY [--signing-alg ALG] [--claims-file F]
// [-o DIR] <path> [<path> …]`: write a `.signatures.json` for bundle directories or
// tarballs, as `opa sign` does. Every file of each bundle except an existing
// `.signatures.json` is listed with its SHA-256 digest: structured documents
// (data.json, data.yaml, .manifest) over their canonical JSON value, other files over
// their bytes (runtime/bundles/hash.ts). Names are as OPA's loader reports them: a
// directory's files under the path given on the command line (`foo/bar/data.json`),
// a tarball's files by their path in the archive; the leading `/` is dropped. The
// list is signed by runtime/bundles/sign.ts (jose; claims file or the `keyid`
// claim) and written as Go's json.MarshalIndent(…, "", " ") output:
//   {\n "signatures": [\n  "<jws>"\n ]\n}        (no trailing newline)
// to `<output-file-path>/.signatures.json` (default: the current directory).
// Errors print `error: …` on stdout and exit 1 (OPA prints them with fmt.Println).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { BundleError } from '../runtime/bundles/errors.js';
import { DEFAULT_HASH_ALGORITHM, hashBundleFile } from '../runtime/bundles/hash.js';
import { directoryFiles } from '../runtime/bundles/read-dir.js';
import type { FileInfo } from '../runtime/bundles/verify.js';
import { UsageError, bool, formatHelp, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import type { IO } from './output.js';

export const SIGN_FLAGS: FlagSpec[] = [
  { name: 'bundle', short: 'b', type: 'boolean', description: 'load paths as bundle files or root directories' },
  { name: 'signing-key', type: 'string', metavar: 'KEY', description: 'set the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)' },
  { name: 'signing-alg', type: 'string', default: 'RS256', metavar: 'ALG', description: 'name of the signing algorithm' },
  { name: 'claims-file', type: 'string', metavar: 'FILE', description: 'set path of JSON file containing optional claims (see: https://www.openpolicyagent.org/docs/latest/management-bundles/#signature-format)' },
  { name: 'output-file-path', short: 'o', type: 'string', default: '.', metavar: 'DIR', description: 'set the location for the .signatures.json file' },
  { name: 'help', short: 'h', type: 'boolean', description: 'help for sign' },
];

const USAGE = 'regent sign <path> [<path> [...]] [flags]';
const DESCRIPTION = `Generate an OPA bundle signature.

The 'sign' command generates a digital signature for policy bundles. It generates a
".signatures.json" file that dictates which files should be included in the bundle,
what their SHA hashes are, and is cryptographically secure. The signatures file is a
JSON file with an array containing a single JSON Web Token (JWT).

--signing-alg sets the algorithm (RS256 by default). --signing-key is a PEM file with
the private key (RSA, ECDSA) or, for HMAC algorithms (e.g. HS256), the secret.
'sign' can ONLY be used with the --bundle flag, on bundle files or directories:

    $ regent sign --signing-key /path/to/private_key.pem --bundle foo

This creates ".signatures.json" in the current directory; --output-file-path
chooses another directory. --claims-file adds claims to the payload.`;

export const SIGNING_CONFIG_INCOMPLETE = 'specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)';

/** Why OPA refuses these arguments, or undefined. */
export function validateSignParams(paths: string[], key: string | undefined, bundleMode: boolean): string | undefined {
  if (paths.length === 0) return 'specify atleast one path containing policy and/or data files';
  if (!key) return SIGNING_CONFIG_INCOMPLETE;
  if (!bundleMode) return 'enable bundle mode (ie. --bundle) to sign bundle files or directories';
  return undefined;
}

/** Go's filepath.Clean for the names OPA reports (no trailing slash, no `./`). */
function clean(p: string): string {
  const n = normalize(p).replace(/\\/g, '/');
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

/** The file list `opa sign` signs for the given bundle paths, in load order. */
export async function signedFileList(paths: string[]): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`stat ${p}: no such file or directory`);
    }
    let entries: { name: string; path: string; bytes: Uint8Array }[];
    if (st.isDirectory()) {
      entries = directoryFiles(p).map((f) => ({ name: clean(join(p, f.path)), path: f.path, bytes: f.bytes }));
    } else {
      const { extractTarGz } = await import('../runtime/bundles/read.js');
      entries = (await extractTarGz(readFileSync(p))).map((f) => {
        const path = clean('/' + f.path.replace(/^(\.?\/)+/, ''));
        return { name: path, path, bytes: f.bytes };
      });
    }
    for (const e of entries) {
      if (e.path.endsWith('.signatures.json')) continue;
      let hash: string;
      try {
        hash = hashBundleFile(DEFAULT_HASH_ALGORITHM, e.path, e.bytes);
      } catch (err) {
        throw new Error(`${e.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
      files.push({ name: e.name.replace(/^\/+/, ''), hash, algorithm: DEFAULT_HASH_ALGORITHM });
    }
  }
  return files;
}

/** `.signatures.json` text as Go's json.MarshalIndent(content, "", " ") writes it. */
export function signaturesFileText(token: string): string {
  return `{\n "signatures": [\n  ${JSON.stringify(token)}\n ]\n}`;
}

/** The `sign` command. */
export async function signCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, SIGN_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, SIGN_FLAGS) + '\n');
      return 0;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, SIGN_FLAGS));
  }
  const key = str(args, 'signing-key');
  const invalid = validateSignParams(args.positionals, key, bool(args, 'bundle'));
  if (invalid !== undefined) {
    io.err(`Error: ${invalid}\n`);
    return 1;
  }
  try {
    const files = await signedFileList(args.positionals);
    const claimsFile = str(args, 'claims-file');
    const claims = claimsFile !== undefined ? (JSON.parse(readFileSync(claimsFile, 'utf8')) as Record<string, unknown>) : undefined;
    const { signFiles } = await import('../runtime/bundles/sign.js');
    const token = await signFiles(files, { key: key!, algorithm: str(args, 'signing-alg') ?? 'RS256', ...(claims ? { claims } : {}) });
    const dir = str(args, 'output-file-path') ?? '.';
    writeFileSync(dir === '' ? '.signatures.json' : join(dir, '.signatures.json'), signaturesFileText(token), { mode: 0o644 });
    return 0;
  } catch (e) {
    const msg = e instanceof BundleError || e instanceof Error ? e.message : String(e);
    io.out(`error: ${msg}\n`);
    return 1;
  }
}
