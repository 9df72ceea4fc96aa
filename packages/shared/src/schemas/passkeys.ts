import { z } from 'zod';
import { envelope } from './common.js';

export const PASSKEY_NAME_MAX = 64;
export const PASSKEYS_PER_ACCOUNT_MAX = 20;
/** A challenge may be answered for 5 minutes. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;

const b64url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/** What the browser answers to navigator.credentials.create (WebAuthn RegistrationResponseJSON). */
export const registrationCredential = z.object({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    transports: z.array(z.string().max(32)).max(10).optional(),
    authenticatorData: b64url.optional(),
    publicKey: b64url.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
  }),
  authenticatorAttachment: z.string().max(32).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** What the browser answers to navigator.credentials.get (WebAuthn AuthenticationResponseJSON). */
export const authenticationCredential = z.object({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
  authenticatorAttachment: z.string().max(32).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** A passkey answer together with the challenge it answers. */
export const passkeyAssertion = z.object({
  challengeId: z.string().min(1).max(64),
  credential: authenticationCredential,
});
export type PasskeyAssertion = z.input<typeof passkeyAssertion>;

const passkeyName = z.string().trim().min(1).max(PASSKEY_NAME_MAX);

/** The options handed to the browser (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON). */
export const passkeyOptionsResponse = envelope(
  z.object({
    challengeId: z.string(),
    options: z.record(z.string(), z.unknown()),
  }),
);

export const registerPasskeyBody = z.object({
  challengeId: z.string().min(1).max(64),
  credential: registrationCredential,
  name: passkeyName.optional(),
});

export const signInOptionsBody = z.object({}).default({});

export const passkeySignInBody = passkeyAssertion.extend({
  customLogin: z
    .string()
    .max(64)
    .nullish()
    .transform((v) => v?.trim() || undefined),
});

export const renamePasskeyBody = z.object({ name: passkeyName });
export const passkeyIdParams = z.object({ id: z.string().min(1).max(64) });

export const passkeyItem = z.object({
  id: z.string(),
  name: z.string(),
  /** singleDevice or multiDevice (synced). */
  deviceType: z.string(),
  backedUp: z.boolean(),
  transports: z.array(z.string()),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type PasskeyItem = z.infer<typeof passkeyItem>;

export const passkeyResponse = envelope(passkeyItem);
export const passkeyListResponse = envelope(z.array(passkeyItem));
export const passkeyRemovedResponse = envelope(z.boolean());
