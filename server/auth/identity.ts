// Authentication. `--authentication=token`: the bearer token of the Authorization
// header becomes the request's identity. As in OPA, a missing or malformed header
// does not reject the request by itself: the identity is simply unset, and the
// authorization policy decides. `--authentication=tls`: the https listeners
// require a client certificate verified against --tls-ca-cert-file (at the TLS
// level, server/listeners.ts); the identity is the certificate's subject in Go's
// pkix form (`CN=client-1,O=Acme`) and `client_certificates` carries the peer's
// chain as Go's x509.Certificate JSON (the runtime's x509 documents).
import type { FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';
import { x509, type Value } from '../../runtime/index.js';

export type AuthenticationMode = 'off' | 'token' | 'tls';
export type AuthorizationMode = 'off' | 'basic';

const MAX_HEADER_LENGTH = 8192;
const BEARER = /^Bearer\s+(\S+)$/;

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function tokenIdentity(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || header === '' || header.length > MAX_HEADER_LENGTH) return undefined;
  const m = BEARER.exec(header);
  return m ? m[1] : undefined;
}

export interface TLSPeer {
  /** The leaf's subject, `Subject.ToRDNSequence().String()` in Go. */
  identity: string;
  /** The peer's certificates (leaf first) as Go's x509.Certificate JSON. */
  certificates: Value;
}

interface PeerEntry {
  /** DER of the trusted CA certificates (those Node adds to the reported chain). */
  anchors: () => readonly Buffer[];
  peer?: TLSPeer | null;
}

const peers = new WeakMap<object, PeerEntry>();

/**
 * Mark a verified TLS connection of an https listener in TLS authentication mode;
 * its peer (identity and certificates) is computed on first use and cached.
 */
export function attachTLSPeer(socket: TLSSocket, anchors: () => readonly Buffer[]): void {
  peers.set(socket, { anchors });
}

/**
 * The certificates the client sent, leaf first. Node reports the chain completed
 * with issuers from the trusted CA store; those are left out (Go's
 * PeerCertificates holds what the peer sent), except a leaf that is itself one.
 */
function peerChain(socket: TLSSocket, anchors: readonly Buffer[]): Buffer[] {
  const chain: Buffer[] = [];
  const seen = new Set<object>();
  for (let c = socket.getPeerCertificate(true); c?.raw && !seen.has(c); c = c.issuerCertificate) {
    seen.add(c);
    chain.push(c.raw);
  }
  return chain.filter((der, i) => i === 0 || !anchors.some((a) => a.equals(der)));
}

/**
 * The chain as a Rego value and the leaf's identity. The leaf must decode as Go
 * would decode it (else this throws); other certificates that do not are left out.
 */
function peerCertificates(chain: Buffer[]): TLSPeer {
  const leaf = x509.goCertificate(chain[0]!);
  const rest = chain.slice(1).flatMap((der) => {
    try {
      return [x509.goCertificate(der).json];
    } catch {
      return [];
    }
  });
  return { identity: leaf.identity, certificates: x509.goValue([leaf.json, ...rest]) };
}

/** The TLS identity of the request's connection, if it has one. */
export function tlsPeer(req: FastifyRequest): TLSPeer | undefined {
  const socket = req.raw.socket as TLSSocket;
  const entry = peers.get(socket);
  if (!entry) return undefined;
  if (entry.peer === undefined) {
    const chain = peerChain(socket, entry.anchors());
    try {
      entry.peer = chain.length > 0 ? peerCertificates(chain) : null;
    } catch {
      // A certificate OpenSSL accepted but Go's parser would not: no identity.
      entry.peer = null;
    }
  }
  return entry.peer ?? undefined;
}
