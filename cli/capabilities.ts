// `regent capabilities [--current] [--version V] [--file F] [--v0-compatible]`, as
// `opa capabilities`: --current prints this build's capabilities JSON (builtins
// with their type declarations, future keywords, Wasm ABI versions, features)
// generated from the builtin registry; --file prints a capabilities JSON file
// (validated and re-indented); --version prints a known version's capabilities:
// an OPA release (cli/capabilities-versions.ts: this build's catalog filtered to
// the builtins, keywords and features that release had) or `v<regent version>`
// (= --current); other names fail as OPA's `no capabilities version found vX`.
// Without flags (or with --list, an alias OPA does not have) the known versions
// are listed one per line, sorted by name as OPA lists its embedded files, then
// this build's own.
import { readFileSync } from 'node:fs';
import { capabilities } from '../runtime/builtins/catalog.js';
import { UsageError, bool, formatHelp, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { toJSON, type IO } from './output.js';
import { version } from './main.js';
import { capabilitiesForRelease, listOrder } from './capabilities-versions.js';

export const CAPABILITIES_FLAGS: FlagSpec[] = [
  { name: 'current', type: 'boolean', description: 'print current capabilities' },
  { name: 'version', type: 'string', metavar: 'VERSION', description: 'print capabilities of a specific version' },
  { name: 'file', type: 'string', metavar: 'PATH', description: 'print current capabilities considering the file' },
  { name: 'list', type: 'boolean', description: 'list the capabilities versions this build can print (the default)' },
  { name: 'v0-compatible', type: 'boolean', description: 'print the capabilities of Rego v0 compatibility mode' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for capabilities' },
];

const USAGE = 'regent capabilities [flags]';
const DESCRIPTION = 'Print the capabilities of Regent: the builtins, keywords and features it supports.';

/** The capability versions this build knows: the OPA releases it can emulate (in `opa capabilities` order), then its own. */
export function knownVersions(): string[] {
  return [...listOrder(), `v${version()}`];
}

/** The capabilities document of a known version (`v0.50.0`, `0.50.0`, `v<regent>`); undefined if unknown. */
export function capabilitiesOf(ver: string, opts: { v0Compatible?: boolean } = {}): Record<string, unknown> | undefined {
  const want = ver.startsWith('v') ? ver : `v${ver}`;
  return capabilitiesForRelease(want === `v${version()}` ? 'current' : want, opts);
}

function readCapabilitiesFile(path: string): unknown {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${path}: capabilities must be a JSON object`);
  const builtins = (doc as { builtins?: unknown }).builtins;
  if (builtins !== undefined && !Array.isArray(builtins)) throw new Error(`${path}: "builtins" must be an array`);
  return doc;
}

/** The `capabilities` command. */
export function capabilitiesCommand(argv: string[], io: IO): number {
  let args;
  try {
    args = parseArgs(argv, CAPABILITIES_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, CAPABILITIES_FLAGS) + '\n');
      return 0;
    }
    if (args.positionals.length) throw new UsageError(`unexpected argument: ${args.positionals[0]}`);
    const chosen = [bool(args, 'list'), bool(args, 'current'), str(args, 'version') !== undefined, str(args, 'file') !== undefined].filter(Boolean);
    if (chosen.length > 1) throw new UsageError('specify only one of --list, --current, --version or --file');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, CAPABILITIES_FLAGS));
  }
  const v0Compatible = bool(args, 'v0-compatible');
  const file = str(args, 'file');
  const ver = str(args, 'version');
  try {
    if (file !== undefined) {
      io.out(toJSON(readCapabilitiesFile(file)) + '\n');
      return 0;
    }
    if (ver !== undefined) {
      const doc = capabilitiesOf(ver, { v0Compatible });
      if (!doc) throw new Error(`no capabilities version found ${ver}`);
      io.out(toJSON(doc) + '\n');
      return 0;
    }
    if (bool(args, 'current')) {
      io.out(toJSON(capabilities({ v0Compatible })) + '\n');
      return 0;
    }
    io.out(knownVersions().join('\n') + '\n');
    return 0;
  } catch (e) {
    io.err(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
