import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Outbox messages name the institution they were sent for (its invitations, its patients' result
 * notices, shares of its protocols), so the console counts waiting and failed mails per institution
 * and a company user sees its own. Messages of no institution (password recovery, MFA codes, a
 * digest over several institutions) and those queued before this keep null: the portal's.
 */
export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('institution_id', 'text').execute();
  await db.schema.createIndex('outbox_institution_status').on('outbox').columns(['institution_id', 'status']).execute();
}
