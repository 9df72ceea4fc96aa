import { z } from 'zod';
import { EMAIL_FREQUENCIES } from '../exam-status.js';
import { BRAZILIAN_STATES, PASSWORD_MAX } from '../limits.js';
import { parseBrDate } from '../formats.js';
import { zEmail, zLanguage, zPassword } from '../validation.js';

/** `DD/MM/YYYY` as the spec types it; `YYYY-MM-DD` is also taken (the form reloads the record). */
export const zPersonDate = z.string().transform((v, ctx) => {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(v.trim())
    ? parseBrDate(v.trim().split('-').reverse().join('/'))
    : parseBrDate(v);
  if (!iso) {
    ctx.addIssue({ code: 'custom', message: 'date must be DD/MM/YYYY' });
    return z.NEVER;
  }
  return iso;
});

const optionalText = (max: number) => z.string().max(max).nullish();

/** Spec 3 "patient create payload" (also the form's field names as aliases). */
export const zPatientCreate = z.object({
  name: optionalText(200),
  fullName: optionalText(200),
  login: optionalText(254),
  email: optionalText(254),
  emailAddress: optionalText(254),
  confirmEmailAddress: optionalText(254),
  password: zPassword,
  confirmPassword: optionalText(PASSWORD_MAX),
  language: zLanguage.nullish(),
  token: optionalText(200),
  protocol: optionalText(64),
  protocolPassword: optionalText(128),
  dateOfBirth: zPersonDate,
  cpf: optionalText(20),
  phone: optionalText(32),
  serviceTerms: z.boolean().nullish(),
});
export type PatientCreate = z.output<typeof zPatientCreate>;

export const zCreatedAccount = z.object({
  id: z.string(),
  email: z.string(),
  active: z.boolean(),
  /** The account waits for its institution to enable it (`createAccountDefaultDisabled`). */
  awaitingInstitution: z.boolean().optional(),
});

export const zTokenQuery = z.object({ token: z.string().min(1).max(200) });

/** Patient invitation check: the e-mail and name fixed by the invitation. */
export const zInvitationInfo = z.object({
  email: z.string(),
  name: z.string().nullable(),
});

export const zPhysicianInvitationInfo = zInvitationInfo.extend({
  crm: z.string(),
  uf: z.string(),
  institutionCode: z.string().nullable(),
  institutionName: z.string().nullable(),
});

export const zForgotPasswordQuery = z.object({
  username: z.string().max(254),
  language: zLanguage.nullish(),
});

/** Contract 8: reset takes token, password, confirmPassword, language; the spec's names are aliases. */
export const zResetPassword = z.object({
  token: z.string().min(1).max(200),
  password: optionalText(PASSWORD_MAX),
  newPassword: optionalText(PASSWORD_MAX),
  confirmPassword: optionalText(PASSWORD_MAX),
  confirmNewPassword: optionalText(PASSWORD_MAX),
  username: optionalText(254),
  email: optionalText(254),
  language: zLanguage.nullish(),
});

/** Optional in the schema so the server answers the catalogue's own texts when missing. */
export const zChangePassword = z.object({
  currentPassword: optionalText(PASSWORD_MAX),
  newPassword: optionalText(PASSWORD_MAX),
  confirmNewPassword: optionalText(PASSWORD_MAX),
});

export const zChangeEmail = z.object({
  currentPassword: optionalText(PASSWORD_MAX),
  newEmail: optionalText(254),
  confirmNewEmail: optionalText(254),
});

export const zEmailFrequency = z.enum(EMAIL_FREQUENCIES);
export const zGender = z.enum(['FEMALE', 'MALE']);
export const PHONE_TYPES = ['CELULAR', 'FIXO'] as const;

export const zDocument = z.object({
  type: z.object({ code: z.string().max(20) }),
  number: z.string().max(20),
});
export const zPhone = z.object({ number: z.string().max(32), type: z.enum(PHONE_TYPES).nullish() });

/** Spec 3 patient record as the edit screen sends it; absent fields stay as they are. */
export const zPatientEdit = z.object({
  name: optionalText(200),
  documents: z.array(zDocument).max(5).nullish(),
  birth: zPersonDate.nullish(),
  gender: zGender.nullish(),
  phones: z.array(zPhone).max(2).nullish(),
  frequencyReceiveEmail: zEmailFrequency.nullish(),
  language: zLanguage.nullish(),
});
export type PatientEdit = z.output<typeof zPatientEdit>;

/** Physician edit: name, CRM and UF are read-only and ignored when sent. */
export const zPhysicianEdit = zPatientEdit.omit({ name: true }).extend({
  name: z.unknown().optional(),
  licenses: z.unknown().optional(),
});

export const zLicense = z.object({ number: z.string(), state: z.string() });

