import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import * as pkijs from 'pkijs';
import { fromBER } from 'asn1js';

/*
 * The certificates a signature may chain up to, and the revocation lists checked offline:
 * every file of TRUST_ROOTS_DIR (PEM or DER; `.crl` files are revocation lists, the rest
 * certificates). Self-signed certificates are the trusted roots; the others are intermediates
 * offered to build a chain with. The folder is read again when a file in it changes.
 */

export interface TrustStore {
  roots: pkijs.Certificate[];
  intermediates: pkijs.Certificate[];
  crls: pkijs.CertificateRevocationList[];
}

const EMPTY: TrustStore = { roots: [], intermediates: [], crls: [] };

/** DER blocks of a file: its PEM blocks of that label, or the file itself when it is not PEM. */
function derBlocks(bytes: Buffer, label: RegExp): Buffer[] {
  const text = bytes.toString('latin1');
  if (!text.includes('-----BEGIN')) return [bytes];
  const out: Buffer[] = [];
  const pem = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
  for (let m = pem.exec(text); m; m = pem.exec(text)) {
    if (label.test(m[1]!)) out.push(Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64'));
  }
  return out;
}

const arrayBuffer = (b: Uint8Array): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

export function parseCertificate(der: Uint8Array): pkijs.Certificate {
  const asn = fromBER(arrayBuffer(der));
  if (asn.offset === -1) throw new Error('not DER');
  return new pkijs.Certificate({ schema: asn.result });
}

function parseCrl(der: Uint8Array): pkijs.CertificateRevocationList {
  const asn = fromBER(arrayBuffer(der));
  if (asn.offset === -1) throw new Error('not DER');
  return new pkijs.CertificateRevocationList({ schema: asn.result });
}

export function isSelfIssued(cert: pkijs.Certificate): boolean {
  return cert.subject.isEqual(cert.issuer);
}

async function load(dir: string): Promise<TrustStore> {
  const store: TrustStore = { roots: [], intermediates: [], crls: [] };
  for (const name of (await readdir(dir)).sort()) {
    const file = path.join(dir, name);
    if (!(await stat(file)).isFile()) continue;
    const bytes = await readFile(file);
    try {
      if (/\.crl$/i.test(name)) {
        for (const der of derBlocks(bytes, /X509 CRL/)) store.crls.push(parseCrl(der));
      } else if (/\.(pem|crt|cer|der)$/i.test(name)) {
        for (const der of derBlocks(bytes, /CERTIFICATE/)) {
          const cert = parseCertificate(der);
          (isSelfIssued(cert) ? store.roots : store.intermediates).push(cert);
        }
      }
    } catch {
      // A file that is not a certificate or list is left out; the others still count.
    }
  }
  return store;
}

const cache = new Map<string, { stamp: string; store: Promise<TrustStore> }>();

/** The store of `dir` (none when unset or missing), read again when a file's size or time changes. */
export async function trustStore(dir: string | undefined): Promise<TrustStore> {
  if (!dir) return EMPTY;
  let stamp: string;
  try {
    const names = (await readdir(dir)).sort();
    const parts = await Promise.all(
      names.map(async (n) => {
        const s = await stat(path.join(dir, n));
        return `${n}:${s.size}:${s.mtimeMs}`;
      }),
    );
    stamp = parts.join('|');
  } catch {
    return EMPTY;
  }
  const cached = cache.get(dir);
  if (cached && cached.stamp === stamp) return cached.store;
  const store = load(dir);
  cache.set(dir, { stamp, store });
  return store;
}
