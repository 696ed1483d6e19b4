// TLS configuration of the https listeners beyond the certificate itself:
// --tls-cipher-suites and reloading the TLS files while running.
//
// --tls-cipher-suites as `opa run` takes it: a list of Go / IANA cipher suite
// names that restricts the TLS 1.0–1.2 suites. OPA accepts the names of Go's
// tls.CipherSuites() and tls.InsecureCipherSuites(); an unknown name fails
// startup with `invalid cipher suite <name>`, and a TLS 1.3 suite with
// `TLS 1.3 cipher suite "<name>" is not configurable` (Go always enables its
// three TLS 1.3 suites). Here the names map to OpenSSL's for Node's `ciphers`
// option, and the TLS 1.3 suites of Node's defaults are kept, so TLS 1.3 is
// unaffected as in Go. Suites this OpenSSL build lacks (RC4 and 3DES in
// OpenSSL 3) are dropped; when nothing is left, startup fails.
//
// Reloading, as OPA's server (v1/server/certs.go): the certificate, key and CA
// files are hashed (SHA-256); when a hash changed the files are read again and,
// if they are good, every https listener gets a new secure context
// (server.setSecureContext, used by new connections) and the TLS-authentication
// trust anchors follow the new CA. A bad file keeps the old context and logs
// the error. With --tls-cert-refresh-period > 0 the files are polled at that
// period; otherwise (OPA's default) their directories are watched and each
// change triggers a reload, retried up to 5 times 100 ms apart while files are
// still being written. Messages are OPA's.
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import tls from 'node:tls';

/** Go's TLS 1.0–1.2 suite names → OpenSSL names. */
const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** Go's TLS 1.3 suites: known names, but not configurable. */
const TLS13_SUITES = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);

/** The Go names --tls-cipher-suites accepts, in the order OPA's help lists them. */
export const CONFIGURABLE_CIPHER_SUITES: readonly string[] = Object.keys(TLS12_SUITES);

/**
 * Check --tls-cipher-suites names as OPA's verifyCipherSuites does and map them
 * to OpenSSL names (those this OpenSSL build has). Throws OPA's messages.
 */
export function openSSLCipherList(names: readonly string[]): string[] {
  const mapped: string[] = [];
  for (const name of names) {
    if (TLS13_SUITES.has(name)) throw new Error(`TLS 1.3 cipher suite "${name}" is not configurable`);
    const openssl = TLS12_SUITES[name];
    if (openssl === undefined) throw new Error(`invalid cipher suite ${name}`);
    mapped.push(openssl);
  }
  const available = new Set(tls.getCiphers());
  const usable = mapped.filter((c) => available.has(c.toLowerCase()));
  if (usable.length === 0)
    throw new Error(`none of the TLS cipher suites ${names.join(', ')} is available in this build's OpenSSL (${process.versions.openssl ?? '?'})`);
  return usable;
}

/** TLS 1.3 suites of Node's default list (always enabled, as in Go). */
function tls13Defaults(): string[] {
  return tls.DEFAULT_CIPHERS.split(':').filter((c) => c.startsWith('TLS_'));
}

/**
 * Node's `ciphers` option for https listeners: the configured TLS 1.2 suites plus
 * the TLS 1.3 defaults, or Node's defaults; with `lowSecurity` (minimum TLS 1.0 or
 * 1.1) OpenSSL's security level 0, without which OpenSSL 3 never negotiates them.
 * Undefined when Node's defaults apply unchanged.
 */
export function ciphersOption(tls12: readonly string[] | undefined, lowSecurity: boolean): string | undefined {
  if (!tls12 && !lowSecurity) return undefined;
  const list = tls12 ? [...tls13Defaults(), ...tls12].join(':') : tls.DEFAULT_CIPHERS;
  return lowSecurity ? `${list}:@SECLEVEL=0` : list;
}

export interface TLSFiles {
  certFile?: string;
  keyFile?: string;
  caFile?: string;
}

/** The TLS material in use; the reloader replaces its fields. */
export interface TLSMaterial {
  cert?: Buffer;
  key?: Buffer;
  ca?: Buffer;
  /** DER of the trusted client CAs (Node's default roots without a CA file). */
  anchors: () => readonly Buffer[];
}

export interface ReloadLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The certificates of a PEM text (unparsable blocks skipped). */
export function pemCertificates(pem: string): Buffer[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.flatMap((b) => {
    try {
      return [new X509Certificate(b).raw];
    } catch {
      return [];
    }
  });
}

/** Trust anchors of a CA file's contents, or Node's default roots. */
export function anchorsOf(ca: Buffer | undefined): () => readonly Buffer[] {
  let roots = ca ? pemCertificates(ca.toString('latin1')) : undefined;
  return () => (roots ??= pemCertificates(tls.rootCertificates.join('\n')));
}

