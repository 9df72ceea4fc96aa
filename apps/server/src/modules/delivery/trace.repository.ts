import type { Db } from '../../db/database.js';

export async function protocolsForTrace(
  db: Db,
  idOrNumber: string,
): Promise<Array<{ id: string; institutionId: string }>> {
  const byId = await db.selectFrom('protocols').select(['id', 'institutionId']).where('id', '=', idOrNumber).execute();
  if (byId.length > 0) return byId;
  return db.selectFrom('protocols').select(['id', 'institutionId']).where('number', '=', idOrNumber).execute();
}

/** The audit trail of some protocols, newest first, over the audit_events_protocol index. */
export async function auditTrail(db: Db, protocolIds: readonly string[], offset: number, limit: number) {
  if (protocolIds.length === 0) return { rows: [], total: 0 };
  const base = db.selectFrom('auditEvents').where('protocolId', 'in', protocolIds);
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('occurredAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: Number(count?.n ?? 0) };
}
