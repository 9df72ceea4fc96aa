import type { Generated } from 'kysely';
/*
 * Table types. Portable storage between SQLite and PostgreSQL:
 * - ids are text (UUIDs made in app code);
 * - booleans are integers 0/1;
 * - timestamps are UTC ISO-8601 text (`Date#toISOString()`), which sorts like time;
 * - birth dates are `YYYY-MM-DD` text; JSON is text.
 */
type Bool = number;
type Timestamp = string;

export interface InstitutionTable {
  id: string;
  code: string;
  name: string;
  /** Public token of the institution (spec 3, protocol.institution.token). */
  token: string;
  /** sha256 of the API key; the key itself is shown once. */
  apiKeyHash: string;
  viewType: number;
  logoPath: string | null;
  supportEmail: string | null;
  supportPhoneNumber: string | null;
  supportWhatsappNumber: string | null;
  /** JSON object of named settings (shareEnabled, createAccountDefaultDisabled, ...). */
  settings: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** Release holds: an institution's rule for one exam type (`exams.type`), see docs/decisions.md. */
export interface ExamHoldRuleTable {
  id: string;
  institutionId: string;
  examTypeCode: string;
  /** HOURS, PHYSICIAN or IN_PERSON. */
  rule: string;
  hours: number | null;
  message: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface VisualizerSettingTable {
  id: string;
  institutionId: string;
  examTypeCode: string;
  hideButton: Bool;
  enable: Bool;
}

export type UserType = 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL' | 'ADMIN' | 'COMPANY';

export interface UserTable {
  id: string;
  type: UserType;
  email: string;
  passwordHash: string | null;
  name: string;
  /** Activated (e-mail confirmed or created from an invitation). */
  active: Bool;
  disabled: Bool;
  birth: string | null;
  gender: string | null;
  cpf: string | null;
  phoneMobile: string | null;
  phoneLandline: string | null;
  /** Phone that receives MFA codes, with `mfaChannel` (whatsapp or sms). */
  mfaPhone: string | null;
  mfaChannel: string | null;
  mfaEnabled: Bool;
  frequencyReceiveEmail: string;
  language: string;
  licenseNumber: string | null;
  licenseState: string | null;
  favoriteTagId: string | null;
  /**
   * Company users: the institution they administer; physicians: the inviting institution (which
   * vouches for them, `physician_vouches`).
   */
  institutionId: string | null;
  /** A mail when someone other than the patient opens one of the patient's results (0/1, off by default). */
  accessAlerts: Generated<Bool>;
  /**
   * The institution (with `createAccountDefaultDisabled`) whose invitation or protocol brought the
   * account and which has not enabled it yet; the account stays disabled meanwhile.
   */
  awaitingInstitutionId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface TagTable {
  id: string;
  institutionId: string;
  tag: string;
  createdAt: Timestamp;
}

export interface TagMemberTable {
  tagId: string;
  userId: string;
  createdAt: Timestamp;
}

export interface ProtocolTable {
  id: string;
  institutionId: string;
  number: string;
  passwordHash: string;
  requestedAt: Timestamp | null;
  /** requestedAt, or createdAt when absent: the key the lists sort and filter on. */
  sortAt: Timestamp;
  tagId: string | null;
  patientExternalId: string;
  patientName: string;
  /** Lower-case, accent-free name for search. */
  patientNameSearch: string;
  patientBirthDate: string;
  patientGender: string;
  patientEmail: string | null;
  patientPhone: string | null;
  patientCpf: string | null;
  patientMotherName: string | null;
  /** The preferred (social) name the institution sent, if any. */
  patientPreferredName: string | null;
  patientUserId: string | null;
  disabled: Bool;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** One row per requester license (CRM + UF) present in a protocol: the physician list's index. */
export interface ProtocolRequesterTable {
  protocolId: string;
  crm: string;
  uf: string;
  sortAt: Timestamp;
  /** Copied from the protocol by triggers, with the row a physician's list shows (JSON). */
  institutionId: Generated<string | null>;
  disabled: Generated<number>;
  listing: Generated<string | null>;
}

export interface ExamTable {
  id: string;
  protocolId: string;
  examKey: string;
  description: string;
  type: string;
  modalityCode: string;
  modalityName: string;
  requesterIdentifier: string | null;
  requesterName: string | null;
  requesterCrm: string | null;
  requesterUf: string | null;
  status: string | null;
  statusCode: string;
  rectificationStatus: string | null;
  performedAt: Timestamp | null;
  deliveredAt: Timestamp | null;
  isEnabled: Bool;
  /** Position in the last ingest body. */
  position: number;
  /** Kept by triggers on resources: 1 when the exam has a report, + 2 when it has an image. */
  resourceKinds: Generated<number>;
  /** Kept by triggers on analytes: 1 when the exam has history results. */
  hasAnalytes: Generated<number>;
  /** Release holds: when a requesting physician released the result to the patient, and who. */
  holdReleasedAt: Timestamp | null;
  holdReleasedBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ResourceTable {
  id: string;
  examId: string;
  identifier: string;
  type: string;
  storageKey: string;
  contentType: string;
  size: number;
  sha256: string;
  crc32: number;
  pageCount: number | null;
  signedStorageKey: string | null;
  signedContentType: string | null;
  signedSize: number | null;
  signedSha256: string | null;
  signedCrc32: number | null;
  /** Issue 22.3: the code `/validar` takes (null only for a row written before it existed). */
  verificationCode: string | null;
  /** The last check of the signed file's signature (JSON `SignatureCheck`); null without one. */
  signatureCheck: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface AnalyteTable {
  id: string;
  examId: string;
  code: string;
  name: string;
  unit: string | null;
  value: string;
  valueNumber: number | null;
  referenceMin: number | null;
  referenceMax: number | null;
  referenceText: string | null;
  /** The abnormal flag of the result as sent (HL7 table 0078: H, L, HH, LL, A, N...). */
  abnormalFlag: string | null;
  position: number;
}

export interface ExamReadTable {
  /** A user id, or `protocol:<id>` for a protocol without a patient account (guest reads). */
  viewerKey: string;
  examId: string;
  readAt: Timestamp;
}

export interface ShareTable {
  id: string;
  patientUserId: string;
  email: string;
  tokenHash: string;
  message: string | null;
  daysExpiration: number;
  language: string;
  institutionId: string | null;
  active: Bool;
  createdAt: Timestamp;
  expiresAt: Timestamp;
  canceledAt: Timestamp | null;
}

export interface ShareProtocolTable {
  shareId: string;
  protocolId: string;
}

export interface TermTable {
  id: string;
  /** TERMS (service terms) or PP (privacy policy). */
  termType: string;
  userType: string;
  version: number;
  /** JSON: { "pt-br": "...", "es": "...", "en": "..." } */
  content: string;
  createdAt: Timestamp;
}

export interface TermAcceptanceTable {
  userId: string;
  termId: string;
  acceptedAt: Timestamp;
}

export type OneTimeTokenKind =
  | 'ACTIVATION'
  | 'RESET'
  | 'INVITE_PHYSICIAN'
  | 'INVITE_COMPANY'
  | 'INVITE_ADMIN'
  | 'INVITE_PATIENT'
  | 'EXTERNAL_FIRST_PASSWORD';

export interface OneTimeTokenTable {
  id: string;
  kind: OneTimeTokenKind;
  tokenHash: string;
  userId: string | null;
  email: string | null;
  institutionId: string | null;
  /** JSON with the invitation's fixed data (name, crm, uf, protocol id, ...). */
  payload: string;
  status: string;
  language: string;
  expiresAt: Timestamp;
  usedAt: Timestamp | null;
  createdAt: Timestamp;
}

/** The one automatic invitation (AUTO_INVITE) an institution sent a patient of its own. */
export interface PatientAutoInvitationTable {
  institutionId: string;
  /** The institution's patient id (`patient.patientId` of the ingest). */
  patientExternalId: string;
  tokenId: string;
  createdAt: Timestamp;
}

/** A stamped copy of a report handed out (its SHA-256), so `/validar` recognises every one. */
export interface StampedCopyTable {
  resourceId: string;
  sha256: string;
  /** The strip's language; null for copies handed out before languages were kept. */
  language: string | null;
  createdAt: Timestamp;
}

export interface MfaCodeTable {
  id: string;
  userId: string;
  /** LOGIN, ACTIVATE or INACTIVATE */
  purpose: string;
  phone: string;
  channel: string;
  codeHash: string;
  tries: number;
  expiresAt: Timestamp;
  usedAt: Timestamp | null;
  createdAt: Timestamp;
}

/** A passkey (WebAuthn credential) of an account. */
export interface PasskeyTable {
  id: string;
  userId: string;
  /** base64url */
  credentialId: string;
  /** COSE public key, base64url */
  publicKey: string;
  counter: number;
  /** JSON array */
  transports: string;
  name: string;
  /** singleDevice or multiDevice */
  deviceType: string;
  backedUp: number;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
}

/** A WebAuthn challenge handed to a browser; deleted as it is answered. */
export interface WebauthnChallengeTable {
  id: string;
  /** REGISTER or SIGN_IN */
  purpose: string;
  userId: string | null;
  challenge: string;
  expiresAt: Timestamp;
  createdAt: Timestamp;
}

export type SessionRole = 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL' | 'GUEST' | 'ADMIN' | 'COMPANY' | 'SHARE';

export interface SessionTable {
  id: string;
  role: SessionRole;
  userId: string | null;
  shareId: string | null;
  /** Guests: the protocol number or the e-mail used to sign in. */
  username: string;
  institutionCode: string | null;
  appKey: string;
  createdAt: Timestamp;
  expiresAt: Timestamp;
  revokedAt: Timestamp | null;
}

/** The protocols a guest or share session reaches. */
export interface SessionProtocolTable {
  sessionId: string;
  protocolId: string;
}

export interface ThrottleTable {
  key: string;
  failures: number;
  firstFailureAt: Timestamp;
  lastFailureAt: Timestamp;
  lockedUntil: Timestamp | null;
}

export interface AuditEventTable {
  id: string;
  occurredAt: Timestamp;
  application: string;
  tenant: string | null;
  event: string;
  /** JSON: { type, id, ... } */
  resource: string | null;
  protocolId: string | null;
  systemUserId: string | null;
  systemUserName: string | null;
  role: string | null;
  sharedWith: string | null;
  /** JSON list of the patients concerned. */
  patients: string | null;
  /** JSON with the client's or server's extra detail. */
  macro: string | null;
  ip: string | null;
  requestId: string | null;
}

export interface OutboxTable {
  id: string;
  /** EMAIL or SMS */
  channel: string;
  recipient: string;
  subject: string | null;
  /** JSON: mail { text, html } or sms { channel, text } */
  payload: string;
  /** PENDING, SENT or DEAD */
  status: string;
  attempts: number;
  nextAttemptAt: Timestamp;
  lockedUntil: Timestamp | null;
  lastError: string | null;
  dedupeKey: string | null;
  createdAt: Timestamp;
  sentAt: Timestamp | null;
  /**
   * When the one-time link or code the message carries dies (null: it carries none). Unsent by
   * then, or given up, the message keeps its kind and loses its text.
   */
  expiresAt: Timestamp | null;
  /** The institution the message was sent for; null: the portal's own (recovery, MFA, digests). */
  institutionId: string | null;
}

export interface ResultNotificationTable {
  id: string;
  examId: string;
  recipientEmail: string;
  userId: string | null;
  frequency: string;
  language: string;
  createdAt: Timestamp;
  /** Set when the mail (single or digest) holding it was queued in the outbox. */
  queuedAt: Timestamp | null;
}

export interface SmartStatusTable {
  id: string;
  institutionId: string;
  protocolId: string;
  examId: string;
  status: string;
  createdAt: Timestamp;
}

/** The last access-alert mail per patient and protocol (one per window). */
export interface AccessAlertSendTable {
  userId: string;
  protocolId: string;
  sentAt: Timestamp;
}

export interface SettingTable {
  key: string;
  value: string;
}

/** Revision numbers of reference data, moved by triggers (`institutions`: institutions and visualizer settings). */
export interface RevisionTable {
  name: string;
  revision: number;
}

/** Live protocols per list scope ('patient:<id>', 'tag:<id>', 'license:<crm>/<uf>@<institution id>') and day (GMT-3), kept by triggers. */
export interface ProtocolDayCountTable {
  scope: string;
  day: string;
  n: number;
}

/** Revisions of list scopes ('patient:', 'tag:', 'license:') and read marks ('reader:<viewer key>'), moved by triggers. */
export interface ListRevisionTable {
  scope: string;
  revision: number;
}

/** An institution vouching for a physician: his license opens that institution's protocols (docs/security.md). */
export interface PhysicianVouchTable {
  userId: string;
  institutionId: string;
  /** The account that vouched (null: the invitation, or the migration of older accounts). */
  createdBy: string | null;
  createdAt: Timestamp;
}

/** Calls of a subject ('trace:<session id>') in its current window (a minute), shared by every process. */
export interface CallRateTable {
  subject: string;
  windowStart: Timestamp;
  calls: number;
}

/** An MSH-4 sending facility (upper case) and the institution it names (contract 9). */
export interface Hl7SendingFacilityTable {
  facility: string;
  institutionId: string;
  position: number;
}

/** One HL7 v2 message received (MLLP or HTTPS) and the ACK it got: the audit trail of that door. */
export interface Hl7MessageTable {
  id: string;
  institutionId: string | null;
  /** MLLP, MLLP_TLS or HTTPS */
  transport: string;
  remoteAddress: string | null;
  sendingFacility: string | null;
  controlId: string | null;
  messageType: string | null;
  charset: string | null;
  /** The message as received, decoded to text. */
  message: string;
  /** RECEIVED (no answer yet), STORED, REPEATED (a resend of a stored MSH-10), ERROR or REJECTED. */
  outcome: string;
  ackCode: string | null;
  ack: string | null;
  error: string | null;
  /** JSON list of the protocol numbers the message wrote. */
  protocolNumbers: string | null;
  receivedAt: Timestamp;
  completedAt: Timestamp | null;
}

/** A DICOM study an institution sent (contract 9), joined to the exam whose examKey is its Accession Number. */
export interface DicomStudyTable {
  id: string;
  institutionId: string;
  studyUid: string;
  accessionNumber: string;
  studyDate: string | null;
  studyTime: string | null;
  studyDescription: string | null;
  patientName: string | null;
  patientId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface DicomSeriesTable {
  id: string;
  studyId: string;
  seriesUid: string;
  modality: string | null;
  seriesNumber: number | null;
  seriesDescription: string | null;
  createdAt: Timestamp;
}

/** One stored DICOM Part 10 file. */
export interface DicomInstanceTable {
  id: string;
  studyId: string;
  seriesId: string;
  sopUid: string;
  sopClassUid: string;
  transferSyntaxUid: string;
  instanceNumber: number | null;
  rows: number | null;
  columns: number | null;
  numberOfFrames: number;
  storageKey: string;
  size: number;
  sha256: string;
  crc32: number;
  /** DICOM JSON of every element but the pixel data. */
  metadata: string;
  /** JSON `[[offset, length], …][]`: the byte ranges of each frame in the stored file; null when not cut. */
  frames: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A study opened by a session (one audit record per study and session). */
export interface DicomStudyOpenTable {
  sessionId: string;
  studyId: string;
  openedAt: Timestamp;
}

/** One call of an institution's system to an HTTP ingest door (JSON, FHIR, DICOMweb) and the answer it got. */
export interface IngestCallTable {
  id: string;
  institutionId: string;
  /** JSON, FHIR or DICOMweb */
  door: string;
  method: string;
  /** The path without its query (protocol numbers and exam keys are the institution's own keys). */
  path: string;
  status: number;
  /** The answer's message when the call failed (status 400 and above). */
  error: string | null;
  receivedAt: Timestamp;
  durationMs: number;
}

export interface Database {
  institutions: InstitutionTable;
  visualizerSettings: VisualizerSettingTable;
  examHoldRules: ExamHoldRuleTable;
  users: UserTable;
  tags: TagTable;
  tagMembers: TagMemberTable;
  protocols: ProtocolTable;
  protocolRequesters: ProtocolRequesterTable;
  exams: ExamTable;
  resources: ResourceTable;
  analytes: AnalyteTable;
  examReads: ExamReadTable;
  shares: ShareTable;
  shareProtocols: ShareProtocolTable;
  terms: TermTable;
  termAcceptances: TermAcceptanceTable;
  oneTimeTokens: OneTimeTokenTable;
  patientAutoInvitations: PatientAutoInvitationTable;
  mfaCodes: MfaCodeTable;
  sessions: SessionTable;
  sessionProtocols: SessionProtocolTable;
  throttles: ThrottleTable;
  auditEvents: AuditEventTable;
  outbox: OutboxTable;
  resultNotifications: ResultNotificationTable;
  smartStatus: SmartStatusTable;
  appSettings: SettingTable;
  revisions: RevisionTable;
  protocolDayCounts: ProtocolDayCountTable;
  listRevisions: ListRevisionTable;
  physicianVouches: PhysicianVouchTable;
  callRates: CallRateTable;
  hl7SendingFacilities: Hl7SendingFacilityTable;
  hl7Messages: Hl7MessageTable;
  dicomStudies: DicomStudyTable;
  dicomSeries: DicomSeriesTable;
  dicomInstances: DicomInstanceTable;
  dicomStudyOpens: DicomStudyOpenTable;
  ingestCalls: IngestCallTable;
  accessAlertSends: AccessAlertSendTable;
  passkeys: PasskeyTable;
  stampedCopies: StampedCopyTable;
  webauthnChallenges: WebauthnChallengeTable;
}
