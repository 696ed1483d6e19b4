// Config text preprocessing and command-line overrides, as `opa run` does them:
// `${VAR}` environment substitution in the config file (undefined variables become
// empty strings), and `--set key.path=value[,key2=value2]` where values are parsed
// as YAML scalars and `{a,b}` is a list.
import { load as loadYAML } from 'js-yaml';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function substituteEnv(text: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
}

/** Split on commas that are not inside `{…}`. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '{') depth++;
    if (c === '}') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function scalar(text: string): unknown {
  if (text.startsWith('{') && text.endsWith('}')) return splitTopLevel(text.slice(1, -1)).filter((s) => s !== '').map(scalar);
  try {
    const v = loadYAML(text);
    return v === undefined || (typeof v === 'object' && v !== null) ? text : v;
  } catch {
    return text;
  }
}

/** Apply one `--set` argument to a config document (mutates `doc`). */
export function applySet(doc: Record<string, unknown>, arg: string): void {
  for (const assignment of splitTopLevel(arg)) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new ConfigError(`invalid --set value "${assignment}": want key=value`);
    const keys = assignment.slice(0, eq).split('.');
    let node: Record<string, unknown> = doc;
    for (const k of keys.slice(0, -1)) {
      const next = node[k];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) node[k] = {};
      node = node[k] as Record<string, unknown>;
    }
    node[keys[keys.length - 1]!] = scalar(assignment.slice(eq + 1));
  }
}
