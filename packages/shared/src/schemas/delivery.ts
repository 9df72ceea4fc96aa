import { z } from 'zod';
import { zBrDate } from '../validation.js';
import { TRACE_LIMITS } from '../limits.js';
import { envelope, paged, zPage } from './common.js';
import { zProtocolNoticeView } from './institution.js';

/** Query strings send booleans as text. */
export const zQueryBool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', ''])])
  .transform((v) => v === true || v === 'true' || v === '1');

const zOptionalBrDate = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(zBrDate.optional());

/** Contract 2: `size` above the maximum is cut, never refused. */
const zSize = z.coerce.number().int().min(1).optional();

/** Spec 2.7 and 7.3-7.4: filters shared by every protocol list. */
export const zProtocolListQuery = z.object({
  initialDate: zOptionalBrDate,
  finalDate: zOptionalBrDate,
  tag: z.string().max(64).optional(),
  institutionCode: z.string().max(64).optional(),
  forceRefresh: zQueryBool.optional(),
  search: z.string().max(200).optional(),
  read: z.enum(['all', 'read', 'unread']).optional(),
  orderBy: z.enum(['date', 'patient', 'institution']).optional(),
  /** Spec 2.7: the physician's advanced filters, each a part of the text it names (case and accents aside). */
  protocol: z.string().max(64).optional(),
  patient: z.string().max(200).optional(),
  institution: z.string().max(200).optional(),
  /** The guest list form (spec 7.4) names the protocol and the date of birth again. */
  username: z.string().max(254).optional(),
  birthdate: zOptionalBrDate,
  page: zPage,
  size: zSize,
});
export type ProtocolListQuery = z.output<typeof zProtocolListQuery>;

export const zByTotalQuery = z.object({
  total: z.coerce.number().int().min(1).max(100).default(10),
  institutionCode: z.string().max(64).optional(),
});

export const zResource = z.object({
  type: z.string(),
  identifier: z.string(),
  hasSignedFile: z.boolean(),
});

/**
 * Release holds (issue 22): an exam under a hold rule of its institution. `withheld` says the
 * viewer is on the patient's side and gets no file, value or image of it; the requesting
 * physician sees the result with `withheld: false` and `canRelease` while he may release it.
 */
export const zExamHold = z.object({
  rule: z.enum(['HOURS', 'PHYSICIAN', 'IN_PERSON']),
  /** HOURS: when the hold ends by itself. */
  until: z.string().nullable(),
  /** The institution's text for the patient; null: the portal's translated default. */
  message: z.string().nullable(),
  withheld: z.boolean(),
  canRelease: z.boolean(),
});
export type ExamHold = z.output<typeof zExamHold>;

export const zHoldRelease = z.object({ examId: z.string().min(1).max(64) });

export const zExam = z.object({
  id: z.string(),
  examKey: z.string(),
  description: z.string(),
  type: z.string(),
  modality: z.object({ name: z.string() }),
  modalityCode: z.string(),
  modalityName: z.string(),
  requester: z.object({ identifier: z.string().nullable(), name: z.string().nullable() }),
  requesterName: z.string().nullable(),
  resources: z.array(zResource),
  identifierReport: z.string().nullable(),
  identifierImage: z.string().nullable(),
  examRead: z.boolean(),
  rectificationStatus: z.string().nullable(),
  status: z.string().nullable(),
  statusCode: z.string(),
  deliveredAt: z.string().nullable(),
  performedAt: z.string().nullable(),
  hasSignedFile: z.boolean(),
  isEnabled: z.boolean(),
  hideImageButtonExam: z.boolean(),
  hasImageResolved: z.boolean(),
  /** The exam's DICOM study (Study Instance UID), given in the protocol detail only; the viewer opens it over DICOMweb. */
  dicomStudyUid: z.string().nullable().optional(),
  /** Present while a hold rule of the institution holds the result (null or absent: not held). */
  hold: zExamHold.nullable().optional(),
});
export type Exam = z.output<typeof zExam>;

