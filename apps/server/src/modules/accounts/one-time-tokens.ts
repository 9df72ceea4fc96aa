import { ServerMessage } from '@portal/shared/errors';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import type { OneTimeTokenKind } from '../../db/schema.js';
import { addMs } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId, newSecretToken, sha256Hex } from '../../lib/ids.js';
import {
  findOneTimeTokenByHash,
  insertOneTimeToken,
  markOneTimeTokenUsed,
  type OneTimeTokenRow,
} from './accounts.repository.js';

/*
 * Activation, reset and invitation tokens (contract 8): 256 random bits mailed once, only their
 * sha256 kept, single use, with an expiry. A database leak therefore yields no usable link.
 */

export interface NewOneTimeToken {
  kind: OneTimeTokenKind;
  ttlMs: number;
  userId?: string | null;
  email?: string | null;
  institutionId?: string | null;
  payload?: Record<string, unknown>;
  language: string;
  status?: string;
}

export interface IssuedToken {
  id: string;
  token: string;
  expiresAt: string;
}

export async function issueOneTimeToken(ctx: AppContext, db: Db, input: NewOneTimeToken): Promise<IssuedToken> {
  const now = ctx.clock.now();
  const token = newSecretToken();
  const id = newId();
  const expiresAt = addMs(now, input.ttlMs).toISOString();
  await insertOneTimeToken(db, {
    id,
    kind: input.kind,
    tokenHash: sha256Hex(token),
    userId: input.userId ?? null,
    email: input.email ?? null,
    institutionId: input.institutionId ?? null,
    payload: JSON.stringify(input.payload ?? {}),
    status: input.status ?? 'CREATED',
    language: input.language,
    expiresAt,
    usedAt: null,
    createdAt: now.toISOString(),
  });
  return { id, token, expiresAt };
}

export const tokenExpired = () => new AppError(400, ServerMessage.tokenExpired);

/**
 * The live token of one of `kinds`: unknown, used or of another kind gives 404 'Token not found',
 * expired gives 400 with a message containing 'expired.' (spec 8).
 */
export async function findLiveToken(
  ctx: AppContext,
  db: Db,
  token: string,
  kinds: OneTimeTokenKind[],
): Promise<OneTimeTokenRow> {
  const row = await findOneTimeTokenByHash(db, sha256Hex(token));
  if (!row || !kinds.includes(row.kind) || row.usedAt) throw notFound(ServerMessage.tokenNotFound);
  if (row.expiresAt <= ctx.clock.now().toISOString()) throw tokenExpired();
  return row;
}

/** Uses a token up; a second concurrent use of the same token loses and gets 'Token not found'. */
/** Invitations whose use creates (or first opens) an account: spec 3's status ON_CREATION once used. */
const INVITATION_KINDS: ReadonlySet<string> = new Set([
  'INVITE_PATIENT',
  'INVITE_PHYSICIAN',
  'INVITE_COMPANY',
  'INVITE_ADMIN',
  'EXTERNAL_FIRST_PASSWORD',
]);

export async function consumeToken(ctx: AppContext, db: Db, row: OneTimeTokenRow): Promise<void> {
  const status = INVITATION_KINDS.has(row.kind) ? 'ON_CREATION' : undefined;
  if (!(await markOneTimeTokenUsed(db, row.id, ctx.clock.now().toISOString(), status))) {
    throw notFound(ServerMessage.tokenNotFound);
  }
}

export function tokenPayload(row: OneTimeTokenRow): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(row.payload);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
