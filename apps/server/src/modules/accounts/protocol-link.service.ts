import type { FastifyRequest } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import { AccountMessage } from '@portal/shared/messages';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { AppError, conflict, notFound } from '../../lib/errors.js';
import { verifyPassword } from '../../lib/passwords.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { attemptSubject, guarded } from '../../plugins/throttle.js';
import { findProtocolsByNumber, linkProtocols, type ProtocolForLink } from './protocol-link.repository.js';

export interface ProtocolCredentials {
  protocol: string;
  password: string;
  customLogin?: string | null;
}

/*
 * Protocol number + password is a guessable secret pair: every check goes through the attempt
 * gate (contract 8) under the protocol number's one counter, the one sign-in uses too, and the
 * client address; unknown numbers count as well.
 */
async function checkCredentials(
  ctx: AppContext,
  request: FastifyRequest,
  input: ProtocolCredentials,
): Promise<ProtocolForLink[]> {
  const number = input.protocol.trim();
  const matching = await guarded(ctx, { subject: attemptSubject.protocol(number), address: request.ip }, async () => {
    const rows = await findProtocolsByNumber(ctx.db, number, input.customLogin?.trim().toUpperCase() || null);
    if (rows.length === 0) {
      await verifyPassword(null, input.password);
      throw notFound(ServerMessage.protocolDoesNotExist);
    }
    const right: ProtocolForLink[] = [];
    for (const row of rows) {
      if (await verifyPassword(row.passwordHash, input.password)) right.push(row);
    }
    if (right.length === 0) throw new AppError(400, ServerMessage.passwordsNotTheSame);
    return right;
  });
  const live = matching.filter((row) => !row.disabled);
  if (live.length === 0) throw notFound(ServerMessage.noProtocolRetrieved);
  return live;
}

/** The protocols a patient (or a patient to be) may link: refuses ones already linked. */
function linkable(rows: ProtocolForLink[], patientUserId: string | null): ProtocolForLink[] {
  if (rows.some((row) => row.patientUserId && row.patientUserId !== patientUserId)) {
    throw conflict(AccountMessage.protocolLinkedToAnotherAccount);
  }
  const free = rows.filter((row) => !row.patientUserId);
  if (free.length === 0) throw conflict(ServerMessage.protocolAlreadyInUse);
  return free;
}

/** isValidProtocol: the pair is right and the protocol can still be linked (by the caller, if any). */
export async function validateProtocol(
  ctx: AppContext,
  request: FastifyRequest,
  input: ProtocolCredentials,
  callerUserId: string | null,
): Promise<void> {
  linkable(await checkCredentials(ctx, request, input), callerUserId);
}

/** Checks the pair and returns the protocols to link to a new account (registration). */
export async function protocolsForNewAccount(
  ctx: AppContext,
  request: FastifyRequest,
  input: ProtocolCredentials,
): Promise<string[]> {
  return linkable(await checkCredentials(ctx, request, input), null).map((row) => row.id);
}

export async function linkProtocolIds(ctx: AppContext, db: Db, protocolIds: string[], userId: string) {
  return linkProtocols(db, protocolIds, userId, ctx.clock.now().toISOString());
}

/** bindProtocol: a patient links a protocol to his own account. */
export async function bindProtocol(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  input: ProtocolCredentials & { patientUserId: string },
): Promise<string[]> {
  if (auth.role !== 'PATIENT' || !auth.userId) throw new AppError(403, ServerMessage.forbidden);
  // Linking to someone else's account would hand him the protocol: "not yours" looks like not found.
  if (input.patientUserId !== auth.userId) throw notFound(AccountMessage.userNotFound);
  const free = linkable(await checkCredentials(ctx, request, input), auth.userId);
  const ids = free.map((row) => row.id);
  await ctx.db.transaction().execute(async (trx) => {
    const linked = await linkProtocolIds(ctx, trx, ids, auth.userId as string);
    if (linked !== ids.length) throw conflict(AccountMessage.protocolLinkedToAnotherAccount);
    for (const row of free) {
      await recordAudit(
        ctx,
        {
          event: 'PROTOCOL_LINKED',
          tenant: row.institutionCode,
          protocolId: row.id,
          resource: { type: 'PROTOCOL', id: row.id, number: row.number },
          systemUser: { id: auth.userId, name: auth.username, role: auth.role },
        },
        request,
        trx,
      );
    }
  });
  return ids;
}
