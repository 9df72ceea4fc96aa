import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * Real certificates and real CMS signatures made by the openssl program: a root CA, an
 * intermediate, a physician's certificate with ICP-Brasil's CPF and CRM fields, a second signer
 * whose certificate the intermediate revoked (and a CRL saying so), and a stranger signed by a
 * root nobody trusts. `trustDir` holds what TRUST_ROOTS_DIR would: the root, the intermediate and
 * the CRL.
 */

const EXTENSIONS = `
[ root ]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ inter ]
basicConstraints = critical,CA:true,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ signer ]
basicConstraints = CA:false
keyUsage = critical,digitalSignature,nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = @alt
[ alt ]
otherName.1 = 2.16.76.1.3.1;OCTETSTRING:150319801234567890900000000000000000000000000000000SSPSP
otherName.2 = 2.16.76.1.4.2.2.1;PRINTABLESTRING:0000123456
otherName.3 = 2.16.76.1.4.2.2.2;PRINTABLESTRING:SP
[ plain ]
basicConstraints = CA:false
keyUsage = critical,digitalSignature,nonRepudiation
`;

const CA_CONFIG = `
[ ca ]
default_ca = inter
[ inter ]
database = index.txt
crlnumber = crlnumber
default_md = sha256
default_crl_days = 3650
new_certs_dir = .
serial = ca.srl
policy = anything
unique_subject = no
[ anything ]
commonName = supplied
`;

export interface SigningFixtures {
  dir: string;
  /** What TRUST_ROOTS_DIR holds: root.pem, intermediate.pem, intermediate.crl. */
  trustDir: string;
  /** A detached DER CMS signature over `content` by the physician (or `revoked`, or `stranger`). */
  sign(content: Uint8Array, who?: 'physician' | 'revoked' | 'stranger' | 'expired'): Buffer;
  /** A PDF with a PAdES signature (adbe.pkcs7.detached over its /ByteRange) by the physician. */
  padesPdf(pdf: Uint8Array): Buffer;
  cleanup(): void;
}

