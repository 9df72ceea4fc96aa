import fs from 'node:fs/promises';
import path from 'node:path';
import { webcrypto } from 'node:crypto';
import * as pkijs from 'pkijs';
import * as asn1js from 'asn1js';

/*
 * The demo's signatures: a demo root CA, made once per load and written (certificate only) to
 * `DATA_DIR/demo-trust-roots`, vouches for the demo radiologist's certificate, which carries
 * ICP-Brasil's CPF and CRM fields. Reports are signed with real CMS (detached `.p7s`) and PAdES
 * (a CMS over the PDF's /ByteRange). The private keys live in memory only, never on disk or in a
 * log; a later load makes a new root beside the old one, so earlier signatures still check out.
 */

const ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
const OID = {
  countryName: '2.5.4.6',
  organizationName: '2.5.4.10',
  commonName: '2.5.4.3',
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
};

export interface DemoSigner {
  /** A detached DER CMS signature over `content`, dated `signedAt`. */
  detached(content: Uint8Array, signedAt: Date): Promise<Buffer>;
  /** `pdf` with a PAdES signature appended as an incremental update. */
  pades(pdf: Uint8Array, signedAt: Date): Promise<Buffer>;
}

export interface DemoSignerIdentity {
  name: string;
  /** 11 digits (a made-up CPF with valid check digits). */
  cpf: string;
  crm: string;
  uf: string;
  organization: string;
}

function name(entries: Array<[string, string]>): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: entries.map(
      ([type, value]) =>
        new pkijs.AttributeTypeAndValue({
          type,
          value: type === OID.countryName ? new asn1js.PrintableString({ value }) : new asn1js.Utf8String({ value }),
        }),
    ),
  });
}

const otherName = (oid: string, value: asn1js.BaseBlock) =>
  new asn1js.Constructed({
    idBlock: { tagClass: 3, tagNumber: 0 },
    value: [
      new asn1js.ObjectIdentifier({ value: oid }),
      new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [value] }),
    ],
  });

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(
    { ...ALGORITHM, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
}

async function certificate(options: {
  subject: pkijs.RelativeDistinguishedNames;
  issuer: pkijs.RelativeDistinguishedNames;
  keys: CryptoKeyPair;
  signingKey: CryptoKey;
  serial: number;
  notBefore: Date;
  notAfter: Date;
  ca: boolean;
  altNames?: asn1js.BaseBlock[];
}): Promise<pkijs.Certificate> {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ value: options.serial });
  cert.subject = options.subject;
  cert.issuer = options.issuer;
  cert.notBefore.value = options.notBefore;
  cert.notAfter.value = options.notAfter;
  await cert.subjectPublicKeyInfo.importKey(options.keys.publicKey);
  cert.extensions = [
    new pkijs.Extension({
      extnID: '2.5.29.19',
      critical: true,
      extnValue: new pkijs.BasicConstraints({ cA: options.ca }).toSchema().toBER(false),
    }),
    new pkijs.Extension({
      extnID: '2.5.29.15',
      critical: true,
      // keyCertSign + cRLSign for the root; digitalSignature + nonRepudiation for the signer.
      extnValue: new asn1js.BitString({
        valueHex: new Uint8Array([options.ca ? 0x06 : 0xc0]).buffer,
        unusedBits: options.ca ? 1 : 6,
      }).toBER(false),
    }),
  ];
  if (options.altNames) {
    cert.extensions.push(
      new pkijs.Extension({
        extnID: '2.5.29.17',
        extnValue: new asn1js.Sequence({ value: options.altNames }).toBER(false),
      }),
    );
  }
  await cert.sign(options.signingKey, 'SHA-256');
  return cert;
}

