import * as pkijs from 'pkijs';
import { type BaseBlock, Constructed, fromBER, ObjectIdentifier, OctetString } from 'asn1js';
import type { SignatureCheck } from '@portal/shared/schemas/signatures';
import { isSelfIssued, type TrustStore } from './trust-store.js';

/*
 * Issue 22.3: checks a report's digital signature, a detached CMS/PKCS#7 file made over the
 * report's bytes, or a PAdES PDF (a CMS signature over the PDF's /ByteRange). pkijs reads the
 * CMS, checks the signature against the bytes and builds the certificate chain up to the roots of
 * the trust store; revocation is read from the store's CRLs only (no network).
 */

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  signingTime: '1.2.840.113549.1.9.5',
  commonName: '2.5.4.3',
  subjectAltName: '2.5.29.17',
  /** ICP-Brasil, natural person: birth date (8), CPF (11), NIS (11), RG (15), issuer and UF. */
  icpCpf: '2.16.76.1.3.1',
  /** ICP-Brasil professional fields of the CFM: CRM number and its UF. */
  icpCrmNumber: '2.16.76.1.4.2.2.1',
  icpCrmUf: '2.16.76.1.4.2.2.2',
};

const toArrayBuffer = (b: Uint8Array): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

type Check = Omit<SignatureCheck, 'checkedAt'>;

function failed(format: Check['format'], problem: NonNullable<Check['problem']>): Check {
  return {
    format,
    signatureValid: false,
    signer: null,
    signedAt: null,
    chain: 'untrusted',
    revocation: 'unknown',
    problem,
  };
}

/** The text of an ASN.1 string or octet string (ICP-Brasil writes its fields in either). */
function text(block: BaseBlock | undefined): string | null {
  if (!block) return null;
  if (block instanceof OctetString) return Buffer.from(block.valueBlock.valueHexView).toString('latin1');
  const value = (block as unknown as { valueBlock?: { value?: unknown } }).valueBlock?.value;
  return typeof value === 'string' ? value : null;
}

/** The otherName entries of the certificate's subjectAltName, by their OID. */
function otherNames(cert: pkijs.Certificate): Map<string, string> {
  const out = new Map<string, string>();
  const extension = cert.extensions?.find((e) => e.extnID === OID.subjectAltName);
  if (!extension) return out;
  const asn = fromBER(extension.extnValue.valueBlock.valueHexView);
  if (asn.offset === -1 || !(asn.result instanceof Constructed)) return out;
  for (const name of asn.result.valueBlock.value) {
    // otherName: [0] IMPLICIT SEQUENCE { type-id OID, value [0] EXPLICIT ANY }
    if (name.idBlock.tagClass !== 3 || name.idBlock.tagNumber !== 0 || !(name instanceof Constructed)) continue;
    const [id, wrapped] = name.valueBlock.value;
    if (!(id instanceof ObjectIdentifier) || !(wrapped instanceof Constructed)) continue;
    const value = text(wrapped.valueBlock.value[0]);
    if (value !== null) out.set(id.valueBlock.toString(), value.trim());
  }
  return out;
}

function commonName(name: pkijs.RelativeDistinguishedNames): string | null {
  const entry = name.typesAndValues.find((t) => t.type === OID.commonName);
  return entry ? text(entry.value as unknown as BaseBlock) : null;
}

export function maskCpf(digits: string): string {
  return `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`;
}

/** Name, CPF (masked) and CRM as an ICP-Brasil certificate carries them. */
export function signerIdentity(cert: pkijs.Certificate): NonNullable<Check['signer']> {
  const cn = commonName(cert.subject);
  // e-CPF common names read "NAME:CPF".
  const cnMatch = cn ? /^(.*?):(\d{11})$/.exec(cn) : null;
  const names = otherNames(cert);
  const icpCpf = names.get(OID.icpCpf);
  const cpf = icpCpf && /^\d{19}/.test(icpCpf) ? icpCpf.slice(8, 19) : (cnMatch?.[2] ?? null);
  const crmNumber = names.get(OID.icpCrmNumber)?.replace(/^0+/, '');
  const crmUf = names.get(OID.icpCrmUf);
  return {
    name: cnMatch ? cnMatch[1]!.trim() : cn,
    cpf: cpf && /^\d{11}$/.test(cpf) && !/^0+$/.test(cpf) ? maskCpf(cpf) : null,
    crm: crmNumber ? `CRM ${crmNumber}${crmUf ? `/${crmUf.toUpperCase()}` : ''}` : null,
    issuer: commonName(cert.issuer),
  };
}

