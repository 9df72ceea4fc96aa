import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Hl7MessageTable } from '../../db/schema.js';

export type Hl7MessageRow = Selectable<Hl7MessageTable>;

export async function insertHl7MessageRow(db: Db, row: Insertable<Hl7MessageTable>): Promise<void> {
  await db.insertInto('hl7Messages').values(row).execute();
}

export async function updateHl7MessageRow(db: Db, id: string, changes: Updateable<Hl7MessageTable>): Promise<void> {
  await db.updateTable('hl7Messages').set(changes).where('id', '=', id).execute();
}

/** The message of that institution and MSH-10 that was stored, if one was. */
export function findStoredHl7Message(
  db: Db,
  institutionId: string,
  controlId: string,
): Promise<Pick<Hl7MessageRow, 'id' | 'protocolNumbers'> | undefined> {
  return db
    .selectFrom('hl7Messages')
    .select(['id', 'protocolNumbers'])
    .where('institutionId', '=', institutionId)
    .where('controlId', '=', controlId)
    .where('outcome', '=', 'STORED')
    .executeTakeFirst();
}
