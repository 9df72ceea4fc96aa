import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * An institution with `autoInvitePatients` invites a patient without an account when his first
 * protocol arrives (spec 3's status AUTO_INVITE). One row per institution and patient (the
 * institution's patient id): its primary key is what lets 30 ingests of that patient in flight
 * send exactly one invitation.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('patient_auto_invitations')
    .addColumn('institution_id', 'text', (c) => c.notNull())
    .addColumn('patient_external_id', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('patient_auto_invitations_pk', ['institution_id', 'patient_external_id'])
    .execute();
}
