import { z } from 'zod';
import { envelope } from './common.js';

/*
 * Issue 22.3: what the server found when it checked a report's digital signature, and the public
 * check of a delivered report by its verification code (`/validar`).
 */

/** The verification code's alphabet: no 0/O, 1/I/L or U, so it reads back without doubt. */
export const VERIFICATION_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Ten characters, shown and printed as two groups of five (`ABCDE-23456`). */
export const VERIFICATION_CODE_LENGTH = 10;

/** A code as typed: spaces, dashes and case do not matter. */
export function normaliseVerificationCode(input: string): string {
  return input.toUpperCase().replace(/[\s\-._]/g, '');
}

export function formatVerificationCode(code: string): string {
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

export const zVerificationCode = z
  .string()
  .max(40)
  .transform(normaliseVerificationCode)
  .pipe(
    z
      .string()
      .length(VERIFICATION_CODE_LENGTH)
      .regex(new RegExp(`^[${VERIFICATION_CODE_ALPHABET}]+$`)),
  );

export const zSignatureCheck = z.object({
  /** `cms`: a detached PKCS#7 file beside the report; `pades`: a signed PDF. */
  format: z.enum(['cms', 'pades']),
  /** The signature matches these bytes and was made by the key of the certificate it names. */
  signatureValid: z.boolean(),
  signer: z
    .object({
      name: z.string().nullable(),
      cpf: z.string().nullable(),
      /** `CRM 12345/SP` when the certificate carries the ICP-Brasil professional fields. */
      crm: z.string().nullable(),
      issuer: z.string().nullable(),
    })
    .nullable(),
  /** The signing time the signer's software wrote (not a time-stamp authority's). */
  signedAt: z.string().nullable(),
  /** `trusted`: the certificate chains up to a root of TRUST_ROOTS_DIR and was in force when signed. */
  chain: z.enum(['trusted', 'untrusted', 'expired']),
  /** `unknown`: no revocation list beside the roots covers the certificate. */
  revocation: z.enum(['good', 'revoked', 'unknown']),
  /** Why the signature is not valid, in a word the screens translate. */
  problem: z.enum(['unreadable', 'mismatch', 'no-signer']).nullable(),
  checkedAt: z.string(),
});
export type SignatureCheck = z.infer<typeof zSignatureCheck>;

/** Valid signature, trusted chain, not revoked: what a user may call "valid". */
export function isSignatureTrusted(check: SignatureCheck): boolean {
  return check.signatureValid && check.chain === 'trusted' && check.revocation !== 'revoked';
}

export const zSignatureVerificationQuery = z.object({ resourceId: z.string().min(1).max(64) });
export const zSignatureVerificationResponse = envelope(
  z.object({
    resourceId: z.string(),
    verificationCode: z.string(),
    check: zSignatureCheck.nullable(),
  }),
);

/** POST /api/v2/public/validate (JSON form): the code and the file's SHA-256 in hex. */
export const zValidateBody = z.object({
  code: zVerificationCode,
  sha256: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[0-9a-f]{64}$/),
});

export const zValidateResponse = envelope(
  z.object({
    /** `match`: the institution delivered this very file (`file` says which). */
    outcome: z.enum(['match', 'different-file', 'unknown-code']),
    /** The report the code belongs to (never for an unknown code). */
    report: z
      .object({
        institution: z.string(),
        deliveredAt: z.string().nullable(),
        patientInitials: z.string(),
      })
      .nullable(),
    /** Which of the report's files the bytes are. */
    file: z.enum(['report', 'stamped-report', 'signed-file']).nullable(),
    signature: zSignatureCheck.nullable(),
  }),
);
export type ValidateAnswer = z.infer<typeof zValidateResponse>['data'];
