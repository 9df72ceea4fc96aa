import type { FastifyRequest } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import { DEFAULT_LANGUAGE } from '@portal/shared/limits';
import type { ShareCreate, ShareRecord } from '@portal/shared/schemas/shares';
import type { AppContext } from '../../context.js';
import { addMs } from '../../lib/clock.js';
import { AppError, notFound, tooManyAttempts } from '../../lib/errors.js';
import { newId, newSecretToken, sha256Hex } from '../../lib/ids.js';
import { recordAudit } from '../../plugins/audit.js';
import { type AuthContext, issueSession } from '../../plugins/auth.js';
import { holdSubject } from '../../plugins/call-rate.js';
import { attemptSubject, guarded } from '../../plugins/throttle.js';
import { institutionSettings } from '../accounts/institution-page.service.js';
import { queueMail } from '../outbox/outbox.service.js';
import { canManageShares, shareState, sharingAllowed } from './shares.policy.js';
import {
  cancelShare,
  countSharesSince,
  findOwnProtocols,
  findPatientShare,
  insertShare,
  listPatientShares,
  setShareTokenHash,
  shareProtocolIds,
} from './shares.repository.js';

const DAY_MS = 24 * 3600_000;
/** Recipients a patient may add per hour: shares send mails, so they must not become a spam relay. */
export const SHARE_RECIPIENTS_PER_HOUR = 25;

/*
 * The share row decides when a link ends (expiry or revocation): the session check answers
 * 'The shared access is expired!' from it. The token itself outlives the share by this grace so
 * that an expired link gets that message rather than the generic one of an expired token.
 */
const SHARE_TOKEN_GRACE_MS = 30 * DAY_MS;

function patientOnly(auth: AuthContext): string {
  if (auth.role !== 'PATIENT' || !auth.userId) throw new AppError(403, ServerMessage.forbidden);
  return auth.userId;
}

/**
 * Shares protocols by e-mail (spec 2.9, 4.7; contract 4, 8): one share record and one SHARE
 * session per recipient, valid until the share expires or is revoked.
 */
