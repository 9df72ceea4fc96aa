import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/*
 * A detached CMS (PKCS#7) signature, as a signed report's `.p7s` arrives from an institution.
 * The certificate is self-signed for the demo: the signature checks out against the report
 * (e.g. `openssl cms -verify -binary -noverify`), but no ICP-Brasil chain vouches for it.
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...content: Buffer[]) => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const seq = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
// DER orders the members of a SET OF by their encodings.
const sortedSet = (...items: Buffer[]) => tlv(0x31, ...[...items].sort(Buffer.compare));
const integer = (value: Buffer | number) => {
  const bytes = typeof value === 'number' ? Buffer.from([value]) : value;
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
};
const NULL = Buffer.from([0x05, 0x00]);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const printable = (s: string) => tlv(0x13, Buffer.from(s, 'ascii'));
const utcTime = (d: Date) => tlv(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`, 'ascii'));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const part of rest) {
    const group = [part % 128];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) group.unshift((v % 128) | 0x80);
    out.push(...group);
  }
  return tlv(0x06, Buffer.from(out));
}

const OID = {
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  countryName: '2.5.4.6',
  organizationName: '2.5.4.10',
  commonName: '2.5.4.3',
};

interface DemoSigner {
  privateKey: KeyObject;
  certificate: Buffer;
  name: Buffer;
  serial: Buffer;
}

let signer: DemoSigner | undefined;

/** One key and self-signed certificate per process: generating RSA keys is slow. */
function demoSigner(commonName: string, organization: string, notBefore: Date): DemoSigner {
  if (signer) return signer;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const name = seq(
    set(seq(oid(OID.countryName), printable('BR'))),
    set(seq(oid(OID.organizationName), utf8(organization))),
    set(seq(oid(OID.commonName), utf8(commonName))),
  );
  const serial = randomBytes(12);
  serial[0] = serial[0]! & 0x7f;
  const algorithm = seq(oid(OID.sha256WithRsa), NULL);
  const notAfter = new Date(notBefore.getTime() + 3 * 365 * 86_400_000);
  const tbs = seq(
    tlv(0xa0, integer(2)),
    integer(serial),
    algorithm,
    name,
    seq(utcTime(notBefore), utcTime(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const certificate = seq(tbs, algorithm, bits(sign('sha256', tbs, privateKey)));
  signer = { privateKey, certificate, name, serial };
  return signer;
}

/** A DER `.p7s` signing `content` (detached: the content itself is not inside). */
export function detachedSignature(
  content: Uint8Array,
  options: { signerName: string; organization: string; signedAt: Date },
): Buffer {
  const { privateKey, certificate, name, serial } = demoSigner(
    options.signerName,
    options.organization,
    new Date(options.signedAt.getTime() - 365 * 86_400_000),
  );
  const digest = createHash('sha256').update(content).digest();
  const attributes = sortedSet(
    seq(oid(OID.contentType), set(oid(OID.data))),
    seq(oid(OID.signingTime), set(utcTime(options.signedAt))),
    seq(oid(OID.messageDigest), set(octets(digest))),
  );
  // The signature covers the attributes as a SET; inside SignerInfo they are tagged [0].
  const signature = sign('sha256', attributes, privateKey);
  const signerInfo = seq(
    integer(1),
    seq(name, integer(serial)),
    seq(oid(OID.sha256), NULL),
    Buffer.concat([Buffer.from([0xa0]), attributes.subarray(1)]),
    seq(oid(OID.rsaEncryption), NULL),
    octets(signature),
  );
  const signedData = seq(
    integer(1),
    set(seq(oid(OID.sha256), NULL)),
    seq(oid(OID.data)),
    tlv(0xa0, certificate),
    set(signerInfo),
  );
  return seq(oid(OID.signedData), tlv(0xa0, signedData));
}
