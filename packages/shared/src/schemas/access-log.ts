import { z } from 'zod';
import { zBrDate, zLanguage } from '../validation.js';
import { paged, zPage } from './common.js';

/**
 * "Who saw my results": the accesses to a patient's own protocols, read from the audit trail and
 * told in words a patient understands. The answer names people only as the rules allow: a
 * physician by name and license, a partner institution's user by the tag that reached the
 * protocol, a share's recipient by the e-mail the patient chose, staff by name only when their
 * institution says so; guests and other patients never by name.
 */

/** What happened, as the patient reads it. */
export const ACCESS_ACTIONS = [
  'VIEW_PROTOCOL',
  'OPEN_REPORT',
  'OPEN_IMAGE',
  'DOWNLOAD_SIGNED',
  'PRINT',
  'OPEN_SHARE',
  'SIGN_IN_PROTOCOL',
  'OPEN_EXTERNAL_VIEWER',
  'STAFF_VIEW',
  'STAFF_DISABLE',
  'STAFF_ENABLE',
] as const;
export type AccessAction = (typeof ACCESS_ACTIONS)[number];

/** Who did it, as the patient reads it. */
export const ACCESS_ACTORS = [
  /** The patient, signed in to the account. */
  'YOU',
  /** A physician's account: name and license (CRM/UF). */
  'PHYSICIAN',
  /** A partner institution's user, reached through the protocol's tag. */
  'PARTNER',
  /** The person the patient shared the protocol with: the e-mail the patient typed. */
  'SHARE_RECIPIENT',
  /** Someone who signed in with the protocol's number and password. */
  'GUEST',
  /** The clinic's staff (administration console); the name only when the institution allows it. */
  'STAFF',
  /** The portal's own operators. */
  'PORTAL_SUPPORT',
  /** Anything else (an integration, a role that no longer exists). */
  'SYSTEM',
] as const;
export type AccessActor = (typeof ACCESS_ACTORS)[number];

const zOptionalBrDate = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(zBrDate.optional());

/** Contract 2: `size` above 100 is cut, never refused. */
const zSize = z.coerce
  .number()
  .int()
  .min(1)
  .default(20)
  .transform((v) => Math.min(v, 100));

export const zAccessQuery = z.object({
  /** A protocol of the patient: its `requestId`, or its number. */
  protocol: z.string().trim().max(64).optional(),
  /** First and last calendar day (DD/MM/YYYY, GMT-3), both included. */
  initialDate: zOptionalBrDate,
  finalDate: zOptionalBrDate,
  page: zPage,
  size: zSize,
});
export type AccessQuery = z.input<typeof zAccessQuery>;

export const zAccessExportQuery = zAccessQuery.omit({ page: true, size: true }).extend({
  /** The language of the CSV's words (pt-br default). */
  language: zLanguage.optional(),
});

export const zAccessWho = z.object({
  kind: z.enum(ACCESS_ACTORS),
  /** A physician's name, or a staff member's when the institution shows staff names. */
  name: z.string().nullable(),
  /** A physician's license, `CRM/UF` (e.g. `123456/SP`). */
  license: z.string().nullable(),
  /** The partner institution's tag that reached the protocol. */
  tag: z.string().nullable(),
  /** The share's recipient, as the patient typed it. */
  email: z.string().nullable(),
});
export type AccessWho = z.output<typeof zAccessWho>;

export const zAccessItem = z.object({
  id: z.string(),
  occurredAt: z.string(),
  action: z.enum(ACCESS_ACTIONS),
  who: zAccessWho,
  protocolId: z.string(),
  protocolNumber: z.string(),
  institutionName: z.string(),
  /** The exams whose files were opened, printed or downloaded (their descriptions), when known. */
  exams: z.array(z.string()),
  /** Through which door: the portal, or an integration reading on the user's behalf (FHIR). */
  channel: z.enum(['PORTAL', 'FHIR']),
});
export type AccessItem = z.output<typeof zAccessItem>;
export const zAccessPage = paged(zAccessItem);
export type AccessPage = z.output<typeof zAccessPage>;

/** The account setting: a mail when someone other than the patient opens a result. */
export const zAccessAlerts = z.object({ enabled: z.boolean() });
export type AccessAlerts = z.output<typeof zAccessAlerts>;

/** The CSV export's columns, in order (their headings are in the export's language). */
export const ACCESS_CSV_COLUMNS = ['occurredAt', 'protocolNumber', 'institution', 'action', 'who', 'exams'] as const;
