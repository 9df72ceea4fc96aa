import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { OneTimeTokenKind } from '../../db/schema.js';
import { contains, type Reach } from './administration.repository.js';

/** The invitation kinds the console manages (external users are managed in their tag). */
export const CONSOLE_INVITATION_KINDS: OneTimeTokenKind[] = ['INVITE_PHYSICIAN', 'INVITE_COMPANY', 'INVITE_ADMIN'];

/** The status a revoked invitation keeps (its `usedAt` is set too, so its link is dead). */
export const REVOKED = 'REVOKED';

export interface InvitationFilter {
  search?: string;
  kinds: OneTimeTokenKind[];
  state?: 'PENDING' | 'EXPIRED' | 'REVOKED';
  institutionId?: string;
}

/**
 * Invitations not taken up: live, expired, or revoked. An invitation used to create an account, or
 * replaced by a newer one to the same address, is no longer listed (the account, or the newer
 * invitation, is). Company users reach their institution's only; admin invitations belong to none.
 */
function invitationQuery(db: Db, reach: Reach, filter: InvitationFilter, now: string) {
  let q = db
    .selectFrom('oneTimeTokens as t')
    .leftJoin('institutions as i', 'i.id', 't.institutionId')
    .where('t.kind', 'in', filter.kinds)
    .where((eb) => eb.or([eb('t.usedAt', 'is', null), eb('t.status', '=', REVOKED)]));
  if (reach) q = reach.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where('t.institutionId', 'in', reach);
  if (filter.institutionId) q = q.where('t.institutionId', '=', filter.institutionId);
  if (filter.state === 'REVOKED') q = q.where('t.status', '=', REVOKED);
  if (filter.state === 'PENDING') q = q.where('t.usedAt', 'is', null).where('t.expiresAt', '>', now);
  if (filter.state === 'EXPIRED') q = q.where('t.usedAt', 'is', null).where('t.expiresAt', '<=', now);
  if (filter.search) {
    const pattern = contains(filter.search.toLowerCase());
    q = q.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['t.email']), 'like', sql<string>`${pattern} escape '\\'`),
        eb(eb.fn('lower', ['t.payload']), 'like', sql<string>`${pattern} escape '\\'`),
      ]),
    );
  }
  return q;
}

export async function invitationPage(
  db: Db,
  reach: Reach,
  filter: InvitationFilter,
  now: string,
  offset: number,
  limit: number,
) {
  const total = await invitationQuery(db, reach, filter, now)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const rows = await invitationQuery(db, reach, filter, now)
    .select([
      't.id',
      't.kind',
      't.email',
      't.payload',
      't.status',
      't.usedAt',
      't.expiresAt',
      't.createdAt',
      't.institutionId',
      'i.name as institutionName',
    ])
    .orderBy('t.createdAt', 'desc')
    .orderBy('t.id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: Number(total?.n ?? 0) };
}

export function findInvitation(db: Db, id: string) {
  return db
    .selectFrom('oneTimeTokens')
    .select(['id', 'kind', 'email', 'payload', 'status', 'usedAt', 'expiresAt', 'institutionId', 'language'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Holds the invitation's row until the transaction ends (a row lock on PostgreSQL; SQLite writes
 * one transaction at a time) and reads it again as it now stands.
 */
export async function lockInvitation(db: Db, id: string) {
  await db
    .updateTable('oneTimeTokens')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('id', '=', id)
    .execute();
  return findInvitation(db, id);
}

/** Revokes a live invitation: its link stops working at once. False when it was no longer live. */
export async function revokeInvitationRow(db: Db, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('oneTimeTokens')
    .set({ usedAt: now, status: REVOKED })
    .where('id', '=', id)
    .where('usedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0) > 0;
}
