import type { FastifyRequest } from 'fastify';
import { AccountMessage } from '@portal/shared/messages';
import type { VouchedPhysician } from '@portal/shared/schemas/accounts';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { administeredInstitution, auditAdmin } from './invitations.service.js';
import {
  deleteVouch,
  findPhysician,
  findVouchedPhysician,
  insertVouch,
  listVouchedPhysicians,
} from './vouches.repository.js';

type VouchedRow = NonNullable<Awaited<ReturnType<typeof findVouchedPhysician>>>;

function toVouched(row: VouchedRow): VouchedPhysician {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    crm: row.licenseNumber,
    uf: row.licenseState,
    active: Boolean(row.active),
    vouchedAt: row.createdAt,
  };
}

/** The physicians an institution vouches for (admins: any institution; company users: their own). */
export async function vouchedPhysicians(ctx: AppContext, auth: AuthContext, institutionId: string) {
  const institution = await administeredInstitution(ctx, auth, institutionId);
  return (await listVouchedPhysicians(ctx.db, institution.id)).map(toVouched);
}

/**
 * The institution vouches for an existing physician account: his license opens its protocols.
 * Answers whether the vouch is new (201) or was already there (200).
 */
export async function vouchForPhysician(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  body: { userId?: string | null; email?: string | null },
): Promise<{ created: boolean; physician: VouchedPhysician }> {
  const institution = await administeredInstitution(ctx, auth, institutionId);
  const physician = await findPhysician(ctx.db, body);
  if (!physician) throw notFound(AccountMessage.userNotFound);
  const created = await insertVouch(ctx.db, {
    userId: physician.id,
    institutionId: institution.id,
    createdBy: auth.userId,
    createdAt: ctx.clock.now().toISOString(),
  });
  const row = await findVouchedPhysician(ctx.db, institution.id, physician.id);
  if (!row) throw notFound(AccountMessage.userNotFound);
  if (created) await auditAdmin(ctx, request, auth, 'PHYSICIAN_VOUCHED', institution.code, { userId: physician.id });
  return { created, physician: toVouched(row) };
}

/** The institution withdraws its vouch: the physician's license no longer opens its protocols. */
export async function withdrawVouch(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  userId: string,
): Promise<void> {
  const institution = await administeredInstitution(ctx, auth, institutionId);
  if (!(await deleteVouch(ctx.db, userId, institution.id))) throw notFound(AccountMessage.userNotFound);
  await auditAdmin(ctx, request, auth, 'PHYSICIAN_UNVOUCHED', institution.code, { userId });
}
