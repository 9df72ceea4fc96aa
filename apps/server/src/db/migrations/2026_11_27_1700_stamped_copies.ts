import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Every stamped copy of a report the portal has handed out stays recognisable at `/validar`: the
 * strip is written in the reader's language (and carries the public address), so one report has
 * several genuine copies, and a copy printed in Portuguese must still match after a Spanish reader
 * downloads another. Each copy's SHA-256 is kept beside the report, once; the single hash kept on
 * the resource before (the last copy handed out) moves here and its column goes.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('stamped_copies')
    .addColumn('resource_id', 'text', (c) => c.notNull().references('resources.id'))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('stamped_copies_pk', ['resource_id', 'sha256'])
    .execute();
  const now = new Date().toISOString();
  await db
    .insertInto('stamped_copies')
    .columns(['resource_id', 'sha256', 'language', 'created_at'])
    .expression(
      db
        .selectFrom('resources')
        .select((eb) => ['id', 'stamped_sha256', eb.val(null).as('language'), eb.val(now).as('created_at')])
        .where('stamped_sha256', 'is not', null),
    )
    .execute();
  await db.schema.alterTable('resources').dropColumn('stamped_sha256').execute();
}