function signingTime(signer: pkijs.SignerInfo): Date | null {
  const attribute = signer.signedAttrs?.attributes.find((a) => a.type === OID.signingTime);
  const value = attribute?.values[0] as { toDate?: () => Date } | undefined;
  const date = value?.toDate?.();
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

async function chainOf(
  leaf: pkijs.Certificate,
  carried: pkijs.Certificate[],
  store: TrustStore,
  at: Date,
): Promise<{ chain: Check['chain']; path: pkijs.Certificate[] }> {
  if (store.roots.length === 0) return { chain: 'untrusted', path: [] };
  const others = [...carried, ...store.intermediates].filter((c) => !isSelfIssued(c) && c !== leaf);
  const run = async (checkDate: Date) => {
    const engine = new pkijs.CertificateChainValidationEngine({
      trustedCerts: store.roots,
      certs: [...others, leaf],
      checkDate,
    });
    try {
      return await engine.verify();
    } catch (error) {
      return { result: false, resultCode: -1, certificatePath: undefined, error };
    }
  };
  const result = await run(at);
  if (result.result) return { chain: 'trusted', path: result.certificatePath ?? [] };
  // A chain that holds at another date: a certificate out of its validity when it signed.
  if (result.resultCode === 8) return { chain: 'expired', path: [] };
  return { chain: 'untrusted', path: [] };
}

/**
 * `revoked` when a CRL of the store, signed by the issuer, lists a certificate of the path;
 * `good` when none does and a CRL covers at least the signer's own certificate.
 */
async function revocationOf(path: pkijs.Certificate[], store: TrustStore): Promise<Check['revocation']> {
  if (path.length < 2) return 'unknown';
  let signerCovered = false;
  for (let i = 0; i < path.length - 1; i++) {
    const cert = path[i]!;
    const issuer = path[i + 1]!;
    for (const crl of store.crls) {
      if (!crl.issuer.isEqual(cert.issuer)) continue;
      if (!(await crl.verify({ issuerCertificate: issuer }).catch(() => false))) continue;
      if (crl.isCertificateRevoked(cert)) return 'revoked';
      if (i === 0) signerCovered = true;
    }
  }
  return signerCovered ? 'good' : 'unknown';
}

/** Checks a detached CMS signature (DER, or PEM) over `content`. */
export async function verifyDetachedCms(
  content: Uint8Array,
  signature: Uint8Array,
  store: TrustStore,
  format: Check['format'] = 'cms',
): Promise<Check> {
  let signed: pkijs.SignedData;
  try {
    let der = signature;
    const head = Buffer.from(signature.subarray(0, 64)).toString('latin1');
    if (head.includes('-----BEGIN')) {
      const body = /-----BEGIN [A-Z0-9 ]+-----([\s\S]*?)-----END/.exec(Buffer.from(signature).toString('latin1'));
      der = Buffer.from(body?.[1]?.replace(/\s+/g, '') ?? '', 'base64');
    }
    const asn = fromBER(toArrayBuffer(der));
    if (asn.offset === -1) return failed(format, 'unreadable');
    const info = new pkijs.ContentInfo({ schema: asn.result });
    if (info.contentType !== OID.signedData) return failed(format, 'unreadable');
    signed = new pkijs.SignedData({ schema: info.content });
  } catch {
    return failed(format, 'unreadable');
  }
  const signerInfo = signed.signerInfos[0];
  if (!signerInfo) return failed(format, 'no-signer');

  let verified: { signatureVerified?: boolean | null; signerCertificate?: pkijs.Certificate | null };
  try {
    verified = await signed.verify({
      signer: 0,
      data: toArrayBuffer(content),
      extendedMode: true,
      checkChain: false,
    });
  } catch (error) {
    if (error instanceof pkijs.SignedDataVerifyError) verified = error;
    else return failed(format, 'unreadable');
  }
  const carried = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const leaf = verified.signerCertificate ?? null;
  if (!leaf) return failed(format, 'no-signer');
  const signatureValid = verified.signatureVerified === true;
  const signedAt = signingTime(signerInfo);
  const { chain, path } = signatureValid
    ? await chainOf(leaf, carried, store, signedAt ?? new Date())
    : { chain: 'untrusted' as const, path: [] };
  return {
    format,
    signatureValid,
    signer: signerIdentity(leaf),
    signedAt: signedAt?.toISOString() ?? null,
    chain,
    revocation: chain === 'untrusted' ? 'unknown' : await revocationOf(path, store),
    problem: signatureValid ? null : 'mismatch',
  };
}

/**
 * A PAdES PDF: the last signature dictionary's /ByteRange names the bytes signed, its /Contents
 * the CMS (hex, padded with zeros). The range must reach the end of the file.
 */
export async function verifyPades(pdf: Uint8Array, store: TrustStore): Promise<Check> {
  const source = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const latin = source.toString('latin1');
  const ranges = [...latin.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
  const last = ranges.at(-1);
  if (!last) return failed('pades', 'unreadable');
  const [a, b, c, d] = last.slice(1, 5).map(Number) as [number, number, number, number];
  if (a !== 0 || b < 0 || c < a + b || c + d > source.length) return failed('pades', 'unreadable');
  const gap = latin.slice(a + b, c);
  const hex = /^\s*<([0-9a-fA-F\s]*)>\s*$/.exec(gap)?.[1]?.replace(/\s+/g, '');
  if (!hex) return failed('pades', 'unreadable');
  const der = Buffer.from(hex, 'hex');
  const content = Buffer.concat([source.subarray(a, a + b), source.subarray(c, c + d)]);
  const check = await verifyDetachedCms(content, der, store, 'pades');
  // Bytes after the signed range are an update made after signing (pages, text or annotations
  // added): the signature then no longer speaks for the file as it is. Line ends alone are harmless.
  const after = latin.slice(c + d);
  if (check.signatureValid && /\S/.test(after)) return { ...check, signatureValid: false, problem: 'mismatch' };
  return check;
}