const pem = (der: ArrayBuffer) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trim()}\n-----END CERTIFICATE-----\n`;

/** Makes the demo root and the signer's certificate, and writes the root into `rootsDir`. */
export async function makeDemoSigner(identity: DemoSignerIdentity, now: Date, rootsDir: string): Promise<DemoSigner> {
  const rootKeys = await keyPair();
  const signerKeys = await keyPair();
  const serial = Math.floor(now.getTime() / 1000);
  const rootName = name([
    [OID.countryName, 'BR'],
    [OID.organizationName, identity.organization],
    [OID.commonName, 'AC Raiz de Demonstração (não é ICP-Brasil)'],
  ]);
  const notBefore = new Date(now.getTime() - 2 * 365 * 86_400_000);
  const notAfter = new Date(now.getTime() + 5 * 365 * 86_400_000);
  const root = await certificate({
    subject: rootName,
    issuer: rootName,
    keys: rootKeys,
    signingKey: rootKeys.privateKey,
    serial,
    notBefore,
    notAfter,
    ca: true,
  });
  const cpfField = `01011980${identity.cpf}${'0'.repeat(11)}${'0'.repeat(15)}SSP${identity.uf}`;
  const signerCert = await certificate({
    subject: name([
      [OID.countryName, 'BR'],
      [OID.organizationName, identity.organization],
      [OID.commonName, `${identity.name.toUpperCase()}:${identity.cpf}`],
    ]),
    issuer: rootName,
    keys: signerKeys,
    signingKey: rootKeys.privateKey,
    serial: serial + 1,
    notBefore,
    notAfter,
    ca: false,
    altNames: [
      otherName('2.16.76.1.3.1', new asn1js.OctetString({ valueHex: new TextEncoder().encode(cpfField).buffer })),
      otherName('2.16.76.1.4.2.2.1', new asn1js.PrintableString({ value: identity.crm })),
      otherName('2.16.76.1.4.2.2.2', new asn1js.PrintableString({ value: identity.uf })),
    ],
  });
  await fs.mkdir(rootsDir, { recursive: true });
  await fs.writeFile(path.join(rootsDir, `demo-root-${serial}.pem`), pem(root.toSchema(true).toBER(false)));

  const detached = async (content: Uint8Array, signedAt: Date): Promise<Buffer> => {
    const digest = await webcrypto.subtle.digest('SHA-256', content);
    const signed = new pkijs.SignedData({
      version: 1,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
      signerInfos: [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({ issuer: signerCert.issuer, serialNumber: signerCert.serialNumber }),
          signedAttrs: new pkijs.SignedAndUnsignedAttributes({
            type: 0,
            attributes: [
              new pkijs.Attribute({
                type: OID.contentType,
                values: [new asn1js.ObjectIdentifier({ value: OID.data })],
              }),
              new pkijs.Attribute({ type: OID.signingTime, values: [new asn1js.UTCTime({ valueDate: signedAt })] }),
              new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: digest })] }),
            ],
          }),
        }),
      ],
      certificates: [signerCert],
    });
    const data = content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
    await signed.sign(signerKeys.privateKey, 0, 'SHA-256', data);
    const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
    return Buffer.from(info.toSchema().toBER(false));
  };

  const pades = async (pdf: Uint8Array, signedAt: Date): Promise<Buffer> => {
    const source = Buffer.from(pdf);
    const text = source.toString('latin1');
    const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
    const size = Number([...text.matchAll(/\/Size\s+(\d+)/g)].at(-1)?.[1]);
    const root = [...text.matchAll(/\/Root\s+(\d+\s+\d+\s+R)/g)].at(-1)?.[1];
    if (!Number.isFinite(startxref) || !Number.isFinite(size) || !root) throw new Error('unexpected PDF');
    const placeholder = `<${'0'.repeat(16_384)}>`;
    const slot = '/ByteRange [0 0000000000 0000000000 0000000000]';
    const object =
      `\n${size} 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached ${slot} ` +
      `/Contents ${placeholder} >>\nendobj\n`;
    const xrefAt = source.length + Buffer.byteLength(object, 'latin1');
    const tail =
      `xref\n${size} 1\n${String(source.length + 1).padStart(10, '0')} 00000 n \n` +
      `trailer\n<< /Size ${size + 1} /Root ${root} /Prev ${startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const whole = Buffer.concat([source, Buffer.from(object + tail, 'latin1')]);
    const before = whole.indexOf(placeholder, source.length, 'latin1');
    const after = before + placeholder.length;
    const pad = (n: number) => String(n).padStart(10, '0');
    whole.write(
      `/ByteRange [0 ${pad(before)} ${pad(after)} ${pad(whole.length - after)}]`,
      whole.indexOf(slot, source.length, 'latin1'),
      'latin1',
    );
    const cms = await detached(Buffer.concat([whole.subarray(0, before), whole.subarray(after)]), signedAt);
    whole.write(cms.toString('hex'), before + 1, 'latin1');
    return whole;
  };

  return { detached, pades };
}
