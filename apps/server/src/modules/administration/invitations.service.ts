import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ServerMessage } from '@portal/shared/errors';
import { DEFAULT_LANGUAGE } from '@portal/shared/limits';
import type { InvitationItem, InvitationKind, zInvitationQuery } from '@portal/shared/schemas/administration';
import type { AppContext } from '../../context.js';
import type { OneTimeTokenKind } from '../../db/schema.js';
import { conflict, notFound } from '../../lib/errors.js';
import { recordAudit } from '../../plugins/audit.js';
import { findInstitutionById, findUserByEmail } from '../accounts/accounts.repository.js';
import { sendInvitation } from '../accounts/invitations.service.js';
import { adminOnly, type Operator, paging, reaches, who } from './administration.service.js';
import {
  CONSOLE_INVITATION_KINDS,
  findInvitation,
  invitationPage,
  lockInvitation,
  REVOKED,
  revokeInvitationRow,
} from './invitations.repository.js';

const KIND_OF: Record<string, InvitationKind> = {
  INVITE_PHYSICIAN: 'PHYSICIAN',
  INVITE_COMPANY: 'COMPANY',
  INVITE_ADMIN: 'ADMIN',
};
const TOKEN_KIND: Record<InvitationKind, OneTimeTokenKind> = {
  PHYSICIAN: 'INVITE_PHYSICIAN',
  COMPANY: 'INVITE_COMPANY',
  ADMIN: 'INVITE_ADMIN',
};

function payloadOf(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/** Admins invite admins: the link opens the console's first-password page (`/admin/invitation`). */
export async function inviteAdmin(
  ctx: AppContext,
  request: FastifyRequest,
  op: Operator,
  body: { email: string; name: string; language?: string | null },
) {
  adminOnly(op);
  if (await findUserByEmail(ctx.db, body.email)) throw conflict(ServerMessage.userAlreadyExists);
  const sent = await ctx.db.transaction().execute((trx) =>
    sendInvitation(ctx, trx, {
      kind: 'INVITE_ADMIN',
      email: body.email,
      institution: null,
      language: body.language ?? DEFAULT_LANGUAGE,
      payload: { name: body.name },
    }),
  );
  await recordAudit(
    ctx,
    {
      event: 'ADMIN_INVITED',
      resource: { type: 'INVITATION', id: sent.id, kind: 'ADMIN' },
      macro: { email: body.email },
      systemUser: who(op),
    },
    request,
  );
  return sent;
}

export async function invitationList(ctx: AppContext, op: Operator, query: z.output<typeof zInvitationQuery>) {
  const { offset, limit } = paging(query);
  const now = ctx.clock.now().toISOString();
  // Company users manage their institution's physicians and company users; admins belong to none.
  const kinds = query.kind
    ? [TOKEN_KIND[query.kind]]
    : op.reach === null
      ? CONSOLE_INVITATION_KINDS
      : CONSOLE_INVITATION_KINDS.filter((k) => k !== 'INVITE_ADMIN');
  const { rows, total } = await invitationPage(
    ctx.db,
    op.reach,
    { search: query.search, kinds, state: query.state, institutionId: query.institutionId },
    now,
    offset,
    limit,
  );
  const items: InvitationItem[] = rows.map((r) => {
    const payload = payloadOf(r.payload);
    return {
      id: r.id,
      kind: KIND_OF[r.kind] ?? 'PHYSICIAN',
      email: r.email ?? '',
      name: text(payload.name),
      crm: text(payload.crm),
      uf: text(payload.uf),
      institution: r.institutionId && r.institutionName ? { id: r.institutionId, name: r.institutionName } : null,
      state: r.status === REVOKED ? 'REVOKED' : r.expiresAt <= now ? 'EXPIRED' : 'PENDING',
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
    };
  });
  return { items, total, page: query.page, size: query.size };
}

/**
 * An invitation the caller manages, not yet taken up (live, expired or revoked). Another
 * institution's, an admin invitation for a company user, or one already used: 404.
 */
async function manageableInvitation(ctx: AppContext, op: Operator, id: string) {
  const row = await findInvitation(ctx.db, id);
  const kind = row ? KIND_OF[row.kind] : undefined;
  if (!row || !kind || (row.usedAt && row.status !== REVOKED)) throw notFound();
  if (op.reach !== null && (kind === 'ADMIN' || !row.institutionId || !reaches(op, row.institutionId))) {
    throw notFound();
  }
  return { row, kind };
}

async function auditInvitation(
  ctx: AppContext,
  request: FastifyRequest,
  op: Operator,
  event: string,
  invitation: { id: string; kind: InvitationKind; email: string | null; tenant: string | null },
  extra: Record<string, unknown> = {},
) {
  await recordAudit(
    ctx,
    {
      event,
      tenant: invitation.tenant,
      resource: { type: 'INVITATION', id: invitation.id, kind: invitation.kind },
      macro: { email: invitation.email, ...extra },
      systemUser: who(op),
    },
    request,
  );
}

/**
 * Withdraws an invitation: its link answers "not found" from now on. Revoking twice changes
 * nothing, also when two revocations cross; one used or replaced meanwhile is gone (404).
 */
export async function revokeInvitation(ctx: AppContext, request: FastifyRequest, op: Operator, id: string) {
  const { row, kind } = await manageableInvitation(ctx, op, id);
  if (row.status === REVOKED) return;
  if (!(await revokeInvitationRow(ctx.db, id, ctx.clock.now().toISOString()))) {
    if ((await findInvitation(ctx.db, id))?.status === REVOKED) return;
    throw notFound();
  }
  const institution = row.institutionId ? await findInstitutionById(ctx.db, row.institutionId) : undefined;
  await auditInvitation(ctx, request, op, 'INVITATION_REVOKED', {
    id,
    kind,
    email: row.email,
    tenant: institution?.code ?? null,
  });
}

/**
 * Sends an invitation again with a new link and 7 more days; the previous link stops working.
 * Refused (409) once the address has an account. Resends, revocations and the acceptance of one
 * invitation take its row one at a time, so a burst of them leaves at most one live link and none
 * for an address that has meanwhile become an account.
 */
export async function resendInvitation(ctx: AppContext, request: FastifyRequest, op: Operator, id: string) {
  const { kind } = await manageableInvitation(ctx, op, id);
  const { sent, email, institution } = await ctx.db.transaction().execute(async (trx) => {
    const row = await lockInvitation(trx, id);
    // Replaced by a resend or used to create the account while this call waited: gone.
    if (!row || (row.usedAt && row.status !== REVOKED)) throw notFound();
    const address = row.email ?? '';
    if (await findUserByEmail(trx, address)) throw conflict(ServerMessage.userAlreadyExists);
    const inviting = row.institutionId ? ((await findInstitutionById(trx, row.institutionId)) ?? null) : null;
    const issued = await sendInvitation(ctx, trx, {
      kind: TOKEN_KIND[kind] as 'INVITE_PHYSICIAN' | 'INVITE_COMPANY' | 'INVITE_ADMIN',
      email: address,
      institution: inviting,
      language: row.language,
      payload: payloadOf(row.payload),
    });
    return { sent: issued, email: address, institution: inviting };
  });
  await auditInvitation(
    ctx,
    request,
    op,
    'INVITATION_RESENT',
    { id, kind, email, tenant: institution?.code ?? null },
    { newInvitationId: sent.id },
  );
  return sent;
}