/** The caller's own record (GET /api/v2/auth/user/me). */
export const zUserRecord = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  email: z.string(),
  documents: z.array(z.object({ type: z.object({ code: z.string() }), number: z.string() })),
  birth: z.string().nullable(),
  gender: z.string().nullable(),
  phones: z.array(z.object({ number: z.string(), type: z.string() })),
  frequencyReceiveEmail: z.string(),
  language: z.string(),
  mfaEnabled: z.boolean(),
  licenses: z.array(zLicense),
  tagId: z.string().nullable(),
  tags: z.array(z.object({ id: z.string(), tag: z.string() })),
  /** Spec 5: name, CPF, birth, phone and gender all present. */
  complete: z.boolean(),
  missing: z.array(z.string()),
});
export type UserRecord = z.output<typeof zUserRecord>;

export const zPhysicianCreate = z.object({
  token: z.string().min(1).max(200),
  fullName: optionalText(200),
  name: optionalText(200),
  password: zPassword,
  confirmPassword: optionalText(PASSWORD_MAX),
  /** Fixed by the invitation: ignored when sent. */
  license: z.unknown().optional(),
  language: zLanguage.nullish(),
});

export const zExternalUserEdit = z.object({ tagId: z.string().min(1).max(64) });

export const zCompanyCreate = z.object({
  token: z.string().min(1).max(200),
  fullName: z.string().trim().min(1).max(200),
  password: zPassword,
  confirmPassword: z.string().max(PASSWORD_MAX),
  acceptTerms: z.literal(true),
  language: zLanguage.nullish(),
});

export const zEmailFrequencyQuery = z.object({
  userId: optionalText(64),
  email: optionalText(254),
  userType: optionalText(20),
});

/** Contract 6: invitations and tags of the administration API. */
export const zPhysicianInvite = z.object({
  email: zEmail,
  name: z.string().trim().min(1).max(200),
  crm: z.string().trim().min(1).max(20),
  uf: z
    .string()
    .trim()
    .toUpperCase()
    .refine((v) => (BRAZILIAN_STATES as readonly string[]).includes(v), 'uf must be a Brazilian state'),
  institutionId: z.string().min(1).max(64),
  language: zLanguage.nullish(),
});

export const zCompanyInvite = z.object({
  email: zEmail,
  institutionId: z.string().min(1).max(64),
  language: zLanguage.nullish(),
});

export const zInvitationSent = z.object({
  id: z.string(),
  email: z.string(),
  status: z.string(),
  expiresAt: z.string(),
});

export const zTagBody = z.object({ tag: z.string().trim().min(1).max(100) });
export const zTag = z.object({ id: z.string(), tag: z.string() });
export type Tag = z.output<typeof zTag>;

export const zTagUserBody = z.object({
  email: zEmail,
  name: z.string().trim().min(1).max(200),
  language: zLanguage.nullish(),
});
/** PUT on one tag user: an external user's name. */
export const zTagUserUpdate = z.object({ name: z.string().trim().min(1).max(200) });
export const zTagUser = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  type: z.string(),
  active: z.boolean(),
});
export type TagUser = z.output<typeof zTagUser>;

/**
 * A physician an institution vouches for: his license opens that institution's protocols
 * (administration API, `…/institution/{id}/physicians`).
 */
export const zVouchedPhysician = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  crm: z.string().nullable(),
  uf: z.string().nullable(),
  active: z.boolean(),
  /** When the institution vouched (ISO 8601). */
  vouchedAt: z.string(),
});
export type VouchedPhysician = z.infer<typeof zVouchedPhysician>;

/** Vouch for an existing physician account, named by its id or its e-mail (one of the two). */
export const zVouchBody = z
  .object({ userId: z.string().min(1).max(64).nullish(), email: zEmail.nullish() })
  .refine((b) => Boolean(b.userId) !== Boolean(b.email), {
    message: 'give either userId or email',
    path: ['userId'],
  });

/** Spec 3 custom clinic page. */
export const zCustomLoginPage = z.object({
  name: z.string(),
  logoPath: z.string().nullable(),
  viewType: z.number(),
  supportEmail: z.string().nullable(),
  supportPhoneNumber: z.string().nullable(),
  supportWhatsAppNumber: z.string().nullable(),
});

export const zPublicInstitution = zCustomLoginPage.extend({
  id: z.string(),
  code: z.string(),
  token: z.string(),
});

/** Link protocol (spec 3). */
export const zProtocolCheckQuery = z.object({
  protocol: z.string().trim().min(1).max(64),
  password: z.string().min(1).max(128),
  customLogin: optionalText(64),
});

export const zBindProtocol = z.object({
  protocol: z.string().trim().min(1).max(64),
  password: z.string().min(1).max(128),
  patientUserId: z.string().min(1).max(64),
});
export const zBoundProtocols = z.object({ requestIds: z.array(z.string()) });
