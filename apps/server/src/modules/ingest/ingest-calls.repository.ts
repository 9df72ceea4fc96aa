import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { IngestCallTable } from '../../db/schema.js';

export async function insertIngestCall(db: Db, row: Insertable<IngestCallTable>): Promise<void> {
  await db.insertInto('ingestCalls').values(row).execute();
}

export async function deleteIngestCallsBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('ingestCalls').where('receivedAt', '<', before).execute();
}
