import { z } from 'zod';
import { zLanguage } from '../validation.js';

/** Spec 4.4: service terms and privacy policy, versioned per user type. */
export const TERM_TYPES = ['TERMS', 'PP'] as const;
export const TERM_USER_TYPES = ['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'COMPANY'] as const;

export const zTermQuery = z.object({
  userType: z.string().toUpperCase().pipe(z.enum(TERM_USER_TYPES)).default('PATIENT'),
  language: zLanguage.nullish(),
});

export const zTerm = z.object({
  id: z.string(),
  termType: z.enum(TERM_TYPES),
  userType: z.string(),
  version: z.number(),
  language: z.string(),
  /** The text in the requested language. */
  data: z.string(),
  createdAt: z.string(),
});

/** A current term the caller has not accepted yet (spec 3: termType, newTerm, data). */
export const zPendingTerm = zTerm.extend({ newTerm: z.boolean() });

export const zTermUserQuery = z.object({ language: zLanguage.nullish() });

export const zAcceptTerms = z.object({ termIds: z.array(z.string().min(1).max(64)).min(1).max(10) });
export const zAcceptedTerms = z.object({ accepted: z.array(z.string()), acceptedAt: z.string() });
