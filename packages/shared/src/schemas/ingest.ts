import { z } from 'zod';
import { RESOURCE_TYPES } from '../exam-status.js';
import { zIsoDate, zLanguage, zTimestamp } from '../validation.js';
import { zExternalKey } from './common.js';

/**
 * An optional field: institutions' systems often send "" (or blanks) for "not informed", which is
 * taken as absent rather than refused.
 */
function optional<T extends z.ZodTypeAny>(schema: T) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), schema.nullish());
}

/** Contract 5: the protocol pushed by an institution's system. */
export const zIngestAnalyte = z.object({
  code: z.string().min(1).max(64),
  name: z.string().min(1).max(200),
  unit: optional(z.string().max(32)),
  value: z.union([z.number(), z.string().max(200)]),
  referenceMin: z.number().nullish(),
  referenceMax: z.number().nullish(),
  referenceText: optional(z.string().max(200)),
  /** The abnormal flag as the laboratory gives it (HL7 table 0078: H, L, HH, LL, A, N...). */
  abnormalFlag: optional(z.string().trim().max(8)),
});

export const zIngestExam = z.object({
  examKey: zExternalKey,
  description: z.string().min(1).max(300),
  type: z.string().min(1).max(100),
  modalityCode: z.string().min(1).max(32),
  modalityName: z.string().min(1).max(100),
  requester: z
    .object({
      identifier: z.string().min(1).max(100),
      name: z.string().min(1).max(200),
      crm: optional(z.string().trim().max(20)),
      uf: optional(z.string().trim().length(2).toUpperCase()),
    })
    .nullish(),
  status: optional(z.string().trim().max(40)),
  rectificationStatus: optional(z.string().trim().max(40)),
  performedAt: optional(zTimestamp),
  deliveredAt: optional(zTimestamp),
  isEnabled: z.boolean().nullish(),
  analytes: z.array(zIngestAnalyte).max(500).nullish(),
});

export type IngestExam = z.output<typeof zIngestExam>;

export const zIngestPatient = z.object({
  patientId: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  birthDate: zIsoDate,
  gender: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
    z
      .enum(['FEMALE', 'MALE', 'F', 'M', 'OTHER', 'UNKNOWN'])
      .transform((g) => (g === 'F' ? 'FEMALE' : g === 'M' ? 'MALE' : g)),
  ),
  email: optional(z.string().trim().toLowerCase().email().max(254)),
  phone: optional(z.string().trim().max(32)),
  cpf: optional(z.string().trim().max(14)),
  motherName: optional(z.string().trim().max(200)),
  /** The name the patient goes by (social name), when the institution keeps one. */
  preferredName: optional(z.string().trim().max(200)),
});

export const zIngestProtocol = z
  .object({
    password: z.string().min(1).max(128),
    requestedAt: optional(zTimestamp),
    /** The tag's text; a new text creates the tag in the institution. */
    tag: optional(z.string().trim().max(100)),
    patient: zIngestPatient,
    exams: z.array(zIngestExam).max(500),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.exams.forEach((e, i) => {
      if (seen.has(e.examKey)) {
        ctx.addIssue({ code: 'custom', path: ['exams', i, 'examKey'], message: 'duplicate examKey' });
      }
      seen.add(e.examKey);
    });
  });
export type IngestProtocol = z.output<typeof zIngestProtocol>;

export const zResourceType = z.enum(RESOURCE_TYPES);

export const RESOURCE_CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'application/dicom'] as const;
export const SIGNED_CONTENT_TYPES = ['application/pkcs7-signature', 'application/pdf'] as const;

/** Path of the protocol calls: the institution's own protocol number. */
export const zIngestProtocolParams = z.object({ number: zExternalKey });

/** Path of the resource calls: the institution's own keys, never a path. */
export const zIngestResourceParams = z.object({
  number: zExternalKey,
  examKey: zExternalKey,
  identifier: zExternalKey,
});

export const zIngestResourceQuery = z.object({ type: zResourceType });

/** The invitation may name the mail's language (pt-br by default). */
export const zIngestInviteBody = z.object({ language: zLanguage.optional() }).nullish();
export const zIngestInviteQuery = z.object({ language: zLanguage.optional() });

/** Answer of the protocol calls (contract 5). */
export const zIngestProtocolResult = z.object({ requestId: z.string(), number: z.string() });
export type IngestProtocolResult = z.output<typeof zIngestProtocolResult>;

/** Answer of a resource upload: what the server stored. */
export const zIngestResourceResult = z.object({
  requestId: z.string(),
  number: z.string(),
  examKey: z.string(),
  identifier: z.string(),
  type: zResourceType,
  contentType: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  pageCount: z.number().int().nullable(),
  signed: z.boolean(),
});
export type IngestResourceResult = z.output<typeof zIngestResourceResult>;