function hashFile(file: string, what: string): { bytes: Buffer; hash: string } {
  try {
    const bytes = readFileSync(file);
    return { bytes, hash: sha256(bytes) };
  } catch (e) {
    throw new Error(`failed to hash ${what}: ${message(e)}`);
  }
}

export class TLSReloader {
  private readonly hashes: { cert?: string; key?: string; ca?: string };
  private readonly servers = new Set<tls.Server>();
  private timer: NodeJS.Timeout | undefined;
  private watchers: FSWatcher[] = [];
  private dirty = false;
  private running = false;
  private stopped = false;

  constructor(
    private readonly files: TLSFiles,
    readonly material: TLSMaterial,
    /** The secure context options of the current material. */
    private readonly contextOptions: () => tls.SecureContextOptions,
    private readonly log: ReloadLogger,
  ) {
    this.hashes = {
      ...(material.cert ? { cert: sha256(material.cert) } : {}),
      ...(material.key ? { key: sha256(material.key) } : {}),
      ...(material.ca ? { ca: sha256(material.ca) } : {}),
    };
  }

  /** An https listener whose secure context follows the files. */
  register(server: tls.Server): void {
    this.servers.add(server);
  }

  /** Re-read changed files; returns OPA's aggregated error text, if any. */
  reload(): string | undefined {
    const errors: string[] = [];
    let updated = false;
    const { certFile, keyFile, caFile } = this.files;
    if (certFile && keyFile) {
      try {
        const cert = hashFile(certFile, 'server certificate file');
        const key = hashFile(keyFile, 'server key file');
        const newCert = cert.hash !== this.hashes.cert;
        const newKey = key.hash !== this.hashes.key;
        if (newCert && !newKey) this.log.warn({}, 'Server certificate file changed but server key file did not change.');
        if (!newCert && newKey) this.log.warn({}, 'Server key file changed but server certificate file did not change.');
        if (newCert || newKey) {
          try {
            if (pemCertificates(cert.bytes.toString('latin1')).length === 0) throw new Error('no certificate found in the certificate file');
            tls.createSecureContext({ cert: cert.bytes, key: key.bytes });
          } catch (e) {
            throw new Error(`server certificate key pair was not updated, update failed: ${message(e)}`);
          }
          Object.assign(this.material, { cert: cert.bytes, key: key.bytes });
          Object.assign(this.hashes, { cert: cert.hash, key: key.hash });
          updated = true;
          this.log.debug({}, 'Refreshed server certificate.');
        }
      } catch (e) {
        errors.push(message(e));
      }
    }
    if (caFile) {
      try {
        const ca = hashFile(caFile, 'CA cert pool file');
        if (ca.hash !== this.hashes.ca) {
          if (pemCertificates(ca.bytes.toString('latin1')).length === 0) throw new Error(`failed to load CA cert pool file "${caFile}"`);
          this.material.ca = ca.bytes;
          this.material.anchors = anchorsOf(ca.bytes);
          this.hashes.ca = ca.hash;
          updated = true;
          this.log.debug({}, 'Refreshed server CA certificate pool.');
        }
      } catch (e) {
        errors.push(message(e));
      }
    }
    if (updated) {
      const options = this.contextOptions();
      for (const server of this.servers) server.setSecureContext(options);
    }
    return errors.length > 0 ? errors.join('\n') : undefined;
  }

  /** Poll the files every `periodMs` (--tls-cert-refresh-period > 0). */
  startPolling(periodMs: number): void {
    this.timer = setInterval(() => {
      const err = this.reload();
      if (err) this.log.error({ err }, `Failed to reload TLS config: ${err}`);
    }, periodMs);
    this.timer.unref();
  }

  /** Watch the files' directories and reload on changes (OPA's default). */
  startWatching(): void {
    const dirs = new Set([this.files.certFile, this.files.keyFile, this.files.caFile].filter((f): f is string => !!f).map((f) => dirname(f)));
    for (const dir of dirs) {
      try {
        const w = watch(dir, { persistent: false }, () => this.changed());
        w.on('error', (e) => this.log.error({ err: message(e) }, 'TLS path watcher failed.'));
        this.watchers.push(w);
      } catch (e) {
        this.log.error({ err: message(e) }, `failed to create tls path watcher: ${message(e)}`);
      }
    }
  }

  private changed(): void {
    this.dirty = true;
    if (!this.running) void this.drain();
  }

  /** Reload while changes keep coming, each time retrying up to 5 times 100 ms apart. */
  private async drain(): Promise<void> {
    this.running = true;
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      for (let attempt = 1; !this.stopped; attempt++) {
        const err = this.reload();
        if (!err) {
          this.log.info({}, 'TLS config reloaded');
          break;
        }
        if (attempt >= 5) {
          this.log.error({ err }, `Failed to reload TLS config after retrying: ${err}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 100).unref());
      }
    }
    this.running = false;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }
}
