import { z } from 'zod';
import { zEmail, zLanguage, zPassword } from '../validation.js';
import { PASSWORD_MAX } from '../limits.js';
import { paged, zPage } from './common.js';

/**
 * The administration console's calls (contract 9, `/admin/`): lists and changes an operator needs
 * beyond contract 6. Admins see every institution; company users only their own.
 */

const zSize = z.coerce.number().int().min(1).max(100).default(20);
const zSearch = z.string().trim().max(200).optional();
/** `YYYY-MM-DD`, a day in the portal's time zone (America/Sao_Paulo). */
const zDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')
  .optional();

export const zInstitutionListQuery = z.object({ search: zSearch });

export const zInstitutionListItem = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  viewType: z.number().int(),
  supportEmail: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type InstitutionListItem = z.output<typeof zInstitutionListItem>;

export const zDashboardInstitution = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  protocolsToday: z.number().int(),
  protocolsWeek: z.number().int(),
  examsDeliveredToday: z.number().int(),
  examsDeliveredWeek: z.number().int(),
  /** Exams delivered this week that somebody opened, out of `examsDeliveredWeek`. */
  examsOpenedWeek: z.number().int(),
  /** The newest protocol the institution's system sent (create or change), or null. */
  lastIngestAt: z.string().nullable(),
  /** Sign-in failures of the last 24 h on the institution's branded logins and protocols. */
  loginFailures24h: z.number().int(),
  /** Calls of its systems to the ingest doors (JSON, FHIR, HL7 v2) in the last 24 h, and how many failed. */
  ingestCalls24h: z.number().int(),
  ingestErrors24h: z.number().int(),
  /** The last such call, or null. */
  lastCallAt: z.string().nullable(),
  /** Its mails and messages in the outbox: waiting (or retried) and given up. */
  outboxWaiting: z.number().int(),
  outboxFailed: z.number().int(),
  /** Its accounts under a sign-in or MFA lock now (its People list, state LOCKED). */
  lockedNow: z.number().int(),
});

export const zDashboard = z.object({
  /** Start of today and of this week (Monday), in the portal's time zone, as ISO instants. */
  today: z.string(),
  weekStart: z.string(),
  institutions: z.array(zDashboardInstitution),
  /** Portal-wide figures, messages and accounts of no institution included: only admins receive them. */
  portal: z
    .object({
      outboxWaiting: z.number().int(),
      outboxFailed: z.number().int(),
      loginFailures24h: z.number().int(),
      /** Accounts under a sign-in or MFA lock now (People's state LOCKED). */
      lockedNow: z.number().int(),
    })
    .nullable(),
});
export type Dashboard = z.output<typeof zDashboard>;

export const zProtocolSearchQuery = z.object({
  number: zSearch,
  patient: zSearch,
  institutionId: z.string().max(64).optional(),
  from: zDay,
  to: zDay,
  page: zPage,
  size: zSize,
});

export const zAdminProtocolItem = z.object({
  id: z.string(),
  number: z.string(),
  institution: z.object({ id: z.string(), code: z.string(), name: z.string() }),
  patientName: z.string(),
  requestedAt: z.string().nullable(),
  createdAt: z.string(),
  disabled: z.boolean(),
  examCount: z.number().int(),
});
export type AdminProtocolItem = z.output<typeof zAdminProtocolItem>;
export const zAdminProtocolPage = paged(zAdminProtocolItem);
export type AdminProtocolPage = z.output<typeof zAdminProtocolPage>;

export const zAdminProtocolDetail = zAdminProtocolItem.extend({
  patientBirthDate: z.string(),
  hasPatientUser: z.boolean(),
  exams: z.array(
    z.object({
      id: z.string(),
      examKey: z.string(),
      description: z.string(),
      modalityName: z.string(),
      status: z.string().nullable(),
      deliveredAt: z.string().nullable(),
      isEnabled: z.boolean(),
      files: z.array(z.object({ identifier: z.string(), type: z.string(), size: z.number().int() })),
      /** How many people opened the exam. */
      reads: z.number().int(),
    }),
  ),
  shares: z.object({ active: z.number().int(), total: z.number().int() }),
});
export type AdminProtocolDetail = z.output<typeof zAdminProtocolDetail>;

/** Disable (cancel) or re-enable a protocol; the reason goes to the audit trail. */
export const zProtocolStatusChange = z.object({
  disabled: z.boolean(),
  reason: z.string().trim().min(3).max(500),
});

export const zAuditQuery = z.object({
  protocol: zSearch,
  patient: zSearch,
  user: zSearch,
  event: z.string().trim().max(100).optional(),
  institutionId: z.string().max(64).optional(),
  from: zDay,
  to: zDay,
  page: zPage,
  size: zSize,
});
export type AuditQuery = z.input<typeof zAuditQuery>;

export const zAuditItem = z.object({
  id: z.string(),
  occurredAt: z.string(),
  event: z.string(),
  tenant: z.string().nullable(),
  protocolId: z.string().nullable(),
  protocolNumber: z.string().nullable(),
  systemUser: z.object({ id: z.string().nullable(), name: z.string().nullable(), role: z.string().nullable() }),
  sharedWith: z.string().nullable(),
  ip: z.string().nullable(),
  detail: z.string().nullable(),
});
export type AuditItem = z.output<typeof zAuditItem>;
export const zAuditPage = paged(zAuditItem);
export type AuditPage = z.output<typeof zAuditPage>;

/** The CSV export's columns, in order. */
export const AUDIT_CSV_COLUMNS = [
  'occurredAt',
  'event',
  'tenant',
  'protocolNumber',
  'userId',
  'userName',
  'role',
  'sharedWith',
  'ip',
  'detail',
] as const;

