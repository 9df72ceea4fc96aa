import { z } from 'zod';

/**
 * An institution's own key used in a URL path (protocol number, exam key, resource identifier):
 * letters, digits, dot, dash and underscore, never a path (no slash, no leading dot).
 */
export const zExternalKey = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/, 'only letters, digits, ".", "-" and "_" (not starting with ".")');

export const zPage = z.coerce.number().int().min(1).default(1);

/** The success envelope of contract section 2. */
export function envelope<T extends z.ZodTypeAny>(data: T) {
  return z.object({ data, message: z.string().optional() });
}

export const zErrorBody = z.object({ message: z.string(), data: z.unknown().optional() });

export function paged<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    size: z.number().int(),
  });
}
