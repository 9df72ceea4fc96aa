import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/** The tables whose every change moves the `institutions` revision. */
const INSTITUTION_TABLES = ['institutions', 'visualizer_settings'] as const;

/*
 * A revision number per kind of reference data, moved by triggers whatever writes the data. The
 * session statement of every call reads the `institutions` revision, so a server process keeps
 * institutions and their visualizer settings in memory and knows at once, in every process, when
 * they changed.
 */
export async function up(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('revisions')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.insertInto('revisions').values({ name: 'institutions', revision: 0 }).execute();
  const bump = `update revisions set revision = revision + 1 where name = 'institutions'`;
  if (dialect === 'sqlite') {
    for (const table of INSTITUTION_TABLES) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql
          .raw(`create trigger ${table}_revision_${event} after ${event} on ${table} begin ${bump}; end`)
          .execute(db);
      }
    }
  } else {
    await sql
      .raw(
        `create function institutions_revision_bump() returns trigger language plpgsql as $$
        begin ${bump}; return null; end $$`,
      )
      .execute(db);
    for (const table of INSTITUTION_TABLES) {
      await sql
        .raw(
          `create trigger ${table}_revision after insert or update or delete on ${table}
            for each statement execute function institutions_revision_bump()`,
        )
        .execute(db);
    }
  }
}
