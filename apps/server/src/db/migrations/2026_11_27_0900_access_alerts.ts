import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * "Who saw my results": a patient may ask for a mail when someone else opens a result (off by
 * default). At most one such mail per protocol per window: the last one sent is kept per patient
 * and protocol, and the accesses it told of are those before it.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('access_alerts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('access_alert_sends')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('protocol_id', 'text', (c) => c.notNull().references('protocols.id'))
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('access_alert_sends_pk', ['user_id', 'protocol_id'])
    .execute();
}
