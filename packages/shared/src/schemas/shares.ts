import { z } from 'zod';
import {
  PRINT_MAX_PROTOCOLS,
  SHARE_DEFAULT_PERIOD_DAYS,
  SHARE_MAX_EMAILS,
  SHARE_MESSAGE_MAX,
  SHARE_MIN_EMAILS,
  SHARE_PERIODS_DAYS,
} from '../limits.js';
import { zEmail, zLanguage } from '../validation.js';
import { paged } from './common.js';

/** Spec 3 share request; `token` in the body is ignored (contract 8: the bearer authenticates). */
export const zShareCreate = z.object({
  emails: z
    .array(zEmail)
    .min(SHARE_MIN_EMAILS)
    .max(SHARE_MAX_EMAILS)
    .transform((list) => [...new Set(list)]),
  protocols: z.array(z.string().min(1).max(64)).min(1).max(PRINT_MAX_PROTOCOLS),
  message: z.string().max(SHARE_MESSAGE_MAX).nullish(),
  period: z.coerce
    .number()
    .int()
    .refine((p) => (SHARE_PERIODS_DAYS as readonly number[]).includes(p), {
      message: `period must be one of ${SHARE_PERIODS_DAYS.join(', ')}`,
    })
    .default(SHARE_DEFAULT_PERIOD_DAYS),
  language: zLanguage.nullish(),
  institutionId: z.string().max(64).nullish(),
  token: z.unknown().optional(),
});
export type ShareCreate = z.output<typeof zShareCreate>;

export const zShareCreated = z.object({
  shares: z.array(z.object({ id: z.string(), email: z.string(), expiresAt: z.string() })),
});

/** Contract 8: one record of the shares list. */
export const zShareRecord = z.object({
  id: z.string(),
  creationDate: z.string().nullable(),
  protocolNumber: z.string(),
  protocolNumbers: z.array(z.string()),
  email: z.string(),
  daysExpiration: z.number(),
  expiresAt: z.string(),
  active: z.boolean(),
  expired: z.boolean(),
  canceled: z.boolean(),
});
export type ShareRecord = z.output<typeof zShareRecord>;

export const zShareList = paged(zShareRecord);

export const zShareListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .transform((s) => Math.min(s, 100)),
});