export async function createShares(ctx: AppContext, request: FastifyRequest, auth: AuthContext, body: ShareCreate) {
  const userId = patientOnly(auth);
  const now = ctx.clock.now();
  // Refused early when already over, before any protocol is looked at; counted again below.
  const recent = await countSharesSince(ctx.db, userId, addMs(now, -3600_000).toISOString());
  if (recent + body.emails.length > SHARE_RECIPIENTS_PER_HOUR) throw tooManyAttempts(3600);

  const requested = [...new Set(body.protocols)];
  // Probing other patients' protocol ids counts like a failed guess, through the attempt gate.
  const protocols = await guarded(ctx, { subject: attemptSubject.share(userId), address: request.ip }, async () => {
    const own = await findOwnProtocols(ctx.db, userId, requested);
    if (own.length !== requested.length) throw notFound(ServerMessage.protocolDoesNotExist);
    return own;
  });
  if (protocols.some((p) => !sharingAllowed(institutionSettings({ settings: p.institutionSettings })))) {
    throw new AppError(403, ServerMessage.shareNotAllowed);
  }
  const language = body.language ?? DEFAULT_LANGUAGE;
  const expiresAt = addMs(now, body.period * DAY_MS);
  const institutionId = body.institutionId ?? protocols[0]?.institutionId ?? null;
  const protocolIds = protocols.map((p) => p.id);
  const username = protocols.length === 1 ? (protocols[0]?.number ?? '') : '';
  const senderName = protocols[0]?.patientName ?? auth.username;

  // The limit holds against calls in flight at once, in any server process: the patient's
  // recent shares are counted again, and the new ones inserted, while holding the patient.
  const reserved = await ctx.db.transaction().execute(async (trx) => {
    await holdSubject(trx, `shares:${userId}`, now);
    const counted = await countSharesSince(trx, userId, addMs(now, -3600_000).toISOString());
    if (counted + body.emails.length > SHARE_RECIPIENTS_PER_HOUR) throw tooManyAttempts(3600);
    const rows: Array<{ id: string; email: string }> = [];
    for (const email of body.emails) {
      const shareId = newId();
      await insertShare(
        trx,
        {
          id: shareId,
          patientUserId: userId,
          email,
          // Replaced by the hash of the session token right after it is signed.
          tokenHash: sha256Hex(newSecretToken()),
          message: body.message?.trim() || null,
          daysExpiration: body.period,
          language,
          institutionId,
          active: 1,
          createdAt: now.toISOString(),
          expiresAt: expiresAt.toISOString(),
          canceledAt: null,
        },
        protocolIds,
      );
      rows.push({ id: shareId, email });
    }
    return rows;
  });

  const created: Array<{ id: string; email: string; expiresAt: string }> = [];
  for (const [index, { id: shareId, email }] of reserved.entries()) {
    try {
      const session = await issueSession(ctx, {
        role: 'SHARE',
        shareId,
        username: username || shareId,
        protocolIds,
        expiresAt: addMs(expiresAt, SHARE_TOKEN_GRACE_MS),
      });
      await ctx.db.transaction().execute(async (trx) => {
        await setShareTokenHash(trx, shareId, sha256Hex(session.accessToken));
        await queueMail(
          ctx,
          {
            kind: 'protocolShared',
            to: email,
            language,
            link: `${ctx.config.publicUrl}/landing/${session.accessToken}`,
            institutionName: protocols[0]?.institutionName ?? null,
            institutionId,
            params: {
              institution: protocols[0]?.institutionName ?? null,
              senderName,
              message: body.message?.trim() || null,
              days: body.period,
              expiresAt: expiresAt.toISOString(),
              protocols: protocols.map((p) => p.number).join(', '),
            },
          },
          trx,
        );
        for (const protocol of protocols) {
          await recordAudit(
            ctx,
            {
              event: 'SHARE_CREATED',
              tenant: protocol.institutionCode,
              protocolId: protocol.id,
              resource: { type: 'SHARE', id: shareId, protocolNumber: protocol.number },
              systemUser: { id: userId, name: auth.username, role: auth.role },
              sharedWith: email,
              macro: { daysExpiration: body.period, expiresAt: expiresAt.toISOString() },
            },
            request,
            trx,
          );
        }
      });
    } catch (error) {
      // A share without its mail or trace must not stay usable, nor those not reached yet.
      await ctx.db.transaction().execute(async (trx) => {
        for (const left of reserved.slice(index)) await cancelShare(trx, left.id, ctx.clock.now().toISOString());
      });
      throw error;
    }
    created.push({ id: shareId, email, expiresAt: expiresAt.toISOString() });
  }
  return { shares: created };
}

export async function listShares(
  ctx: AppContext,
  auth: AuthContext,
  patientUserId: string,
  page: number,
  size: number,
): Promise<{ items: ShareRecord[]; total: number; page: number; size: number }> {
  if (!canManageShares(auth, patientUserId)) throw notFound();
  const now = ctx.clock.now().toISOString();
  const { total, shares, numbers } = await listPatientShares(ctx.db, patientUserId, page, size);
  const items = shares.map((share) => {
    const protocolNumbers = numbers.filter((n) => n.shareId === share.id).map((n) => n.number);
    return {
      id: share.id,
      creationDate: share.createdAt ?? null,
      protocolNumber: protocolNumbers.join(', '),
      protocolNumbers,
      email: share.email,
      daysExpiration: share.daysExpiration,
      expiresAt: share.expiresAt,
      ...shareState(share, now),
    };
  });
  return { items, total, page, size };
}

/** Revokes a share: its link stops working at once (401 '... is expired!'). Revoking twice is harmless. */
export async function revokeShare(ctx: AppContext, request: FastifyRequest, auth: AuthContext, shareId: string) {
  const userId = patientOnly(auth);
  const share = await findPatientShare(ctx.db, userId, shareId);
  if (!share) throw notFound();
  const protocols = await shareProtocolIds(ctx.db, share.id);
  const now = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    // Ended already, or by another revocation in flight: revoked once, traced once.
    if (!(await cancelShare(trx, share.id, now))) return;
    for (const protocol of protocols) {
      await recordAudit(
        ctx,
        {
          event: 'SHARE_REVOKED',
          tenant: protocol.institutionCode,
          protocolId: protocol.id,
          resource: { type: 'SHARE', id: share.id, protocolNumber: protocol.number },
          systemUser: { id: userId, name: auth.username, role: auth.role },
          sharedWith: share.email,
        },
        request,
        trx,
      );
    }
  });
}