export const zOutboxStatus = z.enum(['PENDING', 'SENT', 'DEAD']);
export const zOutboxQuery = z.object({
  status: zOutboxStatus.optional(),
  /** One institution's messages (a company user: its own only). */
  institutionId: z.string().max(64).optional(),
  page: zPage,
  size: zSize,
});
export const zOutboxItem = z.object({
  id: z.string(),
  channel: z.string(),
  recipient: z.string(),
  subject: z.string().nullable(),
  /** PENDING (waiting, or failing and retried: see attempts), SENT or DEAD (given up). */
  status: z.string(),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  nextAttemptAt: z.string(),
  /** The institution it was sent for; null: the portal's own (password recovery, MFA codes, digests). */
  institution: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type OutboxItem = z.output<typeof zOutboxItem>;
export const zOutboxPage = paged(zOutboxItem);
export type OutboxPage = z.output<typeof zOutboxPage>;

export const zAccountType = z.enum(['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'ADMIN', 'COMPANY']);
/** The People filter's states: the account's `state`, or LOCKED (a sign-in lock running now). */
export const zAccountStateFilter = z.enum(['ACTIVE', 'NOT_ACTIVATED', 'DISABLED', 'LOCKED']);
export const zAccountQuery = z.object({
  search: zSearch,
  type: zAccountType.optional(),
  state: zAccountStateFilter.optional(),
  /** The people of one institution, as its company users see them (a company user: its own only). */
  institutionId: z.string().max(64).optional(),
  page: zPage,
  size: zSize,
});
export const zAccountItem = z.object({
  id: z.string(),
  type: zAccountType,
  name: z.string(),
  email: z.string(),
  /** Masked as ddd.***.**d-dd. */
  cpf: z.string().nullable(),
  crm: z.string().nullable(),
  uf: z.string().nullable(),
  institution: z.object({ id: z.string(), name: z.string() }).nullable(),
  /** ACTIVE, NOT_ACTIVATED (invitation or confirmation pending) or DISABLED. */
  state: z.enum(['ACTIVE', 'NOT_ACTIVATED', 'DISABLED']),
  /** Sign-in locked until then (too many failures), or null. */
  lockedUntil: z.string().nullable(),
  /** Disabled until its institution enables it (`createAccountDefaultDisabled`). */
  awaitingInstitution: z.boolean().optional(),
  createdAt: z.string(),
  /** Physicians: the institutions within the caller's reach that vouch for them. */
  vouchedBy: z.array(z.object({ id: z.string(), name: z.string() })),
  /**
   * Whether the caller may disable, unlock or sign out the account: a company user lists the
   * physicians it vouches for but manages only its own institution's people.
   */
  manageable: z.boolean(),
});
export type AccountItem = z.output<typeof zAccountItem>;
export const zAccountPage = paged(zAccountItem);
export type AccountPage = z.output<typeof zAccountPage>;
export const zAccountDisable = z.object({ disabled: z.boolean() });

/** An admin invites another admin (admins only): the mail's link opens the console's first-password page. */
export const zAdminInvite = z.object({
  email: zEmail,
  name: z.string().trim().min(1).max(200),
  language: zLanguage.nullish(),
});

/** The console's first-password page of an admin invitation. */
export const zAdminCreate = z.object({
  token: z.string().min(1).max(200),
  fullName: z.string().trim().min(1).max(200),
  password: zPassword,
  confirmPassword: z.string().max(PASSWORD_MAX),
  language: zLanguage.nullish(),
});

/** Invitations the console manages: physicians, company users and admins (external users: in their tag). */
export const zInvitationKind = z.enum(['PHYSICIAN', 'COMPANY', 'ADMIN']);
export type InvitationKind = z.output<typeof zInvitationKind>;
/** PENDING (the link works), EXPIRED (never used, past its 7 days) or REVOKED (withdrawn by an operator). */
export const zInvitationState = z.enum(['PENDING', 'EXPIRED', 'REVOKED']);

export const zInvitationQuery = z.object({
  search: zSearch,
  kind: zInvitationKind.optional(),
  state: zInvitationState.optional(),
  institutionId: z.string().max(64).optional(),
  page: zPage,
  size: zSize,
});

export const zInvitationItem = z.object({
  id: z.string(),
  kind: zInvitationKind,
  email: z.string(),
  name: z.string().nullable(),
  crm: z.string().nullable(),
  uf: z.string().nullable(),
  institution: z.object({ id: z.string(), name: z.string() }).nullable(),
  state: zInvitationState,
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type InvitationItem = z.output<typeof zInvitationItem>;
export const zInvitationPage = paged(zInvitationItem);
export type InvitationPage = z.output<typeof zInvitationPage>;

export const zIngestCallQuery = z.object({
  institutionId: z.string().max(64).optional(),
  /** `true`: failed calls only. */
  errors: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
  page: zPage,
  size: zSize,
});

export const zIngestCallItem = z.object({
  id: z.string(),
  institution: z.object({ id: z.string(), name: z.string() }),
  /** JSON, FHIR or HL7. */
  door: z.string(),
  /** The HTTP method, or for HL7 the transport (MLLP, MLLP_TLS, HTTPS). */
  method: z.string(),
  /** The path called, or for HL7 the message type. */
  path: z.string(),
  /** The HTTP status, or for HL7 the ACK code (AA, AE, AR). */
  status: z.string(),
  failed: z.boolean(),
  error: z.string().nullable(),
  receivedAt: z.string(),
  durationMs: z.number().int(),
});
export type IngestCallItem = z.output<typeof zIngestCallItem>;
export const zIngestCallPage = paged(zIngestCallItem);
export type IngestCallPage = z.output<typeof zIngestCallPage>;
