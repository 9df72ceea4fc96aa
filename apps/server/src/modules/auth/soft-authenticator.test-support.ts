import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/*
 * A software authenticator written from the WebAuthn Level 2 spec, for the API tests: an ES256
 * key per credential, authenticatorData (rpIdHash, flags, signCount, attested credential data
 * with a COSE key), clientDataJSON and "none" attestation in CBOR. It answers the options the
 * portal hands out exactly as a browser would relay a platform authenticator's answer.
 */

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** The few CBOR items attestation objects and COSE keys need (RFC 8949). */
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function cborHead(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value]);
  if (value < 0x10000) return Buffer.from([(major << 5) | 25, value >> 8, value & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(value, 1);
  return b;
}

export function cbor(item: Cbor): Buffer {
  if (typeof item === 'number') return item >= 0 ? cborHead(0, item) : cborHead(1, -1 - item);
  if (typeof item === 'string') {
    const bytes = Buffer.from(item, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (item instanceof Map) {
    return Buffer.concat([cborHead(5, item.size), ...[...item].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  }
  return Buffer.concat([cborHead(2, item.length), Buffer.from(item)]);
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  userHandle: string;
  rpId: string;
  signCount: number;
}

export interface CeremonyOptions {
  /** The origin the "browser" reports (defaults to the authenticator's). */
  origin?: string;
  /** User verification done (defaults to true). */
  userVerified?: boolean;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(
    readonly origin: string,
    readonly rpId: string,
  ) {}

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  private authData(rpId: string, flags: number, signCount: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(signCount);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create: a new resident ES256 credential, "none" attestation. */
  register(options: CreationOptions, ceremony: CeremonyOptions & { again?: SoftCredential } = {}) {
    const rpId = options.rp.id ?? this.rpId;
    // `again`: the same credential answered once more (an authenticator ignoring excludeCredentials).
    const { privateKey, publicKey } = ceremony.again ?? generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = ceremony.again?.id ?? randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, id, coseKey]);
    const flags = FLAG_UP | (ceremony.userVerified === false ? 0 : FLAG_UV) | FLAG_AT;
    const credential: SoftCredential = { id, privateKey, publicKey, userHandle: options.user.id, rpId, signCount: 0 };
    const authData = this.authData(rpId, flags, 0, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    if (!ceremony.again) this.credentials.push(credential);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, ceremony.origin ?? this.origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get with a discoverable credential (the newest, or the one given). */
  assert(options: RequestOptions, ceremony: CeremonyOptions & { credential?: SoftCredential } = {}) {
    const credential = ceremony.credential ?? this.credentials.at(-1);
    if (!credential) throw new Error('no credential on this authenticator');
    credential.signCount += 1;
    const flags = FLAG_UP | (ceremony.userVerified === false ? 0 : FLAG_UV);
    const authData = this.authData(options.rpId ?? credential.rpId, flags, credential.signCount);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, ceremony.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}