export const zListedExam = z.object({
  id: z.string(),
  description: z.string(),
  /** Spec 4.1's display code. */
  statusCode: z.string(),
  rectificationStatus: z.string().nullable(),
  examRead: z.boolean(),
  /** Present while a hold rule of the institution holds the result. */
  hold: zExamHold.nullable().optional(),
});
export type ListedExam = z.output<typeof zListedExam>;

export const zProtocolItem = z.object({
  requestId: z.string(),
  number: z.string(),
  requestedAt: z.string().nullable(),
  requestedAtFormated: z.string().nullable(),
  institution: z.object({ id: z.string(), name: z.string(), token: z.string() }),
  patient: z.object({
    name: z.string(),
    patientId: z.string(),
    birthDate: z.string(),
    gender: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  }),
  hasAtLeastOneRectification: z.boolean(),
  hasExamStatusVisualizer: z.boolean(),
  hasPatientUser: z.boolean(),
  hasImageResolved: z.boolean(),
  showAllButton: z.boolean(),
  showHistoricButton: z.boolean(),
  protocolRead: z.boolean(),
  allExamsRead: z.boolean(),
  tagID: z.string().nullable(),
  hasTag: z.boolean(),
  institutionId: z.string(),
  examsIds: z.array(z.string()),
  /** Each served exam's name and status, so a list row says in words where each exam stands. */
  examList: z.array(zListedExam),
  /** Only in the detail answers; lists load exams lazily. */
  exams: z.array(zExam).optional(),
  /** Only in the detail answers: the institution's protocol-screen notice, null when it has none. */
  institutionNotice: zProtocolNoticeView.nullable().optional(),
  /** External list additions (spec 3). */
  institutionToken: z.string().optional(),
  institutionName: z.string().optional(),
  patientName: z.string().optional(),
  patientBirthDate: z.string().optional(),
});
export type ProtocolItem = z.output<typeof zProtocolItem>;

export const zProtocolPage = envelope(paged(zProtocolItem));
export const zProtocolListAnswer = envelope(z.array(zProtocolItem));
export const zProtocolAnswer = envelope(zProtocolItem);
export const zExamListAnswer = envelope(z.array(zExam));

export const zProtocolExamsQuery = z.object({
  request: z.string().max(64).optional(),
  requestId: z.string().max(64).optional(),
  tag: z.string().max(64).optional(),
});
export const zProtocolByIdQuery = z.object({ id: z.string().min(1).max(64) });
export const zExamsByIdQuery = z.object({ byId: z.string().min(1).max(64), userId: z.string().max(64).optional() });

export const zResourceQuery = z.object({
  resourceId: z.string().min(1).max(64),
  request: z.string().max(64).optional(),
  birthdate: z.string().max(10).optional(),
  showAll: zQueryBool.optional(),
  /** Issue 22.3: a PDF report's copy with its verification code and QR code in the margin. */
  stamp: zQueryBool.optional(),
});

/** Spec 3 and contract 7: batch printing. The list length is checked by the service for the exact messages. */
export const zBatchPrintRequest = z.object({
  userId: z.string().max(64).nullish(),
  requestIds: z.array(z.string().min(1).max(64)).max(1000),
  groupId: z.string().max(64).nullish(),
  isCompressed: z.boolean().optional().default(false),
});

/** Contract 8 'History'. */
export const zHistoryRangeQuery = z.object({ initialDate: zOptionalBrDate, finalDate: zOptionalBrDate });
export const zHistoryAttributesQuery = zHistoryRangeQuery.extend({ examTypeInstitutionId: z.string().min(1).max(400) });
export const zHistoryQuery = zHistoryAttributesQuery.extend({ attributeId: z.string().min(1).max(400) });
export const zIdName = z.object({ id: z.string(), name: z.string() });
export const zIdNameList = envelope(z.array(zIdName));
export const zHistoryAnswer = envelope(
  z.object({
    columns: z.array(z.string()),
    rows: z.array(z.array(z.string())),
    series: z.array(
      z.object({
        date: z.string(),
        value: z.union([z.number(), z.string()]),
        unit: z.string().nullable(),
        referenceMin: z.number().nullable(),
        referenceMax: z.number().nullable(),
        /** The laboratory's abnormal flag (H, L, HH, LL, A...), null when none was sent. */
        abnormalFlag: z.string().nullable(),
      }),
    ),
    /** Whose results and from where, as the institution sent them (the printed history's heading). */
    patient: z.object({ name: z.string(), birthDate: z.string() }).nullable().optional(),
    institution: z.object({ id: z.string(), name: z.string() }).nullable().optional(),
  }),
);

