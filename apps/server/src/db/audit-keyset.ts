import { type SelectQueryBuilder, sql } from 'kysely';

/**
 * The rows of an audit-trail query newest first, `chunk` at a time, by keyset on (time, id) of
 * the audit table aliased `a`: memory stays flat and no row is skipped or repeated at any size.
 */
export async function* auditRowsNewestFirst<DB, TB extends keyof DB, O extends { occurredAt: string; id: string }>(
  query: SelectQueryBuilder<DB, TB, O>,
  chunk = 500,
): AsyncGenerator<O[]> {
  const time = sql.ref('a.occurredAt');
  const id = sql.ref('a.id');
  let after: { occurredAt: string; id: string } | null = null;
  for (;;) {
    const page = after
      ? query.where(
          sql<boolean>`(${time} < ${after.occurredAt} or (${time} = ${after.occurredAt} and ${id} < ${after.id}))`,
        )
      : query;
    const rows = (await page.orderBy(time, 'desc').orderBy(id, 'desc').limit(chunk).execute()) as O[];
    yield rows;
    if (rows.length < chunk) return;
    const last = rows[rows.length - 1]!;
    after = { occurredAt: last.occurredAt, id: last.id };
  }
}
