import { zSignatureCheck, type SignatureCheck } from '@portal/shared/schemas/signatures';
import type { AppContext } from '../../context.js';
import type { ResourceTable } from '../../db/schema.js';
import { onFirstUse } from '../../lib/on-first-use.js';

/** The CMS and certificate code (pkijs), loaded with the first signature checked. */
const verifier = onFirstUse(async () => ({
  ...(await import('./signature-verifier.js')),
  ...(await import('./trust-store.js')),
}));

type SignedResource = Pick<
  ResourceTable,
  'id' | 'storageKey' | 'size' | 'signedStorageKey' | 'signedContentType' | 'signedSize' | 'signedSha256'
>;

/** The stored check of a resource's signature, or null without one (or one this version cannot read). */
export function storedSignatureCheck(resource: Pick<ResourceTable, 'signatureCheck'>): SignatureCheck | null {
  if (!resource.signatureCheck) return null;
  try {
    const parsed = zSignatureCheck.safeParse(JSON.parse(resource.signatureCheck));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Checks the signed file of a resource against its bytes (a `.p7s` against the report, a PAdES
 * PDF against itself) and the roots of TRUST_ROOTS_DIR, and keeps the result with the resource,
 * unless the signed file changed meanwhile. Null when the resource has no signed file.
 */
export async function checkResourceSignature(
  ctx: AppContext,
  resource: SignedResource,
): Promise<SignatureCheck | null> {
  if (!resource.signedStorageKey || resource.signedSize === null) return null;
  const { trustStore, verifyDetachedCms, verifyPades } = await verifier();
  const store = await trustStore(ctx.config.trustRootsDir);
  const signed = await ctx.storage.read(resource.signedStorageKey, resource.signedSize);
  const found =
    resource.signedContentType === 'application/pdf'
      ? await verifyPades(signed, store)
      : await verifyDetachedCms(await ctx.storage.read(resource.storageKey, resource.size), signed, store);
  const check: SignatureCheck = { ...found, checkedAt: ctx.clock.now().toISOString() };
  let update = ctx.db
    .updateTable('resources')
    .set({ signatureCheck: JSON.stringify(check) })
    .where('id', '=', resource.id)
    .where('signedStorageKey', '=', resource.signedStorageKey);
  if (resource.signedSha256) update = update.where('signedSha256', '=', resource.signedSha256);
  await update.execute();
  return check;
}