/** Spec 3: a trace record sent by the client. */
export const zTraceRecord = z.object({
  application: z.string().max(100).optional(),
  pixeonId: z.string().max(100).nullish(),
  tenant: z.string().max(100).nullish(),
  event: z.string().min(1).max(100),
  resource: z.unknown().optional(),
  occurredAt: z.string().max(40).nullish(),
  systemUser: z.object({ id: z.string().max(100).nullish(), name: z.string().max(200).nullish() }).nullish(),
  sharedWith: z.string().max(254).nullish(),
  patients: z
    .array(
      z.object({
        id: z.string().max(100).nullish(),
        name: z.string().max(200).nullish(),
        preferredName: z.string().max(200).nullish(),
        document: z.string().max(40).nullish(),
        birthDate: z.string().max(40).nullish(),
        motherName: z.string().max(200).nullish(),
        data: z
          .array(z.object({ label: z.string().max(200), key: z.string().max(200), value: z.string().max(1000) }))
          .max(50)
          .nullish(),
      }),
    )
    .max(50)
    .nullish(),
  macro: z.unknown().optional(),
});
export const zTraceRecords = z.array(zTraceRecord).min(1).max(TRACE_LIMITS.recordsPerCall);
export const zTraceQuery = z.object({ protocol: z.string().min(1).max(64), page: zPage, size: zSize });
export const zTraceItem = z.object({
  id: z.string(),
  occurredAt: z.string(),
  application: z.string(),
  tenant: z.string().nullable(),
  event: z.string(),
  resource: z.unknown().nullable(),
  systemUser: z.object({ id: z.string().nullable(), name: z.string().nullable(), role: z.string().nullable() }),
  sharedWith: z.string().nullable(),
  patients: z.unknown().nullable(),
  macro: z.unknown().nullable(),
});
export const zTracePage = envelope(paged(zTraceItem));

/** SMART interlocution (spec 7.4). */
export const zSmartAuthQuery = z.object({
  institution: z.string().min(1).max(64),
  exam: z.string().min(1).max(128),
  token: z.string().max(4096).optional(),
});
export const zSmartUpdateStatus = z.object({
  authentication: z.string().min(1).max(4096),
  request: z.string().min(1).max(64),
  exam: z.string().min(1).max(128),
  status: z.string().max(40).optional(),
});

/** Administration reads (spec 7.2). */
export const zDirectoryInstitution = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  token: z.string(),
  viewType: z.number(),
  logoPath: z.string().nullable(),
  supportEmail: z.string().nullable(),
  supportPhoneNumber: z.string().nullable(),
  supportWhatsAppNumber: z.string().nullable(),
});
/** A municipality of IBGE's list: its 7-digit IBGE code, name, federative unit and whether it is the capital. */
export const zCity = z.object({ code: z.string(), name: z.string(), uf: z.string(), capital: z.boolean() });
export const zUserLookupQuery = z.object({
  userName: z.string().min(1).max(254),
  language: z.string().max(10).optional(),
});
export const zDirectoryUser = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  type: z.string(),
  active: z.boolean(),
  disabled: z.boolean(),
  language: z.string(),
  institutionId: z.string().nullable(),
});
export const zUserTag = z.object({
  id: z.string(),
  tag: z.string(),
  institutionId: z.string(),
  institutionName: z.string(),
  value: z.string(),
  text: z.string(),
  /** The external user's favourite group (spec 2.10): his dashboard opens filtered by it. */
  favorite: z.boolean(),
});
