// The "database" part of a source: documents pushed through the API
// (`/v1/sources/{s}/data/{path}` → `<path>/data.json`) plus the source's
// embedded `files` (path → base64 content, from the configuration). Documents
// are written as compact JSON with sorted keys (Go's json.Marshal), which the
// `sql.hash` revision input depends on.
import type { DefinitionStore, SourceDef } from '../contract.js';
import { SyncError } from '../builder/errors.js';
import { canonicalJSON, hashTree, textBytes, type FileTree } from '../builder/files.js';

export interface SourceDataPart {
  tree: FileTree;
  /** sha256 over the part (input.sources[s].sql.hash). */
  hash: string;
}

function cleanPath(p: string): string {
  return p.split('/').filter((s) => s !== '' && s !== '.').join('/');
}

export async function readSourceData(store: DefinitionStore, def: SourceDef): Promise<SourceDataPart> {
  const tree: FileTree = new Map();
  const files = (def as SourceDef & { files?: Record<string, string> }).files ?? {};
  for (const [p, b64] of Object.entries(files)) {
    if (p.split('/').includes('..')) throw new SyncError(`source "${def.name}": invalid file path ${JSON.stringify(p)}`, true);
    tree.set(cleanPath(p), Buffer.from(b64, 'base64'));
  }
  let docs;
  try {
    docs = await store.listSourceData(def.name);
  } catch (e) {
    throw new SyncError(`source "${def.name}": source data: ${(e as Error).message}`);
  }
  for (const { path, value } of docs) {
    const dir = cleanPath(path);
    tree.set(dir ? `${dir}/data.json` : 'data.json', textBytes(canonicalJSON(value)));
  }
  return { tree, hash: hashTree(tree) };
}