export function makeSigningFixtures(): SigningFixtures {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-signing-'));
  const trustDir = path.join(dir, 'trust');
  fs.mkdirSync(trustDir);
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  fs.writeFileSync(path.join(dir, 'ext.cnf'), EXTENSIONS);
  fs.writeFileSync(path.join(dir, 'ca.cnf'), CA_CONFIG);
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'crlnumber'), '01\n');

  const key = (name: string) => run('genrsa', '-out', `${name}.key`, '2048');
  const csr = (name: string, subject: string) =>
    run('req', '-new', '-utf8', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
  const issue = (name: string, ca: string | null, section: string, days: string[]) =>
    run(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      ...(ca ? ['-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial'] : ['-signkey', `${name}.key`]),
      ...days,
      '-extfile',
      'ext.cnf',
      '-extensions',
      section,
      '-out',
      `${name}.pem`,
    );

  for (const name of ['root', 'inter', 'physician', 'revoked', 'other-root', 'stranger', 'expired']) key(name);
  csr('root', '/C=BR/O=Portal Test/CN=Test Root CA');
  issue('root', null, 'root', ['-days', '3650']);
  csr('inter', '/C=BR/O=Portal Test/CN=Test Intermediate CA');
  issue('inter', 'root', 'inter', ['-days', '3650']);
  csr('physician', '/C=BR/O=ICP-Brasil/OU=Certificado PF A3/CN=MARIA DA SILVA SOUZA:12345678909');
  issue('physician', 'inter', 'signer', ['-days', '3650']);
  csr('revoked', '/C=BR/O=ICP-Brasil/CN=JOAO REVOGADO:98765432100');
  issue('revoked', 'inter', 'plain', ['-days', '3650']);
  csr('expired', '/C=BR/O=ICP-Brasil/CN=ANA EXPIRADA:11144477735');
  // Valid for one day, ten years ago.
  fs.writeFileSync(path.join(dir, 'ca.srl'), '7A01\n');
  run(
    'ca',
    '-batch',
    '-notext',
    '-config',
    'ca.cnf',
    '-in',
    'expired.csr',
    '-cert',
    'inter.pem',
    '-keyfile',
    'inter.key',
    '-startdate',
    '20161120000000Z',
    '-enddate',
    '20161121000000Z',
    '-extfile',
    'ext.cnf',
    '-extensions',
    'plain',
    '-out',
    'expired.pem',
  );
  csr('other-root', '/C=BR/O=Nobody/CN=Untrusted Root');
  issue('other-root', null, 'root', ['-days', '3650']);
  csr('stranger', '/C=BR/O=Nobody/CN=PEDRO ESTRANHO:52998224725');
  issue('stranger', 'other-root', 'plain', ['-days', '3650']);

  run('ca', '-config', 'ca.cnf', '-revoke', 'revoked.pem', '-keyfile', 'inter.key', '-cert', 'inter.pem');
  run('ca', '-config', 'ca.cnf', '-gencrl', '-keyfile', 'inter.key', '-cert', 'inter.pem', '-out', 'inter.crl');
  fs.copyFileSync(path.join(dir, 'root.pem'), path.join(trustDir, 'root.pem'));
  fs.copyFileSync(path.join(dir, 'inter.pem'), path.join(trustDir, 'intermediate.pem'));
  fs.copyFileSync(path.join(dir, 'inter.crl'), path.join(trustDir, 'intermediate.crl'));

  let n = 0;
  const sign = (content: Uint8Array, who: 'physician' | 'revoked' | 'stranger' | 'expired' = 'physician') => {
    const input = path.join(dir, `content-${++n}.bin`);
    fs.writeFileSync(input, content);
    const issuer = who === 'stranger' ? 'other-root' : 'inter';
    run(
      'cms',
      '-sign',
      '-binary',
      '-outform',
      'DER',
      '-md',
      'sha256',
      '-in',
      input,
      '-signer',
      `${who}.pem`,
      '-inkey',
      `${who}.key`,
      '-certfile',
      `${issuer}.pem`,
      '-out',
      `${input}.p7s`,
    );
    return fs.readFileSync(`${input}.p7s`);
  };

  const padesPdf = (pdf: Uint8Array) => {
    // An incremental update adding a signature dictionary whose /Contents is left to fill.
    const source = Buffer.from(pdf);
    const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(source.toString('latin1'))?.[1]);
    const size = Number(/\/Size\s+(\d+)/.exec(source.toString('latin1'))?.[1]);
    const root = /\/Root\s+(\d+\s+\d+\s+R)/.exec(source.toString('latin1'))?.[1];
    if (!Number.isFinite(startxref) || !Number.isFinite(size) || !root) throw new Error('unexpected PDF');
    const room = 16_384;
    const placeholder = `<${'0'.repeat(room)}>`;
    const rangeSlot = '/ByteRange [0 0000000000 0000000000 0000000000]';
    const object =
      `\n${size} 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached ` +
      `${rangeSlot} /Contents ${placeholder} >>\nendobj\n`;
    const offset = source.length + 1;
    const xrefAt = source.length + Buffer.byteLength(object);
    const tail =
      `xref\n${size} 1\n${String(offset).padStart(10, '0')} 00000 n \n` +
      `trailer\n<< /Size ${size + 1} /Root ${root} /Prev ${startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const whole = Buffer.concat([source, Buffer.from(object + tail, 'latin1')]);
    const text = whole.toString('latin1');
    const contentsAt = text.indexOf(placeholder, source.length);
    const before = contentsAt;
    const after = contentsAt + placeholder.length;
    const ranges = `/ByteRange [0 ${String(before).padStart(10, '0')} ${String(after).padStart(10, '0')} ${String(
      whole.length - after,
    ).padStart(10, '0')}]`;
    whole.write(ranges, text.indexOf(rangeSlot, source.length), 'latin1');
    const signed = Buffer.concat([whole.subarray(0, before), whole.subarray(after)]);
    const hex = sign(signed).toString('hex');
    whole.write(hex, before + 1, 'latin1');
    return whole;
  };

  return { dir, trustDir, sign, padesPdf, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
