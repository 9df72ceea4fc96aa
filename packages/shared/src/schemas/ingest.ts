import { z } from 'zod';
import { RESOURCE_TYPES } from '../exam-status.js';
import { zIsoDate, zTimestamp } from '../validation.js';
import { zExternalKey } from './common.js';

/** Contract 5: the protocol pushed by an institution's system. */
export const zIngestAnalyte = z.object({
  code: z.string().min(1).max(64),
  name: z.string().min(1).max(200),
  unit: z.string().max(32).nullish(),
  value: z.union([z.number(), z.string().max(200)]),
  referenceMin: z.number().nullish(),
  referenceMax: z.number().nullish(),
  referenceText: z.string().max(200).nullish(),
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
      crm: z.string().max(20).nullish(),
      uf: z.string().length(2).toUpperCase().nullish(),
    })
    .nullish(),
  status: z.string().max(40).nullish(),
  rectificationStatus: z.string().max(40).nullish(),
  performedAt: zTimestamp.nullish(),
  deliveredAt: zTimestamp.nullish(),
  isEnabled: z.boolean().nullish(),
  analytes: z.array(zIngestAnalyte).max(500).nullish(),
});

export const zIngestPatient = z.object({
  patientId: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  birthDate: zIsoDate,
  gender: z
    .enum(['FEMALE', 'MALE', 'F', 'M', 'OTHER', 'UNKNOWN'])
    .transform((g) => (g === 'F' ? 'FEMALE' : g === 'M' ? 'MALE' : g)),
  email: z.string().trim().toLowerCase().email().max(254).nullish(),
  phone: z.string().max(32).nullish(),
  cpf: z.string().max(14).nullish(),
  motherName: z.string().max(200).nullish(),
});

export const zIngestProtocol = z
  .object({
    password: z.string().min(1).max(128),
    requestedAt: zTimestamp.nullish(),
    tag: z.string().min(1).max(100).nullish(),
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
