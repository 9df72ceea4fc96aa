import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * An institution with `createAccountDefaultDisabled` holds the accounts its invitations and
 * protocols bring until it enables them: the account keeps the institution it waits for, so that
 * institution's company users find it and sign-in says why it is refused.
 */
export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('users').addColumn('awaiting_institution_id', 'text').execute();
  await db.schema.createIndex('users_awaiting_institution').on('users').column('awaiting_institution_id').execute();
}
