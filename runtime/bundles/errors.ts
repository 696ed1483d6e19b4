// Typed errors of the bundle format. Every failure to read, verify or sign a
// bundle is a BundleError whose message follows OPA's wording (bundle.go,
// verify.go, file.go), so status documents and CLI output read the same.
// `kind` lets callers (the bundle plugin, `regent build`) react without parsing
// messages; `errors` carries per-module compile errors when a resolver reports them.

export type BundleErrorKind =
  | 'archive' // not gzip / not tar / truncated
  | 'path' // an entry whose path escapes the bundle or is malformed
  | 'size' // a file over size_limit_bytes, or too many files
  | 'data' // data.json / data.yaml that does not parse or conflicts
  | 'manifest' // bad .manifest content
  | 'roots' // roots overlap, or content outside the roots
  | 'module' // a module whose package cannot be determined, or bad rego_version
  | 'signature' // signature verification failed
  | 'signing'; // signing failed (bad key, bad algorithm)

export class BundleError extends Error {
  constructor(
    readonly kind: BundleErrorKind,
    message: string,
    /** Structured detail errors (e.g. rego parse errors) when there are several. */
    readonly errors?: unknown[],
  ) {
    super(message);
    this.name = 'BundleError';
  }
}

/** Go's `%v` of a []string: `[a b c]`. */
export function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** The message of any thrown value. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
