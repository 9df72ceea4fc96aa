import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { TermTable } from '../../db/schema.js';

export type TermRow = Selectable<TermTable>;

/** The newest version of each term type for a user type. */
export async function currentTerms(db: Db, userType: string): Promise<TermRow[]> {
  const rows = await db.selectFrom('terms').selectAll().where('userType', '=', userType).execute();
  const newest = new Map<string, TermRow>();
  for (const row of rows) {
    const seen = newest.get(row.termType);
    if (!seen || row.version > seen.version) newest.set(row.termType, row);
  }
  return [...newest.values()].sort((a, b) => a.termType.localeCompare(b.termType));
}

export async function acceptedTermIds(db: Db, userId: string, termIds: string[]): Promise<Set<string>> {
  if (termIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('termAcceptances')
    .select('termId')
    .where('userId', '=', userId)
    .where('termId', 'in', termIds)
    .execute();
  return new Set(rows.map((r) => r.termId));
}

export async function insertAcceptances(db: Db, userId: string, termIds: string[], acceptedAt: string) {
  if (termIds.length === 0) return;
  await db
    .insertInto('termAcceptances')
    .values(termIds.map((termId) => ({ userId, termId, acceptedAt })))
    .onConflict((oc) => oc.columns(['userId', 'termId']).doNothing())
    .execute();
}

export async function findUserTypeAndLanguage(db: Db, userId: string) {
  return db.selectFrom('users').select(['type', 'language']).where('id', '=', userId).executeTakeFirst();
}
